/* The branch trace store in the simulator (host/sim/sim_ds.c) and the
 * check that judges it (bts.trace):
 *  - the simulator stores each taken branch of the sampling kernel as the
 *    kernel's walk has it, after the platform's CALL into the kernel
 *    (host/sim/sim_trace.c), at the DS area's BTS index; the buffer is
 *    circular without BTINT and stops at the absolute maximum with it,
 *    where the threshold requests a PMI; BTS_OFF_OS and BTS_OFF_USR leave
 *    out a ring; bts-skips-branch drops every 16th branch;
 *  - bts.trace PASSes healthy over 25 seeds with every realism effect (and
 *    with NMI delivery), FAILs under bts-skips-branch and ds-threshold-lost
 *    on every seed with a message naming the symptom, SKIPs without BTS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"
#include "ds_test.h"
#include "../../events/sample.h"
#include "../../pmu/msr.h"

#define ITERS	  8 /* about 60 taken branches */
#define CAP	  128
#define MAX_TAKEN 128
#define PREDICTED (1ull << 4)
#define BTS_ON	  (DEBUGCTL_TR | DEBUGCTL_BTS)

static struct {
	uint64_t base, index, max, threshold, pebs[4], reset[12];
} ds;
static struct rec {
	uint64_t from, to, flags;
} buf[CAP + 1];

struct taken {
	unsigned n;
	uint64_t entry; /* the kernel's first instruction */
	uint64_t from[MAX_TAKEN], to[MAX_TAKEN];
};
static struct taken w;

static void on_step(void *ctx, const struct smp_step *st)
{
	struct taken *t = ctx;
	if (!t->entry)
		t->entry = st->ip;
	if (st->kind != SMP_NONE && st->taken && t->n < MAX_TAKEN) {
		t->from[t->n] = st->ip;
		t->to[t->n++] = st->next;
	}
}

/* model with fault f (no realism): a buffer of cap records, threshold at
 * record thr, DEBUGCTL = dbg around the kernel (ITERS iterations) at cpl. */
static void run_bts(const char *model, enum sim_fault f, unsigned cap, unsigned thr, uint64_t dbg,
		    unsigned cpl)
{
	(void)drv_up(model, f);
	memset(&ds, 0, sizeof(ds));
	memset(buf, 0, sizeof(buf));
	buf[cap].from = 0x5a5a; /* past the absolute maximum: never written */
	ds.base = ds.index = (uint64_t)(uintptr_t)buf;
	ds.max = ds.base + (uint64_t)cap * sizeof(buf[0]);
	ds.threshold = ds.base + (uint64_t)thr * sizeof(buf[0]);
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)&ds), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, dbg), HW_OK);
	if (cpl)
		assert_int_equal(hw_user_run(&wl_sample, ITERS), HW_OK);
	else
		hw_run_workload(&wl_sample, ITERS);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, 0), HW_OK);
	w.n = 0;
	w.entry = 0;
	smp_walk(ITERS, on_step, &w);
	assert_true(w.n < CAP && w.n > 32);
}

static bool in_kernel(uint64_t ip)
{
	uint64_t lo, hi;
	smp_bounds(&lo, &hi);
	return ip >= lo && ip < hi;
}

/* Record k is the platform's CALL into the kernel: from the harness, to
 * the kernel's first instruction (the first branch at CPL 0). */
static void is_entry(unsigned k)
{
	assert_false(in_kernel(buf[k].from));
	assert_int_equal(buf[k].to, w.entry);
}

/* Record k against the walk's taken branch i (the final RET's `to` is the
 * simulator's own caller). */
static void is_branch(unsigned k, unsigned i)
{
	assert_int_equal(buf[k].from, w.from[i]);
	if (i + 1 < w.n)
		assert_int_equal(buf[k].to, w.to[i]);
	assert_int_equal(buf[k].flags & ~PREDICTED, 0);
}

/* The CALL into the kernel, then every taken branch, in order, nothing
 * else (no realism: no other harness branches); the loop's direct JMP
 * flagged predicted after its first. */
static void records_every_taken_branch(void **st)
{
	(void)st;
	run_bts("skylake", SF_NONE, CAP, CAP, BTS_ON, 0);
	assert_int_equal(ds.index, ds.base + (w.n + 1) * sizeof(buf[0]));
	is_entry(0);
	for (unsigned i = 0; i < w.n; i++)
		is_branch(i + 1, i);
	for (unsigned i = 3; i < w.n; i++) /* b1's direct JMP, once decoded */
		if (w.from[i] == w.from[2])
			assert_true(buf[i + 1].flags & PREDICTED);
	assert_int_equal(buf[w.n + 1].from, 0);
	assert_int_equal(sim.st.pmi_raised, 0);
}

