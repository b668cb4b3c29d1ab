#include "measure.h"
#include "hv_policy.h"
#include "../pmu/msr.h"
#include "../lib/str.h"
#include "../lib/fmt.h"
#include "../pmu/percpu.h"
#include "../apic/pmi.h"
#include "../pmu/intel_arch.h"

#define MAX_REPEAT 1001 /* repeats at most (the repeat option), odd */
#define M_TRIES	   5	/* windows tried before SMIs are said to keep disturbing */

const char *m_gen_name(enum pmu_generic g)
{
	static const char *const n[GEN_COUNT] = {
	    "cycles",		"instructions", "branches",  "branch-misses",
	    "cache-references", "cache-misses", "ref-cycles"};
	return g < GEN_COUNT ? n[g] : "?";
}

void m_quiesce(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int e = p->ops->stop(p, pmu_all_mask(p));

	e |= p->ops->reset(p);
	(void)e; /* not judged: see measure.h */
}

/* The counter(s) an op was on: one counter by name, the PMU for mask 0. */
static void who(const struct pmu *p, uint64_t mask, char *buf, size_t len)
{
	if (!mask)
		pmh_fmt(buf, len, "%s", p->name);
	else if (!(mask & (mask - 1)) && mask < (1ull << p->n))
		pmh_fmt(buf, len, "%s", p->ctr[__builtin_ctzll(mask)].name);
	else
		pmh_fmt(buf, len, "counters 0x%llx", (unsigned long long)mask);
}

bool m_op(struct check_ctx *c, int e, enum m_op op, uint64_t mask, uint64_t arg)
{
	/* names in place, not pointers: no relocation entries in the image */
	static const char name[][24] = {
	    [MO_PROGRAM] = "programming",
	    [MO_WRITE] = "write",
	    [MO_READ] = "read",
	    [MO_START] = "start",
	    [MO_STOP] = "stop",
	    [MO_STATUS] = "overflow status read",
	    [MO_ACK] = "ack",
	    [MO_PRELOAD] = "preload",
	};
	char w[24], what[48];

	if (e == HW_OK)
		return true;
	who(c->pmu, mask, w, sizeof(w));
	if (op == MO_PRELOAD)
		pmh_fmt(what, sizeof(what), "preload of -%llu", (unsigned long long)arg);
	else if (op == MO_WRITE)
		pmh_fmt(what, sizeof(what), "write of 0x%llx", (unsigned long long)arg);
	else
		pmh_fmt(what, sizeof(what), "%s", name[op]);
	if (e == HW_UNSUPPORTED)
		check_skip(c, "%s: %s: not supported by %s", w, what, c->pmu->name);
	else
		check_fail(c, "%s: %s failed: %s", w, what, hw_err_name(e));
	return false;
}

bool m_preload(struct check_ctx *c, unsigned ctr, uint64_t n)
{
	c->fig.ctrs |= 1ull << ctr;
	return m_op(c, pmu_preload(c->pmu, ctr, n), MO_PRELOAD, 1ull << ctr, n);
}

bool m_write(struct check_ctx *c, unsigned ctr, uint64_t v, enum pmu_write_path path)
{
	return m_op(c, c->pmu->ops->write(c->pmu, ctr, v, path), MO_WRITE, 1ull << ctr, v);
}

bool m_read(struct check_ctx *c, unsigned ctr, uint64_t *v)
{
	return m_op(c, c->pmu->ops->read(c->pmu, ctr, v), MO_READ, 1ull << ctr, 0);
}

bool m_rdmsr(struct check_ctx *c, uint32_t msr, uint64_t *v)
{
	int e = hw_rdmsr(msr, v);

	if (e != HW_OK)
		check_fail(c, "RDMSR 0x%x failed: %s", msr, hw_err_name(e));
	return e == HW_OK;
}

