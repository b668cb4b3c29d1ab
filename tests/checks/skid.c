/* skid: how far execution runs past an overflow before the PMI stops the
 * counters: instructions counted past the wrap (skid), and cycles counted
 * past the wrap of a cycles counter (PMI latency), as min/median/max over
 * the configured repeats. Both include the harness's own PMI entry path up
 * to the stopping write, which no core's documented skid does: each sample
 * also measures the handler's own count (the same window without INT: the
 * difference is what the handler retires before it stops and after it
 * restarts the counter), and the limit is judged on the skid past it.
 * Each sample's window runs twice the family's limit past the wrap
 * (struct pmu_ops.skid_limit, each driver citing its source: 1000
 * instructions on Intel P6, Core and later and KNC, 30000 on AMD and
 * NetBurst; cycles: ten per instruction), so every limit is reachable: a
 * PMI that comes after the window stopped, or never, FAILs as "not
 * within" the window; a median past the limit and the handler's own count
 * (a rare SMI lands in one sample: the maximum shows it, the median not)
 * FAILs as too late. */
#include "pmi_common.h"

#define LIMIT_DEFAULT	1000 /* a driver that states none: the short limit */
#define CYCLES_PER_INSN 10   /* the cycles limit: 10 x the instructions one */
/* Each sample: -SKID_PERIOD, then wl_loop (its construction's
 * instructions and at least a cycle an iteration, events/workloads.c) long
 * enough to run twice the limit past the wrap. */
#define SKID_PERIOD 1000

/* What a sample comes to besides 0 (a sample) and 1 (an SMI was counted in
 * the window: not a sample, m_median_clean), and what sampling comes to. */
enum {
	NO_COUNTER = -1, /* no counter counts the event */
	PMI_LOST = -2,
	STOPPED = -3,  /* pmi_trouble or m_op gave the verdict */
	ALL_SMI = -4,  /* an SMI in every window */
	PMI_LATE = -5, /* the PMI came after the window had stopped the counter */
};

static uint64_t skid_limit(const struct check_ctx *c)
{
	return c->pmu->ops->skid_limit ? c->pmu->ops->skid_limit : LIMIT_DEFAULT;
}

struct skid_arg {
	unsigned ctr;
	enum pmu_generic g;
	uint64_t n;
	uint64_t iters; /* the window: n and twice the limit, in wl_loop iterations */
};

/* One window of -n, with INT (pmi) or without: the counter after it in
 * *v. Returns pmi_run's status, or M_FAULT when an op failed (FAILed). */
static int skid_window(struct check_ctx *c, const struct skid_arg *a, bool pmi, uint64_t *v)
{
	if (!m_setup_or_fail(c, a->ctr, a->g, PMU_F_OS | PMU_F_USR | (pmi ? PMU_F_INT : 0)))
		return M_FAULT;
	pmi_reset_stats();
	if (!m_preload(c, a->ctr, a->n))
		return M_FAULT;
	int run = pmi_run(c, 1ull << a->ctr, &wl_loop, a->iters);
	if (run == M_FAULT || (pmi && !pmi_wait(1, PMI_WAIT_US)))
		return run;
	/* without INT the wrap is flagged all the same: cleared before the
	 * window with the PMI, whose handler must find its own flag only */
	return m_read(c, a->ctr, v) && (pmi || m_ack(c, 1ull << a->ctr)) ? run : M_FAULT;
}

/* What the handler's own code added to the window with the PMI (end) over
 * the one without (ref): the counter's difference, from its width, none
 * when negative (AMD's few inexact events, K8 BKDG §10.1). */
static uint64_t handler_own(const struct check_ctx *c, unsigned i, uint64_t end, uint64_t ref)
{
	unsigned sh = 64 - c->pmu->ctr[i].width;
	int64_t d = (int64_t)((end - ref) << sh) >> sh;
	return d > 0 ? (uint64_t)d : 0;
}

/* One overflow of -n: v[0] the events counted past the wrap, v[1] the
 * handler's own count (against the same window without INT, run after the
 * one with the PMI, whose handler must be the first to meet a flag that
 * will not clear). 1 when an SMI was counted in a window (SMM cycles
 * counted: not a sample), PMI_LOST, PMI_LATE, STOPPED. */
static int skid_sample(struct check_ctx *c, void *arg, uint64_t *v)
{
	const struct skid_arg *a = arg;
	const volatile struct pmi_stats *s = pmi_stats();
	uint64_t ref = 0, end = 0;
	int st;

	int run = skid_window(c, a, true, &end);
	if (run == M_FAULT)
		return STOPPED;
	if (!s->total || !s->overflows[a->ctr])
		st = PMI_LOST;
	else if (s->after_stop)
		st = PMI_LATE;
	else
		st = run == M_SMI;
	v[0] = s->skid[0];
	if (pmi_trouble(c, c->pmu->ctr[a->ctr].name))
		st = STOPPED;
	if (!m_ack(c, pmu_all_mask(c->pmu)))
		return STOPPED;
	if (st < 0)
		return st;
	int run0 = skid_window(c, a, false, &ref);
	if (run0 == M_FAULT)
		return STOPPED;
	v[1] = handler_own(c, a->ctr, end, ref);
	return st || run0 == M_SMI;
}

