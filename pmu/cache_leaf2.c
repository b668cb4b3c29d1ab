/* CPUID leaf 02H cache and TLB descriptors (pmu/cache_leaf2.h). Values from
 * Intel SDM Vol. 2A, CPUID, Table 3-12 "Encoding of CPUID Leaf 2
 * Descriptors"; 39H-3FH and 73H from the editions that still list them. */
#include "cache_leaf2.h"

#define WAYS_FULLY     0xffffu	  /* struct cache_level / tlb_level: fully associative */
#define REG_INVALID    (1u << 31) /* a register holding no descriptors */
#define DESC_USE_LEAF4 0xffu	  /* "no cache descriptors: use leaf 4" */
#define MAX_DESC       15	  /* four registers of four bytes, less AL */

enum desc_kind {
	D_NOTE, /* named, nothing struct cpu_caches holds: large-page TLBs,
		 * trace caches, prefetch, "no L2 / no L3", "TLBs in leaf 18H" */
	D_L1I,
	D_L1D,
	D_L2,
	D_L3,
	D_L2_L3, /* 49H: L3 on family 0FH model 06H, L2 on every other */
	D_ITLB,	 /* instruction TLB, 4 KiB pages */
	D_DTLB,	 /* data TLB or "Data TLB0", 4 KiB pages */
	D_DTLB2, /* "Data TLB1" or the shared second-level TLB, 4 KiB pages */
};

struct desc {
	uint8_t code;
	uint8_t kind;  /* enum desc_kind */
	uint16_t size; /* caches: KiB; TLBs: entries */
	uint16_t ways; /* WAYS_FULLY: fully associative */
	uint8_t line;  /* caches: bytes */
};

#define MIB(n) ((n)*1024u) /* in KiB */

/* Code, kind, size, ways, line. A TLB that also maps large pages counts as
 * its 4 KiB entries; the SDM gives no associativity for 50H-52H and
 * 5BH-5DH: taken as fully associative. */