bool m_wrmsr(struct check_ctx *c, uint32_t msr, uint64_t v)
{
	int e = hw_wrmsr(msr, v);

	if (e != HW_OK)
		check_fail(c, "WRMSR 0x%x <- 0x%llx failed: %s", msr, (unsigned long long)v,
			   hw_err_name(e));
	return e == HW_OK;
}

bool m_start(struct check_ctx *c, uint64_t mask)
{
	return m_op(c, c->pmu->ops->start(c->pmu, mask), MO_START, mask, 0);
}

bool m_stop(struct check_ctx *c, uint64_t mask)
{
	return m_op(c, c->pmu->ops->stop(c->pmu, mask), MO_STOP, mask, 0);
}

bool m_ovf(struct check_ctx *c, uint64_t *mask)
{
	return m_op(c, c->pmu->ops->overflow_status(c->pmu, mask), MO_STATUS, 0, 0);
}

bool m_ack(struct check_ctx *c, uint64_t mask)
{
	return m_op(c, c->pmu->ops->ack(c->pmu, mask), MO_ACK, mask, 0);
}

int m_setup(struct check_ctx *c, unsigned ctr, enum pmu_generic g, uint32_t flags)
{
	struct pmu *p = c->pmu;
	struct pmu_event ev;
	int e;

	if (ctr >= p->n || p->ops->generic_event(p, g, ctr, &ev) != HW_OK || hv_is_taken(c, ctr))
		return M_REFUSED;   /* (a counter the host holds is no one's to measure) */
	c->fig.ctrs |= 1ull << ctr; /* for the results JSON */
	if (!m_stop(c, 1ull << ctr))
		return M_FAULT;
	/* a refusal is the driver's answer for this counter and these flags,
	 * for the caller to take; a fault is a failure */
	e = p->ops->program(p, ctr, &ev, flags);
	if (e == HW_REFUSED || e == HW_UNSUPPORTED)
		return M_REFUSED;
	char why[RESULT_MSG];
	if (hv_gp_withheld(c, ctr, m_gen_name(g), e, why, sizeof(why))) {
		check_skip(c, "%s", why); /* the hypervisor's list, not a fault */
		return M_FAULT;
	}
	if (!m_op(c, e, MO_PROGRAM, 1ull << ctr, 0) || !m_write(c, ctr, 0, PMU_WRITE_PRELOAD))
		return M_FAULT;
	return M_OK;
}

bool m_setup_or_fail(struct check_ctx *c, unsigned ctr, enum pmu_generic g, uint32_t flags)
{
	int st = m_setup(c, ctr, g, flags);
	char w[24];

	if (st == M_REFUSED) {
		who(c->pmu, 1ull << ctr, w, sizeof(w));
		check_fail(c, "%s: programming %s (flags 0x%x) refused", w, m_gen_name(g), flags);
	}
	return st == M_OK;
}

unsigned m_each_counter(struct check_ctx *c, enum pmu_generic g, uint32_t flags, m_counter_fn one,
			void *arg)
{
	unsigned tested = 0;

	for (unsigned i = 0; i < c->pmu->n; i++) {
		int st = m_setup(c, i, g, flags);
		if (st == M_REFUSED)
			continue;
		tested++;
		if (st != M_OK || !one(c, i, arg))
			break;
	}
	return tested;
}

int m_counter_for(struct check_ctx *c, enum pmu_generic g, unsigned from)
{
	struct pmu_event ev;
	for (unsigned i = from; i < c->pmu->n; i++)
		if (c->pmu->ops->generic_event(c->pmu, g, i, &ev) == HW_OK && !hv_is_taken(c, i))
			return (int)i;
	return -1;
}

/* MSR_SMI_COUNT (0x34, Intel from Nehalem on) where it reads: false
 * elsewhere, where an SMI cannot be told. */
bool m_smi_count(const struct check_ctx *c, uint64_t *v)
{
	return c->cpu->vendor == VENDOR_INTEL && hw_rdmsr(MSR_SMI_COUNT, v) == HW_OK;
}

int m_window(struct check_ctx *c, uint64_t mask, const struct workload *w, uint64_t iters)
{
	return m_window_write(c, mask, 0, 0, w, iters);
}

