/* Cache and TLB geometry from CPUID (pmu/cache.h). Every leaf is read
 * through hw_cpuid and only below the maximum leaf the CPU reports. */
#include "cache.h"
#include "cache_leaf2.h"
#include "cpuid.h"
#include "../lib/str.h"

#define WAYS_FULLY 0xffffu /* struct cache_level / tlb_level: fully associative */

/* ---- leaf 04H layout: Intel leaf 04H, AMD leaf 8000_001Dh ------------------ */

/* One cache from a subleaf (SDM Vol. 2A CPUID leaf 04H: size = ways x
 * partitions x line size x sets, each field stored minus one). */
static void det_level(const struct cpuid_regs *r, struct cache_level *c)
{
	uint64_t ways = CPUID_4_EBX_WAYS(r->ebx);
	uint64_t line = CPUID_4_EBX_LINE(r->ebx);
	uint64_t sets = (uint64_t)r->ecx + 1;
	uint64_t size = ways * CPUID_4_EBX_PARTITIONS(r->ebx) * line * sets;

	c->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	c->ways = (r->eax & CPUID_4_EAX_FULLY_ASSOC) ? WAYS_FULLY : (uint16_t)ways;
	c->line = (uint16_t)line;
	c->sets = sets > UINT32_MAX ? UINT32_MAX : (uint32_t)sets;
}

/* Where a cache of this level and type goes; NULL for one struct
 * cpu_caches has no place for (an L2 or L3 instruction cache, level 4). */
static struct cache_level *det_slot(struct cpu_caches *out, unsigned level, unsigned type)
{
	if (type > CPUID_4_TYPE_UNIFIED)
		return NULL; /* reserved types */
	switch (level) {
	case 1:
		return type == CPUID_4_TYPE_INSTRUCTION ? &out->l1i : &out->l1d;
	case 2:
		return type == CPUID_4_TYPE_INSTRUCTION ? NULL : &out->l2;
	case 3:
		return type == CPUID_4_TYPE_INSTRUCTION ? NULL : &out->l3;
	default:
		return NULL;
	}
}

/* Subleaves 0, 1, ... until the type is 0 (no more caches). */
static bool read_det(uint32_t leaf, struct cpu_caches *out)
{
	bool any = false;

	for (uint32_t i = 0; i < CPUID_4_MAX_SUBLEAF; i++) {
		struct cpuid_regs r;
		hw_cpuid(leaf, i, &r);
		unsigned type = CPUID_4_EAX_TYPE(r.eax);
		if (type == CPUID_4_TYPE_NONE)
			break;
		struct cache_level *c = det_slot(out, CPUID_4_EAX_LEVEL(r.eax), type);
		if (c) {
			det_level(&r, c);
			any = true;
		}
	}
	return any;
}

/* ---- AMD leaves 8000_0005h and 8000_0006h ---------------------------------- */

/* The L2/L3/L2 TLB associativity code (AMD CPUID Specification #25481
 * Fn8000_0006): 0 disabled; the codes it leaves
 * reserved, and 9 ("see Fn8000_001D" on later parts), give 0 ways too. */
static const uint16_t amd_assoc[16] = {
    [0x1] = 1,	[0x2] = 2,  [0x4] = 4,	[0x6] = 8,   [0x8] = 16,	 [0xa] = 32,
    [0xb] = 48, [0xc] = 64, [0xd] = 96, [0xe] = 128, [0xf] = WAYS_FULLY,
};

/* A cache of `kb` KiB, `line`-byte lines, `ways` ways (WAYS_FULLY: one set). */
static void amd_level(uint32_t kb, uint32_t line, uint16_t ways, struct cache_level *c)
{
	if (!kb || !line)
		return; /* none, or not enumerated */
	uint64_t size = (uint64_t)kb * 1024u;
	c->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	c->line = (uint16_t)line;
	c->ways = ways;
	if (ways == WAYS_FULLY)
		c->sets = 1;
	else if (ways)
		c->sets = (uint32_t)(size / ((uint64_t)ways * line));
}

static uint16_t amd_l1_ways(uint32_t assoc)
{
	return assoc == CPUID_AMD_L1_FULLY ? WAYS_FULLY : (uint16_t)assoc;
}

static void amd_tlb(uint32_t entries, uint16_t ways, struct tlb_level *t)
{
	if (!entries || !ways)
		return; /* no such TLB, or disabled (associativity 0) */
	t->entries = (uint16_t)entries;
	t->ways = ways;
}

/* AMD CPUID Specification #25481 Fn8000_0005: EBX the 4 KiB L1 TLBs, ECX
 * the L1 data cache, EDX the L1 instruction cache. */
static void read_amd_l1(struct cpu_caches *out)
{
	struct cpuid_regs r;
	hw_cpuid(CPUID_LEAF_AMD_L1, 0, &r);
	amd_level(CPUID_AMD_L1_SIZE_KB(r.ecx), CPUID_AMD_L1_LINE(r.ecx),
		  amd_l1_ways(CPUID_AMD_L1_ASSOC(r.ecx)), &out->l1d);
	amd_level(CPUID_AMD_L1_SIZE_KB(r.edx), CPUID_AMD_L1_LINE(r.edx),
		  amd_l1_ways(CPUID_AMD_L1_ASSOC(r.edx)), &out->l1i);
	amd_tlb(CPUID_AMD_L1_DTLB_ENTRIES(r.ebx), amd_l1_ways(CPUID_AMD_L1_DTLB_ASSOC(r.ebx)),
		&out->dtlb_l1);
	amd_tlb(CPUID_AMD_L1_ITLB_ENTRIES(r.ebx), amd_l1_ways(CPUID_AMD_L1_ITLB_ASSOC(r.ebx)),
		&out->itlb_l1);
}

