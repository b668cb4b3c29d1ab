/* The PMI service: takes the performance-counter interrupt (fixed vector or
 * NMI), runs the family's protocol through the driver (pmi_collect), counts
 * overflows per counter, records the interrupted RIP and TSC, re-arms the
 * counters the caller asked for, unmasks LVTPC where the family masks it on
 * delivery, EOIs fixed-vector deliveries and restarts counting. It also
 * tells apart what real silicon does around a PMI: a documented late PMI
 * (echo) from a spurious one, a status bit that will not clear (stuck), and
 * an interrupt that came on the wrong vector. Each CPU has its own service
 * (pmu/percpu.h): every call below is about the CPU that makes it. */
#ifndef PMH_APIC_PMI_H
#define PMH_APIC_PMI_H

#include <stdint.h>
#include <stdbool.h>
#include "../pmu/pmu.h"
#include "pmi_mode.h"
#include "isr.h"

#define PMI_LOG		64
#define PMI_STORM_LIMIT 10000 /* PMIs in one arm/disarm window: a storm */
/* The task priority of a PMI window: every fixed interrupt in a class below
 * the PMI vector's is held off (SDM Vol. 3A 11.8.3), the firmware's timer
 * among them; the PMI's whole class still comes in. */
#define PMI_TPR ((((unsigned)VEC_PMI >> 4) - 1u) << 4)
/* The rest of the PMI's priority class (0xE0-0xEF but LVTPC's own vector),
 * which a window's TPR lets in. While armed for fixed delivery the service
 * takes all of it over (apic/idt.h idt_claim) and gives the firmware's gates
 * back on disarm: an interrupt there is a PMI on the wrong vector, counted
 * instead of reaching a gate of the firmware's. */
#define PMI_STRAY_FIRST ((unsigned)VEC_PMI & 0xf0u)
#define PMI_STRAY_LAST	(PMI_STRAY_FIRST | 0xfu)
/* Linux's AMD window for late NMIs (arch/x86/events/amd/core.c perf_nmi_window,
 * 100 ms). */
#define PMI_ECHO_US 100000

struct pmi_stats {
	uint64_t total;	   /* PMIs taken (fixed vector or NMI) */
	uint64_t spurious; /* PMIs that found no overflow pending (and no echo) */
	/* PMIs that found nothing pending within PMI_ECHO_US of one that did,
	 * on a family documented to send them (PMU_PMI_LATE_ECHO) */
	uint64_t echo;
	uint64_t overflows[PMU_MAX_COUNTERS]; /* overflows collected per counter */
	uint64_t n_log;		/* entries written to rip/tsc/mask logs (wraps at PMI_LOG) */
	uint64_t rip[PMI_LOG];	/* interrupted RIP per PMI */
	uint64_t tsc[PMI_LOG];	/* TSC at handler entry per PMI */
	uint64_t mask[PMI_LOG]; /* overflow mask collected per PMI */
	/* events the lowest overflowed counter held past its wrap when the
	 * handler had stopped counting: the skid, in that counter's events */
	uint64_t skid[PMI_LOG];
	uint64_t skid_sum;	      /* the same summed over every PMI that collected one */
	uint64_t lvt_masked_on_entry; /* PMIs that found LVTPC masked (auto-mask seen) */
	/* of those, PMIs on a family whose local APIC does not mask LVTPC on
	 * delivery (no PMU_PMI_AUTOMASK): something else masked it (KVM
	 * releases that mask it on AMD too) */
	uint64_t lvt_masked_foreign;
	/* PMIs whose overflows were on counters already stopped: in flight
	 * when the window ended (Linux arch/x86/events/intel/p4.c p4_pmu_handle_irq), so none
	 * of the handler's own instructions were counted */
	uint64_t after_stop;
	uint64_t stuck; /* counters whose overflow flag would not clear */
	/* PMIs in the arm/disarm window when the guard tripped (storm or a
	 * stuck flag), and the enum hw_err of the driver reset it ran then */
	uint64_t storm_pmis;
	uint32_t reset_err;
	uint64_t wrong_vector; /* interrupts on PMI_STRAY_FIRST..LAST while armed */
	uint32_t stray_vector; /* the vector of the last of them */
	/* driver ops that failed in the handler, which has no check to fail:
	 * how many, and the last one's step and enum hw_err */
	uint64_t op_failed;
	const char *op_what;
	uint32_t op_err;
	/* the storm guard tripped (or a flag stuck): the PMU was reset through
	 * the driver and LVTPC left masked until pmi_disarm() */
	bool storm;
};

/* Route PMIs for p through LVTPC with the given delivery; installs the
 * handlers. Saves the LVTPC value to put back in pmi_disarm(). */
int pmi_arm(struct pmu *p, enum pmi_delivery mode);
/* Puts LVTPC and the handlers back. A PMI window still open (an exception
 * in it was recovered past pmi_window_close) is closed first: the TPR and
 * IF go back as they were before it, or the firmware's timer stays held off
 * for good. Safe to call when not armed. */
void pmi_disarm(void);
/* Whether the handler unmasks LVTPC after every PMI (true, the default,
 * as Linux's generic handler rewrites it on every PMI: arch/x86/events/
 * core.c x86_pmu_handle_irq) or only on the families whose local APIC
 * masks it on delivery (false: to see whether a hypervisor masks it where
 * the silicon does not). Set it before pmi_arm(), not inside a window. */
void pmi_set_unmask_always(bool always);
/* Counters to preload with -n again after each of their overflows (0 =
 * leave the counter as it is). */
void pmi_set_reload(unsigned ctr, uint64_t n);
/* Zeroes the counts; what tripped the storm guard (stuck, storm,
 * storm_pmis, reset_err) stays until the next pmi_arm(). */
void pmi_reset_stats(void);
const volatile struct pmi_stats *pmi_stats(void);
/* Waits until at least `total` PMIs were taken or timeout_us passes (TSC
 * bounded). A fixed-vector PMI needs IF = 1: when the caller runs with
 * IF = 0 (an AP procedure), the wait opens interrupts at PMI_TPR and closes
 * them again. Returns true when reached. */
bool pmi_wait(uint64_t total, uint64_t timeout_us);

/* A PMI window: interrupts on, TPR at PMI_TPR; close puts both back. The
 * service remembers the outermost open window for pmi_disarm(). */
struct pmi_window {
	uint32_t tpr;
	bool irq;
};
void pmi_window_open(struct pmi_window *w);
void pmi_window_close(const struct pmi_window *w);

#endif
