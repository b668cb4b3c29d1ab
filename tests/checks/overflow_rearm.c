/* overflow.rearm: a counter re-armed with -N by the PMI handler keeps
 * overflowing: over a window of E events every one of about E/N overflows
 * is delivered, one PMI each. The events between an overflow and its
 * re-arm (skid) are not counted again, so up to 10% fewer are allowed. */
#include "pmi_common.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	const uint64_t n = 1000, iters = 10000;
	int i = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	uint64_t e = 0;

	if (i < 0) {
		check_skip(c, "no counter can count instructions");
		return;
	}
	m_quiesce(c);
	m_setup(c, (unsigned)i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	if (m_window_count(c, (unsigned)i, &wl_loop, iters, &e) < 0) {
		check_fail(c, "%s: the reference window faulted", p->ctr[i].name);
		return;
	}
	if (!pmi_begin(c))
		return;
	uint64_t hi = e / n, lo = hi - hi / 10 - 1;
	m_setup(c, (unsigned)i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	pmi_reset_stats();
	pmi_set_reload((unsigned)i, n);
	pmu_preload(p, (unsigned)i, n);
	pmi_run(c, 1ull << i, &wl_loop, iters);
	pmi_wait(lo, PMI_WAIT_US);
	pmi_wait(hi + 1, PMI_WAIT_US / 10); /* give a late or extra one time to show */
	uint64_t ovf = s->overflows[i], total = s->total, spur = s->spurious;
	bool storm = s->storm;
	pmi_set_reload((unsigned)i, 0);
	pmi_end(c);
	if (storm)
		check_fail(c, "%s: PMI storm guard tripped (more than %u PMIs)", p->ctr[i].name,
			   PMI_STORM_LIMIT);
	else if (ovf < lo || ovf > hi)
		check_fail(c, "%s re-armed with -%llu over %llu events: expected %llu..%llu overflows, "
			      "got %llu (%s)",
			   p->ctr[i].name, (unsigned long long)n, (unsigned long long)e,
			   (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)ovf,
			   ovf < lo ? "PMIs lost" : "too many");
	else if (total != ovf || spur)
		check_fail(c, "%s: expected one PMI per overflow (%llu), got %llu PMIs, %llu spurious",
			   p->ctr[i].name, (unsigned long long)ovf, (unsigned long long)total,
			   (unsigned long long)spur);
	else
		check_pass(c, "%s: %llu overflows of -%llu over %llu events, each delivered",
			   p->ctr[i].name, (unsigned long long)ovf, (unsigned long long)n,
			   (unsigned long long)e);
}

PMH_CHECK(overflow_rearm, .id = "overflow.rearm", .summary = "repeated overflows all delivered",
	  .order = 54, .needs_pmu = true, .run = run);
