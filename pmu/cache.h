/* Cache and TLB geometry from CPUID, for sizing the memory workloads of
 * event.semantics (a walk that fits a level, or is four times its size)
 * and for the simulator's cache model. Intel: deterministic cache
 * parameters, leaf 04H (SDM Vol. 2A CPUID, "Deterministic Cache Parameters
 * Leaf"), and on parts without it the leaf 02H descriptors (SDM Vol. 2A
 * CPUID, Table 3-12; pmu/cache_leaf2.h); AMD: L1 leaf 8000_0005h and L2/L3
 * leaf 8000_0006h (K8 BKDG / AMD CPUID Specification #25481), and leaf
 * 8000_001Dh where enumerated (TopologyExtensions, same layout as Intel's
 * leaf 04H). */
#ifndef PMH_PMU_CACHE_H
#define PMH_PMU_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include "cpu.h"

struct cache_level {
	uint32_t size; /* bytes; 0: no such cache, or not enumerated */
	uint16_t ways; /* 0xffff: fully associative */
	uint16_t line; /* bytes */
	uint32_t sets;
};

struct tlb_level {
	uint16_t entries; /* 4 KiB-page entries; 0: not enumerated */
	uint16_t ways;	  /* 0xffff: fully associative */
};

struct cpu_caches {
	struct cache_level l1d, l1i, l2, l3;
	struct tlb_level dtlb_l1, dtlb_l2, itlb_l1, itlb_l2;
	const char *source; /* "CPUID 04H", "CPUID 02H", "CPUID 8000_0005h/8000_0006h",
			     * "CPUID 8000_001Dh", or "none" */
};

/* Reads the geometry of the current CPU (ci: its identification). Levels
 * the CPU does not enumerate stay 0. Returns false when no level could be
 * read (source "none"). */
bool cpu_caches_read(const struct cpu_info *ci, struct cpu_caches *out);

/* The last level there is (l3, else l2, else l1d); NULL when none. */
const struct cache_level *cpu_caches_llc(const struct cpu_caches *c);

#endif
