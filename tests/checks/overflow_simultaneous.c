/* overflow.simultaneous: two counters that overflow on the same event give
 * one PMI that finds both overflows (one interrupt line, one status read:
 * KNC §1.4.3.9, facts §9), and both are counted exactly once. */
#include "pmi_common.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	int a = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	int b = a < 0 ? -1 : m_counter_for(c, GEN_INSTRUCTIONS, (unsigned)a + 1);

	if (b < 0) {
		check_skip(c, "needs two counters that can count instructions");
		return;
	}
	if (!pmi_begin(c))
		return;
	uint64_t both = (1ull << a) | (1ull << b);
	m_setup(c, (unsigned)a, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	m_setup(c, (unsigned)b, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	pmi_reset_stats();
	pmu_preload(p, (unsigned)a, 1000);
	pmu_preload(p, (unsigned)b, 1000);
	pmi_run(c, both, &wl_loop, 1000);
	bool got = pmi_wait(1, PMI_WAIT_US);
	/* let a second, separate PMI arrive if the hardware sends one */
	pmi_wait(2, PMI_WAIT_US / 10);
	bool merged = false;
	for (uint64_t k = 0; k < s->n_log && k < PMI_LOG; k++)
		if ((s->mask[k] & both) == both)
			merged = true;
	uint64_t oa = s->overflows[a], ob = s->overflows[b], total = s->total;
	pmi_end(c);
	if (!got)
		check_fail(c, "%s and %s overflowed together: expected a PMI, got none (PMI lost)",
			   p->ctr[a].name, p->ctr[b].name);
	else if (oa != 1 || ob != 1)
		check_fail(c, "expected one overflow each on %s and %s, got %llu and %llu (%s)",
			   p->ctr[a].name, p->ctr[b].name, (unsigned long long)oa,
			   (unsigned long long)ob, oa + ob < 2 ? "lost" : "double-counted");
	else if (!merged)
		check_fail(c, "expected one PMI with both status bits for %s and %s, got %llu PMIs each "
			      "with one",
			   p->ctr[a].name, p->ctr[b].name, (unsigned long long)total);
	else
		check_pass(c, "%s and %s: %llu PMI with both overflows, each counted once",
			   p->ctr[a].name, p->ctr[b].name, (unsigned long long)total);
}

PMH_CHECK(overflow_simultaneous, .id = "overflow.simultaneous",
	  .summary = "two overflows, one PMI, both handled", .order = 53, .needs_pmu = true,
	  .run = run);