static const struct desc descs[] = {
    {0x01, D_ITLB, 32, 4, 0},
    {0x02, D_NOTE, 0, 0, 0}, /* ITLB, 4 MiB pages */
    {0x03, D_DTLB, 64, 4, 0},
    {0x04, D_NOTE, 0, 0, 0}, /* DTLB, 4 MiB pages */
    {0x05, D_NOTE, 0, 0, 0}, /* Data TLB1, 4 MiB pages */
    {0x06, D_L1I, 8, 4, 32},
    {0x08, D_L1I, 16, 4, 32},
    {0x09, D_L1I, 32, 4, 64},
    {0x0a, D_L1D, 8, 2, 32},
    {0x0b, D_NOTE, 0, 0, 0}, /* ITLB, 4 MiB pages */
    {0x0c, D_L1D, 16, 4, 32},
    {0x0d, D_L1D, 16, 4, 64},
    {0x0e, D_L1D, 24, 6, 64},
    {0x1d, D_L2, 128, 2, 64},
    {0x21, D_L2, 256, 8, 64},
    {0x22, D_L3, 512, 4, 64}, /* 22H-29H: sectored, 2 lines per sector */
    {0x23, D_L3, MIB(1), 8, 64},
    {0x24, D_L2, MIB(1), 16, 64},
    {0x25, D_L3, MIB(2), 8, 64},
    {0x29, D_L3, MIB(4), 8, 64},
    {0x2c, D_L1D, 32, 8, 64},
    {0x30, D_L1I, 32, 8, 64},
    {0x39, D_L2, 128, 4, 64}, /* 39H-3EH: sectored */
    {0x3a, D_L2, 192, 6, 64},
    {0x3b, D_L2, 128, 2, 64},
    {0x3c, D_L2, 256, 4, 64},
    {0x3d, D_L2, 384, 6, 64},
    {0x3e, D_L2, 512, 4, 64},
    {0x3f, D_L2, 256, 2, 64},
    {0x40, D_NOTE, 0, 0, 0}, /* no L2, or no L3 where there is an L2: the level stays 0 */
    {0x41, D_L2, 128, 4, 32},
    {0x42, D_L2, 256, 4, 32},
    {0x43, D_L2, 512, 4, 32},
    {0x44, D_L2, MIB(1), 4, 32},
    {0x45, D_L2, MIB(2), 4, 32},
    {0x46, D_L3, MIB(4), 4, 64},
    {0x47, D_L3, MIB(8), 8, 64},
    {0x48, D_L2, MIB(3), 12, 64},
    {0x49, D_L2_L3, MIB(4), 16, 64},
    {0x4a, D_L3, MIB(6), 12, 64},
    {0x4b, D_L3, MIB(8), 16, 64},
    {0x4c, D_L3, MIB(12), 12, 64},
    {0x4d, D_L3, MIB(16), 16, 64},
    {0x4e, D_L2, MIB(6), 24, 64},
    {0x50, D_ITLB, 64, WAYS_FULLY, 0},
    {0x51, D_ITLB, 128, WAYS_FULLY, 0},
    {0x52, D_ITLB, 256, WAYS_FULLY, 0},
    {0x55, D_NOTE, 0, 0, 0}, /* ITLB, 2/4 MiB pages */
    {0x56, D_NOTE, 0, 0, 0}, /* Data TLB0, 4 MiB pages */
    {0x57, D_DTLB, 16, 4, 0},
    {0x59, D_DTLB, 16, WAYS_FULLY, 0},
    {0x5a, D_NOTE, 0, 0, 0}, /* Data TLB0, 2/4 MiB pages */
    {0x5b, D_DTLB, 64, WAYS_FULLY, 0},
    {0x5c, D_DTLB, 128, WAYS_FULLY, 0},
    {0x5d, D_DTLB, 256, WAYS_FULLY, 0},
    {0x60, D_L1D, 16, 8, 64},
    {0x61, D_ITLB, 48, WAYS_FULLY, 0},
    {0x63, D_NOTE, 0, 0, 0}, /* DTLB, 2/4 MiB and 1 GiB pages */
    {0x66, D_L1D, 8, 4, 64},
    {0x67, D_L1D, 16, 4, 64},
    {0x68, D_L1D, 32, 4, 64},
    {0x70, D_NOTE, 0, 0, 0}, /* 70H-73H: trace caches (12K-64K uops), not an L1I */
    {0x71, D_NOTE, 0, 0, 0},
    {0x72, D_NOTE, 0, 0, 0},
    {0x73, D_NOTE, 0, 0, 0},
    {0x76, D_NOTE, 0, 0, 0}, /* ITLB, 2/4 MiB pages */
    {0x78, D_L2, MIB(1), 4, 64},
    {0x79, D_L2, 128, 8, 64}, /* 79H-7CH: sectored */
    {0x7a, D_L2, 256, 8, 64},
    {0x7b, D_L2, 512, 8, 64},
    {0x7c, D_L2, MIB(1), 8, 64},
    {0x7d, D_L2, MIB(2), 8, 64},
    {0x7f, D_L2, 512, 2, 64},
    {0x80, D_L2, 512, 8, 64},
    {0x82, D_L2, 256, 8, 32},
    {0x83, D_L2, 512, 8, 32},
    {0x84, D_L2, MIB(1), 8, 32},
    {0x85, D_L2, MIB(2), 8, 32},
    {0x86, D_L2, 512, 4, 64},
    {0x87, D_L2, MIB(1), 8, 64},
    {0xa0, D_DTLB, 32, WAYS_FULLY, 0},
    {0xb0, D_ITLB, 128, 4, 0},
    {0xb1, D_NOTE, 0, 0, 0}, /* ITLB, 2/4 MiB pages */
    {0xb2, D_ITLB, 64, 4, 0},
    {0xb3, D_DTLB, 128, 4, 0},
    {0xb4, D_DTLB2, 256, 4, 0},
    {0xb5, D_ITLB, 64, 8, 0},
    {0xb6, D_ITLB, 128, 8, 0},
    {0xba, D_DTLB2, 64, 4, 0},
    {0xc1, D_DTLB2, 1024, 8, 0},
    {0xc3, D_DTLB2, 1536, 6, 0},
    {0xc4, D_NOTE, 0, 0, 0}, /* DTLB, 2/4 MiB pages */
    {0xca, D_DTLB2, 512, 4, 0},
    {0xd0, D_L3, 512, 4, 64},
    {0xd1, D_L3, MIB(1), 4, 64},
    {0xd2, D_L3, MIB(2), 4, 64},
    {0xd6, D_L3, MIB(1), 8, 64},
    {0xd7, D_L3, MIB(2), 8, 64},
    {0xd8, D_L3, MIB(4), 8, 64},
    {0xdc, D_L3, 1536, 12, 64},
    {0xdd, D_L3, MIB(3), 12, 64},
    {0xde, D_L3, MIB(6), 12, 64},
    {0xe2, D_L3, MIB(2), 16, 64},
    {0xe3, D_L3, MIB(4), 16, 64},
    {0xe4, D_L3, MIB(8), 16, 64},
    {0xea, D_L3, MIB(12), 24, 64},
    {0xeb, D_L3, MIB(18), 24, 64},
    {0xec, D_L3, MIB(24), 24, 64},
    {0xf0, D_NOTE, 0, 0, 0}, /* F0H, F1H: prefetch sizes */
    {0xf1, D_NOTE, 0, 0, 0},
    {0xfe, D_NOTE, 0, 0, 0}, /* TLBs described by leaf 18H (not read) */
};

