/* msr.access's read-write bits of the architectural event selects, per
 * core: pin control (EVNTSEL bit 19) only before Sandy Bridge (SDM Vol. 3B
 * §20.2.1.1), AnyThread (bit 21 and the fixed counters' bit 2) from v3
 * until CPUID.0AH:EDX[15] deprecates it (§20.2.5). The simulated cores keep
 * those bits reserved where the documents say so, and KVM keeps the guest's
 * pin control bit as written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"
#include "sim_suite.h"
#include "../../pmu/intel_arch.h"
#include "../../pmu/msr.h"

/* The harness's read-write mask of the MSR at addr on model. */
static uint64_t rw_of(const char *model, uint32_t addr)
{
	struct pmu_msr_desc d[64];
	(void)up(model, SF_NONE, 0, 1);
	size_t n = intel_arch_msrs(&drv_p, d, 64);
	for (size_t i = 0; i < n; i++)
		if (d[i].addr == addr)
			return d[i].rw_mask;
	fail_msg("%s has no MSR 0x%x", model, addr);
	return 0;
}

static void pin_control_before_sandy_bridge_only(void **st)
{
	(void)st;
	assert_false(rw_of("skylake", MSR_P6_EVNTSEL0) & EVTSEL_PC);
	assert_false(rw_of("arrowlake", MSR_P6_EVNTSEL0) & EVTSEL_PC);
	assert_true(rw_of("core2", MSR_P6_EVNTSEL0) & EVTSEL_PC);
	assert_true(rw_of("yonah", MSR_P6_EVNTSEL0) & EVTSEL_PC);
	struct cpu_info nhm = {.family = 6, .model = 0x1a}, snb = {.family = 6, .model = 0x2a};
	assert_true(intel_arch_pin_control(&nhm, 3));
	assert_false(intel_arch_pin_control(&snb, 3));
}

static void any_thread_v3_until_deprecated(void **st)
{
	(void)st;
	assert_true(rw_of("skylake", MSR_P6_EVNTSEL0) & EVTSEL_ANY);
	assert_true(rw_of("skylake", MSR_FIXED_CTR_CTRL) & (FIX_ANY << FIX_SHIFT(1)));
	assert_false(rw_of("core2", MSR_P6_EVNTSEL0) & EVTSEL_ANY);
	/* v6 sets CPUID.0AH:EDX[15] */
	assert_false(rw_of("arrowlake", MSR_P6_EVNTSEL0) & EVTSEL_ANY);
	assert_false(rw_of("arrowlake", MSR_FIXED_CTR_CTRL) & (FIX_ANY << FIX_SHIFT(1)));
}

static void simulated_cores_keep_them_reserved(void **st)
{
	(void)st;
	uint64_t v = 0;
	(void)up("skylake", SF_NONE, 0, 1);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, EVTSEL_PC | EVTSEL_ANY), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_P6_EVNTSEL0 + 1, &v), HW_OK);
	assert_int_equal(v, EVTSEL_ANY);
	(void)up("skylake-kvm", SF_NONE, 0, 1);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, EVTSEL_PC), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_P6_EVNTSEL0 + 1, &v), HW_OK);
	assert_int_equal(v, EVTSEL_PC);
	/* msr.access passes on each and catches a dropped bit on each */
	const char *models[] = {"skylake", "arrowlake", "core2", "yonah", "skylake-kvm"};
	for (unsigned k = 0; k < 5; k++) {
		(void)up(models[k], SF_NONE, SIM_REALISM_ALL, 1);
		assert_int_equal(run_check("msr.access")->v, V_PASS);
		(void)up(models[k], SF_WRITE_DROPPED, SIM_REALISM_ALL, 1);
		assert_int_equal(run_check("msr.access")->v, V_FAIL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pin_control_before_sandy_bridge_only),
	    cmocka_unit_test(any_thread_v3_until_deprecated),
	    cmocka_unit_test(simulated_cores_keep_them_reserved),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
