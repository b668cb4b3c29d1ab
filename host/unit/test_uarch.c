/* The simulated micro-architecture (host/sim/uarch.h): the geometry each
 * model publishes is what the harness's CPUID parser reads; a walk's
 * outcome per pass against counts derived here by hand from the geometry;
 * the predictor, the return stack and the indirect-target buffer; timing.
 * Each effect has a test that fails when the effect is a no-op. */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../pmu/cache.h"
#include "../sim/sim.h"
#include "../sim/uarch.h"

#define KIB   1024u
#define MIB   (1024u * 1024u)
#define FULLY 0xffff

/* ---- the outcome of iterations, as the engine would advance them ------- */

static struct workload_vector got;
static uint64_t got_iters;

static void capture(struct sim_cpu *s, const struct workload_vector *v, uint64_t n)
{
	const uint64_t *in = (const uint64_t *)v;
	uint64_t *out = (uint64_t *)&got;
	(void)s;
	for (size_t i = 0; i < sizeof(got) / sizeof(uint64_t); i++)
		out[i] += in[i] * n;
	got_iters += n;
}

static const struct workload_vector *run(const struct workload *w, uint64_t n)
{
	memset(&got, 0, sizeof(got));
	got_iters = 0;
	uarch_run(&sim, w, n, capture);
	/* n iterations' worth, in steps of identical iterations or (random
	 * patterns) batches priced as one step */
	struct workload_vector c;
	workload_iteration(w, &c);
	assert_int_equal(got.instructions, c.instructions * n);
	assert_true(got_iters <= n);
	return &got;
}

static void power(const char *model, uint32_t realism)
{
	assert_int_equal(sim_start_real(model, SF_NONE, realism, 1), 0);
}

/* A workload over a buffer of `bytes`, elements `stride` apart (a chain for
 * the chase kinds, as the harness builds it). */
struct walk {
	void *mem;
	struct wl_args a;
	struct workload w;
};

static void walk_init(struct walk *k, const struct workload *proto, uint64_t bytes, uint64_t stride)
{
	k->mem = aligned_alloc(4096, bytes);
	assert_non_null(k->mem);
	memset(k->mem, 0, bytes);
	k->a =
	    (struct wl_args){.buf = k->mem, .lines = bytes / stride, .stride = stride, .state = 1};
	if (proto->mem == WL_MEM_CHASE || proto->mem == WL_MEM_CHASE_DIRTY)
		assert_ptr_equal(workload_chain(k->mem, k->a.lines, stride, 7), k->mem);
	k->w = *proto;
	k->w.args = &k->a;
}

static void walk_free(struct walk *k)
{
	free(k->mem);
}

/* One pass (iteration) of proto over bytes on the current model. */
static struct workload_vector pass(const struct workload *proto, uint64_t bytes, uint64_t stride)
{
	struct walk k;
	walk_init(&k, proto, bytes, stride);
	struct workload_vector v = *run(&k.w, 1);
	walk_free(&k);
	return v;
}

/* ---- geometry: the model's constants are what CPUID says --------------- */

static void caches_of(const char *model, struct cpu_caches *c)
{
	struct cpu_info ci;
	power(model, 0);
	cpu_identify(&ci);
	assert_true(cpu_caches_read(&ci, c));
}

static void level_is(const struct cache_level *l, uint32_t size, uint16_t ways)
{
	assert_int_equal(l->size, size);
	assert_int_equal(l->ways, ways);
	assert_int_equal(l->line, 64);
}

