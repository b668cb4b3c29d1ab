/* Counter writes and reads on the simulated CPUs: a write to a running
 * counter goes on from the value (write-resets restarts it from 0), an
 * overflow leaves the other counters running (overflow-freezes stops
 * them), RDPMC's fast read keeps bits 31:0 on NetBurst and #GPs on arch
 * perfmon and AMD (fast-rdpmc-full returns the whole counter), the
 * full-width alias 0x4C1+i #GPs a bit above the width (full-width-no-gp
 * takes it). Then the checks that catch each fault: count.all-at-once,
 * counter.write-running, rdpmc.fast, counter.write-semantics FAIL under it
 * on every model that has it and PASS healthy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"

#define WRITTEN 0x12345678ull
#define ITERS	100
#define SEEDS	2
#define FAST	(1u << 31)

/* Instructions one hw_run_workload of n iterations of wl_loop retires. */
static uint64_t loop_insn(uint64_t n)
{
	return wl_loop.fixed.instructions + n * wl_loop.per_iter.instructions;
}

/* The k-th counter (from 0) of p that counts instructions. */
static unsigned insn_ctr(struct pmu *p, unsigned k)
{
	struct pmu_event ev;
	for (unsigned i = 0; i < p->n; i++)
		if (p->ops->generic_event(p, GEN_INSTRUCTIONS, i, &ev) == HW_OK && !k--)
			return i;
	fail_msg("%s: no counter %u for instructions", sim.m->name, k);
	return 0;
}

/* The first instructions counter of model, written WRITTEN while it runs
 * between two workloads: what it holds after. */
static uint64_t after_running_write(const char *model, enum sim_fault f)
{
	struct pmu *p = drv_up(model, f);
	unsigned c = insn_ctr(p, 0);

	drv_program(p, c, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(p->ops->start(p, 1ull << c), 0);
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(p->ops->write(p, c, WRITTEN, PMU_WRITE_PRELOAD), 0);
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(p->ops->stop(p, 1ull << c), 0);
	return drv_read(p, c);
}

static const char *const write_models[] = {"skylake", "yonah",	 "pentium3", "pentium4",
					   "knc",     "opteron", "zen4",     "skylake-kvm"};
#define N_WRITE_MODELS (sizeof(write_models) / sizeof(write_models[0]))

static void running_write_continues(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_WRITE_MODELS; k++) {
		const char *m = write_models[k];
		assert_int_equal(after_running_write(m, SF_NONE), WRITTEN + loop_insn(ITERS));
		/* the fault: from 0, not from the value */
		assert_int_equal(after_running_write(m, SF_WRITE_RESETS), loop_insn(ITERS));
	}
}

/* write-resets bites a running counter only: a stopped one takes the value. */
static void stopped_write_takes_value(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_WRITE_RESETS);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(p->ops->write(p, 0, WRITTEN, PMU_WRITE_PRELOAD), 0);
	assert_int_equal(drv_read(p, 0), WRITTEN);
}

/* Two instructions counters of model, the first preloaded to overflow
 * halfway through ITERS iterations: the second's count in *other, the
 * first's in *first. */
static void overflow_mid(const char *model, enum sim_fault f, uint64_t *first, uint64_t *other)
{
	struct pmu *p = drv_up(model, f);
	unsigned a = insn_ctr(p, 0), b = insn_ctr(p, 1);
	uint64_t both = 1ull << a | 1ull << b;

	drv_program(p, a, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	drv_program(p, b, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(pmu_preload(p, a, loop_insn(ITERS) / 2), 0);
	assert_int_equal(p->ops->start(p, both), 0);
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(p->ops->stop(p, both), 0);
	*first = drv_read(p, a);
	*other = drv_read(p, b);
}

static void overflow_freezes_the_others(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "pentium3", "pentium4",
					     "knc",	"opteron",  "zen4"};
	uint64_t all = loop_insn(ITERS), a, b, fa, fb;

	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		overflow_mid(models[k], SF_NONE, &a, &b);
		assert_int_equal(b, all);
		overflow_mid(models[k], SF_OVERFLOW_FREEZES, &fa, &fb);
		assert_int_equal(fa, a); /* the one that overflowed runs on */
		assert_true(fb < all);	 /* the other stopped at the wrap */
		assert_true(fb >= all / 2 - wl_loop.per_iter.instructions);
	}
}

