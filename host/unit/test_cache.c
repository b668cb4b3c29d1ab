/* pmu/cache.c on simulated CPUs whose cache leaves hold the values of real
 * parts: Intel leaf 04H (Skylake client), Intel leaf 02H descriptors (P6,
 * NetBurst, Core 2), AMD 8000_0005h/8000_0006h (K8 Opteron) and 8000_001Dh
 * (Zen 3), each field checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../pmu/cache.h"
#include "../../pmu/cpu.h"
#include "../sim/sim.h"

#define FULLY 0xffff

/* Drops every entry of leaf (any subleaf): the model's own values, a
 * wildcard among them, must not answer in place of the test's. */
static void drop_leaf(uint32_t leaf)
{
	unsigned n = 0;
	for (unsigned i = 0; i < sim.n_cpuid; i++)
		if (sim.cpuid[i].leaf != leaf)
			sim.cpuid[n++] = sim.cpuid[i];
	sim.n_cpuid = n;
}

struct leaf {
	uint32_t leaf, sub, a, b, c, d;
};

/* Replaces the leaves of t (all subleaves of each) by t's. */
static void set_leaves(const struct leaf *t, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		drop_leaf(t[i].leaf);
	for (unsigned i = 0; i < n; i++)
		sim_set_cpuid(&sim, t[i].leaf, t[i].sub, t[i].a, t[i].b, t[i].c, t[i].d);
}

static void read_caches(struct cpu_caches *c, bool want)
{
	struct cpu_info ci;
	cpu_identify(&ci);
	assert_int_equal(cpu_caches_read(&ci, c), want);
}

static void level_is(const struct cache_level *l, uint32_t size, unsigned ways, unsigned line,
		     uint32_t sets)
{
	assert_int_equal(l->size, size);
	assert_int_equal(l->ways, ways);
	assert_int_equal(l->line, line);
	assert_int_equal(l->sets, sets);
}

static void tlb_is(const struct tlb_level *t, unsigned entries, unsigned ways)
{
	assert_int_equal(t->entries, entries);
	assert_int_equal(t->ways, ways);
}

/* Core i7-6700K (06_5EH): leaf 04H subleaves 0-3 are L1D 32 KiB 8-way, L1I
 * 32 KiB 8-way, L2 256 KiB 4-way, L3 8 MiB 16-way, all 64-byte lines;
 * subleaf 4 type 0 ends the list. */
static const struct leaf skylake[] = {
    {4, 0, 0x1c004121, 0x01c0003f, 0x0000003f, 0x00000000},
    {4, 1, 0x1c004122, 0x01c0003f, 0x0000003f, 0x00000000},
    {4, 2, 0x1c004143, 0x00c0003f, 0x000003ff, 0x00000000},
    {4, 3, 0x1c03c163, 0x03c0003f, 0x00001fff, 0x00000006},
    {4, 4, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
};

static void intel_leaf_04h(void **st)
{
	struct cpu_caches c;
	(void)st;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	sim_vendor(&sim, 0x16, "GenuineIntel");
	set_leaves(skylake, sizeof(skylake) / sizeof(skylake[0]));
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 04H");
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
	level_is(&c.l1i, 32 << 10, 8, 64, 64);
	level_is(&c.l2, 256 << 10, 4, 64, 1024);
	level_is(&c.l3, 8 << 20, 16, 64, 8192);
	tlb_is(&c.dtlb_l1, 0, 0); /* with leaf 04H, Intel TLBs are not read */
	tlb_is(&c.dtlb_l2, 0, 0);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l3);

	/* a fully associative cache (EAX[9]) has one set */
	sim_set_cpuid(&sim, 4, 3, 0x1c03c363, 0x03c0003f, 0, 0);
	read_caches(&c, true);
	level_is(&c.l3, 16 * 64, FULLY, 64, 1);

	/* leaf 04H beyond the maximum leaf is not read */
	sim_vendor(&sim, 3, "GenuineIntel");
	read_caches(&c, false);
	assert_string_equal(c.source, "none");
	level_is(&c.l1d, 0, 0, 0, 0);
	assert_null(cpu_caches_llc(&c));
}