int m_window_write(struct check_ctx *c, uint64_t mask, uint32_t msr, uint64_t val,
		   const struct workload *w, uint64_t iters)
{
	struct pmu *p = c->pmu;
	uint64_t smi0 = 0, smi1 = 0;
	bool smi = m_smi_count(c, &smi0);
	bool irq = hw_irq_enabled();
	int wst = HW_OK;

	/* The firmware's timer must not land inside the window. */
	hw_irq_disable();
	int on = p->ops->start(p, mask);
	if (msr)
		wst = hw_wrmsr(msr, val);
	int ust = HW_OK;
	if (c->user)
		ust = hw_user_run(w, iters);
	else
		hw_run_workload(w, iters);
	int off = p->ops->stop(p, mask);
	if (irq)
		hw_irq_enable();
	if (!m_op(c, on, MO_START, mask, 0))
		return M_FAULT;
	if (ust != HW_OK) {
		check_fail(c, "the workload %s at CPL 3 came back with %s: not measured", w->name,
			   hw_err_name(ust));
		return M_FAULT;
	}
	/* Not measured. A stop refused too is the same write refused again
	 * (the gate and stop() write one register): the gate write names it. */
	if (wst != HW_OK)
		return M_WRITE_GP;
	if (!m_op(c, off, MO_STOP, mask, 0))
		return M_FAULT;
	if (smi && m_smi_count(c, &smi1) && smi1 != smi0)
		return M_SMI;
	return M_OK;
}

/* One buffer for every repeated measurement: the checks run one at a time
 * on a CPU (one buffer per CPU, pmu/percpu.h), and the image's .data
 * carries it in full. */
static uint64_t m_buf[MAX_REPEAT] PMH_PERCPU;

static unsigned repeats(const struct check_ctx *c)
{
	unsigned rep = c->opt->repeat ? c->opt->repeat : 1;
	return rep > MAX_REPEAT ? MAX_REPEAT : rep;
}

static int zero_and_run(struct check_ctx *c, unsigned ctr, uint64_t start, uint32_t msr,
			uint64_t val, const struct workload *w, uint64_t iters, bool smi_ok,
			uint64_t *out)
{
	for (int tries = 0; tries < M_TRIES; tries++) {
		if (!m_write(c, ctr, 0, PMU_WRITE_PRELOAD))
			return M_FAULT;
		int st = m_window_write(c, start, msr, val, w, iters);
		if (st == M_SMI && !smi_ok)
			continue; /* disturbed by an SMI: repeat, never report */
		if (st == M_SMI)
			st = M_OK;
		if (st != M_OK)
			return st;
		return m_read(c, ctr, out) ? M_OK : M_FAULT;
	}
	return M_SMI;
}

