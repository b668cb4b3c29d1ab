/* counter.write-running: a counter written while it counts goes on from the
 * value written, and a preload written while it counts still overflows into
 * its PMI (kvm-unit-tests x86/pmu.c check_running_counter_wrmsr writes a
 * running counter and expects both). Windows: start, the driver's write of
 * X (its own path: twice on NetBurst, erratum N15, Linux p4.c
 * p4_pmu_set_period), the workload, stop; the same with 0 written. What a
 * counter counts after the write is the same code in both, so the two
 * counts differ by X: exactly on Intel, within the family's slack on AMD
 * (K8 BKDG §10.1), a clock within CLOCK_DIV. */
#include "pmi_common.h"
#include "../hv_policy.h"
#include "../../pmu/percpu.h"

/* Below bit 31 (no legacy write sign-extends it) and far from any wrap. */
#define WRITTEN 0x12345678ull
#define REP_MAX 15 /* repeats at most (the repeat option, capped) */
#define TRIES	5  /* windows tried when each saw an SMI */
/* A clock's count after the write may differ by 1/CLOCK_DIV between the
 * two windows: ours, as count.all-at-once's (no document bounds a loop's
 * cycles from one window to the next). */
#define CLOCK_DIV 16

static const enum pmu_generic events[] = {GEN_INSTRUCTIONS, GEN_BRANCHES, GEN_CYCLES,
					  GEN_REF_CYCLES};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))

/* One window of counter i from 0: started, written v by the driver,
 * M_N_ITERS of wl_loop, stopped; its count in *out. M_OK, M_SMI (in every
 * try), M_FAULT (FAILed). */
static int written_window(struct check_ctx *c, unsigned i, uint64_t v, uint64_t *out)
{
	struct pmu *p = c->pmu;
	uint64_t bit = 1ull << i;

	for (unsigned t = 0; t < TRIES; t++) {
		uint64_t smi0 = 0, smi1 = 0;
		if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
			return M_FAULT;
		bool smi = m_smi_count(c, &smi0), irq = hw_irq_enabled();
		hw_irq_disable(); /* the firmware's timer stays out */
		int on = p->ops->start(p, bit);
		int w = p->ops->write(p, i, v, PMU_WRITE_PRELOAD);
		hw_run_workload(&wl_loop, M_N_ITERS);
		int off = p->ops->stop(p, bit);
		if (irq)
			hw_irq_enable();
		if (!m_op(c, on, MO_START, bit, 0) || !m_op(c, w, MO_WRITE, bit, v) ||
		    !m_op(c, off, MO_STOP, bit, 0))
			return M_FAULT;
		if (smi && m_smi_count(c, &smi1) && smi1 != smi0)
			continue; /* an SMI in the window: again */
		return m_read(c, i, out) ? M_OK : M_FAULT;
	}
	return M_SMI;
}

struct pair {
	int64_t d, after;    /* median X-window minus 0-window; median 0-window count */
	unsigned agree, rep; /* repeats whose difference is the median */
};

/* The two windows of counter i, repeated. M_OK or written_window()'s. */
static int measure(struct check_ctx *c, unsigned i, struct pair *out)
{
	static int64_t d_cpu[REP_MAX] PMH_PERCPU, after_cpu[REP_MAX] PMH_PERCPU;
	int64_t *d = PCPU(d_cpu), *after = PCPU(after_cpu);
	unsigned rep =
	    c->opt->repeat < 1 ? 1 : (c->opt->repeat > REP_MAX ? REP_MAX : c->opt->repeat);
	unsigned sh = 64 - c->pmu->ctr[i].width;

	for (unsigned r = 0; r < rep; r++) {
		uint64_t a = 0, b = 0;
		int st = written_window(c, i, WRITTEN, &a);
		if (st == M_OK)
			st = written_window(c, i, 0, &b);
		if (st != M_OK)
			return st;
		d[r] = (int64_t)((a - b) << sh) >> sh;
		after[r] = (int64_t)b;
	}
	out->rep = rep;
	out->d = m_median(d, rep, &out->agree);
	out->after = m_median(after, rep, 0);
	check_figures(c, d[0], out->d, d[rep - 1]);
	return M_OK;
}

/* Counter i, set up with event g: it goes on from WRITTEN. *tested when
 * it counts at all without a write (one that does not is count.*'s to
 * judge, or a hypervisor's filter). False when an op failed (FAILed). */