static const struct desc *desc_find(uint8_t code)
{
	for (unsigned i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (descs[i].code == code)
			return &descs[i];
	return NULL; /* unknown, or 00H: ignored */
}

/* The descriptor bytes of r, nulls left out: a register with bit 31 set
 * holds none, and AL (how many times to run CPUID(2); 1 on every part, and
 * one read is all that is done) is not one. Returns how many. */
static unsigned desc_bytes(const struct cpuid_regs *r, uint8_t b[MAX_DESC])
{
	const uint32_t regs[4] = {r->eax, r->ebx, r->ecx, r->edx};
	unsigned n = 0;

	for (unsigned i = 0; i < 4; i++) {
		if (regs[i] & REG_INVALID)
			continue;
		for (unsigned k = i == 0 ? 1 : 0; k < 4; k++) {
			uint8_t v = (uint8_t)(regs[i] >> (8 * k));
			if (v)
				b[n++] = v;
		}
	}
	return n;
}

/* Where a cache descriptor goes; NULL for a TLB or a note. */
static struct cache_level *cache_slot(const struct desc *d, uint32_t family, uint32_t model,
				      struct cpu_caches *out)
{
	switch (d->kind) {
	case D_L1I:
		return &out->l1i;
	case D_L1D:
		return &out->l1d;
	case D_L2:
		return &out->l2;
	case D_L3:
		return &out->l3;
	case D_L2_L3:
		return family == 0xf && model == 0x6 ? &out->l3 : &out->l2;
	default:
		return NULL;
	}
}

static struct tlb_level *tlb_slot(const struct desc *d, struct cpu_caches *out)
{
	switch (d->kind) {
	case D_ITLB:
		return &out->itlb_l1;
	case D_DTLB:
		return &out->dtlb_l1;
	case D_DTLB2:
		return &out->dtlb_l2;
	default:
		return NULL;
	}
}

/* The first descriptor for a level fills it; a later one for the same
 * level (descriptors come in no defined order) is ignored. */
static void fill_cache(const struct desc *d, struct cache_level *c)
{
	if (c->size)
		return;
	c->size = (uint32_t)d->size * 1024u;
	c->ways = d->ways;
	c->line = d->line;
	c->sets = d->ways == WAYS_FULLY ? 1 : c->size / ((uint32_t)d->ways * d->line);
}

static void fill_tlb(const struct desc *d, struct tlb_level *t)
{
	if (t->entries)
		return;
	t->entries = d->size;
	t->ways = d->ways;
}

bool cache_leaf2_decode(const struct cpuid_regs *r, uint32_t family, uint32_t model,
			struct cpu_caches *out)
{
	uint8_t b[MAX_DESC];
	unsigned n = desc_bytes(r, b);
	bool caches = true;

	for (unsigned i = 0; i < n; i++)
		if (b[i] == DESC_USE_LEAF4)
			caches = false;
	for (unsigned i = 0; i < n; i++) {
		const struct desc *d = desc_find(b[i]);
		if (!d)
			continue;
		struct cache_level *c = caches ? cache_slot(d, family, model, out) : NULL;
		struct tlb_level *t = tlb_slot(d, out);
		if (c)
			fill_cache(d, c);
		if (t)
			fill_tlb(d, t);
	}
	return caches;
}
