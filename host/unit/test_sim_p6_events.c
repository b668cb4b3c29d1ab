/* Event decoding of the simulated Pentium III (host/sim/model_p6.c) from a
 * workload's construction and outcome: counters programmed through the P6
 * MSRs (EVNTSEL0/1 at 186H/187H, EN only in EVNTSEL0 and gating both;
 * PERFCTR0/1 at C1H/C2H), workloads run by hw_run_workload, counts against
 * numbers derived here from the model's geometry (CPUID leaf 02H: 16 KiB
 * 4-way L1D, 512 KiB 4-way L2, 32-byte lines) and the events of the SDM's
 * P6 table (Intel SDM Vol. 3B, P6 family events); then each event-decoding
 * fault of sim.h the model has. */
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
#define LINE 32u /* P6 lines (descriptors 0CH, 43H) */
#define N    8	 /* iterations of a walk that fits the L2 */

static void power(enum sim_fault f)
{
	assert_int_equal(sim_start_real("pentium3", f, 0, 3), 0);
}

/* Counter i counts event code with unit mask um in ring 0, from 0. EN
 * lives in EVNTSEL0 only: for counter 1, EVNTSEL0 holds EN and neither OS
 * nor USR, so that counter 0 counts nothing. */
static void prog(unsigned i, unsigned code, unsigned um)
{
	uint64_t sel = EVTSEL_OS | (uint64_t)um << 8 | code;
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, i ? EVTSEL_EN : sel | EVTSEL_EN), HW_OK);
	if (i)
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, sel), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_P6_PERFCTR0 + i, 0), HW_OK);
}

/* Events of code/um on counter i over n iterations of w (the call's own
 * part included: it holds none of the outcome events). */
static uint64_t count_on(unsigned i, const struct workload *w, uint64_t n, unsigned code,
			 unsigned um)
{
	uint64_t v = 0;
	prog(i, code, um);
	hw_run_workload(w, n);
	assert_int_equal(hw_rdmsr(MSR_P6_PERFCTR0 + i, &v), HW_OK);
	return v;
}

static uint64_t count(const struct workload *w, uint64_t n, unsigned code, unsigned um)
{
	return count_on(0, w, n, code, um);
}

/* A walk of `bytes` (walk_test.h). */
static const struct workload *walk(struct walk *k, const struct workload *proto, uint64_t bytes)
{
	return walk_of(k, proto, bytes, LINE);
}

/* CPUID leaf 02H is the model's descriptor registers, its only cache leaf. */
static void leaf2(void **st)
{
	(void)st;
	struct cpuid_regs r;
	power(SF_NONE);
	hw_cpuid(2, 0, &r);
	assert_int_equal(r.eax, 0x03020101u);
	assert_int_equal(r.ebx, 0);
	assert_int_equal(r.ecx, 0);
	assert_int_equal(r.edx, 0x0c040843u);
	hw_cpuid(0, 0, &r);
	assert_int_equal(r.eax, 2);
}

/* Construction events, exact: wl_loop is 3 instructions and 1 branch an
 * iteration, 3 and 2 in the call; wl_x87 3 x87 ops an iteration, none in
 * the call (FNSAVE, FLD1 and the like are not counted as arithmetic). */
static void construction(void **st)
{
	(void)st;
	power(SF_NONE);
	assert_int_equal(count(&wl_loop, 1000, 0xc0, 0), 3003);
	assert_int_equal(count(&wl_loop, 1000, 0xc4, 0), 1002);
	assert_int_equal(count_on(1, &wl_loop, 1000, 0xc4, 0), 1002); /* EN from EVNTSEL0 */
	assert_int_equal(count(&wl_loop, 1000, 0x79, 0), 1000);
	assert_int_equal(count(&wl_x87, 100, 0xc1, 0), 300);	   /* FLOPS */
	assert_int_equal(count(&wl_x87, 100, 0x10, 0), 300);	   /* FP_COMP_OPS_EXE */
	assert_int_equal(count(&wl_x87, 100, 0x13, 0), 0);	   /* DIV: no divide */
	assert_int_equal(count_on(1, &wl_x87, 100, 0x12, 0), 100); /* MUL: one FMUL each */
}

static void branches(void **st)
{
	(void)st;
	power(SF_NONE);
	assert_int_equal(count(&wl_br_taken, 1000, 0xc5, 0), 0); /* learned */
	uint64_t m = count(&wl_br_random, 10000, 0xc5, 0);
	assert_true(m >= 3500 && m <= 6500);
	assert_int_equal(count(&wl_br_random, 1000, 0xc4, 0), 3003);
}

/* L2_RQSTS by state. A chase of 64 KiB (2048 lines, 16 a set of the 128
 * 4-way L1D sets) misses the L1D every element and finds the line in the
 * L2: E when only read, M when the chase stores to it (the L1's Modified
 * victims are written into the L2). 2 MiB (65536 lines, 16 a set of the
 * 4096 4-way L2 sets, walked in the same cycle each pass) misses both. */
