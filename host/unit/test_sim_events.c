/* Event decoding of the simulated CPUs from a workload's construction and
 * outcome: counters programmed through the simulated MSRs, workloads run by
 * hw_run_workload, counts against numbers derived here. K8 (BKDG #26094
 * §10.2.1), the Intel architectural events (SDM Vol. 3B "Pre-defined
 * Architectural Performance Events"), Skylake's L2_RQSTS, the reference
 * clock, and each event-decoding fault of sim.h. */
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

#define KIB 1024u
#define N   8 /* iterations of a walk */

static void power(const char *model, enum sim_fault f, uint32_t realism)
{
	assert_int_equal(sim_start_real(model, f, realism, 3), 0);
}

/* ---- counters by MSR ------------------------------------------------------- */

static bool intel(void)
{
	return sim.m->driver == PMU_DRV_INTEL_ARCH;
}

/* Counter i counts event code with unit mask um in ring 0, from 0. */
static void prog(unsigned i, unsigned code, unsigned um)
{
	uint64_t sel = EVTSEL_EN | EVTSEL_OS | (uint64_t)um << 8 | code;
	if (intel()) {
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + i, sel), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_P6_PERFCTR0 + i, 0), HW_OK);
		uint64_t g = 0;
		assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_CTRL, &g), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, g | 1ull << i), HW_OK);
		return;
	}
	assert_int_equal(hw_wrmsr(MSR_K7_EVNTSEL0 + i, sel), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_K7_PERFCTR0 + i, 0), HW_OK);
}

static uint64_t rd(unsigned i)
{
	uint64_t v = 0;
	assert_int_equal(hw_rdmsr((intel() ? MSR_P6_PERFCTR0 : MSR_K7_PERFCTR0) + i, &v), HW_OK);
	return v;
}

/* Events of code/um over n iterations of w (the call's own part included:
 * it holds none of the outcome events). */
static uint64_t count(const struct workload *w, uint64_t n, unsigned code, unsigned um)
{
	prog(0, code, um);
	hw_run_workload(w, n);
	return rd(0);
}

/* A walk of `bytes` (walk_test.h). */
static const struct workload *walk(struct walk *k, const struct workload *proto, uint64_t bytes)
{
	return walk_of(k, proto, bytes, 64);
}

/* ---- K8 ---------------------------------------------------------------------- */

/* The data cache events on a chase of 4 x L1D (256 KiB, 4096 lines: misses
 * L1, hits the victim L2) and within L1 (32 KiB). */
static void k8_data_cache(void **st)
{
	(void)st;
	struct walk c, d, l1;
	power("opteron", SF_NONE, 0);
	const struct workload *chase = walk(&c, &wl_chase, 256 * KIB);
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 256 * KIB);
	const struct workload *small = walk(&l1, &wl_chase, 32 * KIB);
	assert_int_equal(count(small, N, 0x40, 0), N * 512); /* DC accesses */
	assert_int_equal(count(small, N, 0x41, 0), 0);	     /* DC misses */
	assert_int_equal(count(chase, N, 0x41, 0), N * 4096);
	assert_int_equal(count(chase, N, 0x42, 0x04), N * 4096); /* refills from L2, E */
	assert_int_equal(count(chase, N, 0x42, 0x10), 0);	 /* M */
	assert_int_equal(count(chase, N, 0x42, 0x01), 0);	 /* from the system */
	assert_int_equal(count(chase, N, 0x44, 0x04), N * 4096); /* evicted E */
	assert_int_equal(count(chase, N, 0x7d, 0x02), N * 4096); /* requests to L2: DC fill */
	assert_int_equal(count(chase, N, 0x7e, 0x02), 0);	 /* L2 misses */
	assert_int_equal(count(chase, N, 0x7f, 0x01), N * 4096); /* L2 fills from L1 victims */
	assert_int_equal(count(dirty, N, 0x42, 0x10), N * 4096);
	assert_int_equal(count(dirty, N, 0x42, 0x04), 0);
	assert_int_equal(count(dirty, N, 0x44, 0x10), N * 4096);
	free(c.mem);
	free(d.mem);
	free(l1.mem);
}

