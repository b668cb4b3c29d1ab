/* The simulated micro-architecture through the harness's page tables
 * (host/sim/uarch.h, sim_translate): the TLBs see virtual pages, the caches
 * physical lines; the instruction side (ITLBs, L1I, code reads at the L2)
 * and the events that count it. Each test builds a 4-level window by hand
 * (a top table with one slot, a PDPT, a PD and page tables, as
 * events/pagewin.c does on the target) and derives every number from the
 * model's geometry; each fails when translation or the instruction side is
 * a no-op. Split from test_uarch.c (files under ~500 lines). */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../pmu/msr.h"
#include "../sim/sim.h"
#include "../sim/uarch.h"

#define KIB 1024u
#define PG  4096u
#define N   8 /* iterations of a counted walk */

/* The window: top slot 1, the one slot of the lower half the simulator's
 * firmware tables leave free (host/sim/sim_mmu.c), where events/pagewin.c
 * puts it; the other slots are the firmware's, copied. */
#define WIN_VA	 0x8000000000ull
#define WIN_SLOT 1
#define ENTRY	 0x63ull /* P, R/W, A, D (SDM Vol. 3A Tables 4-15 to 4-20) */

/* ---- the window -------------------------------------------------------------- */

struct win {
	uint64_t *t;	 /* top, PDPT, PD, then the page tables, 4 KiB each */
	uint8_t *frames; /* the frames the pages map */
	uint64_t pages;
	struct wl_args a; /* the walk over it */
	struct workload w;
};

/* Page i maps frame i % nframes of w->frames. */
static void map(struct win *w, uint64_t nframes)
{
	uint64_t *pt = w->t + 3 * 512;
	for (uint64_t i = 0; i < w->pages; i++)
		pt[i] = ((uint64_t)(uintptr_t)w->frames + (i % nframes) * PG) | ENTRY;
}

static void load(const struct win *w)
{
	struct hw_paging p = {.mode = HW_PG_LEVEL4, .root = (uintptr_t)w->t, .pse = true};
	assert_int_equal(hw_paging_load(&p), HW_OK);
}

/* `pages` pages at WIN_VA over nframes frames, loaded; proto walks `lines`
 * elements `stride` bytes apart from WIN_VA. */
static struct workload *win_init(struct win *w, uint64_t pages, uint64_t nframes,
				 const struct workload *proto, uint64_t lines, uint64_t stride)
{
	uint64_t npt = (pages + 511) / 512;
	assert_true(npt <= 512);
	w->pages = pages;
	w->t = aligned_alloc(PG, (3 + npt) * PG);
	w->frames = aligned_alloc(PG, nframes * PG);
	assert_non_null(w->t);
	assert_non_null(w->frames);
	memset(w->t, 0, (3 + npt) * PG);
	struct hw_paging fw;
	sim.cr3 = 0; /* the firmware's tables, to copy */
	hw_paging_get(&fw);
	memcpy(w->t, (const void *)(uintptr_t)fw.root, PG);
	assert_false(w->t[WIN_SLOT] & 1);
	w->t[WIN_SLOT] = (uint64_t)(uintptr_t)(w->t + 512) | ENTRY; /* top -> PDPT */
	w->t[512] = (uint64_t)(uintptr_t)(w->t + 1024) | ENTRY;	    /* PDPT -> PD */
	for (uint64_t k = 0; k < npt; k++)
		w->t[1024 + k] = (uint64_t)(uintptr_t)(w->t + (3 + k) * 512) | ENTRY;
	map(w, nframes);
	load(w);
	w->a = (struct wl_args){
	    .buf = (void *)(uintptr_t)WIN_VA, .lines = lines, .stride = stride, .state = 1};
	w->w = *proto;
	w->w.args = &w->a;
	return &w->w;
}

static void win_free(struct win *w)
{
	sim.cr3 = 0; /* the firmware's tables back before this window's go */
	free(w->t);
	free(w->frames);
}

/* ---- one iteration's outcome, and counters ---------------------------------- */