/* Frozen until software writes a PMU register: the stop() that ended the
 * window did, and the next window counts. */
static void freeze_ends_at_a_write(void **st)
{
	(void)st;
	uint64_t a, b;
	overflow_mid("skylake", SF_OVERFLOW_FREEZES, &a, &b);
	struct pmu *p = &drv_p;
	assert_int_equal(p->ops->start(p, 2), 0);
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(p->ops->stop(p, 2), 0);
	assert_int_equal(drv_read(p, 1), b + loop_insn(ITERS));
}

static void fast_rdpmc(void **st)
{
	(void)st;
	uint64_t v = 0;
	const uint64_t held = 0x5a87654321ull;

	drv_up("pentium4", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_P4_COUNTER0, held), HW_OK);
	assert_int_equal(hw_rdpmc(FAST, &v), HW_OK);
	assert_int_equal(v, held & 0xffffffffull); /* bits 31:0, EDX 0 */
	assert_int_equal(hw_rdpmc(0, &v), HW_OK);
	assert_int_equal(v, held);
	drv_up("pentium4", SF_FAST_RDPMC_FULL);
	assert_int_equal(hw_wrmsr(MSR_P4_COUNTER0, held), HW_OK);
	assert_int_equal(hw_rdpmc(FAST, &v), HW_OK);
	assert_int_equal(v, held);
	/* reserved on arch perfmon (SDM Vol. 2B RDPMC), an index only on AMD */
	static const char *const none[] = {"skylake", "core2",	  "zen4",
					   "opteron", "pentium3", "knc"};
	for (unsigned k = 0; k < sizeof(none) / sizeof(none[0]); k++) {
		drv_up(none[k], SF_NONE);
		assert_int_equal(hw_rdpmc(FAST, &v), HW_FAULT_GP);
	}
}

static void full_width_alias_refuses_high_bits(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "skylake-kvm", "arrowlake"};
	const uint64_t high = 1ull << 48 | 5;

	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		drv_up(models[k], SF_NONE);
		assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, 7), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, high), HW_FAULT_GP);
		assert_int_equal(drv_msr(MSR_P6_PERFCTR0), 7);		  /* unchanged */
		assert_int_equal(hw_wrmsr(MSR_P6_PERFCTR0, high), HW_OK); /* legacy: 32 bits */
		assert_int_equal(hw_wrmsr(MSR_FIXED_CTR0, ~0ull), HW_OK); /* fixed: masked */
		drv_up(models[k], SF_FULL_WIDTH_NO_GP);
		assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, high), HW_OK);
		assert_int_equal(drv_msr(MSR_P6_PERFCTR0), 5); /* bits above dropped */
	}
}

static const enum sim_fault mine[] = {SF_WRITE_RESETS, SF_OVERFLOW_FREEZES, SF_FAST_RDPMC_FULL,
				      SF_FULL_WIDTH_NO_GP};
#define N_MINE (sizeof(mine) / sizeof(mine[0]))

/* Every model has each fault or says why it cannot. */
static void every_model_has_or_says_why(void **st)
{
	(void)st;
	unsigned n;
	const struct sim_model *const *m = sim_models(&n);
	for (unsigned k = 0; k < n; k++)
		for (unsigned j = 0; j < N_MINE; j++)
			if (!(m[k]->faults & SIM_F(mine[j])) && !m[k]->fault_na[mine[j]])
				fail_msg("%s: %s neither listed nor explained", m[k]->name,
					 sim_fault_name(mine[j]));
}