/* Past the L2 (4 MiB): refills from the system, read responses, DRAM. */
static void k8_system(void **st)
{
	(void)st;
	struct walk c, s;
	power("opteron", SF_NONE, 0);
	const struct workload *chase = walk(&c, &wl_chase, 4096 * KIB);
	const struct workload *stores = walk(&s, &wl_store_walk, 4096 * KIB);
	assert_int_equal(count(chase, 2, 0x43, 0x04), 2 * 65536); /* E: a read */
	assert_int_equal(count(chase, 2, 0x42, 0x01), 2 * 65536); /* 42h's system bit */
	assert_int_equal(count(chase, 2, 0x7e, 0x02), 2 * 65536);
	assert_int_equal(count(chase, 2, 0x6c, 0x01), 2 * 65536);
	assert_int_equal(count(chase, 2, 0xe0, 0x07), 2 * 65536);
	/* every line stored to is written back: 8 quadwords, one DRAM write */
	assert_int_equal(count(stores, 2, 0x43, 0x10), 2 * 65536); /* M: an RFO */
	assert_int_equal(count(stores, 2, 0x6d, 0x01), 2 * 65536 * 8);
	assert_int_equal(count(stores, 2, 0x7f, 0x02), 2 * 65536);
	assert_int_equal(count(stores, 2, 0xe0, 0x07), 2 * 2 * 65536);
	free(c.mem);
	free(s.mem);
}

/* Construction events, exact per iteration. */
static void k8_construction(void **st)
{
	(void)st;
	struct walk nt, line;
	power("opteron", SF_NONE, 0);
	const struct workload *movnti = walk(&nt, &wl_nt_store, 32 * KIB);
	const struct workload *x87 = walk(&line, &wl_x87, 128);
	assert_int_equal(count(&wl_segload, 100, 0x20, 0x09), 200); /* ES, DS */
	assert_int_equal(count(&wl_segload, 100, 0x20, 0x40), 0);   /* HS */
	assert_int_equal(count(&wl_far, 100, 0x20, 0x02), 100);	    /* CS */
	assert_int_equal(count(&wl_locked, 100, 0x24, 0x01), 100);
	assert_true(count(&wl_locked, 100, 0x24, 0x04) >= 100);
	assert_int_equal(count(&wl_clflush, 100, 0x26, 0), 100);
	assert_int_equal(count(&wl_cpuid, 100, 0x27, 0), 100);
	assert_true(count(&wl_cpuid, 100, 0xd3, 0) >= 100);
	assert_true(count(&wl_segload, 100, 0xd4, 0) >= 300);
	assert_true(count(&wl_far, 100, 0xda, 0) >= 100);
	assert_int_equal(count(&wl_misaligned, 100, 0x47, 0), 100);
	assert_int_equal(count(x87, 100, 0x00, 0x3f), 300);
	assert_int_equal(count(x87, 100, 0x02, 0), 100);
	assert_int_equal(count(x87, 100, 0xcb, 0x01), 300);
	assert_int_equal(count(x87, 100, 0xcb, 0x02), 0);
	/* 32 KiB of MOVNTI: 4096 stores, 512 lines */
	assert_int_equal(count(movnti, 1, 0x65, 0x80), 512);
	assert_int_equal(count(movnti, 1, 0x6d, 0x01), 4096);
	free(nt.mem);
	free(line.mem);
}

static void k8_branches(void **st)
{
	(void)st;
	power("opteron", SF_NONE, 0);
	assert_int_equal(count(&wl_calls, 100, 0xc8, 0), 100 + 1); /* the call's own ret */
	assert_int_equal(count(&wl_calls, 100, 0x88, 0), 100 + 1);
	assert_int_equal(count(&wl_recurse, 100, 0x89, 0), 100 * 12);
	assert_int_equal(count(&wl_recurse, 100, 0xc9, 0), 100 * 12);
	assert_int_equal(count(&wl_recurse, 100, 0x88, 0), 100 * 12 + 1);
	assert_int_equal(count(&wl_br_taken, 100, 0xc4, 0), 100 * 2 + 2);
	uint64_t m = count(&wl_br_random, 10000, 0xc3, 0);
	assert_true(m >= 3500 && m <= 6500);
	uint64_t t = count(&wl_br_random, 10000, 0xc5, 0);
	assert_true(t >= 1000 && t <= 4000);
	m = count(&wl_ind_random, 10000, 0xca, 0);
	assert_true(m >= 3500 && m <= 6500);
	assert_true(count(&wl_loop, 1000, 0x80, 0) >= 1000); /* IC fetches */
	assert_int_equal(count(&wl_loop, 1000, 0xc1, 0), 3003);
}