/* ---- Intel leaf 02H descriptors (SDM Vol. 2A CPUID, Table 3-12) ------------ */

/* Leaf 2 as the only source: leaf 0 says max leaf 2, leaf 1 the signature
 * (display family/model), leaf 2 the descriptor registers. */
static void leaf2_cpu(const char *model, uint32_t fms, uint32_t a, uint32_t b, uint32_t c,
		      uint32_t d)
{
	assert_int_equal(sim_start(model, SF_NONE), 0);
	sim_vendor(&sim, 2, "GenuineIntel");
	drop_leaf(4);
	sim_set_cpuid(&sim, 1, 0, fms, 0, 0, 0);
	drop_leaf(2);
	sim_set_cpuid(&sim, 2, 0, a, b, c, d);
}

/* Pentium III Coppermine (06_08H): EAX 01H (AL), 01H ITLB 4 KiB 4-way 32
 * entries, 02H ITLB 4 MiB, 03H DTLB 4 KiB 4-way 64; EDX 82H L2 256 KiB
 * 8-way 32-byte lines, 08H L1I 16 KiB 4-way 32, 04H DTLB 4 MiB, 0CH L1D
 * 16 KiB 4-way 32. Katmai (06_07H) has 43H, L2 512 KiB 4-way 32, for 82H. */
static void intel_leaf_02h_p6(void **st)
{
	struct cpu_caches c;
	(void)st;
	leaf2_cpu("pentium3", sim_fms(6, 8, 6), 0x03020101, 0, 0, 0x0c040882);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l1d, 16 << 10, 4, 32, 128);
	level_is(&c.l1i, 16 << 10, 4, 32, 128);
	level_is(&c.l2, 256 << 10, 8, 32, 1024);
	level_is(&c.l3, 0, 0, 0, 0);
	tlb_is(&c.itlb_l1, 32, 4);
	tlb_is(&c.dtlb_l1, 64, 4); /* not 03H's 4 MiB neighbour 04H */
	tlb_is(&c.dtlb_l2, 0, 0);
	tlb_is(&c.itlb_l2, 0, 0);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l2);
	/* AL above 1 (more CPUID(2) reads wanted): the one read still counts */
	sim_set_cpuid(&sim, 2, 0, 0x03020102, 0, 0, 0x0c040882);
	read_caches(&c, true);
	level_is(&c.l2, 256 << 10, 8, 32, 1024);
	tlb_is(&c.itlb_l1, 32, 4);

	leaf2_cpu("pentium3", sim_fms(6, 7, 3), 0x03020101, 0, 0, 0x0c040843);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l1d, 16 << 10, 4, 32, 128);
	level_is(&c.l1i, 16 << 10, 4, 32, 128);
	level_is(&c.l2, 512 << 10, 4, 32, 4096);
	tlb_is(&c.itlb_l1, 32, 4);
	tlb_is(&c.dtlb_l1, 64, 4);
}

/* Pentium 4 Northwood (0F_02H): EAX 01H (AL), 50H ITLB 64 entries (4 KiB
 * and large pages), 5BH DTLB 64 entries, 66H L1D 8 KiB 4-way 64-byte
 * lines; EDX 40H no L3, 70H trace cache 12K uops, 7BH L2 512 KiB 8-way 64
 * (sectored). The trace cache is no L1I. */
static void intel_leaf_02h_netburst(void **st)
{
	struct cpu_caches c;
	(void)st;
	leaf2_cpu("pentium4", sim_fms(0xf, 2, 9), 0x665b5001, 0, 0, 0x007b7040);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l1d, 8 << 10, 4, 64, 32);
	level_is(&c.l1i, 0, 0, 0, 0);
	level_is(&c.l2, 512 << 10, 8, 64, 1024);
	level_is(&c.l3, 0, 0, 0, 0);
	tlb_is(&c.itlb_l1, 64, FULLY);
	tlb_is(&c.dtlb_l1, 64, FULLY);
	tlb_is(&c.dtlb_l2, 0, 0);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l2);
}

/* A register with bit 31 set holds no descriptors: the Coppermine's EDX
 * (its caches) or EAX (its TLBs) with the bit set is left out. */