static void geometry_published(void **st)
{
	(void)st;
	struct cpu_caches c;

	caches_of("skylake", &c); /* 32 KiB 8-way, 256 KiB 4-way, 8 MiB 16-way */
	level_is(&c.l1d, 32 * KIB, 8);
	level_is(&c.l2, 256 * KIB, 4);
	level_is(&c.l3, 8 * MIB, 16);
	assert_string_equal(c.source, "CPUID 04H");
	caches_of("core2", &c);
	level_is(&c.l1d, 32 * KIB, 8);
	level_is(&c.l2, 4 * MIB, 16);
	assert_int_equal(c.l3.size, 0);
	caches_of("yonah", &c);
	level_is(&c.l2, 2 * MIB, 8);
	caches_of("opteron", &c); /* 64 KiB 2-way, 1 MiB 16-way, no L3 */
	level_is(&c.l1d, 64 * KIB, 2);
	level_is(&c.l1i, 64 * KIB, 2);
	level_is(&c.l2, 1 * MIB, 16);
	assert_int_equal(c.l3.size, 0);
	assert_int_equal(c.dtlb_l1.entries, 32);
	assert_int_equal(c.dtlb_l1.ways, FULLY);
	assert_int_equal(c.dtlb_l2.entries, 512);
	assert_int_equal(c.dtlb_l2.ways, 4);
	caches_of("athlon", &c); /* K7: 256 KiB L2 */
	level_is(&c.l1d, 64 * KIB, 2);
	level_is(&c.l2, 256 * KIB, 16);
	caches_of("skylake-kvm", &c); /* the host's leaf 04H */
	level_is(&c.l3, 8 * MIB, 16);
	/* and each is what the model simulates */
	power("skylake", 0);
	assert_int_equal(uarch_of(&sim)->l2.size, 256 * KIB);
	power("opteron", 0);
	assert_int_equal(uarch_of(&sim)->l2_policy, UA_L2_EXCLUSIVE);
}

static void geometry_none(void **st)
{
	(void)st;
	struct cpu_info ci;
	struct cpu_caches c;
	power("bulldozer", 0); /* no cache leaves published: the memory rules SKIP */
	cpu_identify(&ci);
	assert_false(cpu_caches_read(&ci, &c));
	assert_ptr_equal(uarch_of(&sim), &uarch_default);
}

/* Parts before leaf 04H publish leaf 02H descriptors, and the harness's
 * parser reads from them the geometry the model simulates. */
static void geometry_leaf2(void **st)
{
	(void)st;
	static const char *const models[] = {"pentium4", "pentium3"};
	struct cpu_info ci;
	struct cpu_caches c;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		power(models[i], 0);
		const struct uarch_cfg *u = uarch_of(&sim);
		cpu_identify(&ci);
		assert_true(cpu_caches_read(&ci, &c));
		assert_string_equal(c.source, "CPUID 02H");
		assert_int_equal(c.l1d.size, u->l1d.size);
		assert_int_equal(c.l1d.ways, u->l1d.ways);
		assert_int_equal(c.l2.size, u->l2.size);
		assert_int_equal(c.l2.ways, u->l2.ways);
		assert_int_equal(c.l1d.line, u->line);
		assert_int_equal(c.l2.line, u->line);
		assert_int_equal(c.l3.size, 0);
	}
}

/* ---- Skylake: non-inclusive L2 with dirty victims, inclusive L3 -------- */

/* 4 x L1D (128 KiB, 2048 lines): 32 lines to each 8-way L1 set, so every
 * load misses; 2 to each 4-way L2 set, so every load hits there, clean. */
static void skylake_chase_l2(void **st)
{
	(void)st;
	power("skylake", 0);
	struct workload_vector v = pass(&wl_chase, 128 * KIB, 64);
	assert_int_equal(v.l1d_access, 2048);
	assert_int_equal(v.l1d_miss, 2048);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 2048);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_M], 0);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_MISS], 0);
	assert_int_equal(v.l1d_evict, 2048);
	assert_int_equal(v.l1d_evict_m, 0);
	assert_int_equal(v.llc_ref, 0);
}

/* The dirty chase stores into each line: the L1 victims are Modified and
 * make the L2's copies Modified, so the next pass hits M (a no-op M state
 * would hit E/S). */
