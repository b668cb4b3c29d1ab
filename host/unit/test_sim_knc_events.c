/* Event decoding of the simulated Knights Corner ("knc") from a workload's
 * construction and outcome: counters programmed through the model's MSRs
 * (KNC PMU guide #327357 §1.4.3: counters 0x20/0x21, selects 0x28/0x29,
 * GLOBAL_CTRL 0x2F), workloads run by hw_run_workload, counts against
 * numbers derived here from the kernels (events/workloads.c) and the
 * published geometry: 32 KiB 8-way L1D (64 sets), 512 KiB 8-way L2 (1024
 * sets), 64-byte lines. Each event-decoding fault changes a pinned count. */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "walk_test.h"

#include "../../pmu/msr.h"
#include "../sim/sim.h"

#define KIB  1024u
#define N    8	  /* iterations of a walk */
#define CORE 0x00 /* FUB select in the unit mask (table 1-6) */
#define CRI  0x10

static void power(enum sim_fault f)
{
	assert_int_equal(sim_start_real("knc", f, 0, 3), 0);
}

/* Counter 0 counts event code of FUB um in ring 0, from 0. */
static void prog(unsigned code, unsigned um)
{
	uint64_t sel = EVTSEL_EN | EVTSEL_OS | (uint64_t)um << 8 | code;
	assert_int_equal(hw_wrmsr(MSR_KNC_EVNTSEL0, sel), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_KNC_PERFCTR0, 0), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_KNC_GLOBAL_CTRL, 1), HW_OK);
}

/* Events of code/um over n iterations of w; the call's own part (loop
 * setup, RET) included: it holds construction events, no outcome ones. */
static uint64_t count(const struct workload *w, uint64_t n, unsigned code, unsigned um)
{
	uint64_t v = 0;
	prog(code, um);
	hw_run_workload(w, n);
	assert_int_equal(hw_rdmsr(MSR_KNC_PERFCTR0, &v), HW_OK);
	return v;
}

/* A walk of `bytes` (walk_test.h). */
static const struct workload *walk(struct walk *k, const struct workload *proto, uint64_t bytes)
{
	return walk_of(k, proto, bytes, 64);
}

/* The walks' kernels read 4 words of their arguments outside the loop
 * (x86-64 WALK_FIXED: buf, lines, stride and the RET). */
#define FIXED_LOADS 4

/* 128 KiB (2048 lines) is 32 lines to each L1D set: a random cycle meets
 * the other 31 before a line comes back, so every load misses the 8 ways;
 * 2 lines to each L2 set: every one hits there, in E when only read. */
static void l1_misses_hit_l2(void **st)
{
	(void)st;
	struct walk c, l1;
	power(SF_NONE);
	const struct workload *chase = walk(&c, &wl_chase, 128 * KIB);
	const struct workload *small = walk(&l1, &wl_chase, 16 * KIB);
	assert_int_equal(count(chase, N, 0x00, CORE), N * 2048 + FIXED_LOADS); /* DATA_READ */
	assert_int_equal(count(chase, N, 0x01, CORE), 0);		       /* DATA_WRITE */
	assert_int_equal(count(chase, N, 0x03, CORE), N * 2048);	       /* DATA_READ_MISS */
	assert_int_equal(count(chase, N, 0x29, CORE), N * 2048); /* ..._OR_WRITE_MISS */
	assert_int_equal(count(chase, N, 0x06, CORE), 0);	 /* no dirty line */
	assert_int_equal(count(chase, N, 0xc8, CRI), N * 2048);	 /* L2_READ_HIT_E */
	assert_int_equal(count(chase, N, 0xc9, CRI), 0);	 /* L2_READ_HIT_M */
	assert_int_equal(count(chase, N, 0xca, CRI), 0);	 /* S: one core */
	assert_int_equal(count(chase, N, 0xcb, CRI), 0);	 /* L2_READ_MISS */
	/* 16 KiB: 4 lines a set, the whole chain stays in L1 */
	assert_int_equal(count(small, N, 0x03, CORE), 0);
	assert_int_equal(count(small, N, 0x00, CORE), N * 256 + FIXED_LOADS);
	free(c.mem);
	free(l1.mem);
}

/* The dirty chase stores into the line it just loaded: the store hits,
 * every line leaves L1 Modified and comes back from the L2 in M. */
static void dirty_lines(void **st)
{
	(void)st;
	struct walk d;
	power(SF_NONE);
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 128 * KIB);
	assert_int_equal(count(dirty, N, 0x01, CORE), N * 2048);	       /* DATA_WRITE */
	assert_int_equal(count(dirty, N, 0x28, CORE), N * 4096 + FIXED_LOADS); /* R or W */
	assert_int_equal(count(dirty, N, 0x04, CORE), 0);		       /* WRITE_MISS */
	assert_int_equal(count(dirty, N, 0x06, CORE), N * 2048);	       /* written back */
	assert_int_equal(count(dirty, N, 0xc9, CRI), N * 2048);		       /* L2_READ_HIT_M */
	assert_int_equal(count(dirty, N, 0xc8, CRI), 0);
	free(d.mem);
}

/* 2 MiB (32768 lines) is 32 lines to each 8-way L2 set: every access
 * misses the L2 and fills from memory; stores ask for ownership. */