static bool continues(struct check_ctx *c, unsigned i, enum pmu_generic g, bool *tested)
{
	const char *n = c->pmu->ctr[i].name;
	bool clock = g == GEN_CYCLES || g == GEN_REF_CYCLES;
	struct pair pr;
	int64_t plain = 0;
	int st = m_per_n(c, i, 0, 0, &plain);

	*tested = st == M_OK && plain > 0;
	if (st == M_OK && !*tested)
		return true;
	if (st == M_OK)
		st = measure(c, i, &pr);
	if (st != M_OK) {
		m_fail_status(c, st, 0, n);
		return st != M_FAULT;
	}
	int64_t tol = m_diff_slack(c) + (clock ? pr.after / CLOCK_DIV : 0);
	int64_t off = pr.d - (int64_t)WRITTEN;
	bool ok = tol ? off >= -tol && off <= tol : off == 0 && pr.agree * 2 > pr.rep;
	if (pr.after <= 0)
		check_fail(
		    c,
		    "%s counting %s: counted %lld after 0 was written while running (stopped "
		    "by the write)",
		    n, m_gen_name(g), (long long)pr.after);
	else if (!ok)
		check_fail(c,
			   "%s counting %s: expected %llu more with 0x%llx written while running "
			   "than with 0 written (+-%lld), got %lld (%u of %u repeats)%s",
			   n, m_gen_name(g), WRITTEN, WRITTEN, (long long)tol, (long long)pr.d,
			   pr.agree, pr.rep,
			   pr.d * 2 < (int64_t)WRITTEN ? ": the write restarted it from 0" : "");
	return true;
}

/* Every counter with the first event of events[] it counts. How many were
 * tested into *n; false when an op failed (FAILed). */
static bool each(struct check_ctx *c, unsigned *n)
{
	for (unsigned i = 0; i < c->pmu->n; i++) {
		int st = M_REFUSED;
		unsigned e = 0;
		for (; e < N_EVENTS && st == M_REFUSED; e++)
			st = m_setup(c, i, events[e], PMU_F_OS | PMU_F_USR);
		if (st == M_REFUSED)
			continue; /* no such event here, or the host's counter */
		bool tested = false;
		if (st != M_OK || !continues(c, i, events[e - 1], &tested))
			return false;
		*n += tested;
	}
	return true;
}

/* Counter i, programmed with INT: the preload written after start. */
static bool preload_running(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	uint64_t bit = 1ull << i;
	struct pmi_window win;

	pmi_reset_stats();
	pmi_window_open(&win);
	int on = p->ops->start(p, bit);
	int w = pmu_preload(p, i, M_PMI_PERIOD);
	hw_run_workload(&wl_loop, M_PMI_ITERS);
	hw_irq_disable(); /* a fixed-vector PMI waits until stop() is done */
	int off = p->ops->stop(p, bit);
	pmi_window_close(&win);
	return m_op(c, on, MO_START, bit, 0) && m_op(c, w, MO_PRELOAD, bit, M_PMI_PERIOD) &&
	       m_op(c, off, MO_STOP, bit, 0);
}

/* Counter i: a preload of -M_PMI_PERIOD written while it counts overflows
 * into one PMI. False when an op failed (FAILed). */
static bool overflow_pmi(struct check_ctx *c, unsigned i)
{
	const volatile struct pmi_stats *s = pmi_stats();
	const char *n = c->pmu->ctr[i].name;

	if (!pmi_begin(c))
		return false;
	bool ok = m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT) &&
		  preload_running(c, i);
	bool got = ok && pmi_wait(1, PMI_WAIT_US);
	if (ok)
		pmi_wait(2, PMI_QUIET_US); /* a second one would show */
	bool bad = ok && pmi_trouble(c, n);
	uint64_t ovf = s->overflows[i];
	pmi_end(c);
	if (!ok || bad)
		return ok;
	if (!got)
		check_fail(c,
			   "%s: preload of -%u written while it counted, then %u iterations of "
			   "wl_loop: expected its overflow's PMI, got none",
			   n, M_PMI_PERIOD, M_PMI_ITERS);
	else if (ovf != 1)
		check_fail(c,
			   "%s: preload written while it counted: expected 1 overflow in its PMI, "
			   "got %llu",
			   n, (unsigned long long)ovf);
	return true;
}

static void run(struct check_ctx *c)
{
	unsigned tested = 0;
	int pmi_ctr = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	const char *no_pmi = apic_lvt_pc_unusable(c->apic);

	m_quiesce(c);
	bool ok = each(c, &tested);
	m_quiesce(c);
	c->fig.tolerance = m_slack_text(c);
	if (!ok)
		return;
	if (!tested) {
		check_skip(c, "no counter counts instructions, branches or cycles");
		return;
	}
	if (pmi_ctr >= 0 && !no_pmi && !overflow_pmi(c, (unsigned)pmi_ctr))
		return;
	const char *pmi = pmi_ctr < 0 ? ""
			  : no_pmi    ? "; no PMI: "
				      : "; a preload written so raises its PMI";
	check_pass(c,
		   "%u counters written while running go on from the value (%s, 2 windows; "
		   "clocks +-1/%u, ours)%s%s",
		   tested, m_slack_text(c), CLOCK_DIV, pmi, pmi_ctr >= 0 && no_pmi ? no_pmi : "");
}

PMH_CHECK(counter_write_running, .id = "counter.write-running",
	  .summary = "a counter written while running goes on from the value", .order = 33,
	  .needs_pmu = true, .run = run);
