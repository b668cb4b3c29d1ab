/* guard.gp: the fault guard every probe relies on (pmu/hw.h: a #GP comes
 * back as HW_FAULT_GP and the run goes on) proven with a write that must
 * fault, not assumed: an MSR probe that reads 0 could as well mean "no
 * fault was ever taken" (QEMU TCG answers unknown MSRs that way). The one
 * write with a documented #GP on every CPU that has the register: bit 32 of
 * IA32_PKRS, reserved (SDM Vol. 3A 4.6.2, Vol. 4 Table 2-2). The faulting
 * write must change nothing: the register reads what it held before. */
#include "../suite.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/hw.h"
#include "../../pmu/msr.h"

#define RESERVED_BIT 32 /* the lowest of PKRS_RESERVED_MASK */

static bool has_pks(const struct cpu_info *cpu)
{
	struct cpuid_regs r;
	if (cpu->ids.max_leaf < CPUID_LEAF_EXT_FEATURES)
		return false;
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	return (r.ecx & CPUID_7_ECX_PKS) != 0;
}

static void run(struct check_ctx *c)
{
	uint64_t before = 0, after = 0, bad;
	int st;

	if (!has_pks(c->cpu)) {
		check_skip(c, "no register with a documented reserved-bit #GP: IA32_PKRS needs "
			      "CPUID.(7,0):ECX[31] (PKS), clear here; the guard's #GP path was "
			      "not exercised");
		return;
	}
	st = hw_rdmsr(MSR_IA32_PKRS, &before);
	if (st != HW_OK) {
		check_fail(c, "expected IA32_PKRS (MSR 0x%x) readable with PKS enumerated, got %s",
			   MSR_IA32_PKRS, hw_err_name(st));
		return;
	}
	bad = (before & ~PKRS_RESERVED_MASK) | 1ull << RESERVED_BIT;
	st = hw_wrmsr(MSR_IA32_PKRS, bad);
	if (st == HW_OK)
		(void)hw_wrmsr(MSR_IA32_PKRS, before); /* put it back */
	int rd = hw_rdmsr(MSR_IA32_PKRS, &after);
	if (st != HW_FAULT_GP) {
		check_fail(c,
			   "expected #GP from WRMSR IA32_PKRS (MSR 0x%x) = 0x%llx (reserved bit "
			   "%u set; SDM Vol. 3A 4.6.2), got %s",
			   MSR_IA32_PKRS, (unsigned long long)bad, RESERVED_BIT, hw_err_name(st));
	} else if (rd != HW_OK || after != before) {
		check_fail(c,
			   "expected IA32_PKRS unchanged at 0x%llx after the faulting write, read "
			   "0x%llx (%s)",
			   (unsigned long long)before, (unsigned long long)after, hw_err_name(rd));
	} else {
		check_pass(c,
			   "WRMSR IA32_PKRS (MSR 0x%x) = 0x%llx raised #GP (vector %d), caught; "
			   "the register still holds 0x%llx",
			   MSR_IA32_PKRS, (unsigned long long)bad, HW_FAULT_GP,
			   (unsigned long long)before);
	}
}

PMH_CHECK(guard_gp, .id = "guard.gp",
	  .summary = "a WRMSR with a documented #GP faults, is caught and changes nothing",
	  .order = 24, .run = run);