/* min/median/max of the skid (out[0]) and of the handler's own count
 * (out[1]) over the repeats without an SMI, in windows of `past` events
 * past the wrap. Returns 0, NO_COUNTER, PMI_LOST, PMI_LATE, STOPPED or
 * ALL_SMI. */
static int sample(struct check_ctx *c, enum pmu_generic g, uint64_t n, uint64_t past,
		  struct stat3 *out)
{
	int i = m_counter_for(c, g, 0);

	if (i < 0)
		return NO_COUNTER;
	uint64_t per = g == GEN_INSTRUCTIONS ? wl_loop.per_iter.instructions : 1;
	struct skid_arg a = {(unsigned)i, g, n, (n + past + per - 1) / per};
	int got = m_median_clean(c, c->opt->repeat, 2, skid_sample, &a, out);
	if (got > 0) /* named for the results JSON and LAVA */
		check_figures_as(c, g == GEN_INSTRUCTIONS ? "skid" : "PMI latency",
				 g == GEN_INSTRUCTIONS ? "instructions" : "cycles");
	return got < 0 ? got : got ? 0 : ALL_SMI;
}

/* The verdict on the skid and the handler's own count, instructions (ins)
 * and cycles (cyc, b: sample()'s status for them). */
static void verdict(struct check_ctx *c, const struct stat3 *ins, const struct stat3 *cyc, int b)
{
	uint64_t lim = skid_limit(c), lim_cyc = CYCLES_PER_INSN * lim;

	if (ins[0].med > lim + ins[1].med || (b == 0 && cyc[0].med > lim_cyc + cyc[1].med))
		check_fail(c,
			   "median skid of %llu instructions / %llu cycles exceeds the family's "
			   "limit of %llu / %llu (its documented skid, struct pmu_ops.skid_limit) "
			   "and the harness's own handler, %llu / %llu (measured)",
			   (unsigned long long)ins[0].med, (unsigned long long)cyc[0].med,
			   (unsigned long long)lim, (unsigned long long)lim_cyc,
			   (unsigned long long)ins[1].med, (unsigned long long)cyc[1].med);
	else if (b == 0)
		check_pass(c,
			   "skid %llu/%llu/%llu instructions, PMI latency %llu/%llu/%llu cycles "
			   "(min/median/max; the harness's own handler %llu / %llu of them at "
			   "most; limit %llu / %llu past it: the family's documented skid)",
			   (unsigned long long)ins[0].min, (unsigned long long)ins[0].med,
			   (unsigned long long)ins[0].max, (unsigned long long)cyc[0].min,
			   (unsigned long long)cyc[0].med, (unsigned long long)cyc[0].max,
			   (unsigned long long)ins[1].med, (unsigned long long)cyc[1].med,
			   (unsigned long long)lim, (unsigned long long)lim_cyc);
	else
		check_pass(c,
			   "skid %llu/%llu/%llu instructions (min/median/max; the harness's own "
			   "handler %llu of them at most; limit %llu past it: the family's "
			   "documented skid); no cycles event",
			   (unsigned long long)ins[0].min, (unsigned long long)ins[0].med,
			   (unsigned long long)ins[0].max, (unsigned long long)ins[1].med,
			   (unsigned long long)lim);
}

static void run(struct check_ctx *c)
{
	struct stat3 ins[2] = {{0, 0, 0}, {0, 0, 0}}, cyc[2] = {{0, 0, 0}, {0, 0, 0}};
	uint64_t lim = skid_limit(c), lim_cyc = CYCLES_PER_INSN * lim;

	if (!pmi_begin(c))
		return;
	int a = sample(c, GEN_INSTRUCTIONS, SKID_PERIOD, 2 * lim, ins);
	check_figures_next(c); /* the cycles: the second series */
	int b = a == STOPPED ? STOPPED : sample(c, GEN_CYCLES, SKID_PERIOD, 2 * lim_cyc, cyc);
	pmi_end(c);
	if (a == STOPPED || b == STOPPED)
		return;
	if (a == NO_COUNTER)
		check_skip(c, "no counter can count instructions");
	else if (a == PMI_LOST || b == PMI_LOST)
		check_fail(c, "expected a PMI for every sample, some were lost");
	else if (a == PMI_LATE || b == PMI_LATE)
		check_fail(c,
			   "PMI not within %llu %s of the overflow: the window ran that far past "
			   "the wrap and stopped the counter before the PMI came (limit %llu, the "
			   "family's documented skid)",
			   (unsigned long long)(a == PMI_LATE ? 2 * lim : 2 * lim_cyc),
			   a == PMI_LATE ? "instructions" : "cycles",
			   (unsigned long long)(a == PMI_LATE ? lim : lim_cyc));
	else if (a == ALL_SMI)
		check_skip(c, "an SMI was counted in every sample");
	else
		verdict(c, ins, cyc, b);
}

PMH_CHECK(skid, .id = "skid", .summary = "overflow-to-PMI skid and latency", .order = 80,
	  .needs_pmu = true, .run = run);
