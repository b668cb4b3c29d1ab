/* The debug store's parts that sim_ds.c (its MSRs and the branch trace
 * store) and sim_pebs.c (PEBS) share: the DS save area as the harness laid
 * it out in memory, and the interrupt a buffer raises at its threshold. */
#ifndef PMH_SIM_SIM_DS_H
#define PMH_SIM_SIM_DS_H

#include "sim.h"

/* The DS save area's 64-bit layout (Intel SDM Vol. 3B 18.6.3.4 "DS Save
 * Area and IA-32e Mode Operation"; Linux arch/x86/events/perf_event.h
 * struct debug_store): BTS and PEBS buffer base, index, absolute maximum
 * and interrupt threshold, then the counters' PEBS reset values, GP i at
 * 0x40 + 8i (i < 8) and fixed k at 0x80 + 8k. */
#define DS_BTS_BASE	  0x00
#define DS_BTS_INDEX	  0x08
#define DS_BTS_MAX	  0x10
#define DS_BTS_THRESHOLD  0x18
#define DS_PEBS_BASE	  0x20
#define DS_PEBS_INDEX	  0x28
#define DS_PEBS_MAX	  0x30
#define DS_PEBS_THRESHOLD 0x38
#define DS_RESET_GP(i)	  (0x40 + 8 * (i))
#define DS_RESET_FIXED(k) (0x80 + 8 * (k))
#define DS_GP_MAX	  8
#define DS_FIXED_BIT	  32 /* PEBS_ENABLE: fixed counter k at bit 32 + k */

/* A 64-bit field of the DS save area, and memory at a linear address the
 * harness gave (its own pointers: the simulator shares its address space). */
uint64_t sim_ds_get(const struct sim_cpu *s, unsigned off);
void sim_ds_put(const struct sim_cpu *s, unsigned off, uint64_t v);
void sim_ds_write(uint64_t la, const void *src, unsigned n);
/* A buffer's index reached its interrupt threshold: the PMI (and for PEBS
 * GLOBAL_STATUS bit 62), unless ds-threshold-lost. */
void sim_ds_threshold(struct sim_cpu *s, bool pebs);
/* The PEBS side of sim_ds_step (sim_pebs.c). */
void sim_pebs_step(struct sim_cpu *s, const struct sim_step *st);

#endif
