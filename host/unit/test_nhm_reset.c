/* Nehalem and Westmere (errata AAK100, AAP53, BD53; Linux
 * intel_pmu_nhm_workaround): programming a general-purpose counter first
 * runs the three magic events on the four PMCs with GLOBAL_CTRL set and
 * cleared, then puts back every select, value and GLOBAL_CTRL; other cores
 * program without it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/intel_arch.h"
#include "../../pmu/msr.h"

/* skylake's PMU with the signature of a Nehalem (family 6 model 1AH). */
static struct pmu *nehalem(void)
{
	struct cpuid_regs r;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	hw_cpuid(1, 0, &r);
	sim_set_cpuid(&sim, 1, 0, (r.eax & ~0xf00f0u) | 0xa0u | 0x10000u, r.ebx, r.ecx, r.edx);
	cpu_identify(&drv_ci);
	assert_int_equal(drv_ci.model, 0x1a);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.ops->reset(&drv_p), HW_OK);
	return &drv_p;
}

/* Programs counter 2 with ev while the simulated CPU refuses (#GP) a write
 * of the first magic event, 0x4300B5, to EVNTSEL0; the program's status
 * (sim.refuse.hits counts the refusals). */
static int program_magic_refused(struct pmu *p, const struct pmu_event *ev)
{
	sim.refuse.msr = MSR_P6_EVNTSEL0;
	sim.refuse.mask = 0xffffffffull;
	sim.refuse.val = 0x4300b5;
	hw_irq_disable(); /* refusals happen with interrupts off, as in a window */
	int st = p->ops->program(p, 2, ev, PMU_F_OS);
	hw_irq_enable();
	sim.refuse.msr = 0;
	return st;
}

static void reset_runs_and_restores(void **st)
{
	(void)st;
	struct pmu *p = nehalem();
	struct pmu_event ev = {.code = 0xc0};
	uint64_t v = 0;
	assert_int_equal(p->ops->program(p, 1, &ev, PMU_F_OS), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_P6_PERFCTR0 + 1, 0xfffffff0ull), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0x2), HW_OK);
	/* programming counter 2 resets the PMU: counter 1 keeps its select,
	 * value and enable */
	assert_int_equal(p->ops->program(p, 2, &ev, PMU_F_OS), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_P6_EVNTSEL0 + 1, &v), HW_OK);
	assert_int_equal(v & 0xffff, 0xc0);
	assert_int_equal(hw_rdmsr(MSR_P6_PERFCTR0 + 1, &v), HW_OK);
	assert_int_equal(v, 0xfffffffffff0ull);
	assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_CTRL, &v), HW_OK);
	assert_int_equal(v, 0x2);
	/* counters 0 and 3, unprogrammed, hold the magic events' leftovers
	 * cleared back: their selects as they were (0) */
	assert_int_equal(hw_rdmsr(MSR_P6_EVNTSEL0 + 3, &v), HW_OK);
	assert_int_equal(v, 0);
	assert_true(intel_arch_nhm_erratum(&drv_ci));
	/* the first magic event is written: a write of it refused shows it */
	assert_int_equal(program_magic_refused(p, &ev), HW_FAULT_GP);
	assert_int_equal(sim.refuse.hits, 1);
}

/* skylake itself programs without it */
static void not_on_skylake(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	struct pmu_event ev = {.code = 0xc0};
	assert_int_equal(program_magic_refused(p, &ev), HW_OK);
	assert_int_equal(sim.refuse.hits, 0);
}

static void not_on_later_cores(void **st)
{
	(void)st;
	struct cpu_info snb = {.family = 6, .model = 0x2a};
	struct cpu_info wsm = {.family = 6, .model = 0x2c};
	assert_false(intel_arch_nhm_erratum(&snb));
	assert_true(intel_arch_nhm_erratum(&wsm));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reset_runs_and_restores),
	    cmocka_unit_test(not_on_later_cores),
	    cmocka_unit_test(not_on_skylake),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