static void intel_leaf_02h_invalid_register(void **st)
{
	struct cpu_caches c;
	(void)st;
	leaf2_cpu("pentium3", sim_fms(6, 8, 6), 0x03020101, 0, 0, 0x8c040882);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l1d, 0, 0, 0, 0);
	level_is(&c.l1i, 0, 0, 0, 0);
	level_is(&c.l2, 0, 0, 0, 0);
	tlb_is(&c.itlb_l1, 32, 4);
	tlb_is(&c.dtlb_l1, 64, 4);

	sim_set_cpuid(&sim, 2, 0, 0x83020101, 0, 0, 0x0c040882);
	read_caches(&c, true);
	level_is(&c.l2, 256 << 10, 8, 32, 1024);
	tlb_is(&c.itlb_l1, 0, 0);
	tlb_is(&c.dtlb_l1, 0, 0);

	/* both: nothing left */
	sim_set_cpuid(&sim, 2, 0, 0x83020101, 0, 0, 0x8c040882);
	read_caches(&c, false);
	assert_string_equal(c.source, "none");
}

/* Descriptor 49H: a 4 MiB 16-way 64-byte L3 on family 0FH model 06H (Xeon
 * MP 7100), an L2 everywhere else. Core 2 Duo (06_0FH): EAX B1H ITLB
 * large pages, B0H ITLB 4 KiB 4-way 128, 05H DTLB1 4 MiB; EBX F0H
 * prefetch, 57H DTLB0 4 KiB 4-way 16, 56H DTLB0 4 MiB; EDX 49H, 30H L1I
 * 32 KiB 8-way, B4H DTLB1 4 KiB 4-way 256, 2CH L1D 32 KiB 8-way. Its leaf
 * 04H is there but enumerates nothing (subleaf 0 type 0). */
static void intel_leaf_02h_49h(void **st)
{
	struct cpu_caches c;
	(void)st;
	leaf2_cpu("core2", sim_fms(6, 0xf, 6), 0x05b0b101, 0x005657f0, 0, 0x2cb43049);
	sim_vendor(&sim, 0xa, "GenuineIntel");
	sim_set_cpuid(&sim, 4, 0, 0, 0, 0, 0);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
	level_is(&c.l1i, 32 << 10, 8, 64, 64);
	level_is(&c.l2, 4 << 20, 16, 64, 4096);
	level_is(&c.l3, 0, 0, 0, 0);
	tlb_is(&c.itlb_l1, 128, 4);
	tlb_is(&c.dtlb_l1, 16, 4);
	tlb_is(&c.dtlb_l2, 256, 4);
	/* model 06H of family 6 is no family 0FH model 06H */
	sim_set_cpuid(&sim, 1, 0, sim_fms(6, 6, 0), 0, 0, 0);
	read_caches(&c, true);
	level_is(&c.l2, 4 << 20, 16, 64, 4096);
	level_is(&c.l3, 0, 0, 0, 0);

	/* family 0FH model 06H: 60H L1D 16 KiB 8-way, 7CH L2 1 MiB 8-way,
	 * 49H the L3 */
	leaf2_cpu("pentium4", sim_fms(0xf, 6, 8), 0x605b5001, 0, 0, 0x007c7049);
	read_caches(&c, true);
	level_is(&c.l1d, 16 << 10, 8, 64, 32);
	level_is(&c.l2, 1 << 20, 8, 64, 2048);
	level_is(&c.l3, 4 << 20, 16, 64, 4096);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l3);
	/* family 0FH, another model: 49H is an L2 again (the first one named
	 * is kept) */
	sim_set_cpuid(&sim, 1, 0, sim_fms(0xf, 4, 1), 0, 0, 0);
	read_caches(&c, true);
	level_is(&c.l2, 4 << 20, 16, 64, 4096);
	level_is(&c.l3, 0, 0, 0, 0);
}

/* Descriptor FFH: leaf 02H names no caches, leaf 04H does. Haswell's TLB
 * descriptors (EAX 63H, 03H DTLB 4 KiB 4-way 64, 76H; EBX FFH, B5H ITLB 4
 * KiB 8-way 64, F0H; EDX C1H STLB 1024 8-way), with 2CH (an L1D) added in
 * ECX to see that it is set aside. */
