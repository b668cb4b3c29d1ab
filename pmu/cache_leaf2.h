/* CPUID leaf 02H cache and TLB descriptors, the only cache description of
 * Intel parts before leaf 04H (P6, early NetBurst): Intel SDM Vol. 2A,
 * CPUID, Table 3-12 "Encoding of CPUID Leaf 2 Descriptors". */
#ifndef PMH_PMU_CACHE_LEAF2_H
#define PMH_PMU_CACHE_LEAF2_H

#include <stdbool.h>
#include <stdint.h>
#include "cache.h"
#include "hw.h"

#define CPUID_LEAF_CACHE_DESC 0x2 /* cache and TLB descriptor bytes */

/* Decodes one CPUID(2) result of a CPU of display family/model into out;
 * levels no descriptor names are left as they are. Returns false when a
 * register holds descriptor FFH ("use leaf 4"): then only the TLBs were
 * decoded, the caches being leaf 04H's to describe. */
bool cache_leaf2_decode(const struct cpuid_regs *r, uint32_t family, uint32_t model,
			struct cpu_caches *out);

#endif
