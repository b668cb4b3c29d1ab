/* freeze.pmi on simulated CPUs. First the freeze itself in the models
 * (model_arch_freeze.c): with DEBUGCTL.FREEZE_PERFMON_ON_PMI set an
 * overflow that requests a PMI stops every counter, by clearing
 * GLOBAL_CTRL on perfmon v2 (core2) and by GLOBAL_STATUS.CTR_FRZ from v4
 * (skylake), held until 390H bit 59 clears it; each test fails where the
 * freeze is a no-op. Then the check: PASS on every model with the freeze
 * under every realism effect, FAIL under freeze-ignored on each of them,
 * SKIP with the reason elsewhere. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"

#define SEEDS  5
#define PERIOD 100  /* gp0's overflow: 100 instructions in */
#define ITERS  1000 /* wl_loop iterations: 3000 instructions */

static const char *const with_freeze[] = {"core2", "skylake", "alderlake", "arrowlake"};

/* gp0 on instructions with INT, to overflow after PERIOD, gp1 on
 * instructions without, from 0; DEBUGCTL = dbg; both started. */
static struct pmu *two(const char *model, enum sim_fault f, uint64_t dbg)
{
	struct pmu *p = drv_up(model, f);

	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, dbg), HW_OK);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_INT);
	drv_program(p, 1, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(pmu_preload(p, 0, PERIOD), HW_OK);
	assert_int_equal(p->ops->write(p, 1, 0, PMU_WRITE_PRELOAD), HW_OK);
	assert_int_equal(p->ops->start(p, 3), HW_OK);
	return p;
}

/* gp1 after ITERS more iterations equals b: frozen. */
static void stays(struct pmu *p, uint64_t b)
{
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(drv_read(p, 1), b);
}

static void legacy_freeze_clears_global_ctrl(void **st)
{
	(void)st;
	struct pmu *p = two("core2", SF_NONE, DEBUGCTL_FREEZE_PERFMON_ON_PMI);

	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 3);
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 0); /* cleared at the PMI request */
	uint64_t b = drv_read(p, 1);
	assert_true(b >= PERIOD && b < PERIOD + 10); /* stopped with gp0's wrap */
	stays(p, b);
	/* v2 has no CTR_FRZ: the status holds gp0's overflow only */
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 1);
}

static void streamlined_freeze_holds_until_cleared(void **st)
{
	(void)st;
	struct pmu *p = two("skylake", SF_NONE, DEBUGCTL_FREEZE_PERFMON_ON_PMI);

	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), GLOBAL_STATUS_CTR_FRZ | 1);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 3); /* kept (SDM 20.2.4.1) */
	uint64_t b = drv_read(p, 1);
	assert_true(b >= PERIOD && b < PERIOD + 10);
	stays(p, b);
	/* GLOBAL_STATUS_RESET bit 59 clears it: counting goes on */
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_CTR_FRZ), HW_OK);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 1);
	hw_run_workload(&wl_loop, ITERS);
	b = drv_read(p, 1);
	assert_true(b >= PERIOD + 3 * ITERS);
	/* STATUS_SET bit 59 sets it, and it freezes */
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_STATUS_SET, GLOBAL_STATUS_CTR_FRZ), HW_OK);
	stays(p, b);
}

/* Without the bit, or with it under freeze-ignored, nothing freezes. */
static void no_freeze(void **st)
{
	(void)st;
	for (unsigned k = 0; k < 2; k++) {
		struct pmu *p =
		    k ? two("skylake", SF_FREEZE_IGNORED, DEBUGCTL_FREEZE_PERFMON_ON_PMI)
		      : two("skylake", SF_NONE, 0);
		hw_run_workload(&wl_loop, ITERS);
		assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 1);
		assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 3);
		assert_true(drv_read(p, 1) >= 3 * ITERS);
	}
	struct pmu *p = two("core2", SF_FREEZE_IGNORED, DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	hw_run_workload(&wl_loop, ITERS);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 3);
	assert_true(drv_read(p, 1) >= 3 * ITERS);
}

/* DEBUGCTL: bit 12 from v2, bit 14 where PERF_CAPABILITIES[12] says so, a
 * reserved bit #GP (SDM Vol. 4 Table 2-2). */
