/* Intel NetBurst: what the driver (intel_netburst.c), its tables
 * (intel_netburst_tables.c) and the event catalogue (events/intel_netburst.c)
 * share: the one table of ESCRs. */
#ifndef PMH_PMU_INTEL_NETBURST_H
#define PMH_PMU_INTEL_NETBURST_H

#include "pmu.h"

/* An ESCR, its select value and the counter group it serves (facts §5). */
struct escr {
	uint32_t addr;
	uint8_t select; /* the CCCR ESCR-select value that picks it */
	uint8_t group;	/* 0 BPU, 1 MS, 2 FLAME, 3 IQ */
	uint8_t half;	/* 0: ESCRn0 (thread 0 counters), 1: ESCRn1 */
	char name[12];
};

/* The thread-0 events the driver knows (facts §5 event table); the ESCR
 * event mask is given in ESCR[24:9] >> 9. */
enum {
	EV_GLOBAL_POWER_EVENTS,
	EV_INSTR_RETIRED,
	EV_BRANCH_RETIRED,
	EV_MISPRED_BRANCH_RETIRED,
	EV_RETIRED_BRANCH_TYPE,
	EV_BSQ_CACHE_REFERENCE,
};

const struct escr *netburst_escr_find(uint32_t addr); /* 0: no such ESCR */
size_t netburst_escr_count(void);
uint32_t netburst_escr_counters(const struct escr *e);
/* Fills ev with event which (EV_*) and ESCR event mask mask. */
void netburst_make_event(struct pmu_event *ev, unsigned which, uint32_t mask);

#endif
