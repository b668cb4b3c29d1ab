/* overflow.simultaneous: two counters that overflow on the same event give one
 * PMI that finds both overflows (one interrupt line, one status read: KNC
 * #327357 §1.4.3.9, Linux intel_pmu_handle_irq), and both are counted exactly
 * once. A second PMI fails (duplicate): only where the family documents a late
 * PMI for an overflow already handled (AMD NMI latency, Linux
 * amd_pmu_adjust_nmi_window) is one that finds nothing pending reported
 * instead. */
#include "pmi_common.h"
#include "../../lib/fmt.h"

/* Counters a and b programmed with INT and preloaded alike, then run past
 * the overflow together. False when an op failed (FAILed). */
static bool overflow_both(struct check_ctx *c, unsigned a, unsigned b)
{
	const uint32_t flags = PMU_F_OS | PMU_F_USR | PMU_F_INT;

	if (!m_setup_or_fail(c, a, GEN_INSTRUCTIONS, flags) ||
	    !m_setup_or_fail(c, b, GEN_INSTRUCTIONS, flags))
		return false;
	pmi_reset_stats();
	return m_preload(c, a, M_PMI_PERIOD) && m_preload(c, b, M_PMI_PERIOD) &&
	       pmi_run(c, (1ull << a) | (1ull << b), &wl_loop, M_PMI_ITERS) != M_FAULT;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	int a = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	int b = a < 0 ? -1 : m_counter_for(c, GEN_INSTRUCTIONS, (unsigned)a + 1);
	char both_names[48];

	if (b < 0) {
		check_skip(c, "needs two counters that can count instructions");
		return;
	}
	if (!pmi_begin(c))
		return;
	uint64_t both = (1ull << a) | (1ull << b);
	if (!overflow_both(c, (unsigned)a, (unsigned)b)) {
		pmi_end(c);
		return;
	}
	bool got = pmi_wait(1, PMI_WAIT_US);
	/* let a second, separate PMI arrive if the hardware sends one */
	pmi_wait(2, PMI_QUIET_US);
	bool merged = false;
	for (uint64_t k = 0; k < s->n_log && k < PMI_LOG; k++)
		if ((s->mask[k] & both) == both)
			merged = true;
	uint64_t oa = s->overflows[a], ob = s->overflows[b], total = s->total, echo = s->echo;
	uint64_t extra = s->spurious;
	pmh_fmt(both_names, sizeof(both_names), "%s and %s", p->ctr[a].name, p->ctr[b].name);
	/* the second PMI of a duplicate finds both already collected */
	bool dup = merged && oa == 1 && ob == 1 && total - echo > 1;
	bool bad = !dup && pmi_trouble(c, both_names);
	pmi_end(c);
	if (bad)
		return;
	if (dup)
		check_fail(c,
			   "%s: expected 1 PMI for both overflows, got %llu, %llu of them with "
			   "nothing pending (duplicate PMI)",
			   both_names, (unsigned long long)total, (unsigned long long)extra);
	else if (!got)
		check_fail(c, "%s overflowed together: expected a PMI, got none (PMI lost)",
			   both_names);
	else if (oa != 1 || ob != 1)
		check_fail(c, "expected one overflow each on %s, got %llu and %llu (%s)",
			   both_names, (unsigned long long)oa, (unsigned long long)ob,
			   oa + ob < 2 ? "lost" : "double-counted");
	else if (!merged)
		check_fail(
		    c, "expected one PMI with both status bits for %s, got %llu PMIs each with one",
		    both_names, (unsigned long long)total);
	else
		check_pass(
		    c, "%s: 1 PMI with both overflows, each counted once%s", both_names,
		    echo ? "; a late PMI with nothing pending followed (documented NMI latency, "
			   "Linux amd_pmu_adjust_nmi_window)"
			 : "");
}

PMH_CHECK(overflow_simultaneous, .id = "overflow.simultaneous",
	  .summary = "two overflows, one PMI, both handled", .order = 53, .needs_pmu = true,
	  .run = run);
