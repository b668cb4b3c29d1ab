/* count.fixed: the fixed counters agree with general-purpose counters
 * programmed with the same events over the same window: instructions
 * exactly, cycles within 1% (facts §4: fixed0 INST_RETIRED.ANY, fixed1
 * CPU_CLK_UNHALTED.CORE). */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	static const enum pmu_generic gens[2] = { GEN_INSTRUCTIONS, GEN_CYCLES };
	unsigned compared = 0;

	m_quiesce(c);
	for (unsigned f = p->n_gp; f < p->n; f++) {
		for (unsigned k = 0; k < 2; k++) {
			enum pmu_generic g = gens[k];
			int gp = m_counter_for(c, g, 0);
			if (gp < 0 || (unsigned)gp >= p->n_gp || m_setup(c, f, g, PMU_F_OS | PMU_F_USR))
				continue;
			m_setup(c, (unsigned)gp, g, PMU_F_OS | PMU_F_USR);
			uint64_t a = 0, b = 0;
			m_window(c, (1ull << f) | (1ull << gp), &wl_loop, 50000);
			p->ops->read(p, f, &a);
			p->ops->read(p, (unsigned)gp, &b);
			uint64_t diff = a > b ? a - b : b - a;
			bool ok = g == GEN_INSTRUCTIONS ? diff == 0 : diff * 100 <= b;
			if (!a)
				check_fail(c, "%s (%s): did not count, %s counted %llu", p->ctr[f].name,
					   m_gen_name(g), p->ctr[gp].name, (unsigned long long)b);
			else if (!ok)
				check_fail(c, "%s (%s): expected %llu as %s counted, got %llu",
					   p->ctr[f].name, m_gen_name(g), (unsigned long long)b,
					   p->ctr[gp].name, (unsigned long long)a);
			compared++;
			m_quiesce(c);
		}
	}
	if (!compared)
		check_skip(c, "no fixed counter shares an event with a general-purpose counter");
	else
		check_pass(c, "%u fixed-counter events agree with general-purpose counters", compared);
}

PMH_CHECK(count_fixed, .id = "count.fixed", .summary = "fixed counters agree with GP counters",
	  .order = 44, .needs_pmu = true, .needs_caps = PMU_CAP_FIXED, .run = run);