static void intel_leaf_02h_ffh(void **st)
{
	struct cpu_caches c;
	(void)st;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	sim_vendor(&sim, 0x16, "GenuineIntel");
	set_leaves(skylake, sizeof(skylake) / sizeof(skylake[0]));
	drop_leaf(2);
	sim_set_cpuid(&sim, 2, 0, 0x76036301, 0x00f0b5ff, 0x0000002c, 0x00c10000);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 04H");
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
	level_is(&c.l2, 256 << 10, 4, 64, 1024);

	/* leaf 04H enumerating nothing: the TLBs of leaf 02H, no caches */
	drop_leaf(4);
	sim_set_cpuid(&sim, 4, 0, 0, 0, 0, 0);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l1d, 0, 0, 0, 0);
	level_is(&c.l2, 0, 0, 0, 0);
	tlb_is(&c.dtlb_l1, 64, 4);
	tlb_is(&c.itlb_l1, 64, 8);
	tlb_is(&c.dtlb_l2, 1024, 8);

	/* without FFH, 2CH is the L1D */
	sim_set_cpuid(&sim, 2, 0, 0x76036301, 0x00f0b500, 0x0000002c, 0x00c10000);
	read_caches(&c, true);
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
}

/* A CPU with leaf 04H keeps it: a leaf 02H that names other caches (the
 * Coppermine's) is not read, its TLBs neither. */
static void intel_leaf_04h_over_02h(void **st)
{
	struct cpu_caches c;
	(void)st;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	sim_vendor(&sim, 0x16, "GenuineIntel");
	set_leaves(skylake, sizeof(skylake) / sizeof(skylake[0]));
	drop_leaf(2);
	sim_set_cpuid(&sim, 2, 0, 0x03020101, 0, 0, 0x0c040882);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 04H");
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
	level_is(&c.l1i, 32 << 10, 8, 64, 64);
	level_is(&c.l2, 256 << 10, 4, 64, 1024);
	level_is(&c.l3, 8 << 20, 16, 64, 8192);
	tlb_is(&c.itlb_l1, 0, 0);
	tlb_is(&c.dtlb_l1, 0, 0);

	/* the same leaf 02H below a maximum leaf of 3 is read */
	sim_vendor(&sim, 3, "GenuineIntel");
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 02H");
	level_is(&c.l2, 256 << 10, 8, 32, 1024);
	level_is(&c.l3, 0, 0, 0, 0);
}

/* Opteron (K8, 0F_05H): 8000_0005h L1D and L1I 64 KiB 2-way, 64-byte lines;
 * L1 DTLB and ITLB 32 entries fully associative (and 8 2M/4M entries in
 * EAX, not read); 8000_0006h L2 1 MiB 16-way (code 8), L2 DTLB and ITLB
 * 512 entries 4-way, no L3. */
static const struct leaf k8[] = {
    {0x80000005u, 0, 0xff08ff08, 0xff20ff20, 0x40020140, 0x40020140},
    {0x80000006u, 0, 0x00000000, 0x42004200, 0x04008140, 0x00000000},
};

static void amd_k8_leaves(void **st)
{
	struct cpu_caches c;
	(void)st;
	assert_int_equal(sim_start("opteron", SF_NONE), 0);
	set_leaves(k8, sizeof(k8) / sizeof(k8[0]));
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 8000_0005h/8000_0006h");
	level_is(&c.l1d, 64 << 10, 2, 64, 512);
	level_is(&c.l1i, 64 << 10, 2, 64, 512);
	level_is(&c.l2, 1 << 20, 16, 64, 1024);
	level_is(&c.l3, 0, 0, 0, 0);
	tlb_is(&c.dtlb_l1, 32, FULLY);
	tlb_is(&c.itlb_l1, 32, FULLY);
	tlb_is(&c.dtlb_l2, 512, 4);
	tlb_is(&c.itlb_l2, 512, 4);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l2);

	/* 8000_0006h beyond the maximum extended leaf: only L1 */
	sim_set_cpuid(&sim, 0x80000000u, 0, 0x80000005u, 0, 0, 0);
	read_caches(&c, true);
	level_is(&c.l1d, 64 << 10, 2, 64, 512);
	level_is(&c.l2, 0, 0, 0, 0);
	tlb_is(&c.dtlb_l2, 0, 0);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l1d);
	sim_set_cpuid(&sim, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	read_caches(&c, false);
	assert_string_equal(c.source, "none");
}

