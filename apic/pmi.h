/* The PMI service: takes the performance-counter interrupt (fixed vector or
 * NMI), runs the family's protocol through the driver (pmi_collect), counts
 * overflows per counter, records the interrupted RIP and TSC, re-arms the
 * counters the caller asked for, unmasks LVTPC where the family masks it on
 * delivery, EOIs fixed-vector deliveries and restarts counting. */
#ifndef PMH_APIC_PMI_H
#define PMH_APIC_PMI_H

#include <stdint.h>
#include <stdbool.h>
#include "../pmu/pmu.h"
#include "../tests/options.h"

#define PMI_LOG 64
#define PMI_STORM_LIMIT 10000 /* PMIs in one arm/disarm window: a storm */

struct pmi_stats {
	uint64_t total;	     /* PMIs taken (fixed vector or NMI) */
	uint64_t spurious;   /* PMIs that found no overflow pending */
	uint64_t overflows[PMU_MAX_COUNTERS]; /* overflows collected per counter */
	uint64_t n_log;	     /* entries written to rip/tsc/mask logs (wraps at PMI_LOG) */
	uint64_t rip[PMI_LOG];	/* interrupted RIP per PMI */
	uint64_t tsc[PMI_LOG];	/* TSC at handler entry per PMI */
	uint64_t mask[PMI_LOG];	/* overflow mask collected per PMI */
	/* events the lowest overflowed counter held past its wrap when the
	 * handler had stopped counting: the skid, in that counter's events */
	uint64_t skid[PMI_LOG];
	uint64_t lvt_masked_on_entry; /* PMIs that found LVTPC masked (auto-mask seen) */
	bool storm;	     /* the storm guard tripped and stopped the counters */
};

/* Route PMIs for p through LVTPC with the given delivery; installs the
 * handlers. Saves the LVTPC value to put back in pmi_disarm(). */
int pmi_arm(struct pmu *p, enum pmi_delivery mode);
void pmi_disarm(void);
/* Counters to preload with -n again after each of their overflows (0 =
 * leave the counter as it is). */
void pmi_set_reload(unsigned ctr, uint64_t n);
void pmi_reset_stats(void);
const volatile struct pmi_stats *pmi_stats(void);
/* Waits until at least `total` PMIs were taken or timeout_us passes (TSC
 * bounded). Returns true when reached. */
bool pmi_wait(uint64_t total, uint64_t timeout_us);

#endif