/* Without BTINT the buffer is circular: the index wraps to the base and the
 * youngest branches overwrite the oldest. */
static void circular_without_btint(void **st)
{
	const unsigned cap = 10;
	(void)st;
	run_bts("skylake", SF_NONE, cap, cap, BTS_ON, 0);
	assert_int_equal(ds.index, ds.base + ((w.n + 1) % cap) * sizeof(buf[0]));
	for (unsigned i = w.n - cap; i < w.n; i++) /* after the entry: slot i + 1 */
		is_branch((i + 1) % cap, i);
	assert_int_equal(buf[cap].from, 0x5a5a);
}

/* With BTINT records stop at the absolute maximum, and the threshold
 * requests a PMI; ds-threshold-lost requests none. */
static void btint_stops_and_interrupts(void **st)
{
	const unsigned cap = 10;
	(void)st;
	run_bts("skylake", SF_NONE, cap, 6, BTS_ON | DEBUGCTL_BTINT, 0);
	assert_int_equal(ds.index, ds.max);
	is_entry(0);
	for (unsigned i = 0; i + 1 < cap; i++)
		is_branch(i + 1, i);
	assert_int_equal(buf[cap].from, 0x5a5a);
	assert_true(sim.st.pmi_raised > 0);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS) & (1ull << 62), 0); /* BTS: no status */
	run_bts("skylake", SF_DS_THRESHOLD_LOST, cap, 6, BTS_ON | DEBUGCTL_BTINT, 0);
	assert_int_equal(ds.index, ds.max);
	assert_int_equal(sim.st.pmi_raised, 0);
}

/* BTS_OFF_OS leaves out CPL 0, BTS_OFF_USR CPL 3 (the kernel inside
 * hw_user_run; the platform's own branches around it are at CPL 0 and 3);
 * TR without BTS stores nothing. */
static void cpl_filters(void **st)
{
	(void)st;
	run_bts("skylake", SF_NONE, CAP, CAP, BTS_ON | DEBUGCTL_BTS_OFF_OS, 0);
	assert_int_equal(ds.index, ds.base);
	run_bts("skylake", SF_NONE, CAP, CAP, BTS_ON | DEBUGCTL_BTS_OFF_USR, 3);
	assert_true(ds.index > ds.base); /* the platform's at CPL 0 */
	for (unsigned k = 0; k < (ds.index - ds.base) / sizeof(buf[0]); k++)
		assert_false(in_kernel(buf[k].from));
	run_bts("skylake", SF_NONE, CAP, CAP, BTS_ON | DEBUGCTL_BTS_OFF_OS, 3);
	assert_true(ds.index >= ds.base + w.n * sizeof(buf[0]));
	unsigned k = 0;
	while (buf[k].from != w.from[0])
		assert_true(++k < CAP);
	for (unsigned i = 0; i < w.n; i++)
		is_branch(k + i, i);
	run_bts("skylake", SF_NONE, CAP, CAP, DEBUGCTL_TR, 0);
	assert_int_equal(ds.index, ds.base);
}

/* bts-skips-branch: the 16th, 32nd... branch missing, the rest in order
 * (the CALL into the kernel the first, the walk's branch i the i + 2nd). */
static void skips_every_sixteenth(void **st)
{
	(void)st;
	run_bts("skylake", SF_BTS_SKIPS_BRANCH, CAP, CAP, BTS_ON, 0);
	unsigned k = 1;
	is_entry(0);
	for (unsigned i = 0; i < w.n; i++)
		if ((i + 2) % 16)
			is_branch(k++, i);
	assert_int_equal(ds.index, ds.base + k * sizeof(buf[0]));
}

/* The check over seeds with every realism effect; under each fault; where
 * there is no BTS (ds_test.h). */
static void healthy_pass_on_every_seed(void **st)
{
	(void)st;
	ds_test_healthy("bts.trace");
}

static void faults_fail_on_every_seed(void **st)
{
	static const struct ds_test_case cases[] = {{SF_BTS_SKIPS_BRANCH, "branch"},
						    {SF_DS_THRESHOLD_LOST, "threshold"}};
	(void)st;
	ds_test_faults("bts.trace", cases, sizeof(cases) / sizeof(cases[0]), "BTS");
}

static void skip_without_bts(void **st)
{
	(void)st;
	ds_test_skip("bts.trace");
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(records_every_taken_branch),
	    cmocka_unit_test(circular_without_btint),
	    cmocka_unit_test(btint_stops_and_interrupts),
	    cmocka_unit_test(cpl_filters),
	    cmocka_unit_test(skips_every_sixteenth),
	    cmocka_unit_test(skip_without_bts),
	    cmocka_unit_test(healthy_pass_on_every_seed),
	    cmocka_unit_test(faults_fail_on_every_seed),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
