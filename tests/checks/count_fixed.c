/* count.fixed: the fixed counters agree with general-purpose counters
 * programmed with the same events (SDM Vol. 3B 20.2.2: fixed0 INST_RETIRED.ANY, fixed1
 * CPU_CLK_UNHALTED.CORE), each measured as the N/2N difference so that the
 * harness's own code around the workload cancels: instructions exactly (in
 * a majority of repeats), cycles within 1% (the harness's cycles vary from
 * one window to the next). */
#include "../measure.h"
#include "../hv_policy.h"

/* The N of the N/2N differences: 5 x M_N_ITERS, so that 1% of the cycles
 * stays wide against the jitter of the harness's own cycles. */
#define FIXED_N (5 * M_N_ITERS)
/* Cycles agree within 1/CYCLES_TOL_DIV (1%): the harness's own bound, its
 * cycles vary from one window to the next (no document gives one). */
#define CYCLES_TOL_DIV 100

/* Fixed counter f against GP counter gp, both counting g: the N/2N
 * differences compared. False when an op failed (FAILed). A fixed counter
 * that counts nothing under a hypervisor while gp counts is counted in
 * *withheld (tests/hv_policy.h). */
static bool compare(struct check_ctx *c, unsigned f, unsigned gp, enum pmu_generic g,
		    unsigned *withheld)
{
	struct pmu *p = c->pmu;
	struct mdiff fa, gb;

	if (!m_setup_or_fail(c, gp, g, PMU_F_OS | PMU_F_USR))
		return false;
	int st = m_diff(c, f, 1ull << f, 0, 0, &wl_loop, FIXED_N, &fa);
	if (st == M_OK)
		st = m_diff(c, gp, 1ull << gp, 0, 0, &wl_loop, FIXED_N, &gb);
	if (st != M_OK) {
		m_fail_status(c, st, 0, p->ctr[f].name);
		return st != M_FAULT;
	}
	int64_t a = fa.med, b = gb.med, diff = a > b ? a - b : b - a;
	bool ok = g == GEN_INSTRUCTIONS ? m_exact(&fa, b) : diff * CYCLES_TOL_DIV <= b;
	char why[RESULT_MSG];
	if (fa.max == 0 && hv_fixed_withheld(c, f, m_gen_name(g), gp, b, why, sizeof(why)))
		(*withheld)++; /* recorded: the hypervisor's bitmap, not measured */
	else if (a <= 0)
		check_fail(c, "%s (%s): did not count, %s counted %lld", p->ctr[f].name,
			   m_gen_name(g), p->ctr[gp].name, (long long)b);
	else if (!ok && g == GEN_INSTRUCTIONS) /* the median may match, the majority not */
		check_fail(c,
			   "%s (%s): expected %lld as %s counted, exactly in a majority of %u "
			   "repeats; got median %lld, %u of %u repeats at it (min %lld max %lld)",
			   p->ctr[f].name, m_gen_name(g), (long long)b, p->ctr[gp].name, fa.rep,
			   (long long)a, fa.agree, fa.rep, (long long)fa.min, (long long)fa.max);
	else if (!ok)
		check_fail(c, "%s (%s): expected %lld as %s counted (within 1%%), got %lld",
			   p->ctr[f].name, m_gen_name(g), (long long)b, p->ctr[gp].name,
			   (long long)a);
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	static const enum pmu_generic gens[2] = {GEN_INSTRUCTIONS, GEN_CYCLES};
	unsigned compared = 0, withheld = 0;
	bool ok = true;

	m_quiesce(c);
	for (unsigned f = p->n_gp; f < p->n && ok; f++) {
		for (unsigned k = 0; k < 2 && ok; k++) {
			enum pmu_generic g = gens[k];
			int gp = m_counter_for(c, g, 0);
			if (gp < 0 || (unsigned)gp >= p->n_gp)
				continue;
			int st = m_setup(c, f, g, PMU_F_OS | PMU_F_USR);
			if (st == M_REFUSED)
				continue;
			ok = st == M_OK && compare(c, f, (unsigned)gp, g, &withheld);
			compared++;
			m_quiesce(c);
		}
	}
	if (!compared)
		check_skip(c, "no fixed counter shares an event with a general-purpose counter");
	else if (withheld == compared)
		check_skip(c,
			   "every fixed counter was withheld by the hypervisor (pmu.restricted)");
	else
		check_pass(
		    c,
		    "%u fixed-counter events agree with general-purpose counters "
		    "(N/2N difference: instructions exact, cycles within 1%%: the harness's cycles "
		    "vary between windows)%s",
		    compared - withheld,
		    withheld ? "; the rest withheld by the hypervisor (pmu.restricted)" : "");
}

PMH_CHECK(count_fixed, .id = "count.fixed", .summary = "fixed counters agree with GP counters",
	  .order = 44, .needs_pmu = true, .needs_caps = PMU_CAP_FIXED, .run = run);