/* Cycles: masked while IF is clear, stalls on a chase to memory. */
static void k8_cycles(void **st)
{
	(void)st;
	struct walk c;
	power("opteron", SF_NONE, 0);
	assert_int_equal(count(&wl_loop, 1000, 0xcd, 0), 0);
	hw_irq_disable();
	assert_int_equal(count(&wl_loop, 1000, 0xcd, 0), 1000);
	assert_int_equal(count(&wl_loop, 1000, 0x76, 0), 1000);
	assert_int_equal(count(&wl_loop, 1000, 0x01, 0), 1000); /* no x87 retired */
	hw_irq_enable();
	const struct workload *chase = walk(&c, &wl_chase, 4096 * KIB);
	uint64_t cyc = count(chase, 1, 0x76, 0), stall = count(chase, 1, 0xd1, 0);
	assert_true(cyc >= 65536ull * 150);
	assert_true(stall * 10 >= cyc * 9 && stall <= cyc);
	free(c.mem);
}

/* The K8 decode faults: each changes a count the healthy model pins. */
static void k8_faults(void **st)
{
	(void)st;
	struct walk d, l1;
	power("opteron", SF_EVENT_DEAD, 0);
	assert_int_equal(count(&wl_br_random, 1000, 0xc3, 0), 0);
	power("opteron", SF_EVENT_MISWIRED, 0);
	assert_int_equal(count(&wl_br_random, 1000, 0xc3, 0), 1000 * 3 + 3);
	power("opteron", SF_DOUBLE_COUNT, 0);
	assert_int_equal(count(&wl_calls, 100, 0xc8, 0), 2 * 101);
	power("opteron", SF_UMASK_IGNORED, 0);
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 256 * KIB);
	assert_int_equal(count(dirty, N, 0x42, 0x04), N * 4096); /* E counts M refills */
	power("opteron", SF_MISS_COUNTS_HITS, 0);
	const struct workload *small = walk(&l1, &wl_chase, 32 * KIB);
	assert_int_equal(count(small, N, 0x41, 0), N * 512);
	assert_int_equal(sim_start("opteron", SF_REFCYC_CORE), -1);
	free(d.mem);
	free(l1.mem);
}

/* ---- Intel --------------------------------------------------------------- */

/* Skylake L2_RQSTS: origin AND result; 41h is E/S hits only. */
static void skylake_l2_rqsts(void **st)
{
	(void)st;
	struct walk c, d, big;
	power("skylake", SF_NONE, 0);
	const struct workload *chase = walk(&c, &wl_chase, 128 * KIB);
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 128 * KIB);
	const struct workload *over = walk(&big, &wl_chase, 1024 * KIB);
	assert_int_equal(count(chase, N, 0x24, 0x41), N * 2048);
	assert_int_equal(count(chase, N, 0x24, 0x81), 0);
	assert_int_equal(count(chase, N, 0x24, 0x21), 0);
	assert_int_equal(count(chase, N, 0x24, 0x01), 0); /* no result bit */
	assert_int_equal(count(chase, N, 0x24, 0xe0), 0); /* no origin bit */
	assert_int_equal(count(chase, N, 0x24, 0xe2), 0); /* RFO: none */
	assert_int_equal(count(dirty, N, 0x24, 0x41), 0);
	assert_int_equal(count(dirty, N, 0x24, 0x81), N * 2048);
	assert_int_equal(count(dirty, N, 0x24, 0xc1), N * 2048);
	assert_int_equal(count(over, 2, 0x24, 0x21), 2 * 16384);
	assert_int_equal(count(over, 2, 0x2e, 0x4f), 2 * 16384); /* LLC references */
	assert_int_equal(count(over, 2, 0x2e, 0x41), 0);	 /* the LLC holds it */
	free(c.mem);
	free(d.mem);
	free(big.mem);
}

static void skylake_faults(void **st)
{
	(void)st;
	struct walk d, c, big;
	power("skylake", SF_UMASK_IGNORED, 0);
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 128 * KIB);
	assert_int_equal(count(dirty, N, 0x24, 0x41), N * 2048); /* 41h takes M hits */
	power("skylake", SF_MISS_COUNTS_HITS, 0);
	const struct workload *chase = walk(&c, &wl_chase, 128 * KIB);
	assert_int_equal(count(chase, N, 0x24, 0x21), N * 2048);
	const struct workload *over = walk(&big, &wl_chase, 1024 * KIB);
	assert_int_equal(count(over, 2, 0x2e, 0x41), 2 * 16384); /* the LLC holds it */
	power("skylake", SF_EVENT_DEAD, 0);
	assert_int_equal(count(&wl_br_random, 1000, 0xc5, 0), 0);
	power("skylake", SF_EVENT_MISWIRED, 0);
	assert_int_equal(count(&wl_br_random, 1000, 0xc5, 0), 3003);
	power("skylake", SF_DOUBLE_COUNT, 0);
	assert_int_equal(count(&wl_loop, 1000, 0xc4, 0), 2 * 1002);
	free(d.mem);
	free(c.mem);
	free(big.mem);
}

