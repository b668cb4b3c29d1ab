/* The intel-arch driver on perfmon v6 (simulated "arrowlake"): counters from
 * the CPUID leaf 23H bitmaps (SDM Vol. 2A CPUID leaf 23H; Linux
 * update_pmu_cap), holes included, and GP counters past the eighth at the v6
 * addresses 0x1900+4n (Linux msr-index.h MSR_IA32_PMC_V6_*). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
/* clang-format on */

#include "sim_drv.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/intel_arch.h"

static struct pmu *reattach(void)
{
	cpu_identify(&drv_ci);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.status, PMU_FUNCTIONAL);
	assert_int_equal(drv_p.ops->reset(&drv_p), 0);
	return &drv_p;
}

static void ten_counters_at_v6_addresses(void **st)
{
	(void)st;
	struct pmu *p = drv_up("arrowlake", SF_NONE);

	assert_true(cpu_perfmon_bitmaps(&drv_ci.ids));
	assert_int_equal(drv_ci.ids.leaf23[1].eax, 0x3ff); /* 0AH says 8 */
	assert_int_equal(p->n_gp, 10);
	assert_int_equal(p->n_fixed, 4);	   /* the fourth: TOPDOWN.SLOTS */
	assert_int_equal(p->ctr[7].ctr_msr, 0xc8); /* the eighth: legacy */
	assert_int_equal(p->ctr[7].ctl_msr, 0x18d);
	for (unsigned i = 8; i < 10; i++) {
		assert_int_equal(p->ctr[i].ctr_msr, 0x1900 + 4 * i);
		assert_int_equal(p->ctr[i].ctl_msr, 0x1901 + 4 * i);
		assert_int_equal(p->ctr[i].full_msr, p->ctr[i].ctr_msr);
		assert_int_equal(p->ctr[i].rdpmc, i);
		assert_int_equal(intel_arch_global_bits(p, 1ull << i), 1ull << i);
		drv_program(p, i, GEN_CYCLES, PMU_F_OS);
		drv_overflow_at(p, i, 1000); /* drives it through the v6 MSRs */
	}
	/* a full-width write on the legacy path too: 0x1900+4n does not
	 * sign-extend */
	assert_int_equal(p->ops->write(p, 9, 0x123456789aull, PMU_WRITE_LEGACY), 0);
	assert_int_equal(drv_msr(0x1924), 0x123456789aull);
	assert_int_equal(intel_arch_global_bits(p, 1ull << 10), 1ull << ARCH_GLOBAL_FIXED_BIT);
}

static void bitmap_with_holes(void **st)
{
	(void)st;
	assert_int_equal(sim_start("arrowlake", SF_NONE), 0);
	/* GP counter 2 and fixed counter 1 missing from the middle */
	sim_set_cpuid(&sim, CPUID_LEAF_PERFMON_EXT, 1, 0x3fb, 0x5, 0, 0);
	struct pmu *p = reattach();

	assert_int_equal(p->n_gp, 9);
	assert_int_equal(p->ctr[1].index, 1);
	assert_int_equal(p->ctr[2].index, 3);
	assert_int_equal(p->ctr[2].ctr_msr, 0xc4);
	assert_int_equal(p->ctr[2].rdpmc, 3);
	assert_int_equal(p->ctr[7].ctr_msr, 0x1920);
	assert_int_equal(p->n_fixed, 2);
	assert_int_equal(p->ctr[9].index, 0);
	assert_int_equal(p->ctr[10].index, 2);
	assert_int_equal(p->ctr[10].ctr_msr, MSR_FIXED_CTR0 + 2);
	/* GLOBAL_CTRL/STATUS bits are the hardware indices */
	assert_int_equal(intel_arch_global_bits(p, 1ull << 2), 1ull << 3);
	assert_int_equal(intel_arch_global_bits(p, 1ull << 10), 1ull << 34);
	drv_program(p, 2, GEN_CYCLES, PMU_F_OS);
	drv_overflow_at(p, 2, 500); /* status bit 3 comes back as counter 2 */
}

