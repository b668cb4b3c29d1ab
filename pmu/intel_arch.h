/* Intel architectural performance monitoring: what the driver
 * (intel_arch.c), its tables (intel_arch_tables.c) and the event catalogue
 * (events/intel_arch.c) share: the architectural events and the event of
 * each fixed counter. */
#ifndef PMH_PMU_INTEL_ARCH_H
#define PMH_PMU_INTEL_ARCH_H

#include "pmu.h"

/* What each architectural perfmon version adds (SDM Vol. 3B 20.2.1-20.2.5). */
#define ARCH_V_GLOBALS	  2 /* global ctrl/status/ovf registers, fixed counters */
#define ARCH_V_ANYTHREAD  3 /* EVNTSEL.ANY and the fixed AnyThread bits */
#define ARCH_V_STATUS_SET 4 /* GLOBAL_STATUS_SET */
#define ARCH_V_FIXED_MASK 5 /* CPUID.0AH:ECX fixed-counter bitmask */

/* GLOBAL_CTRL, GLOBAL_STATUS and STATUS_SET: GP counter i is bit i, fixed
 * counter i bit 32 + i (SDM Vol. 3B 20.2.2). */
#define ARCH_GLOBAL_FIXED_BIT PMU_GLOBAL_FIXED_BIT

/* FIXED_CTR_CTRL field of fixed counter i: bit0 OS, bit1 USR, bit2
 * AnyThread (v3+), bit3 PMI (SDM Vol. 3B 20.2.2, 20.2.3). */
#define FIX_OS	     0x1ull
#define FIX_USR	     0x2ull
#define FIX_ANY	     0x4ull
#define FIX_PMI	     0x8ull
#define FIX_SHIFT(i) (4u * (i))

/* The architectural events (umask << 8 | event) in the order of their
 * CPUID.0AH:EBX bits, a set bit marking one unavailable (SDM Vol. 3B 20.2.1.2). */
enum arch_ebx_bit {
	ARCH_EBX_CORE_CYCLES,
	ARCH_EBX_INSTRUCTIONS,
	ARCH_EBX_REF_CYCLES,
	ARCH_EBX_LLC_REFS,
	ARCH_EBX_LLC_MISSES,
	ARCH_EBX_BRANCHES,
	ARCH_EBX_BRANCH_MISSES,
};
#define ARCH_EV_CORE_CYCLES   0x003c
#define ARCH_EV_INSTRUCTIONS  0x00c0
#define ARCH_EV_REF_CYCLES    0x013c /* Linux counts it as bus-cycles */
#define ARCH_EV_LLC_REFS      0x4f2e
#define ARCH_EV_LLC_MISSES    0x412e
#define ARCH_EV_BRANCHES      0x00c4
#define ARCH_EV_BRANCH_MISSES 0x00c5

/* The event of fixed counter i (SDM Vol. 3B 20.2.2; Linux perf_event.h): INST_RETIRED.ANY,
 * CPU_CLK_UNHALTED.CORE, and the pseudo-encodings of CPU_CLK_UNHALTED.REF
 * and TOPDOWN.SLOTS. */
#define ARCH_FIXED0_EVENT ARCH_EV_INSTRUCTIONS
#define ARCH_FIXED1_EVENT ARCH_EV_CORE_CYCLES
#define ARCH_FIXED2_EVENT 0x0300
#define ARCH_FIXED3_EVENT 0x0400
#define ARCH_FIXED_EVENTS 4

extern const uint16_t intel_arch_fixed_event[ARCH_FIXED_EVENTS];
/* The fixed counter whose event is enc (umask << 8 | event), or -1. */
int intel_arch_fixed_index(uint16_t enc);

/* Flat counter mask -> GLOBAL_CTRL/STATUS bit positions. */
uint64_t intel_arch_global_bits(const struct pmu *p, uint64_t mask);
size_t intel_arch_msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max);
/* Whether EVNTSEL.PC (pin control, bit 19) holds what is written: on cores
 * before Sandy Bridge (perfmon v1/v2, Nehalem, Westmere); reserved from
 * Sandy Bridge on (SDM Vol. 3B §20.2.1.1, IA32_PERFEVTSELx bit 19). */
bool intel_arch_pin_control(const struct cpu_info *ci, unsigned version);
/* Nehalem and Westmere count wrongly after a counter is added unless the
 * PMU is first reset with three magic events (errata AAK100 on model 1AH,
 * AAP53 on 1EH, BD53 on 2CH; Linux intel_pmu_nhm_workaround, which Linux
 * applies to both generations and to all four PMCs). */
#define NHM_PMCS 4
bool intel_arch_nhm_erratum(const struct cpu_info *ci);
/* The reset, run before an event select is written: the four PMCs' selects
 * and values come back as they were (values as 32-bit writes, which the
 * harness's preloads of at most 2^31 survive), GLOBAL_CTRL too. */
int intel_arch_nhm_reset(void);
int intel_arch_generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr,
			     struct pmu_event *out);

#endif
