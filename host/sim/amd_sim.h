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
 * (facts §1). */
#define AMD_SEL_MASK_K7K8 0xffdfffffull
#define AMD_SEL_MASK_F10 0x30fffdfffffull

struct sim_cpu;

/* Events per workload iteration that a counter with event select sel counts
 * in ring 0 on s (its micro-architecture's costs, its decode faults), given
 * whether EN and the global enable (if any) let it count. The caller
 * applies sim_counting() for the enable faults. */
uint64_t amd_sim_rate(const struct sim_cpu *s, uint64_t sel, bool counting,
		      const struct workload_vector *v);

#endif
