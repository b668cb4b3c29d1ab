/* guard.gp on simulated CPUs: PASS only when the reserved-bit write to
 * IA32_PKRS really faulted and changed nothing; FAIL when the #GP is lost
 * (the write lands); SKIP, never PASS, where CPUID does not enumerate PKS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define PKS_VALUE 0x55555554u /* access/write-disable bits of keys 1-15 */

/* skylake with CPUID.(7,0):ECX[31] set, as a PKS part enumerates it. */
static void up_pks(void)
{
	struct cpuid_regs r;
	(void)up("skylake", SF_NONE, 0, 1);
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	sim_set_cpuid(&sim, CPUID_LEAF_EXT_FEATURES, 0, r.eax, r.ebx, r.ecx | CPUID_7_ECX_PKS,
		      r.edx);
	assert_int_equal(hw_wrmsr(MSR_IA32_PKRS, PKS_VALUE), HW_OK);
}

/* guard.gp's result with the #GP kept or lost; IA32_PKRS must hold its
 * value afterwards either way (a write that landed is put back). */
static const struct result *guard_run(bool gp_lost)
{
	uint64_t v = 0;
	up_pks();
	sim.pkrs_gp_lost = gp_lost;
	const struct result *r = run_check("guard.gp");
	assert_int_equal(hw_rdmsr(MSR_IA32_PKRS, &v), HW_OK);
	assert_int_equal(v, PKS_VALUE);
	return r;
}

static void pass_when_the_write_faults(void **state)
{
	(void)state;
	const struct result *r = guard_run(false);
	assert_int_equal(r->v, V_PASS);
	assert_non_null(strstr(r->msg, "raised #GP (vector 13)"));
	assert_non_null(strstr(r->msg, "0x55555554"));
}

static void fail_when_the_gp_is_lost(void **state)
{
	(void)state;
	const struct result *r = guard_run(true);
	assert_int_equal(r->v, V_FAIL);
	assert_non_null(strstr(r->msg, "expected #GP from WRMSR IA32_PKRS"));
	assert_non_null(strstr(r->msg, "got ok"));
}

static void skip_without_pks(void **state)
{
	(void)state;
	(void)up("skylake", SF_NONE, 0, 1);
	const struct result *r = run_check("guard.gp");
	assert_int_equal(r->v, V_SKIP);
	assert_non_null(strstr(r->msg, "PKS"));
	/* no PKS: the register does not exist, as on such a part */
	uint64_t v;
	assert_int_equal(hw_rdmsr(MSR_IA32_PKRS, &v), HW_FAULT_GP);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(pass_when_the_write_faults),
	    cmocka_unit_test(fail_when_the_gp_is_lost),
	    cmocka_unit_test(skip_without_pks),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
