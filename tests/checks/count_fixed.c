/* count.fixed: the fixed counters agree with general-purpose counters
 * programmed with the same events (facts §4: fixed0 INST_RETIRED.ANY, fixed1
 * CPU_CLK_UNHALTED.CORE), each measured as the N/2N difference so that the
 * harness's own code around the workload cancels: instructions exactly (in
 * a majority of repeats), cycles within 1% (the harness's cycles vary from
 * one window to the next). */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	static const enum pmu_generic gens[2] = {GEN_INSTRUCTIONS, GEN_CYCLES};
	unsigned compared = 0;

	m_quiesce(c);
	for (unsigned f = p->n_gp; f < p->n; f++) {
		for (unsigned k = 0; k < 2; k++) {
			enum pmu_generic g = gens[k];
			int gp = m_counter_for(c, g, 0);
			if (gp < 0 || (unsigned)gp >= p->n_gp ||
			    m_setup(c, f, g, PMU_F_OS | PMU_F_USR))
				continue;
			m_setup(c, (unsigned)gp, g, PMU_F_OS | PMU_F_USR);
			struct mdiff fa, gb;
			if (m_diff(c, f, 1ull << f, 0, 0, &wl_loop, 50000, &fa) ||
			    m_diff(c, (unsigned)gp, 1ull << gp, 0, 0, &wl_loop, 50000, &gb)) {
				check_fail(c, "%s: the measurement faulted", p->ctr[f].name);
				continue;
			}
			int64_t a = fa.med, b = gb.med, diff = a > b ? a - b : b - a;
			bool ok = g == GEN_INSTRUCTIONS ? !diff && fa.agree * 2 > fa.rep
							: diff * 100 <= b;
			if (a <= 0)
				check_fail(c, "%s (%s): did not count, %s counted %lld",
					   p->ctr[f].name, m_gen_name(g), p->ctr[gp].name,
					   (long long)b);
			else if (!ok)
				check_fail(
				    c, "%s (%s): expected %lld as %s counted (%s), got %lld",
				    p->ctr[f].name, m_gen_name(g), (long long)b, p->ctr[gp].name,
				    g == GEN_INSTRUCTIONS ? "exactly" : "within 1%", (long long)a);
			compared++;
			m_quiesce(c);
		}
	}
	if (!compared)
		check_skip(c, "no fixed counter shares an event with a general-purpose counter");
	else
		check_pass(c,
			   "%u fixed-counter events agree with general-purpose counters "
			   "(N/2N difference: instructions exact, cycles within 1%%: the harness's cycles "
			   "vary between windows)",
			   compared);
}

PMH_CHECK(count_fixed, .id = "count.fixed", .summary = "fixed counters agree with GP counters",
	  .order = 44, .needs_pmu = true, .needs_caps = PMU_CAP_FIXED, .run = run);