static void skylake_dirty_victims(void **st)
{
	(void)st;
	power("skylake", 0);
	struct workload_vector v = pass(&wl_chase_dirty, 128 * KIB, 64);
	assert_int_equal(v.l1d_access, 2 * 2048);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_M], 2048);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 0);
	assert_int_equal(v.l1d_evict_m, 2048);
	/* blind stores: RFOs, which hit the lines the last pass left M */
	v = pass(&wl_store_walk, 128 * KIB, 64);
	assert_int_equal(v.l2[WL_L2_RFO][WL_L2_HIT_M], 2048);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_M], 0);
}

static void skylake_levels(void **st)
{
	(void)st;
	power("skylake", 0);
	/* half the L1D: nothing misses */
	struct workload_vector v = pass(&wl_chase, 16 * KIB, 64);
	assert_int_equal(v.l1d_miss, 0);
	/* 4 x L2 (1 MiB): every load misses L2 and references the LLC, which
	 * holds it */
	v = pass(&wl_chase, 1 * MIB, 64);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_MISS], 16384);
	assert_int_equal(v.llc_ref, 16384);
	assert_int_equal(v.llc_miss, 0);
	/* 2 x LLC (16 MiB): 32 lines to each 16-way LLC set: every load misses */
	v = pass(&wl_chase, 16 * MIB, 64);
	assert_int_equal(v.llc_ref, 262144);
	assert_int_equal(v.llc_miss, 262144);
}

/* ---- K7/K8: the exclusive victim L2 ------------------------------------ */

static void k8_chase(void **st)
{
	(void)st;
	power("opteron", 0);
	/* 4 x L1D (256 KiB): misses L1, every line back from the L2, each L1
	 * victim into it */
	struct workload_vector v = pass(&wl_chase, 256 * KIB, 64);
	assert_int_equal(v.l1d_miss, 4096);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 4096);
	assert_int_equal(v.l1d_evict, 4096);
	/* 4 x L2 (4 MiB): every line from the system */
	v = pass(&wl_chase, 4 * MIB, 64);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_MISS], 65536);
	assert_int_equal(v.llc_miss, 65536);
	/* dirty: victims keep their state in the L2 */
	v = pass(&wl_chase_dirty, 256 * KIB, 64);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_M], 4096);
}

/* K7: 64 KiB L1 + 256 KiB exclusive L2 hold 288 KiB (18 lines to each L2
 * set's group, 4 in L1, 14 in 16 L2 ways); an L2 that kept copies of the L1
 * would miss. */
static void k7_exclusive(void **st)
{
	(void)st;
	power("athlon", 0);
	struct workload_vector v = pass(&wl_chase, 288 * KIB, 64);
	assert_int_equal(v.l1d_miss, 4608);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_MISS], 0);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 4608);
}

/* A pass is remembered while the caches hold what it left; a walk over
 * another buffer ends that, and the next pass warms up again. */
static void memo_rewarms(void **st)
{
	(void)st;
	struct walk a, b;
	power("skylake", 0);
	walk_init(&a, &wl_chase, 128 * KIB, 64);
	walk_init(&b, &wl_chase, 16 * MIB, 64);
	struct workload_vector first = *run(&a.w, 1);
	(void)run(&b.w, 1); /* evicts all of a from L1 and L2 */
	struct workload_vector again = *run(&a.w, 1);
	assert_memory_equal(&first, &again, sizeof(first));
	assert_int_equal(again.l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 2048);
	walk_free(&a);
	walk_free(&b);
}

/* Lines stored to stay Modified while they fit the caches: a read-only
 * chase over them still hits M, until hw_cache_flush writes them back
 * (CLFLUSH; WBINVD on K7, which has no CLFLUSH). */
