/* skid: how far execution runs past an overflow before the PMI stops the
 * counters: instructions counted past the wrap (skid), and cycles counted
 * past the wrap of a cycles counter (PMI latency), as min/median/max over
 * the configured repeats. Both include the harness's own PMI entry path up
 * to the stopping write (tens of instructions). A report more than a
 * verdict: it fails only when PMIs do not arrive, or when the median skid
 * (a rare SMI lands in one sample: the maximum shows it, the median not)
 * is absurd, ten times the family's documented order:
 *  - Intel P6, Core and later, KNC: tens of instructions, up to about 100
 *    (the APIC round trip, the retirement in flight and the pipeline flush:
 *    Intel VTune Profiler User Guide, "Hardware Event Skid"): limit 1000;
 *  - AMD: hundreds to thousands (the counter runs on until the late NMI:
 *    Linux arch/x86/events/amd/core.c, amd_pmu_wait_on_overflow and
 *    amd_pmu_adjust_nmi_window, facts §9-§10): limit 30000;
 *  - NetBurst: thousands (its long pipeline; Linux p4.c catches PMIs still
 *    in flight after the counter stopped, facts §9 P4): limit 30000.
 * Cycles: ten cycles per instruction of the same limit. */
#include "pmi_common.h"

#define LIMIT_SHORT	1000  /* Intel P6, Core and later, KNC (above) */
#define LIMIT_LONG	30000 /* AMD and NetBurst (above) */
#define CYCLES_PER_INSN 10    /* the cycles limit: 10 x the instructions one */
/* Each sample: -SKID_PERIOD in a window of SKID_ITERS iterations of
 * wl_loop (6000 instructions, 2000 cycles or more): the wrap comes early,
 * the rest of the window runs on to the PMI. */
#define SKID_PERIOD 1000
#define SKID_ITERS  2000

/* What a sample comes to besides 0 (a sample) and 1 (an SMI was counted in
 * the window: not a sample, m_median_clean), and what sampling comes to. */
enum {
	NO_COUNTER = -1, /* no counter counts the event */
	PMI_LOST = -2,
	STOPPED = -3, /* pmi_trouble or m_op gave the verdict */
	ALL_SMI = -4, /* an SMI in every window */
};

static uint64_t skid_limit(const struct check_ctx *c)
{
	switch (c->pmu->ops->id) {
	case PMU_DRV_AMD_LEGACY:
	case PMU_DRV_AMD_CORE:
	case PMU_DRV_INTEL_NETBURST:
		return LIMIT_LONG;
	default:
		return LIMIT_SHORT;
	}
}

struct skid_arg {
	unsigned ctr;
	enum pmu_generic g;
	uint64_t n;
};

/* One overflow of -n: v[0] the events counted past the wrap. 1 when an SMI
 * was counted in the window (SMM cycles counted: not a sample), PMI_LOST,
 * STOPPED. */
static int skid_sample(struct check_ctx *c, void *arg, uint64_t *v)
{
	const struct skid_arg *a = arg;
	const volatile struct pmi_stats *s = pmi_stats();
	int st;

	if (!m_setup_or_fail(c, a->ctr, a->g, PMU_F_OS | PMU_F_USR | PMU_F_INT))
		return STOPPED;
	pmi_reset_stats();
	if (!m_preload(c, a->ctr, a->n))
		return STOPPED;
	int run = pmi_run(c, 1ull << a->ctr, &wl_loop, SKID_ITERS);
	if (run == M_FAULT)
		return STOPPED;
	if (!pmi_wait(1, PMI_WAIT_US) || !s->overflows[a->ctr])
		st = PMI_LOST;
	else
		st = run == M_SMI;
	v[0] = s->skid[0];
	if (pmi_trouble(c, c->pmu->ctr[a->ctr].name))
		st = STOPPED;
	return m_ack(c, pmu_all_mask(c->pmu)) ? st : STOPPED;
}

/* min/median/max of the skid over the repeats without an SMI. Returns 0,
 * NO_COUNTER, PMI_LOST, STOPPED or ALL_SMI. */
static int sample(struct check_ctx *c, enum pmu_generic g, uint64_t n, struct stat3 *out)
{
	int i = m_counter_for(c, g, 0);

	if (i < 0)
		return NO_COUNTER;
	struct skid_arg a = {(unsigned)i, g, n};
	int got = m_median_clean(c, c->opt->repeat, 1, skid_sample, &a, out);
	return got < 0 ? got : got ? 0 : ALL_SMI;
}

static void run(struct check_ctx *c)
{
	struct stat3 ins = {0, 0, 0}, cyc = {0, 0, 0};
	uint64_t lim = skid_limit(c);

	if (!pmi_begin(c))
		return;
	int a = sample(c, GEN_INSTRUCTIONS, SKID_PERIOD, &ins);
	int b = a == STOPPED ? STOPPED : sample(c, GEN_CYCLES, SKID_PERIOD, &cyc);
	pmi_end(c);
	if (a == STOPPED || b == STOPPED)
		return;
	if (a == NO_COUNTER) {
		check_skip(c, "no counter can count instructions");
	} else if (a == PMI_LOST || b == PMI_LOST) {
		check_fail(c, "expected a PMI for every sample, some were lost");
	} else if (a == ALL_SMI) {
		check_skip(c, "an SMI was counted in every sample");
	} else if (ins.med > lim || (b == 0 && cyc.med > CYCLES_PER_INSN * lim)) {
		check_fail(
		    c,
		    "median skid of %llu instructions / %llu cycles exceeds %llu / %llu, ten "
		    "times what this family is documented to show",
		    (unsigned long long)ins.med, (unsigned long long)cyc.med,
		    (unsigned long long)lim, (unsigned long long)(CYCLES_PER_INSN * lim));
	} else if (b == 0) {
		check_pass(
		    c,
		    "skid %llu/%llu/%llu instructions, PMI latency %llu/%llu/%llu cycles "
		    "(min/median/max; a median above %llu / %llu is absurd: 10x the documented "
		    "skid, facts §8-§9)",
		    (unsigned long long)ins.min, (unsigned long long)ins.med,
		    (unsigned long long)ins.max, (unsigned long long)cyc.min,
		    (unsigned long long)cyc.med, (unsigned long long)cyc.max,
		    (unsigned long long)lim, (unsigned long long)(CYCLES_PER_INSN * lim));
	} else {
		check_pass(c, "skid %llu/%llu/%llu instructions (min/median/max; a median above %llu is absurd: "
			      "10x the documented skid, facts §8-§9); no cycles event",
			   (unsigned long long)ins.min, (unsigned long long)ins.med,
			   (unsigned long long)ins.max, (unsigned long long)lim);
	}
}

PMH_CHECK(skid, .id = "skid", .summary = "overflow-to-PMI skid and latency", .order = 80,
	  .needs_pmu = true, .run = run);
