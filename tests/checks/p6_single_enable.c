/* p6.single-enable: on P6 only EVNTSEL0.EN enables counting, for both
 * counters; EVNTSEL1's EN bit does nothing on its own (facts §3). */
#include "../measure.h"
#include "../../pmu/msr.h"

static uint64_t run1(struct check_ctx *c, bool en0, bool en1)
{
	struct pmu *p = c->pmu;
	uint64_t s0 = 0, s1 = 0, v = 0;
	bool irq = hw_irq_enabled();

	m_setup(c, 0, GEN_CYCLES, PMU_F_OS | PMU_F_USR);
	m_setup(c, 1, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	hw_rdmsr(p->ctr[0].ctl_msr, &s0);
	hw_rdmsr(p->ctr[1].ctl_msr, &s1);
	hw_irq_disable();
	hw_wrmsr(p->ctr[1].ctl_msr, en1 ? s1 | EVTSEL_EN : s1 & ~EVTSEL_EN);
	hw_wrmsr(p->ctr[0].ctl_msr, en0 ? s0 | EVTSEL_EN : s0 & ~EVTSEL_EN);
	hw_run_workload(&wl_loop, 1000);
	hw_wrmsr(p->ctr[0].ctl_msr, s0 & ~EVTSEL_EN);
	if (irq)
		hw_irq_enable();
	p->ops->read(p, 1, &v);
	m_quiesce(c);
	return v;
}

static void run(struct check_ctx *c)
{
	if (c->pmu->n_gp < 2) {
		check_skip(c, "needs two counters");
		return;
	}
	m_quiesce(c);
	uint64_t only1 = run1(c, false, true);
	uint64_t only0 = run1(c, true, false);
	if (only1)
		check_fail(c, "gp1 counted %llu with only EVNTSEL1.EN set: expected 0 (EN only in EVNTSEL0)",
			   (unsigned long long)only1);
	else if (!only0)
		check_fail(c, "gp1 did not count with EVNTSEL0.EN set: expected EVNTSEL0.EN to enable both");
	else
		check_pass(c, "EVNTSEL0.EN alone enables gp1 (%llu events); EVNTSEL1.EN alone: 0",
			   (unsigned long long)only0);
}

PMH_CHECK(p6_single_enable, .id = "p6.single-enable", .summary = "EN only in EVNTSEL0",
	  .order = 70, .needs_pmu = true, .needs_caps = PMU_CAP_SINGLE_ENABLE, .run = run);
