/* amd.legacy-alias and the simulated alias behind it: on the core
 * extension's models (bulldozer, zen4 and the KVM guest on zen4) the legacy
 * PerfEvtSel0-3 / PerfCtr0-3 (C001_0000h-7h) are PERF_CTL0-3 / PERF_CTR0-3
 * (C001_0200h+2i / C001_0201h+2i) under a second address (AMD APM Vol. 2
 * §13.2); alias-broken makes them registers of their own. The check passes
 * on every healthy model with the alias, fails under the fault, and skips
 * everywhere else with the reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"

#define SEEDS 5
#define ID    "amd.legacy-alias"

static const char *const with_alias[] = {"bulldozer", "zen4", "zen4-kvm"};
#define N_ALIAS (sizeof(with_alias) / sizeof(with_alias[0]))

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0xdead;
	assert_int_equal(hw_rdmsr(msr, &v), HW_OK);
	return v;
}

/* The same value through both addresses, both ways, for a select and a
 * counter: what a no-op alias (or none) would not give. */
static void one_register(const char *model)
{
	assert_int_equal(sim_start(model, SF_NONE), 0);
	for (unsigned i = 0; i < 4; i++) {
		uint64_t sel = 0xc0 | EVTSEL_OS | (uint64_t)(i + 1) << 24, ctr = 0x1234500 + i;
		assert_int_equal(hw_wrmsr(MSR_F15H_PERF_CTL0 + 2 * i, sel), HW_OK);
		assert_int_equal(rd(MSR_K7_EVNTSEL0 + i), sel);
		assert_int_equal(hw_wrmsr(MSR_K7_PERFCTR0 + i, ctr), HW_OK);
		assert_int_equal(rd(MSR_F15H_PERF_CTR0 + 2 * i), ctr);
		assert_int_equal(hw_wrmsr(MSR_K7_EVNTSEL0 + i, 0), HW_OK);
		assert_int_equal(rd(MSR_F15H_PERF_CTL0 + 2 * i), 0);
	}
}

static void alias_is_one_register(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_ALIAS; k++)
		one_register(with_alias[k]);
}

/* Counter 2 counts through the core view (the driver); the legacy PerfCtr2
 * shows the same count. */
static void legacy_view_moves(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_ALIAS; k++) {
		struct pmu *p = drv_up(with_alias[k], SF_NONE);
		drv_program(p, 2, GEN_INSTRUCTIONS, PMU_F_OS);
		assert_int_equal(p->ops->start(p, 4), HW_OK);
		hw_run_workload(&wl_loop, 100);
		assert_int_equal(p->ops->stop(p, 4), HW_OK);
		assert_true(drv_read(p, 2) > 0);
		assert_int_equal(rd(MSR_K7_PERFCTR0 + 2), drv_read(p, 2));
	}
}

/* alias-broken: each view keeps what was written to it. */
static void broken_alias_splits(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_ALIAS; k++) {
		assert_int_equal(sim_start(with_alias[k], SF_ALIAS_BROKEN), 0);
		assert_int_equal(hw_wrmsr(MSR_F15H_PERF_CTL0 + 2, 0xc2), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_K7_EVNTSEL0 + 1, 0xc0), HW_OK);
		assert_int_equal(rd(MSR_F15H_PERF_CTL0 + 2), 0xc2);
		assert_int_equal(rd(MSR_K7_EVNTSEL0 + 1), 0xc0);
		assert_int_equal(hw_wrmsr(MSR_F15H_PERF_CTR0 + 6, 77), HW_OK);
		assert_int_equal(rd(MSR_K7_PERFCTR0 + 3), 0);
	}
}

/* The driver's fact: the view exists on the core extension only. */
static void driver_says_which(void **st)
{
	(void)st;
	struct pmu *p = drv_up("zen4", SF_NONE);
	assert_int_equal(p->n_legacy, 4);
	assert_int_equal(p->legacy_ctl_msr, MSR_K7_EVNTSEL0);
	assert_int_equal(p->legacy_ctr_msr, MSR_K7_PERFCTR0);
	assert_int_equal(drv_up("opteron", SF_NONE)->n_legacy, 0);
	assert_int_equal(drv_up("skylake", SF_NONE)->n_legacy, 0);
}

static void check_passes_healthy(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_ALIAS; k++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			up(with_alias[k], SF_NONE, SIM_REALISM_ALL, seed);
			const struct result *r = run_check(ID);
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s", with_alias[k],
					 (unsigned long long)seed, r->msg);
		}
}

static void check_fails_broken(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_ALIAS; k++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			up(with_alias[k], SF_ALIAS_BROKEN, SIM_REALISM_ALL, seed);
			const struct result *r = run_check(ID);
			assert_int_equal(r->v, V_FAIL);
			assert_non_null(strstr(r->msg, "legacy"));
		}
}

static void check_skips_elsewhere(void **st)
{
	(void)st;
	static const char *const amd[] = {"athlon", "opteron", "zen4-kvm-pmuoff"};
	static const char *const other[] = {"skylake", "pentium3", "pentium4", "knc"};
	for (unsigned k = 0; k < 3; k++) {
		up(amd[k], SF_NONE, 0, 1);
		const struct result *r = run_check(ID);
		assert_int_equal(r->v, V_SKIP);
		assert_non_null(strstr(r->msg, "ECX[23]"));
	}
	for (unsigned k = 0; k < 4; k++) {
		up(other[k], SF_NONE, 0, 1);
		const struct result *r = run_check(ID);
		assert_int_equal(r->v, V_SKIP);
		assert_non_null(strstr(r->msg, "not an AMD PMU"));
	}
}

/* Every model has the fault, or says why not. */
static void fault_applicability(void **st)
{
	(void)st;
	unsigned n;
	const struct sim_model *const *m = sim_models(&n);
	for (unsigned k = 0; k < n; k++)
		assert_true((m[k]->faults & SIM_F(SF_ALIAS_BROKEN)) ||
			    m[k]->fault_na[SF_ALIAS_BROKEN]);
	for (unsigned k = 0; k < N_ALIAS; k++)
		assert_true(sim_model_find(with_alias[k])->faults & SIM_F(SF_ALIAS_BROKEN));
	assert_int_equal(sim_start("opteron", SF_ALIAS_BROKEN), -1);
	assert_int_equal(sim_start("skylake", SF_ALIAS_BROKEN), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(alias_is_one_register), cmocka_unit_test(legacy_view_moves),
	    cmocka_unit_test(broken_alias_splits),   cmocka_unit_test(driver_says_which),
	    cmocka_unit_test(check_passes_healthy),  cmocka_unit_test(check_fails_broken),
	    cmocka_unit_test(check_skips_elsewhere), cmocka_unit_test(fault_applicability),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
