/* Shared set-up of the checks that take real PMIs: LVTPC must exist, the
 * PMI service is armed with the configured delivery, and the counting
 * window runs with interrupts enabled so a fixed-vector PMI can arrive,
 * the TPR holding off every lower-priority interrupt (the firmware's timer)
 * so that nothing but the PMI lands in the window. */
#ifndef PMH_CHECKS_PMI_COMMON_H
#define PMH_CHECKS_PMI_COMMON_H

#include "../measure.h"
#include "../../apic/pmi.h"
#include "../../apic/isr.h"
#include "../../pmu/msr.h"

#define PMI_WAIT_US 100000 /* 100 ms: far beyond any PMI latency */

/* FAILs (and returns true) for what the service saw that no healthy PMU
 * does: an overflow flag that will not clear, a PMI storm, interrupts on the
 * wrong vector, PMIs that found nothing pending (spurious). `what` names
 * the counter(s) for the message. Echoes are not failures (see pmi.h). */
static inline bool pmi_trouble(struct check_ctx *c, const char *what)
{
	const volatile struct pmi_stats *s = pmi_stats();

	if (s->stuck) {
		check_fail(c, "%s: overflow flag of counter mask 0x%llx will not clear (stuck bit): "
			      "PMI storm stopped after %llu PMIs",
			   what, (unsigned long long)s->stuck, (unsigned long long)s->total);
		return true;
	}
	if (s->storm) {
		check_fail(c, "%s: PMI storm: more than %u PMIs in one window", what,
			   PMI_STORM_LIMIT);
		return true;
	}
	if (s->wrong_vector) {
		check_fail(c,
			   "%s: %llu interrupts in LVTPC's class 0x%x-0x%x off its vector 0x%x, "
			   "the last on vector 0x%x (PMI on the wrong vector), %llu on 0x%x",
			   what, (unsigned long long)s->wrong_vector, PMI_STRAY_FIRST,
			   PMI_STRAY_LAST, VEC_PMI, s->stray_vector, (unsigned long long)s->total,
			   VEC_PMI);
		return true;
	}
	if (s->spurious) {
		check_fail(c, "%s: %llu of %llu PMIs found no overflow pending (spurious PMI)", what,
			   (unsigned long long)s->spurious, (unsigned long long)s->total);
		return true;
	}
	return false;
}

static inline bool pmi_begin(struct check_ctx *c)
{
	const char *why = apic_lvt_pc_unusable(c->apic);
	int st;
	if (why) {
		check_skip(c, "%s", why);
		return false;
	}
	m_quiesce(c);
	/* The reset acked every flag: one still set will not clear, and on
	 * KNC's edge-triggered line it blocks every later PMI (§1.4.3.9). */
	uint64_t left = 0;
	if (c->pmu->ops->overflow_status(c->pmu, &left) == 0 && left) {
		check_fail(c, "overflow flag of counter mask 0x%llx still set after the reset acked "
			      "it: it will not clear (stuck bit)",
			   (unsigned long long)left);
		return false;
	}
	st = pmi_arm(c->pmu, c->opt->pmi);
	if (st && !(pmi_stats()->total && pmi_trouble(c, "arming the PMI")))
		check_fail(c, "arming the PMI failed (%d): LVTPC did not take the %s delivery value", st,
			   c->opt->pmi == PMI_NMI ? "NMI" : "fixed-vector");
	return st == 0;
}

static inline void pmi_end(struct check_ctx *c)
{
	m_quiesce(c);
	pmi_disarm();
}

/* Start mask, run w x iters in a PMI window (interrupts on, TPR at
 * PMI_TPR), stop with interrupts off. Returns true when an SMI was counted during the window
 * (only where MSR_SMI_COUNT reads): its SMM code may have been counted. */
static inline bool pmi_run(struct check_ctx *c, uint64_t mask, const struct workload *w,
			   uint64_t iters)
{
	uint64_t smi0 = 0, smi1 = 0;
	bool smi = m_smi_count(c, &smi0);
	struct pmi_window win;

	pmi_window_open(&win);
	c->pmu->ops->start(c->pmu, mask);
	hw_run_workload(w, iters);
	/* A fixed-vector PMI taken inside stop() would restart what stop()
	 * stopped so far: it waits until stop() is done. */
	hw_irq_disable();
	c->pmu->ops->stop(c->pmu, mask);
	pmi_window_close(&win);
	return smi && m_smi_count(c, &smi1) && smi1 != smi0;
}

#endif