/* AMD CPUID Specification #25481 Fn8000_0006: EBX the 4 KiB L2 TLBs, ECX
 * the L2 cache, EDX the L3 cache (its size in 512 KiB units). */
static void read_amd_l2(struct cpu_caches *out)
{
	struct cpuid_regs r;
	hw_cpuid(CPUID_LEAF_AMD_L2_L3, 0, &r);
	amd_level(CPUID_AMD_L2_SIZE_KB(r.ecx), CPUID_AMD_L2_LINE(r.ecx),
		  amd_assoc[CPUID_AMD_L2_ASSOC(r.ecx)], &out->l2);
	amd_level(CPUID_AMD_L3_SIZE_512K(r.edx) * 512u, CPUID_AMD_L2_LINE(r.edx),
		  amd_assoc[CPUID_AMD_L2_ASSOC(r.edx)], &out->l3);
	amd_tlb(CPUID_AMD_L2_DTLB_ENTRIES(r.ebx), amd_assoc[CPUID_AMD_L2_DTLB_ASSOC(r.ebx)],
		&out->dtlb_l2);
	amd_tlb(CPUID_AMD_L2_ITLB_ENTRIES(r.ebx), amd_assoc[CPUID_AMD_L2_ITLB_ASSOC(r.ebx)],
		&out->itlb_l2);
}

static bool any_level(const struct cpu_caches *c)
{
	return c->l1d.size || c->l1i.size || c->l2.size || c->l3.size || c->dtlb_l1.entries ||
	       c->dtlb_l2.entries || c->itlb_l1.entries || c->itlb_l2.entries;
}

/* AMD and Hygon: the TLBs always from 8000_0005h/8000_0006h; the caches
 * from 8000_001Dh where TopologyExtensions enumerates it (the L3 of 8000_0006h
 * may say "see 8000_001Dh"), else from the same two leaves. */
static void read_amd(const struct cpu_ids *ids, struct cpu_caches *out)
{
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_L1)
		read_amd_l1(out);
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_L2_L3)
		read_amd_l2(out);
	if (any_level(out))
		out->source = "CPUID 8000_0005h/8000_0006h";
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_CACHE_PARAMS &&
	    (ids->ext1.ecx & CPUID_AMD_ECX_TOPOEXT)) {
		struct cpu_caches det;
		pmh_memset(&det, 0, sizeof(det));
		if (read_det(CPUID_LEAF_AMD_CACHE_PARAMS, &det)) {
			out->l1d = det.l1d;
			out->l1i = det.l1i;
			out->l2 = det.l2;
			out->l3 = det.l3;
			out->source = "CPUID 8000_001Dh";
		}
	}
}

/* ---- Intel leaf 02H descriptors (pmu/cache_leaf2.c) ------------------------- */

/* One CPUID(2) read: AL, the number of reads it takes, is 1 on every part
 * that has the leaf (SDM Vol. 2A, CPUID, leaf 02H); a larger one is not
 * followed. Descriptor FFH leaves the caches to leaf 04H, which enumerated
 * none here: only the TLBs are then taken. */
static bool read_leaf2(const struct cpu_info *ci, struct cpu_caches *out)
{
	struct cpuid_regs r;
	hw_cpuid(CPUID_LEAF_CACHE_DESC, 0, &r);
	cache_leaf2_decode(&r, ci->family, ci->model, out);
	return any_level(out);
}

bool cpu_caches_read(const struct cpu_info *ci, struct cpu_caches *out)
{
	pmh_memset(out, 0, sizeof(*out));
	out->source = "none";
	switch (ci->vendor) {
	case VENDOR_INTEL:
		/* SDM Vol. 2A CPUID leaf 04H, and only where it enumerates
		 * nothing leaf 02H: the TLBs of parts with leaf 04H (leaf 02H,
		 * leaf 18H) are not read, they stay 0 */
		if (ci->ids.max_leaf >= CPUID_LEAF_CACHE_PARAMS &&
		    read_det(CPUID_LEAF_CACHE_PARAMS, out))
			out->source = "CPUID 04H";
		else if (ci->ids.max_leaf >= CPUID_LEAF_CACHE_DESC && read_leaf2(ci, out))
			out->source = "CPUID 02H";
		break;
	case VENDOR_AMD:
	case VENDOR_HYGON:
		read_amd(&ci->ids, out);
		break;
	default:
		break;
	}
	return any_level(out);
}

const struct cache_level *cpu_caches_llc(const struct cpu_caches *c)
{
	if (c->l3.size)
		return &c->l3;
	if (c->l2.size)
		return &c->l2;
	if (c->l1d.size)
		return &c->l1d;
	return NULL;
}