static void l2_rqsts(void **st)
{
	(void)st;
	struct walk c, d, big;
	power(SF_NONE);
	const struct workload *chase = walk(&c, &wl_chase, 64 * KIB);
	const struct workload *dirty = walk(&d, &wl_chase_dirty, 64 * KIB);
	const struct workload *over = walk(&big, &wl_chase, 2048 * KIB);
	assert_int_equal(count(chase, N, 0x2e, 0x0f), N * 2048);
	assert_int_equal(count(chase, N, 0x2e, 0x04), N * 2048); /* E */
	assert_int_equal(count(chase, N, 0x2e, 0x01), 0);	 /* I */
	assert_int_equal(count(chase, N, 0x2e, 0x0a), 0);	 /* S, M */
	assert_int_equal(count(chase, N, 0x2e, 0x00), 0);	 /* no state: nothing */
	assert_int_equal(count(dirty, N, 0x2e, 0x08), N * 2048); /* M */
	assert_int_equal(count(dirty, N, 0x2e, 0x04), 0);
	assert_int_equal(count(over, 2, 0x2e, 0x01), 2 * 65536);
	assert_int_equal(count(over, 2, 0x2e, 0x0f), 2 * 65536);
	assert_int_equal(count(over, 2, 0x2e, 0x0e), 0);
	/* the chase waits for memory at every element */
	assert_true(count(over, 1, 0x79, 0) >= 65536ull * 100);
	free(c.mem);
	free(d.mem);
	free(big.mem);
}

/* BUS_DRDY_CLOCKS: a store walk of 2 MiB writes every line back once a
 * pass, 4 bus clocks of DRDY# driven by the processor each (00H); with 20H
 * any agent's, the RFOs' data from memory too, in core clocks (5 a bus
 * clock). A read-only chase writes nothing back. */
static void bus_drdy(void **st)
{
	(void)st;
	struct walk s, c;
	power(SF_NONE);
	const struct workload *stores = walk(&s, &wl_store_walk, 2048 * KIB);
	const struct workload *chase = walk(&c, &wl_chase, 2048 * KIB);
	assert_int_equal(count(stores, 2, 0x62, 0x00), 2 * 65536 * 4);
	assert_int_equal(count(stores, 1, 0x62, 0x20), 2 * 65536 * 4 * 5);
	assert_int_equal(count(chase, 2, 0x62, 0x00), 0);
	assert_int_equal(count(chase, 1, 0x62, 0x20), 65536 * 4 * 5);
	free(s.mem);
	free(c.mem);
}

/* Each event-decoding fault changes a count the healthy model pins. */
static void fault_event_dead(void **st)
{
	(void)st;
	power(SF_EVENT_DEAD);
	assert_int_equal(count(&wl_br_random, 1000, 0xc5, 0), 0);
}

/* BR_MISS_PRED_RETIRED counts every retired branch, 3 an iteration and 3
 * in the call (2 an iteration for wl_br_taken). */
static void fault_event_miswired(void **st)
{
	(void)st;
	power(SF_EVENT_MISWIRED);
	assert_int_equal(count(&wl_br_random, 1000, 0xc5, 0), 3003);
	assert_int_equal(count(&wl_br_taken, 1000, 0xc5, 0), 2003);
}

static void fault_double_count(void **st)
{
	(void)st;
	power(SF_DOUBLE_COUNT);
	assert_int_equal(count(&wl_loop, 1000, 0xc4, 0), 2 * 1002);
}

/* L2_RQSTS's I bit counts every state: E hits of a walk that fits. */
static void fault_miss_counts_hits(void **st)
{
	(void)st;
	struct walk c;
	power(SF_MISS_COUNTS_HITS);
	const struct workload *chase = walk(&c, &wl_chase, 64 * KIB);
	assert_int_equal(count(chase, N, 0x2e, 0x01), N * 2048);
	free(c.mem);
}

/* The S/E/M qualification dropped: E alone counts misses too, while the I
 * bit alone still counts misses only (unlike miss-counts-hits). */
static void fault_umask_ignored(void **st)
{
	(void)st;
	struct walk c, big;
	power(SF_UMASK_IGNORED);
	const struct workload *chase = walk(&c, &wl_chase, 64 * KIB);
	const struct workload *over = walk(&big, &wl_chase, 2048 * KIB);
	assert_int_equal(count(chase, N, 0x2e, 0x01), 0);
	assert_int_equal(count(over, 2, 0x2e, 0x04), 2 * 65536);
	free(c.mem);
	free(big.mem);
}

/* P6 has no reference-cycles event: the fault does not apply. */
static void fault_refcyc_core(void **st)
{
	(void)st;
	assert_int_equal(sim_start("pentium3", SF_REFCYC_CORE), -1);
	assert_non_null(sim_model_find("pentium3")->fault_na[SF_REFCYC_CORE]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(leaf2),
	    cmocka_unit_test(construction),
	    cmocka_unit_test(branches),
	    cmocka_unit_test(l2_rqsts),
	    cmocka_unit_test(bus_drdy),
	    cmocka_unit_test(fault_event_dead),
	    cmocka_unit_test(fault_event_miswired),
	    cmocka_unit_test(fault_double_count),
	    cmocka_unit_test(fault_miss_counts_hits),
	    cmocka_unit_test(fault_umask_ignored),
	    cmocka_unit_test(fault_refcyc_core),
	};
	return cmocka_run_group_tests_name("test_sim_p6_events", tests, 0, 0);
}