static struct workload_vector got;

static void capture(struct sim_cpu *s, const struct workload_vector *v, uint64_t n)
{
	const uint64_t *in = (const uint64_t *)v;
	uint64_t *out = (uint64_t *)&got;
	(void)s;
	for (size_t i = 0; i < sizeof(got) / sizeof(uint64_t); i++)
		out[i] += in[i] * n;
}

/* One iteration (one pass) of w in its steady state. */
static struct workload_vector pass(const struct workload *w)
{
	memset(&got, 0, sizeof(got));
	uarch_run(&sim, w, 1, capture);
	return got;
}

static void power(const char *model, enum sim_fault f)
{
	assert_int_equal(sim_start_real(model, f, 0, 3), 0);
}

/* Counter 0 counts code with unit mask um in ring 0, from 0. */
static void prog(unsigned code, unsigned um)
{
	uint64_t sel = EVTSEL_EN | EVTSEL_OS | (uint64_t)um << 8 | code;
	switch (sim.m->driver) {
	case PMU_DRV_INTEL_ARCH:
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, sel), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_P6_PERFCTR0, 0), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 1), HW_OK);
		return;
	case PMU_DRV_INTEL_KNC:
		assert_int_equal(hw_wrmsr(MSR_KNC_EVNTSEL0, sel), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_KNC_PERFCTR0, 0), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_KNC_GLOBAL_CTRL, 1), HW_OK);
		return;
	default:
		assert_int_equal(hw_wrmsr(MSR_K7_EVNTSEL0, sel), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_K7_PERFCTR0, 0), HW_OK);
	}
}

/* Events of code/um over N iterations of w, per iteration (the outcome
 * events have none in the call around the loop). */
static uint64_t per_iter(const struct workload *w, unsigned code, unsigned um)
{
	uint32_t ctr = sim.m->driver == PMU_DRV_INTEL_ARCH  ? MSR_P6_PERFCTR0
		       : sim.m->driver == PMU_DRV_INTEL_KNC ? MSR_KNC_PERFCTR0
							    : MSR_K7_PERFCTR0;
	uint64_t v = 0;
	prog(code, um);
	hw_run_workload(w, N);
	assert_int_equal(hw_rdmsr(ctr, &v), HW_OK);
	assert_int_equal(v % N, 0);
	return v / N;
}

/* ---- the data side through the window ---------------------------------------- */

/* K8: L1 DTLB 32 entries fully associative, L2 DTLB 512 4-way (128 sets);
 * L1D 64 KiB 2-way (512 sets of 64-byte lines). One load per page, every
 * page on one frame: one physical line, which stays in the L1D (without
 * translation the 4 KiB stride would put the lines in 8 L1D sets, 256 to
 * a set of 2 ways, and every load would miss). 128 pages: more than 32, a
 * cyclic walk misses the LRU L1 DTLB every time; one page to each of 128
 * L2 sets, so it hits there. 2048 pages: 16 to each L2 set of 4 ways: every
 * load misses both. */
static void dtlb_one_frame(void **st)
{
	(void)st;
	struct win w;
	power("opteron", SF_NONE);
	struct workload_vector v = pass(win_init(&w, 128, 1, &wl_pages, 128, PG));
	assert_int_equal(v.l1d_access, 128);
	assert_int_equal(v.l1d_miss, 0);
	assert_int_equal(v.dtlb_l1_miss, 128);
	assert_int_equal(v.dtlb_l2_miss, 0);
	assert_int_equal(per_iter(&w.w, 0x45, 0), 128); /* L1 DTLB miss, L2 hit */
	assert_int_equal(per_iter(&w.w, 0x46, 0), 0);
	win_free(&w);
	v = pass(win_init(&w, 2048, 1, &wl_pages, 2048, PG));
	assert_int_equal(v.l1d_miss, 0);
	assert_int_equal(v.dtlb_l1_miss, 2048);
	assert_int_equal(v.dtlb_l2_miss, 2048);
	assert_int_equal(per_iter(&w.w, 0x46, 0), 2048);
	win_free(&w);
}