static void dirty_until_flushed(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "athlon"};
	for (unsigned m = 0; m < 2; m++) {
		struct walk k;
		power(models[m], 0);
		walk_init(&k, &wl_chase_dirty, 128 * KIB, 64);
		struct workload chase = wl_chase;
		chase.args = &k.a;
		(void)run(&k.w, 1);
		assert_int_equal(run(&chase, 1)->l2[WL_L2_DATA_RD][WL_L2_HIT_M], 2048);
		hw_cache_flush(k.mem, 128 * KIB);
		const struct workload_vector *v = run(&chase, 1);
		assert_int_equal(v->l2[WL_L2_DATA_RD][WL_L2_HIT_M], 0);
		assert_int_equal(v->l2[WL_L2_DATA_RD][WL_L2_HIT_ES], 2048);
		walk_free(&k);
	}
}

static void prefetch_and_stores(void **st)
{
	(void)st;
	power("skylake", 0);
	/* PREFETCHT0 is an L1 prefetch request at the L2 */
	struct workload_vector v = pass(&wl_pf_t0, 1 * MIB, 64);
	assert_int_equal(v.l2[WL_L2_L1PF][WL_L2_MISS], 16384);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_MISS], 0);
	/* MOVNTI goes round the L1 */
	v = pass(&wl_nt_store, 64 * KIB, 8);
	assert_int_equal(v.l1d_access, 0);
	assert_int_equal(v.l1d_miss, 0);
}

/* Realism "prefetch": the L2 streamer serves 2-10 % of a strided walk's
 * demand misses (turning them into hits) with requests of its own; it
 * cannot follow the chase. */
static void l2_streamer(void **st)
{
	(void)st;
	power("skylake", 0);
	struct workload_vector v = pass(&wl_store_walk, 1 * MIB, 64);
	assert_int_equal(v.l2[WL_L2_RFO][WL_L2_MISS], 16384);
	assert_int_equal(v.l2[WL_L2_L2PF][WL_L2_MISS], 0);
	power("skylake", 1u << SE_PREFETCH);
	v = pass(&wl_store_walk, 1 * MIB, 64);
	uint64_t pf = v.l2[WL_L2_L2PF][WL_L2_MISS];
	assert_true(pf >= 16384 * 2 / 100 && pf <= 16384 / 10);
	assert_int_equal(v.l2[WL_L2_RFO][WL_L2_MISS], 16384 - pf);
	assert_int_equal(v.l2[WL_L2_RFO][WL_L2_HIT_ES], pf);
	v = pass(&wl_chase, 1 * MIB, 64);
	assert_int_equal(v.l2[WL_L2_L2PF][WL_L2_MISS], 0);
	assert_int_equal(v.l2[WL_L2_DATA_RD][WL_L2_MISS], 16384);
}

static void dtlb(void **st)
{
	(void)st;
	power("skylake", 0); /* 64-entry L1 DTLB, 1536-entry STLB */
	struct workload_vector v = pass(&wl_pages, 32 * 4096, 4096);
	assert_int_equal(v.dtlb_l1_miss, 0);
	v = pass(&wl_pages, 1024 * 4096, 4096);
	assert_int_equal(v.dtlb_l1_miss, 1024);
	assert_int_equal(v.dtlb_l2_miss, 0);
	v = pass(&wl_pages, 4096 * 4096, 4096);
	assert_int_equal(v.dtlb_l2_miss, 4096);
}

/* ---- branches -------------------------------------------------------------- */

static void random_direction(void **st)
{
	(void)st;
	struct wl_args a = {.state = 0x1234567};
	struct workload w = wl_br_random;
	uint64_t x = a.state;
	w.args = &a;
	power("skylake", 0);
	const struct workload_vector *v = run(&w, 10000);
	assert_true(v->branch_misses >= 3500 && v->branch_misses <= 6500);
	assert_true(v->taken_misses > 0 && v->taken_misses < v->branch_misses);
	for (unsigned i = 0; i < 10000; i++) /* the kernel's state, stepped as it does */
		x = wl_xorshift(x);
	assert_int_equal(a.state, x);
	/* the next call goes on from there: another sequence, as many misses */
	v = run(&w, 10000);
	assert_true(v->branch_misses >= 3500 && v->branch_misses <= 6500);
	/* an indirect jump to one of two random targets */
	w = wl_ind_random;
	w.args = &a;
	v = run(&w, 10000);
	assert_true(v->indirect_misses >= 3500 && v->indirect_misses <= 6500);
	assert_int_equal(v->indirect_misses, v->branch_misses);
}

