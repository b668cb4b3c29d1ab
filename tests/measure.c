#include "measure.h"
#include "../pmu/msr.h"
#include "../lib/str.h"

#define MAX_REPEAT 1001
#define M_TRIES 5 /* windows tried before SMIs are said to keep disturbing */

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
	p->ops->stop(p, pmu_all_mask(p));
	p->ops->reset(p);
}

int m_setup(struct check_ctx *c, unsigned ctr, enum pmu_generic g, uint32_t flags)
{
	struct pmu *p = c->pmu;
	struct pmu_event ev;

	if (ctr >= p->n || p->ops->generic_event(p, g, ctr, &ev) != 0)
		return -1;
	p->ops->stop(p, 1ull << ctr);
	if (p->ops->program(p, ctr, &ev, flags) != HW_OK)
		return -1;
	if (p->ops->write(p, ctr, 0, PMU_WRITE_PRELOAD) != HW_OK)
		return -1;
	return 0;
}

int m_counter_for(struct check_ctx *c, enum pmu_generic g, unsigned from)
{
	struct pmu_event ev;
	for (unsigned i = from; i < c->pmu->n; i++)
		if (c->pmu->ops->generic_event(c->pmu, g, i, &ev) == 0)
			return (int)i;
	return -1;
}

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
	p->ops->start(p, mask);
	if (msr)
		wst = hw_wrmsr(msr, val);
	hw_run_workload(w, iters);
	p->ops->stop(p, mask);
	if (irq)
		hw_irq_enable();
	if (wst != HW_OK)
		return M_WRITE_GP;
	if (smi && m_smi_count(c, &smi1) && smi1 != smi0)
		return M_SMI;
	return M_OK;
}

/* One buffer for every repeated measurement: the checks run one at a time,
 * and the image's .data carries it in full. */
static uint64_t m_buf[MAX_REPEAT];

static unsigned repeats(const struct check_ctx *c)
{
	unsigned rep = c->opt->repeat ? c->opt->repeat : 1;
	return rep > MAX_REPEAT ? MAX_REPEAT : rep;
}

static int zero_and_run(struct check_ctx *c, unsigned ctr, uint64_t start, uint32_t msr,
			uint64_t val, const struct workload *w, uint64_t iters, uint64_t *out)
{
	struct pmu *p = c->pmu;
	for (int tries = 0; tries < M_TRIES; tries++) {
		if (p->ops->write(p, ctr, 0, PMU_WRITE_PRELOAD) != HW_OK)
			return M_FAULT;
		int st = m_window_write(c, start, msr, val, w, iters);
		if (st == M_SMI)
			continue; /* disturbed by an SMI: repeat, never report */
		if (st != M_OK)
			return st;
		return p->ops->read(p, ctr, out) == HW_OK ? M_OK : M_FAULT;
	}
	return M_SMI;
}

void m_stat(uint64_t *v, unsigned n, struct stat3 *out)
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

#define SIGN_FLIP (1ull << 63) /* orders signed values as unsigned ones */

int m_diff(struct check_ctx *c, unsigned ctr, uint64_t start, uint32_t msr, uint64_t val,
	   const struct workload *w, uint64_t n, struct mdiff *out)
{
	unsigned rep = repeats(c);
	unsigned sh = 64 - c->pmu->ctr[ctr].width;
	struct stat3 s;

	for (unsigned r = 0; r < rep; r++) {
		uint64_t a, b;
		int st = zero_and_run(c, ctr, start, msr, val, w, n, &a);
		if (st == 0)
			st = zero_and_run(c, ctr, start, msr, val, w, 2 * n, &b);
		if (st)
			return st;
		/* sign-extend the difference from the counter's width */
		m_buf[r] = (uint64_t)((int64_t)((b - a) << sh) >> sh) ^ SIGN_FLIP;
	}
	m_stat(m_buf, rep, &s);
	out->med = (int64_t)(s.med ^ SIGN_FLIP);
	out->min = (int64_t)(s.min ^ SIGN_FLIP);
	out->max = (int64_t)(s.max ^ SIGN_FLIP);
	out->rep = rep;
	out->agree = 0;
	for (unsigned r = 0; r < rep; r++)
		out->agree += m_buf[r] == s.med;
	return 0;
}

int m_events(struct check_ctx *c, unsigned ctr, const struct workload *w, uint64_t n,
	     struct stat3 *out)
{
	struct mdiff d = { 0, 0, 0, 0, 0 };
	uint64_t mask = pmu_width_mask(c->pmu->ctr[ctr].width);
	int st = m_diff(c, ctr, 1ull << ctr, 0, 0, w, n, &d);

	out->min = (uint64_t)d.min & mask;
	out->med = (uint64_t)d.med & mask;
	out->max = (uint64_t)d.max & mask;
	return st;
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
	else
		check_fail(c, "%s: the measurement faulted (preloading or reading the counter)",
			   what);
}

unsigned m_slack(const struct check_ctx *c)
{
	if (c->cpu->vendor != VENDOR_AMD && c->cpu->vendor != VENDOR_HYGON)
		return 0;
	/* K8 BKDG §10.1 says only that identical measurements are not
	 * assured, with no bound: the harness allows a few events, 8 per
	 * window on K7 to Fam16h and 4 from Zen (family 17h) on, far below
	 * the 10000 that one extra event per iteration adds to a window. */
	return c->cpu->family >= 0x17 ? 4 : 8;
}

/* Value j of sample r lives in m_buf[j * M_CLEAN_MAX + r]: no buffer of
 * its own in the image (a sample function does not use m_diff). */
_Static_assert(M_CLEAN_K * M_CLEAN_MAX <= MAX_REPEAT, "m_buf holds every sample");

int m_median_clean(struct check_ctx *c, unsigned rep, unsigned k, m_sample_fn fn, void *arg,
		   struct stat3 *out)
{
	uint64_t v[M_CLEAN_K];
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
			m_buf[j * M_CLEAN_MAX + got] = v[j];
		got++;
	}
	for (unsigned j = 0; j < k; j++)
		m_stat(&m_buf[j * M_CLEAN_MAX], got, &out[j]);
	return (int)got;
}