/* The same 128 virtual pages remapped in place to 128 frames and the same
 * CR3 loaded again: the remembered pass goes with the CR3 load. The frames'
 * first lines are 64 lines apart: 8 L1D sets, 16 lines to each of 2 ways,
 * so every load misses; 16 L2 sets (1024 of 16 ways), 8 lines each: every
 * load hits the victim L2. A pass kept from the one-frame tables would
 * show no miss. */
static void retranslated_after_cr3(void **st)
{
	(void)st;
	struct win w;
	power("opteron", SF_NONE);
	const struct workload *k = win_init(&w, 128, 128, &wl_pages, 128, PG);
	map(&w, 1);
	load(&w);
	assert_int_equal(pass(k).l1d_miss, 0);
	map(&w, 128);
	load(&w);
	struct workload_vector v = pass(k);
	assert_int_equal(v.l1d_miss, 128);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 128);
	win_free(&w);
}

/* A page the tables leave not present ends the walk (the kernel would
 * fault) rather than the simulator: 16 pages mapped, 64 walked. */
static void unmapped_ends_walk(void **st)
{
	(void)st;
	struct win w;
	power("opteron", SF_NONE);
	struct workload_vector v = pass(win_init(&w, 16, 1, &wl_pages, 64, PG));
	assert_int_equal(v.l1d_access, 16);
	win_free(&w);
	v = pass(win_init(&w, 16, 1, &wl_code, 64, PG));
	assert_int_equal(v.itlb_l1_miss, 0); /* 16 pages fit the 32 entries */
	win_free(&w);
}

/* ---- the instruction side ---------------------------------------------------- */

/* K8 ITLBs: L1 32 entries fully associative, L2 512 4-way (128 sets). One
 * block per page, every page on one frame (one physical line: no L1I
 * miss). 16 pages fit the L1 ITLB; 128 miss it every time (a cyclic walk
 * over LRU) and hit the L2 ITLB (one page to each set); 2048 put 16 pages
 * to each L2 set of 4 ways: every fetch walks. */
static void k8_itlb(void **st)
{
	(void)st;
	static const struct {
		uint64_t pages, l1, l2;
	} c[] = {{16, 0, 0}, {128, 128, 0}, {2048, 2048, 2048}};
	struct win w;
	power("opteron", SF_NONE);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const struct workload *k = win_init(&w, c[i].pages, 1, &wl_code, c[i].pages, PG);
		struct workload_vector v = pass(k);
		assert_int_equal(v.itlb_l1_miss, c[i].l1);
		assert_int_equal(v.itlb_l2_miss, c[i].l2);
		assert_int_equal(v.ic_miss, 0);
		assert_int_equal(v.dtlb_l1_miss, 0);
		assert_true(v.ic_fetch >= c[i].pages); /* a fetch block a block at least */
		assert_int_equal(per_iter(k, 0x84, 0), c[i].l1 - c[i].l2);
		assert_int_equal(per_iter(k, 0x85, 0), c[i].l2);
		assert_int_equal(per_iter(k, 0x81, 0), 0);
		win_free(&w);
	}
}

/* K8 L1I 64 KiB 2-way (512 sets of 64-byte lines) in front of the 1 MiB
 * 16-way exclusive L2 (1024 sets; #25112 "cache architecture"). A block a
 * line over contiguous frames. 4 x L1I (4096 lines): 8 lines to each L1I
 * set of 2 ways, so every fetch misses; 4 to each L2 set, so every miss
 * refills from the L2, into which the L1I's victims went (an L2 that did
 * not take them would miss). 64 pages: a cyclic walk misses the L1 ITLB at
 * each page's first block, and the L2 ITLB holds them all. Half the L1I
 * (512 lines, 8 pages): nothing misses. */
