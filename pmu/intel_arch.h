/* Intel architectural performance monitoring: what the driver
 * (intel_arch.c) and its tables (intel_arch_tables.c) share. Private to
 * the two. */
#ifndef PMH_PMU_INTEL_ARCH_H
#define PMH_PMU_INTEL_ARCH_H

#include "pmu.h"

#define CPUID1_ECX_PDCM (1u << 15)
/* FIXED_CTR_CTRL field of fixed counter i: bit0 OS, bit1 USR, bit2
 * AnyThread (v3+), bit3 PMI (facts §4). */
#define FIX_OS	     0x1ull
#define FIX_USR	     0x2ull
#define FIX_ANY	     0x4ull
#define FIX_PMI	     0x8ull
#define FIX_SHIFT(i) (4u * (i))

extern const uint16_t intel_arch_fixed_event[4];

/* Flat counter mask -> GLOBAL_CTRL/STATUS bit positions. */
uint64_t intel_arch_global_bits(const struct pmu *p, uint64_t mask);
size_t intel_arch_msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max);
int intel_arch_generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr,
			     struct pmu_event *out);

#endif