static void debugctl_bits(void **st)
{
	(void)st;
	uint64_t both = DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_WHILE_SMM;

	drv_up("skylake", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, both), HW_OK);
	assert_int_equal(drv_msr(MSR_DEBUGCTL), both);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, 1ull << 2), HW_FAULT_GP);
	assert_int_equal(drv_msr(MSR_DEBUGCTL), both);
	drv_up("core2", SF_NONE); /* no PDCM: no FREEZE_WHILE_SMM */
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, both), HW_FAULT_GP);
	drv_up("yonah", SF_NONE); /* v1 */
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, DEBUGCTL_FREEZE_PERFMON_ON_PMI), HW_FAULT_GP);
	assert_int_equal(drv_msr(MSR_DEBUGCTL), 0);
}

/* The driver's data says which freeze a PMU has. */
static void driver_caps(void **st)
{
	(void)st;
	const uint32_t both = PMU_CAP_FREEZE_PMI | PMU_CAP_FREEZE_CTR_FRZ;

	assert_int_equal(drv_up("core2", SF_NONE)->caps & both, PMU_CAP_FREEZE_PMI);
	assert_int_equal(drv_up("skylake", SF_NONE)->caps & both, both);
	assert_int_equal(drv_up("arrowlake", SF_NONE)->caps & both, both);
	assert_int_equal(drv_up("yonah", SF_NONE)->caps & both, 0);
	assert_int_equal(drv_up("zen4", SF_NONE)->caps & both, 0);
}

static void check_passes(void **st)
{
	(void)st;
	for (unsigned m = 0; m < sizeof(with_freeze) / sizeof(with_freeze[0]); m++)
		for (uint64_t seed = 0; seed <= SEEDS; seed++) {
			up(with_freeze[m], SF_NONE, seed ? SIM_REALISM_ALL : 0, seed);
			const struct result *r = run_check("freeze.pmi");
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s", with_freeze[m],
					 (unsigned long long)seed, r->msg);
			assert_non_null(strstr(r->msg, "frozen at the PMI"));
		}
}

static void check_catches_freeze_ignored(void **st)
{
	(void)st;
	for (unsigned m = 0; m < sizeof(with_freeze) / sizeof(with_freeze[0]); m++)
		for (uint64_t seed = 0; seed <= SEEDS; seed++) {
			up(with_freeze[m], SF_FREEZE_IGNORED, seed ? SIM_REALISM_ALL : 0, seed);
			const struct result *r = run_check("freeze.pmi");
			if (r->v != V_FAIL || !strstr(r->msg, "frozen"))
				fail_msg("%s seed %llu: %s", with_freeze[m],
					 (unsigned long long)seed, r->msg);
		}
}

/* Families without the freeze SKIP naming it; KVM's #GP is its policy. */
static void check_skips(void **st)
{
	(void)st;
	static const char *const without[] = {"yonah", "pentium3", "pentium4",
					      "knc",   "zen4",	   "opteron"};
	for (unsigned m = 0; m < sizeof(without) / sizeof(without[0]); m++) {
		up(without[m], SF_NONE, SIM_REALISM_ALL, 1);
		const struct result *r = run_check("freeze.pmi");
		if (r->v != V_SKIP || !strstr(r->msg, "FREEZE_PERFMON_ON_PMI"))
			fail_msg("%s: %s", without[m], r->msg);
	}
	up("skylake-kvm", SF_NONE, SIM_REALISM_ALL, 1);
	const struct result *r = run_check("freeze.pmi");
	if (r->v != V_SKIP || !strstr(r->msg, "refuses") || !strstr(r->msg, "KVM"))
		fail_msg("skylake-kvm: %s", r->msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(legacy_freeze_clears_global_ctrl),
	    cmocka_unit_test(streamlined_freeze_holds_until_cleared),
	    cmocka_unit_test(no_freeze),
	    cmocka_unit_test(debugctl_bits),
	    cmocka_unit_test(driver_caps),
	    cmocka_unit_test(check_passes),
	    cmocka_unit_test(check_catches_freeze_ignored),
	    cmocka_unit_test(check_skips),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
