/* knc.spflt and the simulated PERF_SPFLT_CONTROL behind it (KNC PMU guide
 * #327357 §1.4.3.4, table 1-7): a counter whose bit is set counts only
 * while USER_PREF (bit 63) is 1, the other counter as before;
 * spflt-ignored lets it count whatever USER_PREF holds. The check passes
 * on the healthy knc, fails under the fault, restores the register, and
 * skips on every other family with the reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"

#define SEEDS 10
#define ID    "knc.spflt"

/* gp0 and gp1 on instructions, PERF_SPFLT_CONTROL = spflt, 100 iterations
 * of wl_loop: what each counted. */
static void counts(enum sim_fault f, uint64_t spflt, uint64_t out[2])
{
	struct pmu *p = drv_up("knc", f);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS);
	drv_program(p, 1, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(hw_wrmsr(MSR_KNC_SPFLT_CTRL, spflt), HW_OK);
	assert_int_equal(p->ops->start(p, 3), HW_OK);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(p->ops->stop(p, 3), HW_OK);
	out[0] = drv_read(p, 0);
	out[1] = drv_read(p, 1);
}

/* USER_PREF gates the counters under it and no other: what a no-op gate
 * would not give. */
static void user_pref_gates(void **st)
{
	(void)st;
	uint64_t ref[2], v[2];
	counts(SF_NONE, 0, ref);
	assert_true(ref[0] > 0 && ref[0] == ref[1]);
	for (unsigned i = 0; i < 2; i++) {
		counts(SF_NONE, 1ull << i, v); /* USER_PREF 0 */
		assert_int_equal(v[i], 0);
		assert_int_equal(v[1 - i], ref[1 - i]);
		counts(SF_NONE, KNC_SPFLT_USER_PREF | 1ull << i, v);
		assert_int_equal(v[i], ref[i]);
		assert_int_equal(v[1 - i], ref[1 - i]);
	}
	counts(SF_NONE, KNC_SPFLT_USER_PREF, v); /* no counter under it */
	assert_int_equal(v[0], ref[0]);
	counts(SF_NONE, 3, v);
	assert_int_equal(v[0] + v[1], 0);
}

/* The register: bits 63 and 1:0 hold, the reserved ones read 0; reset 0. */
static void register_bits(void **st)
{
	(void)st;
	uint64_t v = 0xdead;
	drv_up("knc", SF_NONE);
	assert_int_equal(hw_rdmsr(MSR_KNC_SPFLT_CTRL, &v), HW_OK);
	assert_int_equal(v, 0);
	assert_int_equal(hw_wrmsr(MSR_KNC_SPFLT_CTRL, ~0ull), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_KNC_SPFLT_CTRL, &v), HW_OK);
	assert_int_equal(v, KNC_SPFLT_USER_PREF | 3);
	assert_int_equal(drv_p.spflt_msr, MSR_KNC_SPFLT_CTRL);
}

/* spflt-ignored: the register holds its bits, but a counter under it
 * counts with USER_PREF 0. */
static void ignored_counts(void **st)
{
	(void)st;
	uint64_t ref[2], v[2];
	counts(SF_NONE, 0, ref);
	counts(SF_SPFLT_IGNORED, 1, v);
	assert_int_equal(v[0], ref[0]);
	assert_int_equal(drv_msr(MSR_KNC_SPFLT_CTRL), 1);
}

/* Healthy on every seed with every effect; the register put back as found. */
static void check_passes_and_restores(void **st)
{
	(void)st;
	const uint64_t found = KNC_SPFLT_USER_PREF | 2;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		up("knc", SF_NONE, SIM_REALISM_ALL, seed);
		assert_int_equal(hw_wrmsr(MSR_KNC_SPFLT_CTRL, found), HW_OK);
		const struct result *r = run_check(ID);
		if (r->v != V_PASS)
			fail_msg("seed %llu: %s", (unsigned long long)seed, r->msg);
		assert_non_null(strstr(r->msg, "not executed"));
		assert_int_equal(drv_msr(MSR_KNC_SPFLT_CTRL), found);
	}
}

static void check_fails_ignored(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		up("knc", SF_SPFLT_IGNORED, SIM_REALISM_ALL, seed);
		const struct result *r = run_check(ID);
		assert_int_equal(r->v, V_FAIL);
		assert_non_null(strstr(r->msg, "USER_PREF"));
		assert_int_equal(drv_msr(MSR_KNC_SPFLT_CTRL), 0);
	}
}

static void check_skips_elsewhere(void **st)
{
	(void)st;
	static const char *const other[] = {"skylake", "zen4", "opteron", "pentium3", "pentium4"};
	for (unsigned k = 0; k < sizeof(other) / sizeof(other[0]); k++) {
		up(other[k], SF_NONE, 0, 1);
		const struct result *r = run_check(ID);
		assert_int_equal(r->v, V_SKIP);
		assert_non_null(strstr(r->msg, "no PERF_SPFLT_CONTROL"));
	}
}

/* Every model has the fault, or says why not. */
static void fault_applicability(void **st)
{
	(void)st;
	unsigned n;
	const struct sim_model *const *m = sim_models(&n);
	for (unsigned k = 0; k < n; k++)
		assert_true((m[k]->faults & SIM_F(SF_SPFLT_IGNORED)) ||
			    m[k]->fault_na[SF_SPFLT_IGNORED]);
	assert_true(sim_model_find("knc")->faults & SIM_F(SF_SPFLT_IGNORED));
	assert_int_equal(sim_start("zen4", SF_SPFLT_IGNORED), -1);
	assert_int_equal(sim_start("skylake-kvm", SF_SPFLT_IGNORED), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(user_pref_gates),	   cmocka_unit_test(register_bits),
	    cmocka_unit_test(ignored_counts),	   cmocka_unit_test(check_passes_and_restores),
	    cmocka_unit_test(check_fails_ignored), cmocka_unit_test(check_skips_elsewhere),
	    cmocka_unit_test(fault_applicability),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
