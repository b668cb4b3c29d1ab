/* Intel NetBurst: what the driver (intel_netburst.c), its tables
 * (intel_netburst_tables.c), the event catalogue (events/intel_netburst.c)
 * and the netburst.cccr-escr check share: the CCCR and ESCR fields and the
 * one table of ESCRs. */
#ifndef PMH_PMU_INTEL_NETBURST_H
#define PMH_PMU_INTEL_NETBURST_H

#include "pmu.h"

/* CCCR bits (SDM Vol. 3B NetBurst 'CCCR MSRs'; Linux perf_event_p4.h) */
#define CCCR_RESERVED	    0xfffull /* 11:0, masked off before every write */
#define CCCR_ENABLE	    (1ull << 12)
#define CCCR_ESCR_SEL_SHIFT 13
/* "11" is required on non-HT (Linux perf_event_p4.h) */
#define CCCR_ACTIVE_THREAD_ANY (3ull << 16)
#define CCCR_COMPARE	       (1ull << 18)
#define CCCR_COMPLEMENT	       (1ull << 19)
#define CCCR_THRESHOLD_SHIFT   20
#define CCCR_THRESHOLD_MAX     15 /* 23:20 */
#define CCCR_EDGE	       (1ull << 24)
#define CCCR_FORCE_OVF	       (1ull << 25)
#define CCCR_OVF_PMI_T0	       (1ull << 26)
#define CCCR_OVF_PMI_T1	       (1ull << 27)
#define CCCR_CASCADE	       (1ull << 30)
#define CCCR_OVF	       (1ull << 31)
/* Bits that hold written values: 30 and 27:12 (28, 29 and 11:0 reserved);
 * OVF is set by the hardware and only cleared by software. */
#define CCCR_RW_MASK 0x4ffff000ull

/* ESCR bits (SDM Vol. 3B NetBurst 'ESCR MSRs'; Linux perf_event_p4.h) */
#define ESCR_EVENT_SHIFT 25
#define ESCR_EVENT_MAX	 0x3f /* 30:25 */
#define ESCR_MASK_SHIFT	 9
#define ESCR_EMASK_MAX	 0xffff /* 24:9 */
#define ESCR_T0_OS	 (1ull << 3)
#define ESCR_T0_USR	 (1ull << 2)
#define ESCR_T1_OS	 (1ull << 1)
#define ESCR_T1_USR	 (1ull << 0)
#define ESCR_RW_MASK	 0x7fffffffull
/* The fields read back out of a CCCR or ESCR value. */
#define CCCR_ESCR_SEL_OF(v) (((v) >> CCCR_ESCR_SEL_SHIFT) & 0x7) /* 15:13 */
#define ESCR_EVENT_OF(v)    (((v) >> ESCR_EVENT_SHIFT) & ESCR_EVENT_MAX)
#define ESCR_EMASK_OF(v)    (((v) >> ESCR_MASK_SHIFT) & ESCR_EMASK_MAX)

/* An ESCR, its select value and the counter group it serves (SDM NetBurst
 * 'ESCR MSRs'). */
struct escr {
	uint32_t addr;
	uint8_t select; /* the CCCR ESCR-select value that picks it */
	uint8_t group;	/* 0 BPU, 1 MS, 2 FLAME, 3 IQ */
	uint8_t half;	/* 0: ESCRn0 (thread 0 counters), 1: ESCRn1 */
	char name[12];
};

/* The thread-0 events the driver knows (Linux p4.c p4_event_bind_map); the ESCR
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