static void k8_icache(void **st)
{
	(void)st;
	struct win w;
	power("opteron", SF_NONE);
	const struct workload *k = win_init(&w, 64, 64, &wl_code, 4096, 64);
	struct workload_vector v = pass(k);
	assert_int_equal(v.ic_miss, 4096);
	assert_int_equal(v.l2[WL_L2_CODE_RD][WL_L2_HIT_ES], 4096);
	assert_int_equal(v.l2[WL_L2_CODE_RD][WL_L2_MISS], 0);
	assert_int_equal(v.llc_ref, 4096); /* no L3: the L2 is the last level */
	assert_int_equal(v.llc_miss, 0);
	assert_int_equal(v.l1d_miss, 0);
	assert_int_equal(v.itlb_l1_miss, 64);
	assert_int_equal(v.itlb_l2_miss, 0);
	assert_true(v.ic_fetch >= 4096);
	assert_int_equal(per_iter(k, 0x81, 0), 4096);
	assert_int_equal(per_iter(k, 0x82, 0), 4096); /* refills from the L2 */
	assert_int_equal(per_iter(k, 0x83, 0), 0);
	assert_int_equal(per_iter(k, 0x7d, 0x01), 4096); /* L2 requests: IC fill */
	assert_int_equal(per_iter(k, 0x7e, 0x01), 0);
	assert_int_equal(per_iter(k, 0x7f, 0x01), 4096); /* each refill's victim into the L2 */
	win_free(&w);
	v = pass(win_init(&w, 8, 8, &wl_code, 512, 64));
	assert_int_equal(v.ic_miss, 0);
	assert_int_equal(v.itlb_l1_miss, 0);
	win_free(&w);
}

/* 4 MiB of code (65536 lines): 64 lines to each L2 set of 16 ways between
 * two fetches of a line, so every fetch misses the L1I and the L2 and
 * refills from the system; each stalls the front end for the memory
 * latency (150 cycles), in turn. */
static void k8_code_from_memory(void **st)
{
	(void)st;
	struct win w;
	power("opteron", SF_NONE);
	const struct workload *k = win_init(&w, 1024, 1024, &wl_code, 65536, 64);
	struct workload_vector v = pass(k);
	assert_int_equal(v.ic_miss, 65536);
	assert_int_equal(v.l2[WL_L2_CODE_RD][WL_L2_MISS], 65536);
	assert_int_equal(v.llc_miss, 65536);
	assert_true(v.cycles >= 65536ull * 150);
	assert_true(v.stall_cycles >= 65536ull * 150);
	assert_int_equal(per_iter(k, 0x83, 0), 65536);
	assert_int_equal(per_iter(k, 0x82, 0), 0);
	assert_int_equal(per_iter(k, 0x7e, 0x01), 65536);
	win_free(&w);
}

/* miss-counts-hits: 81h counts every fetch (as 41h every data access), 7Eh
 * 01h every IC fill request. The 4 x L1I walk of k8_icache. */
static void k8_miss_counts_hits(void **st)
{
	(void)st;
	struct win w;
	power("opteron", SF_MISS_COUNTS_HITS);
	const struct workload *k = win_init(&w, 64, 64, &wl_code, 4096, 64);
	uint64_t fetches = per_iter(k, 0x80, 0);
	assert_true(fetches >= 4096);
	assert_int_equal(per_iter(k, 0x81, 0), fetches);
	assert_int_equal(per_iter(k, 0x7e, 0x01), 4096);
	win_free(&w);
}

/* Skylake: L1I 32 KiB 8-way (64 sets), a non-inclusive 256 KiB 4-way L2
 * (1024 sets). 4 x L1I (2048 lines): 32 to each L1I set, every fetch
 * misses; 2 to each L2 set, which the L2 kept from the fill: code reads
 * that hit E (L2_RQSTS umask 04h origin with 40h hit E/S). */