/* Ryzen 7 5800X (Zen 3, 19_21H): 8000_001Dh L1D and L1I 32 KiB 8-way, L2
 * 512 KiB 8-way, L3 32 MiB 16-way; 8000_0005h L1 DTLB and ITLB 64 entries
 * fully associative; 8000_0006h L2 DTLB 2048 entries 8-way (code 6), L2
 * ITLB 512 4-way, L2 512 KiB 8-way and L3 32 MiB (64 x 512 KiB) whose
 * associativity is code 9: "see 8000_001Dh". */
static const struct leaf zen3[] = {
    {0x80000005u, 0, 0xff40ff40, 0xff40ff40, 0x20080140, 0x20080140},
    {0x80000006u, 0, 0x48002200, 0x68004200, 0x02006140, 0x01009140},
    {0x8000001du, 0, 0x00004121, 0x01c0003f, 0x0000003f, 0x00000000},
    {0x8000001du, 1, 0x00004122, 0x01c0003f, 0x0000003f, 0x00000000},
    {0x8000001du, 2, 0x00004143, 0x01c0003f, 0x000003ff, 0x00000002},
    {0x8000001du, 3, 0x0003c163, 0x03c0003f, 0x00007fff, 0x00000001},
    {0x8000001du, 4, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
};

/* 8000_0001h ECX[22] TopologyExtensions set or clear. */
static void topoext(bool on)
{
	for (unsigned i = 0; i < sim.n_cpuid; i++) {
		struct sim_cpuid *e = &sim.cpuid[i];
		if (e->leaf == 0x80000001u)
			e->r.ecx = on ? e->r.ecx | (1u << 22) : e->r.ecx & ~(1u << 22);
	}
}

static void amd_zen_leaf_8000_001dh(void **st)
{
	struct cpu_caches c;
	(void)st;
	assert_int_equal(sim_start("zen4", SF_NONE), 0);
	set_leaves(zen3, sizeof(zen3) / sizeof(zen3[0]));
	topoext(true);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 8000_001Dh");
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
	level_is(&c.l1i, 32 << 10, 8, 64, 64);
	level_is(&c.l2, 512 << 10, 8, 64, 1024);
	level_is(&c.l3, 32 << 20, 16, 64, 32768);
	tlb_is(&c.dtlb_l1, 64, FULLY);
	tlb_is(&c.itlb_l1, 64, FULLY);
	tlb_is(&c.dtlb_l2, 2048, 8);
	tlb_is(&c.itlb_l2, 512, 4);
	assert_ptr_equal(cpu_caches_llc(&c), &c.l3);

	/* without TopologyExtensions 8000_001Dh is not read: the L3's ways
	 * are unknown (code 9), its size is not */
	topoext(false);
	read_caches(&c, true);
	assert_string_equal(c.source, "CPUID 8000_0005h/8000_0006h");
	level_is(&c.l1d, 32 << 10, 8, 64, 64);
	level_is(&c.l2, 512 << 10, 8, 64, 1024);
	level_is(&c.l3, 32 << 20, 0, 64, 0);
	tlb_is(&c.dtlb_l2, 2048, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(intel_leaf_04h),
	    cmocka_unit_test(intel_leaf_02h_p6),
	    cmocka_unit_test(intel_leaf_02h_netburst),
	    cmocka_unit_test(intel_leaf_02h_invalid_register),
	    cmocka_unit_test(intel_leaf_02h_49h),
	    cmocka_unit_test(intel_leaf_02h_ffh),
	    cmocka_unit_test(intel_leaf_04h_over_02h),
	    cmocka_unit_test(amd_k8_leaves),
	    cmocka_unit_test(amd_zen_leaf_8000_001dh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