/* The check that catches each fault and words its FAIL names (the fault
 * matrix's symptom, scripts/sim-matrix.py). */
static const char *catcher(enum sim_fault f, const char *const **words)
{
	static const char *const w_reset[] = {"written", 0}, *const w_freeze[] = {"overflowed", 0},
				 *const w_fast[] = {"ECX[31]", "low 32", 0},
				 *const w_gp[] = {"#GP", "width", 0};
	switch (f) {
	case SF_WRITE_RESETS:
		*words = w_reset;
		return "counter.write-running";
	case SF_OVERFLOW_FREEZES:
		*words = w_freeze;
		return "count.all-at-once";
	case SF_FAST_RDPMC_FULL:
		*words = w_fast;
		return "rdpmc.fast";
	default:
		*words = w_gp;
		return "counter.write-semantics";
	}
}

static bool names(const char *msg, const char *const *w)
{
	for (; *w; w++)
		if (strstr(msg, *w))
			return true;
	return false;
}

/* Fault f on every model of the matrix that has it, every realism effect:
 * its check FAILs naming the symptom; healthy, the check PASSes. */
static void caught(enum sim_fault f)
{
	const char *const *w;
	const char *id = catcher(f, &w);
	unsigned n, models = 0;
	const struct sim_model *const *m = sim_models(&n);

	for (unsigned k = 0; k < n; k++) {
		if (!(m[k]->faults & SIM_F(f)) || m[k]->pinned_by)
			continue;
		models++;
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			(void)up(m[k]->name, f, SIM_REALISM_ALL, seed);
			const struct result *r = run_check(id);
			if (r->v != V_FAIL || !names(r->msg, w))
				fail_msg("%s %s seed %llu: %s: %s", m[k]->name, sim_fault_name(f),
					 (unsigned long long)seed, id, r->msg);
			(void)up(m[k]->name, SF_NONE, SIM_REALISM_ALL, seed);
			r = run_check(id);
			if (r->v != V_PASS)
				fail_msg("%s healthy seed %llu: %s: %s", m[k]->name,
					 (unsigned long long)seed, id, r->msg);
		}
	}
	assert_true(models > 0);
}

static void write_resets_caught(void **st)
{
	(void)st;
	caught(SF_WRITE_RESETS);
}

static void overflow_freezes_caught(void **st)
{
	(void)st;
	caught(SF_OVERFLOW_FREEZES);
}

static void fast_rdpmc_full_caught(void **st)
{
	(void)st;
	caught(SF_FAST_RDPMC_FULL);
}

static void full_width_no_gp_caught(void **st)
{
	(void)st;
	caught(SF_FULL_WIDTH_NO_GP);
}

/* rdpmc.fast SKIPs, naming why, where the family documents no fast read. */
static void fast_skips_elsewhere(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "yonah",    "zen4",
					     "opteron", "pentium3", "knc"};
	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		(void)up(models[k], SF_NONE, SIM_REALISM_ALL, 1);
		const struct result *r = run_check("rdpmc.fast");
		assert_int_equal(r->v, V_SKIP);
		assert_non_null(strstr(r->msg, "documents no fast RDPMC"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(running_write_continues),
	    cmocka_unit_test(stopped_write_takes_value),
	    cmocka_unit_test(overflow_freezes_the_others),
	    cmocka_unit_test(freeze_ends_at_a_write),
	    cmocka_unit_test(fast_rdpmc),
	    cmocka_unit_test(full_width_alias_refuses_high_bits),
	    cmocka_unit_test(every_model_has_or_says_why),
	    cmocka_unit_test(write_resets_caught),
	    cmocka_unit_test(overflow_freezes_caught),
	    cmocka_unit_test(fast_rdpmc_full_caught),
	    cmocka_unit_test(full_width_no_gp_caught),
	    cmocka_unit_test(fast_skips_elsewhere),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
