/* The CPUID cache leaves of a micro-architecture (uarch.h), in the layouts
 * the harness's parser reads (pmu/cache.h):
 *  - Intel: leaf 04H, one subleaf per cache, then a null one (SDM Vol. 2A
 *    CPUID, "Deterministic Cache Parameters Leaf"): EAX type (1 data, 2
 *    instruction, 3 unified), level in 7:5, self-initialising bit 8; EBX line
 *    size - 1, partitions - 1 in 21:12, ways - 1 in 31:22; ECX sets - 1; EDX
 *    bit 1 inclusive of the lower levels. One core, one thread shares each.
 *  - Intel before leaf 04H: the model's leaf 02H descriptor bytes
 *    (uarch_cfg.leaf2), which must name this geometry (SDM Vol. 2A CPUID,
 *    "Encoding of Cache and TLB Descriptors").
 *  - AMD: 8000_0005h (L1 TLBs, L1D, L1I) and 8000_0006h (L2 TLBs, L2, L3),
 *    AMD CPUID Specification #25481 and K8 BKDG #26094 "CPUID": L1 ways as
 *    a count (FFh fully associative), L2/L3 ways encoded (2: 2-way, 4: 4,
 *    6: 8, 8: 16, ... Fh: fully). Host-only, freestanding. */
#include "sim.h"
#include "uarch.h"

static uint32_t line_of(const struct uarch_cfg *c)
{
	return c->line ? c->line : 64;
}

static void intel_leaf(struct sim_cpu *s, unsigned *sub, const struct uarch_cfg *c,
		       const struct ua_cache *k, unsigned type, unsigned level, bool incl)
{
	uint32_t ways = k->ways ? k->ways : 1, line = line_of(c);
	if (!k->size)
		return;
	sim_set_cpuid(s, 4, (*sub)++, type | level << 5 | 1u << 8, (line - 1) | (ways - 1) << 22,
		      k->size / (line * ways) - 1, incl ? 1u << 1 : 0);
}

static void publish_intel(struct sim_cpu *s, const struct uarch_cfg *c)
{
	unsigned sub = 0;
	intel_leaf(s, &sub, c, &c->l1d, 1, 1, false);
	intel_leaf(s, &sub, c, &c->l1i, 2, 1, false);
	intel_leaf(s, &sub, c, &c->l2, 3, 2, false);
	intel_leaf(s, &sub, c, &c->l3, 3, 3, c->l3_inclusive);
	sim_set_cpuid(s, 4, sub, 0, 0, 0, 0); /* type 0: no more caches */
}

/* An L1 way count for 8000_0005h: FFh when fully associative. */
static uint32_t l1_ways(uint16_t ways, uint16_t entries)
{
	return ways >= entries ? 0xffu : ways;
}

/* The 4-bit encoding of 8000_0006h. */
static uint32_t l2_ways(uint16_t ways, uint32_t entries)
{
	static const struct {
		uint16_t ways;
		uint8_t code;
	} enc[] = {{1, 1}, {2, 2}, {4, 4}, {8, 6}, {16, 8}, {32, 0xa}, {48, 0xb}, {64, 0xc}};
	if (!ways)
		return 0;
	if (ways >= entries)
		return 0xf;
	for (unsigned i = 0; i < sizeof(enc) / sizeof(enc[0]); i++)
		if (enc[i].ways == ways)
			return enc[i].code;
	return 0xf;
}

static uint32_t l1_cache(const struct uarch_cfg *c, const struct ua_cache *k)
{
	uint32_t line = line_of(c);
	return (k->size / 1024) << 24 | l1_ways(k->ways, (uint16_t)(k->size / line)) << 16 |
	       1u << 8 | line;
}

static void publish_amd(struct sim_cpu *s, const struct uarch_cfg *c)
{
	uint32_t line = line_of(c);
	uint32_t tlb1 = l1_ways(c->dtlb1.ways, c->dtlb1.entries) << 24 | c->dtlb1.entries << 16 |
			l1_ways(c->itlb1.ways, c->itlb1.entries) << 8 | c->itlb1.entries;
	uint32_t tlb2 = l2_ways(c->dtlb2.ways, c->dtlb2.entries) << 28 | c->dtlb2.entries << 16 |
			l2_ways(c->itlb2.ways, c->itlb2.entries) << 12 | c->itlb2.entries;
	uint32_t l2 = c->l2.size ? (c->l2.size / 1024) << 16 |
				       l2_ways(c->l2.ways, c->l2.size / line) << 12 | 1u << 8 | line
				 : 0;
	uint32_t l3 = c->l3.size ? (c->l3.size / (512 * 1024)) << 18 |
				       l2_ways(c->l3.ways, c->l3.size / line) << 12 | 1u << 8 | line
				 : 0;

	sim_set_cpuid(s, 0x80000005u, 0, 0, tlb1, l1_cache(c, &c->l1d), l1_cache(c, &c->l1i));
	sim_set_cpuid(s, 0x80000006u, 0, 0, tlb2, l2, l3);
}

void uarch_publish(struct sim_cpu *s, const struct uarch_cfg *c)
{
	if (c->amd)
		publish_amd(s, c);
	else if (c->leaf2[0])
		sim_set_cpuid(s, 2, 0, c->leaf2[0], c->leaf2[1], c->leaf2[2], c->leaf2[3]);
	else
		publish_intel(s, c);
}