/* Core 2's 2Eh unit mask holds the MESI state: umask-ignored counts every
 * state under 41h (I: misses). */
static void core2_llc(void **st)
{
	(void)st;
	struct walk c;
	power("core2", SF_NONE, 0);
	const struct workload *chase = walk(&c, &wl_chase, 128 * KIB); /* fits the 4 MiB L2 */
	assert_int_equal(count(chase, N, 0x2e, 0x4f), N * 2048);
	assert_int_equal(count(chase, N, 0x2e, 0x41), 0);
	power("core2", SF_UMASK_IGNORED, 0);
	assert_int_equal(count(chase, N, 0x2e, 0x41), N * 2048);
	free(c.mem);
}

/* Fixed counter 2 (reference cycles at the TSC's rate) from 0 over n loop
 * iterations; *tsc the TSC ticks they took. */
static uint64_t ref_cycles(uint64_t n, uint64_t *tsc)
{
	uint64_t v = 0;
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR0 + 2, 0), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR_CTRL, 1ull << 8), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 1ull << 34), HW_OK);
	uint64_t t0 = sim.tsc;
	hw_run_workload(&wl_loop, n);
	*tsc = sim.tsc - t0;
	assert_int_equal(hw_rdmsr(MSR_FIXED_CTR0 + 2, &v), HW_OK);
	return v;
}

/* Realism "turbo": the core runs 1.2 times the TSC's rate, so 1200 core
 * cycles are 1000 reference cycles, and the TSC advances by those. */
static void turbo_reference_clock(void **st)
{
	(void)st;
	uint64_t tsc;
	power("skylake", SF_NONE, 0);
	assert_int_equal(ref_cycles(1200, &tsc), 1200);
	power("skylake", SF_NONE, 1u << SE_TURBO);
	assert_int_equal(ref_cycles(1200, &tsc), 1000);
	assert_int_equal(tsc, 1000 + 1); /* and the call's own tick */
	assert_int_equal(count(&wl_loop, 1200, 0x3c, 0x01), 1000);
	assert_int_equal(count(&wl_loop, 1200, 0x3c, 0x00), 1200);
	/* the fraction carries: 7 calls of 5 iterations are 29 ticks (29.2) */
	uint64_t sum = 0;
	for (int i = 0; i < 7; i++)
		sum += ref_cycles(5, &tsc);
	assert_int_equal(sum, 29);
	power("skylake", SF_REFCYC_CORE, 1u << SE_TURBO);
	assert_int_equal(ref_cycles(1200, &tsc), 1200);
	assert_int_equal(sim_start("yonah", SF_REFCYC_CORE), -1); /* no turbo */
}

/* An overflow of a reference-cycles counter still comes at its exact
 * iteration under turbo (5 ticks per 6 iterations). */
static void turbo_overflow_point(void **st)
{
	(void)st;
	uint64_t v = 0, tsc;
	power("skylake", SF_NONE, 1u << SE_TURBO);
	(void)ref_cycles(0, &tsc);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR0 + 2, (1ull << 48) - 10), HW_OK);
	hw_run_workload(&wl_loop, 11); /* 9 ticks (11 x 5/6 = 9.17) */
	assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_STATUS, &v), HW_OK);
	assert_int_equal(v & (1ull << 34), 0);
	hw_run_workload(&wl_loop, 2);
	assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_STATUS, &v), HW_OK);
	assert_int_equal(v & (1ull << 34), 1ull << 34);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(k8_data_cache),
	    cmocka_unit_test(k8_system),
	    cmocka_unit_test(k8_construction),
	    cmocka_unit_test(k8_branches),
	    cmocka_unit_test(k8_cycles),
	    cmocka_unit_test(k8_faults),
	    cmocka_unit_test(skylake_l2_rqsts),
	    cmocka_unit_test(skylake_faults),
	    cmocka_unit_test(core2_llc),
	    cmocka_unit_test(turbo_reference_clock),
	    cmocka_unit_test(turbo_overflow_point),
	};
	return cmocka_run_group_tests_name("test_sim_events", tests, 0, 0);
}
