/* Shared by the AMD simulated CPUs (model_amd_legacy.c, model_amd_core.c):
 * the decoding of an AMD PerfEvtSel/PERF_CTL value into events per workload
 * iteration. Freestanding. */
#ifndef PMH_SIM_AMD_SIM_H
#define PMH_SIM_AMD_SIM_H

#include "../../events/workload.h"
#include <stdbool.h>
#include <stdint.h>

/* Event-select bits that hold written values. K7 (Athlon optimization
 * guide, PerfEvtSel) and K8 (BKDG §10.2): bits 31:0 less reserved bit 21.
 * Fam10h and later add event[11:8] at 35:32 and Guest/HostOnly at 41:40
 * (AMD APM Vol. 2 #24593 §13.2). */
#define AMD_SEL_MASK_K7K8 0xffdfffffull
#define AMD_SEL_MASK_F10  0x30fffdfffffull

struct sim_cpu;

/* Why two counter-access faults cannot be on an AMD PMU: RDPMC takes a
 * counter index in ECX and nothing else, another value #GPs (AMD APM Vol. 3
 * RDPMC); counter writes keep 48 bits with no alias whose bits above could
 * fault (kvm-unit-tests x86/pmu.c check_amd_gp_counters_write_width reads
 * the 48-bit value back after writing 64). */
#define AMD_NA_COUNTER_ACCESS                                                                      \
	[SF_FAST_RDPMC_FULL] = "AMD RDPMC takes a counter index only, ECX[31] set #GPs (AMD APM "  \
			       "Vol. 3 RDPMC): no fast read",                                      \
	[SF_FULL_WIDTH_NO_GP] = "AMD counters have no full-width alias: a write keeps 48 bits, "   \
				"the bits above ignored (kvm-unit-tests x86/pmu.c "                \
				"check_amd_gp_counters_write_width)"
/* The counter-write faults every AMD PMU can have. */
#define AMD_WRITE_FAULTS (SIM_F(SF_WRITE_RESETS) | SIM_F(SF_OVERFLOW_FREEZES))

/* Events per workload iteration that a counter with event select sel counts
 * in ring 0 on s (its micro-architecture's costs, its decode faults), given
 * whether EN and the global enable (if any) let it count. The caller
 * applies sim_counting() for the enable faults. */
uint64_t amd_sim_rate(const struct sim_cpu *s, uint64_t sel, bool counting,
		      const struct workload_vector *v);

#endif
