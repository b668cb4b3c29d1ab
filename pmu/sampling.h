/* The sampling hardware of the CPU the harness runs on, as its
 * enumeration says (CPUID, PERF_CAPABILITIES, IA32_MISC_ENABLE) and, for
 * the legacy LBRs that nothing enumerates, as the family/model tables of
 * Linux intel/lbr.c know them. Each part is detected in its own file:
 * pmu/lbr.c, pmu/ds.c (BTS and PEBS), pmu/ibs.c. The checks under
 * tests/checks/ (lbr_*, pebs_*, bts_*, ibs_*) read this, never the model. */
#ifndef PMH_PMU_SAMPLING_H
#define PMH_PMU_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>

struct pmu;

enum pmu_lbr_kind {
	PMU_LBR_NONE,
	PMU_LBR_LEGACY, /* model-specific stack with LBR_TOS (Intel) */
	PMU_LBR_ARCH,	/* architectural LBRs (CPUID 1CH) */
	PMU_LBR_AMD_V2, /* AMD LBR v2 (CPUID 8000_0022h) */
};

struct pmu_lbr {
	uint8_t kind;	/* enum pmu_lbr_kind */
	uint8_t depth;	/* entries (arch: the deepest CPUID 1CH offers) */
	uint8_t format; /* legacy: PERF_CAPABILITIES[5:0] */
	bool info;	/* legacy: LBR_INFO (format 5) holds MISPRED */
	bool mispred;	/* the records carry a mispredicted flag */
	bool filter;	/* branch-type filtering (LBR_SELECT, arch CPUID 1CH EBX[1]) */
	bool cpl_filter;
	bool freeze;	 /* DEBUGCTL.FREEZE_LBRS_ON_PMI (perfmon v2+, AMD 8000_0022h EAX[2]) */
	bool status_frz; /* the freeze sets GLOBAL_STATUS.LBR_FRZ (v4+, AMD) */
	bool callstack;	 /* call-stack mode (legacy format 4 on: Haswell; arch CPUID 1CH EBX[2]) */
	uint32_t from, to, info_msr, tos, select; /* MSRs (arch: entry 0's) */
	char why[96];				  /* where kind is NONE: why */
};

struct pmu_ds {
	bool ds;	    /* CPUID.1:EDX[21] DS and MISC_ENABLE allow one of them */
	bool bts;	    /* MISC_ENABLE[11] clear */
	bool pebs;	    /* MISC_ENABLE[12] clear and a PEBS format */
	uint8_t pebs_fmt;   /* PERF_CAPABILITIES[11:8] */
	bool pebs_trap;	    /* PERF_CAPABILITIES[6]: RIP is the next instruction's */
	bool pebs_baseline; /* PERF_CAPABILITIES[14]: adaptive PEBS */
	bool ds64;	    /* CPUID.1:ECX[2] DTES64: 64-bit DS layout */
	/* the event the harness samples with PEBS on this family (pmu/ds.c):
	 * event select, unit mask, the GP counter it goes on, its name */
	uint8_t pebs_event, pebs_umask, pebs_ctr;
	const char *pebs_event_name;
	char why_bts[96], why_pebs[96];
};

struct pmu_ibs {
	uint32_t caps; /* CPUID 8000_001Bh EAX (0: no IBS) */
	char why[96];
};

struct pmu_sampling {
	bool detected; /* pmu_sampling has filled it */
	struct pmu_lbr lbr;
	struct pmu_ds ds;
	struct pmu_ibs ibs;
};

/* Fills p->smp from the CPU p runs on, once, when a sampling check first
 * asks (the accesses are not made where nothing samples), and returns it. */
const struct pmu_sampling *pmu_sampling(struct pmu *p);
void pmu_lbr_detect(const struct pmu *p, struct pmu_lbr *l);
void pmu_ds_detect(const struct pmu *p, struct pmu_ds *d);
void pmu_ds_detect_netburst(const struct pmu *p, struct pmu_ds *d); /* pmu/ds_netburst.c */
void pmu_ibs_detect(const struct pmu *p, struct pmu_ibs *b);

#endif
