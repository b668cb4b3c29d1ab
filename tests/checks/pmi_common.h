/* Shared set-up of the checks that take real PMIs: LVTPC must exist, the
 * PMI service is armed with the configured delivery, and the counting
 * window runs with interrupts enabled so a fixed-vector PMI can arrive. */
#ifndef PMH_CHECKS_PMI_COMMON_H
#define PMH_CHECKS_PMI_COMMON_H

#include "../measure.h"
#include "../../apic/pmi.h"

#define PMI_WAIT_US 100000 /* 100 ms: far beyond any PMI latency */

static inline bool pmi_begin(struct check_ctx *c)
{
	const char *why = apic_lvt_pc_unusable(c->apic);
	int st;
	if (why) {
		check_skip(c, "%s", why);
		return false;
	}
	m_quiesce(c);
	st = pmi_arm(c->pmu, c->opt->pmi);
	if (st) {
		check_fail(c, "arming the PMI failed (%d): LVTPC did not take the %s delivery value", st,
			   c->opt->pmi == PMI_NMI ? "NMI" : "fixed-vector");
		return false;
	}
	return true;
}

static inline void pmi_end(struct check_ctx *c)
{
	m_quiesce(c);
	pmi_disarm();
}

/* Start mask, run w x iters with interrupts on, stop. */
static inline void pmi_run(struct check_ctx *c, uint64_t mask, const struct workload *w,
			   uint64_t iters)
{
	bool irq = hw_irq_enabled();
	hw_irq_enable();
	c->pmu->ops->start(c->pmu, mask);
	hw_run_workload(w, iters);
	c->pmu->ops->stop(c->pmu, mask);
	if (!irq)
		hw_irq_disable();
}

#endif