static void memory_fills(void **st)
{
	(void)st;
	struct walk c, s;
	power(SF_NONE);
	const struct workload *chase = walk(&c, &wl_chase, 2048 * KIB);
	const struct workload *stores = walk(&s, &wl_store_walk, 2048 * KIB);
	assert_int_equal(count(chase, 2, 0xcb, CRI), 2 * 32768); /* L2_READ_MISS */
	assert_int_equal(count(chase, 2, 0xf6, CRI), 2 * 32768); /* DATA_READ_MISS_MEM_FILL */
	assert_int_equal(count(chase, 2, 0xf7, CRI), 0);
	assert_int_equal(count(stores, 2, 0xf7, CRI), 2 * 32768);  /* DATA_WRITE_MISS_MEM_FILL */
	assert_int_equal(count(stores, 2, 0x04, CORE), 2 * 32768); /* DATA_WRITE_MISS */
	assert_int_equal(count(stores, 2, 0x00, CORE), FIXED_LOADS);
	/* a load waits for memory: at least 300 cycles each, nearly all stalled */
	uint64_t cyc = count(chase, 1, 0x2a, CORE), stall = count(chase, 1, 0x2d, CORE);
	assert_true(cyc >= 32768ull * 300);
	assert_true(stall * 10 >= cyc * 9 && stall <= cyc);
	assert_true(count(chase, 1, 0x2e, CORE) * 10 <= cyc); /* few E-stage cycles */
	free(c.mem);
	free(s.mem);
}

/* Construction events, exact: wl_loop is "add; dec; jnz" (3 instructions,
 * 1 branch) plus "test; jz; ret" once; wl_calls is "call; ret; sub; jae"
 * (3 branches) plus "jmp; sub; jae; ret" once (3 branches). */
static void construction(void **st)
{
	(void)st;
	power(SF_NONE);
	assert_int_equal(count(&wl_loop, 1000, 0x16, CORE), 3003); /* INSTRUCTIONS_EXECUTED */
	assert_int_equal(count(&wl_loop, 1000, 0x12, CORE), 1002); /* BRANCHES */
	assert_int_equal(count(&wl_calls, 100, 0x12, CORE), 303);
	assert_int_equal(count(&wl_loop, 1000, 0x2a, CORE), 1000); /* a cycle an iteration */
	assert_true(count(&wl_loop, 1000, 0x0c, CORE) >= 1000);	   /* a fetch per taken jnz */
	assert_int_equal(count(&wl_loop, 1000, 0x2c, CORE), 0);	   /* no microcode */
	assert_true(count(&wl_cpuid, 100, 0x2c, CORE) >= 100 * 10);
	/* a far return loads CS, each segment reload its descriptor: flushes */
	assert_int_equal(count(&wl_far, 100, 0x15, CORE), 100);
	assert_int_equal(count(&wl_segload, 100, 0x15, CORE), 300);
	assert_int_equal(count(&wl_br_taken, 1000, 0x15, CORE), 0);
	/* the VPU counts nothing: no workload runs vector instructions */
	assert_int_equal(count(&wl_loop, 1000, 0x16, 0x20), 0);
}

/* A xorshift bit as the direction: about half mispredicted, each a flush. */
static void branches_mispredicted(void **st)
{
	(void)st;
	power(SF_NONE);
	uint64_t m = count(&wl_br_random, 10000, 0x2b, CORE);
	assert_true(m >= 3500 && m <= 6500);
	assert_int_equal(count(&wl_br_taken, 1000, 0x2b, CORE), 0);
	power(SF_NONE);
	assert_int_equal(count(&wl_br_random, 10000, 0x15, CORE), m);
}

/* Each decode fault changes a count pinned above. */
static void faults(void **st)
{
	(void)st;
	struct walk d, c, l1;
	power(SF_EVENT_DEAD);
	assert_int_equal(count(&wl_br_random, 1000, 0x2b, CORE), 0);
	power(SF_EVENT_MISWIRED);
	assert_int_equal(count(&wl_br_random, 1000, 0x2b, CORE), 1000 * 3 + 3);
	power(SF_DOUBLE_COUNT);
	assert_int_equal(count(&wl_calls, 100, 0x12, CORE), 2 * 303);
	power(SF_UMASK_IGNORED); /* the MESI state qualifier ignored */
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 128 * KIB);
	assert_int_equal(count(dirty, N, 0xc8, CRI), N * 2048);
	assert_int_equal(count(dirty, N, 0xca, CRI), N * 2048);
	power(SF_MISS_COUNTS_HITS);
	const struct workload *chase = walk(&c, &wl_chase, 128 * KIB);
	const struct workload *small = walk(&l1, &wl_chase, 16 * KIB);
	assert_int_equal(count(small, N, 0x03, CORE), N * 256 + FIXED_LOADS);
	assert_int_equal(count(chase, N, 0xcb, CRI), N * 2048);
	assert_int_equal(sim_start("knc", SF_REFCYC_CORE), -1); /* no reference clock */
	free(d.mem);
	free(c.mem);
	free(l1.mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(l1_misses_hit_l2),	     cmocka_unit_test(dirty_lines),
	    cmocka_unit_test(memory_fills),	     cmocka_unit_test(construction),
	    cmocka_unit_test(branches_mispredicted), cmocka_unit_test(faults),
	};
	return cmocka_run_group_tests_name("test_sim_knc_events", tests, 0, 0);
}