static void learnt_patterns(void **st)
{
	(void)st;
	power("opteron", 0);
	assert_true(run(&wl_br_taken, 10000)->branch_misses < 100);
	assert_true(run(&wl_br_none, 10000)->branch_misses < 100);
	assert_int_equal(run(&wl_branchy, 1000)->branch_misses, 0); /* alternation learnt */
	assert_int_equal(run(&wl_loop, 1000)->branch_misses, 0);
	assert_int_equal(run(&wl_calls, 1000)->ret_misses, 0);
}

/* 24 nested calls: a 12-entry stack (K8) overflows 12 times an iteration
 * and the 12 outermost returns mispredict; Skylake's 16 entries 8. */
static void return_stack(void **st)
{
	(void)st;
	power("opteron", 0);
	const struct workload_vector *v = run(&wl_recurse, 100);
	assert_int_equal(v->ras_overflows, 100 * (24 - 12));
	assert_int_equal(v->ret_misses, 100 * (24 - 12));
	assert_true(v->branch_misses >= v->ret_misses);
	power("skylake", 0);
	v = run(&wl_recurse, 100);
	assert_int_equal(v->ras_overflows, 100 * (24 - 16));
	assert_int_equal(v->ret_misses, 100 * (24 - 16));
}

/* ---- timing ---------------------------------------------------------------- */

static void timing(void **st)
{
	(void)st;
	power("skylake", 0);
	/* the calibrated loops keep their cycles */
	assert_int_equal(run(&wl_loop, 1000)->cycles, 1000);
	assert_int_equal(run(&wl_branchy, 1000)->cycles, 3000);
	assert_int_equal(run(&wl_loop, 1000)->stall_cycles, 0);
	/* a chase to memory waits for each load: 246 cycles each at least */
	struct workload_vector v = pass(&wl_chase, 16 * MIB, 64);
	assert_true(v.cycles >= 262144ull * 246);
	assert_true(v.stall_cycles * 10 >= v.cycles * 9);
	/* the same chase within L1: 4 cycles a load */
	v = pass(&wl_chase, 16 * KIB, 64);
	assert_true(v.cycles >= 256 * 4 && v.cycles < 256 * 12);
	/* CPUID serialises: its cost is in cycles and stalls */
	const struct workload_vector *c = run(&wl_cpuid, 10);
	assert_true(c->cycles >= 10 * 100 && c->stall_cycles >= 10 * 100);
	/* a mispredicted branch costs cycles */
	struct wl_args a = {.state = 99};
	struct workload w = wl_br_random;
	w.args = &a;
	c = run(&w, 1000);
	assert_int_equal(c->cycles, 1000 * 4 + c->branch_misses * 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(geometry_published),
	    cmocka_unit_test(geometry_none),
	    cmocka_unit_test(geometry_leaf2),
	    cmocka_unit_test(skylake_chase_l2),
	    cmocka_unit_test(skylake_dirty_victims),
	    cmocka_unit_test(skylake_levels),
	    cmocka_unit_test(k8_chase),
	    cmocka_unit_test(k7_exclusive),
	    cmocka_unit_test(memo_rewarms),
	    cmocka_unit_test(dirty_until_flushed),
	    cmocka_unit_test(prefetch_and_stores),
	    cmocka_unit_test(l2_streamer),
	    cmocka_unit_test(dtlb),
	    cmocka_unit_test(random_direction),
	    cmocka_unit_test(learnt_patterns),
	    cmocka_unit_test(return_stack),
	    cmocka_unit_test(timing),
	};
	return cmocka_run_group_tests_name("test_uarch", tests, 0, 0);
}