static void leaf23_only_where_enumerated(void **st)
{
	(void)st;
	drv_up("skylake", SF_NONE);
	assert_false(cpu_perfmon_bitmaps(&drv_ci.ids));
	assert_int_equal(drv_ci.ids.leaf23[1].eax, 0);

	/* CPUID.(7,1):EAX[8] clear: leaf 23H is not read, 0AH counts */
	assert_int_equal(sim_start("arrowlake", SF_NONE), 0);
	sim_set_cpuid(&sim, CPUID_LEAF_EXT_FEATURES, 1, 0, 0, 0, 0);
	struct pmu *p = reattach();
	assert_false(cpu_perfmon_bitmaps(&drv_ci.ids));
	assert_int_equal(p->n_gp, 8);
	assert_int_equal(p->n_fixed, 4);

	/* subleaf 0 without the counters subleaf bit: subleaf 1 not used */
	assert_int_equal(sim_start("arrowlake", SF_NONE), 0);
	sim_set_cpuid(&sim, CPUID_LEAF_PERFMON_EXT, 0, 0x1, 0, 0, 0);
	p = reattach();
	assert_false(cpu_perfmon_bitmaps(&drv_ci.ids));
	assert_int_equal(p->n_gp, 8);
}

/* A hybrid part as the CPU it runs on sees it: leaf 7 EDX[15], leaf 1AH
 * EAX[31:24], and 0AH with what both core types share. */
static struct pmu *hybrid(uint32_t eax1, uint32_t core_type)
{
	struct cpuid_regs r;

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	hw_cpuid(0, 0, &r);
	sim_set_cpuid(&sim, 0, 0, 0x20, r.ebx, r.ecx, r.edx);
	hw_cpuid(1, 0, &r);
	sim_set_cpuid(&sim, 1, 0, eax1, r.ebx, r.ecx, r.edx);
	sim_set_cpuid(&sim, CPUID_LEAF_EXT_FEATURES, 0, 0, 0, 0, CPUID_7_EDX_HYBRID);
	sim_set_cpuid(&sim, CPUID_LEAF_HYBRID, 0, core_type << 24 | 1, 0, 0, 0);
	/* Alder Lake 0AH: v5, 6 GP x 48, EDX 3 fixed x 48 */
	sim_set_cpuid(&sim, CPUID_LEAF_PERFMON, 0, 0x07300605, 0, 0, 0x8603);
	cpu_identify(&drv_ci);
	pmu_attach(&drv_p, &drv_ci);
	return &drv_p;
}

static void hybrid_counters_per_core_type(void **st)
{
	(void)st;
	/* Alder Lake (0x97) and Raptor Lake (0xB7) P-cores: 8 GP + 4 fixed
	 * (Linux intel_pmu_init, cpu_core); the E-core 6 + 3 as 0AH says */
	struct pmu *p = hybrid(0x00090672, CPU_CORE_TYPE_CORE);
	assert_int_equal(drv_ci.ids.core_type, CPU_CORE_TYPE_CORE);
	assert_string_equal(cpu_core_type_name(drv_ci.ids.core_type), "core");
	assert_int_equal(p->n_gp, 8);
	assert_int_equal(p->n_fixed, 4);
	p = hybrid(0x000b0671, CPU_CORE_TYPE_CORE);
	assert_int_equal(p->n_gp, 8);
	assert_int_equal(p->n_fixed, 4);
	p = hybrid(0x00090672, CPU_CORE_TYPE_ATOM);
	assert_string_equal(cpu_core_type_name(drv_ci.ids.core_type), "atom");
	assert_int_equal(p->n_gp, 6);
	assert_int_equal(p->n_fixed, 3);
	/* a P-core of a model Linux does not list: 0AH as it is */
	p = hybrid(0x000806c1, CPU_CORE_TYPE_CORE);
	assert_int_equal(p->n_gp, 6);
	/* not hybrid (leaf 7 EDX[15] clear): no core type */
	drv_up("skylake", SF_NONE);
	assert_int_equal(drv_ci.ids.core_type, 0);
	assert_string_equal(cpu_core_type_name(0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ten_counters_at_v6_addresses),
	    cmocka_unit_test(bitmap_with_holes),
	    cmocka_unit_test(leaf23_only_where_enumerated),
	    cmocka_unit_test(hybrid_counters_per_core_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