static void skylake_icache(void **st)
{
	(void)st;
	struct win w;
	power("skylake", SF_NONE);
	const struct workload *k = win_init(&w, 32, 32, &wl_code, 2048, 64);
	struct workload_vector v = pass(k);
	assert_int_equal(v.ic_miss, 2048);
	assert_int_equal(v.l2[WL_L2_CODE_RD][WL_L2_HIT_ES], 2048);
	assert_int_equal(v.l2[WL_L2_CODE_RD][WL_L2_MISS], 0);
	assert_int_equal(per_iter(k, 0x24, 0x44), 2048);
	assert_int_equal(per_iter(k, 0x24, 0x24), 0);
	assert_int_equal(per_iter(k, 0x24, 0xe4), 2048);
	assert_int_equal(per_iter(k, 0x24, 0xe1), 0); /* no demand data read */
	win_free(&w);
}

/* KNC: L1 ITLB 32 entries 4-way (8 sets), L2 TLB 64 4-way (16 sets); L1I
 * 32 KiB 8-way, L2 512 KiB 8-way (1024 sets). One frame: 64 pages are 8 to
 * each L1 ITLB set of 4 ways (every fetch walks: CODE_PAGE_WALK) and 4 to
 * each L2 set (none long); 128 pages, 8 to each L2 set: every walk is
 * long. 4 x L1I of code misses the L1I every time (CODE_CACHE_MISS) and
 * hits the L2 (2 lines a set); 4 x L2 (32768 lines) is filled from memory. */
static void knc_code(void **st)
{
	(void)st;
	struct win w;
	power("knc", SF_NONE);
	const struct workload *k = win_init(&w, 64, 1, &wl_code, 64, PG);
	assert_int_equal(per_iter(k, 0x0d, 0), 64);
	assert_int_equal(per_iter(k, 0x3b, 0), 0);
	assert_int_equal(per_iter(k, 0x0e, 0), 0);
	win_free(&w);
	k = win_init(&w, 128, 1, &wl_code, 128, PG);
	assert_int_equal(per_iter(k, 0x3b, 0), 128);
	win_free(&w);
	k = win_init(&w, 32, 32, &wl_code, 2048, 64);
	assert_int_equal(per_iter(k, 0x0e, 0), 2048);
	assert_int_equal(per_iter(k, 0xf5, 0x10), 0);
	assert_int_equal(per_iter(k, 0xc8, 0x10), 2048); /* L2 read hits E: code reads too */
	win_free(&w);
	k = win_init(&w, 512, 512, &wl_code, 32768, 64);
	assert_int_equal(per_iter(k, 0xf5, 0x10), 32768);
	win_free(&w);
}

/* A CR3 load empties the ITLBs as it does the DTLBs: the page that hit
 * before misses both levels again (K8, the memory side alone). */
static void cr3_flushes_itlb(void **st)
{
	(void)st;
	struct workload_vector o = {0};
	bool walk;
	power("opteron", SF_NONE);
	ua_mem_reset(uarch_of(&sim));
	(void)ua_mem_fetch(WIN_VA, 0x100000, &o, &walk);
	assert_true(walk);
	(void)ua_mem_fetch(WIN_VA, 0x100000, &o, &walk);
	assert_false(walk);
	assert_int_equal(o.itlb_l1_miss, 1);
	uarch_tlb_flush();
	(void)ua_mem_fetch(WIN_VA, 0x100000, &o, &walk);
	assert_true(walk);
	assert_int_equal(o.itlb_l1_miss, 2);
	assert_int_equal(o.itlb_l2_miss, 2);
	assert_int_equal(o.ic_miss, 1); /* the line stayed in the L1I */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dtlb_one_frame),
	    cmocka_unit_test(retranslated_after_cr3),
	    cmocka_unit_test(unmapped_ends_walk),
	    cmocka_unit_test(k8_itlb),
	    cmocka_unit_test(k8_icache),
	    cmocka_unit_test(k8_code_from_memory),
	    cmocka_unit_test(k8_miss_counts_hits),
	    cmocka_unit_test(skylake_icache),
	    cmocka_unit_test(knc_code),
	    cmocka_unit_test(cr3_flushes_itlb),
	};
	return cmocka_run_group_tests_name("test_uarch_pages", tests, 0, 0);
}