/* min/median/max of v[0..n-1] (sorted in place). */
static void m_stat(uint64_t *v, unsigned n, struct stat3 *out)
{
	for (unsigned i = 1; i < n; i++) { /* insertion sort: n is small */
		uint64_t x = v[i];
		unsigned j = i;
		while (j && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	out->min = n ? v[0] : 0;
	out->med = n ? v[n / 2] : 0;
	out->max = n ? v[n - 1] : 0;
}

int64_t m_median(int64_t *v, unsigned n, unsigned *agree)
{
	for (unsigned i = 1; i < n; i++) { /* insertion sort: n is small */
		int64_t x = v[i];
		unsigned j = i;
		while (j && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	if (agree) {
		*agree = 0;
		for (unsigned i = 0; i < n; i++)
			*agree += v[i] == v[n / 2];
	}
	return v[n / 2];
}

/* The samples of the figure check_figures took last. */
static struct fig_samples *fig_smp(struct check_ctx *c)
{
	return c->fig.to_also ? &c->fig.also.smp : &c->fig.smp;
}

void check_figures_as(struct check_ctx *c, const char *name, const char *unit)
{
	if (c->fig.to_also) {
		c->fig.also.name = name;
		c->fig.also.unit = unit;
	} else {
		c->fig.name = name;
		c->fig.unit = unit;
	}
}

void check_figures_next(struct check_ctx *c)
{
	c->fig.to_also = c->fig.set; /* no figure yet: the next is the first */
}

/* Keeps n samples of the figure just taken (median med) for the report's
 * plots: all, in the order taken, where they fit (v unsorted); else
 * FIG_SAMPLES of them evenly spaced by rank (v sorted: min and max among
 * them); none where one lies more than 2^31 from the median (its min and
 * max still say it). */
static void keep_samples(struct check_ctx *c, const int64_t *v, unsigned n, int64_t med)
{
	struct fig_samples *f = fig_smp(c);
	unsigned k = n < FIG_SAMPLES ? n : FIG_SAMPLES;

	f->n = 0;
	f->of = n;
	for (unsigned i = 0; i < k; i++) {
		int64_t d =
		    v[n <= FIG_SAMPLES ? i : (uint64_t)i * (n - 1) / (FIG_SAMPLES - 1)] - med;
		if (d > INT32_MAX || d < INT32_MIN)
			return;
		f->d[i] = (int32_t)d;
	}
	f->n = k;
}

static int diff_rep(struct check_ctx *c, unsigned ctr, uint64_t start, uint32_t msr, uint64_t val,
		    const struct workload *w, uint64_t n, unsigned rep, bool smi_ok,
		    struct mdiff *out)
{
	unsigned sh = 64 - c->pmu->ctr[ctr].width;
	int64_t *d = (int64_t *)PCPU(m_buf); /* the signed view of the same words */

	for (unsigned r = 0; r < rep; r++) {
		uint64_t a, b;
		int st = zero_and_run(c, ctr, start, msr, val, w, n, smi_ok, &a);
		if (st == M_OK)
			st = zero_and_run(c, ctr, start, msr, val, w, 2 * n, smi_ok, &b);
		if (st != M_OK)
			return st;
		/* sign-extend the difference from the counter's width */
		d[r] = (int64_t)((b - a) << sh) >> sh;
	}
	int64_t ord[FIG_SAMPLES]; /* in the order taken, for the report */
	pmh_memcpy(ord, d, (rep < FIG_SAMPLES ? rep : FIG_SAMPLES) * sizeof(*d));
	out->med = m_median(d, rep, &out->agree);
	out->min = d[0];
	out->max = d[rep - 1];
	out->rep = rep;
	check_figures(c, out->min, out->med, out->max);
	keep_samples(c, rep <= FIG_SAMPLES ? ord : d, rep, out->med);
	return M_OK;
}

int m_diff(struct check_ctx *c, unsigned ctr, uint64_t start, uint32_t msr, uint64_t val,
	   const struct workload *w, uint64_t n, struct mdiff *out)
{
	int st = diff_rep(c, ctr, start, msr, val, w, n, repeats(c), false, out);
	if (st == M_OK && out->med >= (int64_t)n / 2)
		hv_counted(c, ctr); /* under a hypervisor: it counted (hv_failed) */
	return st;
}

int m_diff_rep(struct check_ctx *c, unsigned ctr, uint64_t start, const struct workload *w,
	       uint64_t n, unsigned rep, bool smi_ok, struct mdiff *out)
{
	rep = rep < 1 ? 1 : (rep > MAX_REPEAT ? MAX_REPEAT : rep);
	int st = diff_rep(c, ctr, start, 0, 0, w, n, rep, smi_ok, out);
	if (st == M_OK && out->med >= (int64_t)n / 2)
		hv_counted(c, ctr);
	return st;
}

bool m_overflow(struct check_ctx *c, unsigned ctr)
{
	return m_preload(c, ctr, M_OVF_PERIOD) &&
	       m_window(c, 1ull << ctr, &wl_loop, M_OVF_ITERS) != M_FAULT;
}

int m_per_n(struct check_ctx *c, unsigned ctr, uint32_t msr, uint64_t val, int64_t *out)
{
	struct mdiff d;
	int st = m_diff(c, ctr, 1ull << ctr, msr, val, &wl_loop, M_N_ITERS, &d);

	*out = st == M_OK ? d.med : 0;
	return st;
}

void m_fail_status(struct check_ctx *c, int st, uint32_t msr, const char *what)
{
	if (st == M_WRITE_GP)
		check_fail(c, "%s: the gate write to MSR 0x%x raised #GP: not measured", what, msr);
	else if (st == M_SMI)
		check_fail(c,
			   "%s: the measurement kept being disturbed (an SMI in each of %u "
			   "windows): not measured",
			   what, M_TRIES);
	else if (c->v != V_FAIL && c->v != V_SKIP)
		check_fail(c, "%s: the measurement faulted (preloading or reading the counter)",
			   what);
}

#define AMD_FAMILY_ZEN 0x17 /* Zen: family 17h on */
#define AMD_SLACK_K7   8
#define AMD_SLACK_ZEN  4

unsigned m_slack(const struct check_ctx *c)
{
	if (c->cpu->vendor != VENDOR_AMD && c->cpu->vendor != VENDOR_HYGON)
		return 0;
	/* K8 BKDG §10.1 says only that identical measurements are not
	 * assured, with no bound: the harness allows a few events, 8 per
	 * window on K7 to Fam16h and 4 from Zen (family 17h) on, far below
	 * the M_N_ITERS that one extra event per iteration adds. */
	return c->cpu->family >= AMD_FAMILY_ZEN ? AMD_SLACK_ZEN : AMD_SLACK_K7;
}

#define M_STR(x)  #x
#define M_XSTR(x) M_STR(x)

const char *m_slack_text(const struct check_ctx *c)
{
	if (!m_slack(c))
		return "exact (Intel)";
	if (c->cpu->family >= AMD_FAMILY_ZEN)
		return "AMD +-" M_XSTR(AMD_SLACK_ZEN) " events a window (K8 BKDG 10.1)";
	return "AMD +-" M_XSTR(AMD_SLACK_K7) " events a window (K8 BKDG 10.1)";
}

/* Value j of sample r lives in m_buf[j * M_CLEAN_MAX + r]: no buffer of
 * its own in the image (a sample function does not use m_diff). */
_Static_assert(M_CLEAN_K *M_CLEAN_MAX <= MAX_REPEAT, "m_buf holds every sample");
_Static_assert(M_CLEAN_MAX <= FIG_SAMPLES, "a figure keeps every calibration sample");

int m_median_clean(struct check_ctx *c, unsigned rep, unsigned k, m_sample_fn fn, void *arg,
		   struct stat3 *out)
{
	uint64_t v[M_CLEAN_K], *buf = PCPU(m_buf);
	unsigned got = 0;

	rep = rep < 1 ? 1 : rep > M_CLEAN_MAX ? M_CLEAN_MAX : rep;
	k = k > M_CLEAN_K ? M_CLEAN_K : k;
	for (unsigned t = 0; t < 2 * rep + 3 && got < rep; t++) {
		int st = fn(c, arg, v);
		if (st < 0)
			return st;
		if (st)
			continue; /* an SMI was counted: not a sample */
		for (unsigned j = 0; j < k; j++)
			buf[j * M_CLEAN_MAX + got] = v[j];
		got++;
	}
	int64_t ord[M_CLEAN_MAX]; /* the first value's samples in the order taken */
	for (unsigned r = 0; r < got; r++)
		ord[r] = (int64_t)buf[r];
	for (unsigned j = 0; j < k; j++)
		m_stat(&buf[j * M_CLEAN_MAX], got, &out[j]);
	if (got) {
		check_figures(c, (int64_t)out[0].min, (int64_t)out[0].med, (int64_t)out[0].max);
		keep_samples(c, ord, got, (int64_t)out[0].med);
	}
	return (int)got;
}
