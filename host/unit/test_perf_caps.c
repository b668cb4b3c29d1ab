/* pmu.capabilities on simulated CPUs. First the topdown counting in the
 * models that have it (model_arch_topdown.c): fixed counter 3 counts the
 * core's issue width a cycle, IA32_PERF_METRICS is filled only with
 * GLOBAL_CTRL.EN_PERF_METRICS, its fields come from what the workload did
 * and add up; each test fails where the counting is a no-op. Then the
 * check: PASS where PERF_CAPABILITIES is, SKIP where it is not, FAIL under
 * metrics-unscaled and where bit 13 and the 0x4C1 alias disagree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"
#include "../../pmu/intel_arch.h"

#define SEEDS 5
#define ITERS 10000

enum { RETIRING, BAD_SPEC, FE_BOUND, BE_BOUND, HEAVY, BR_MISP, FETCH_LAT, MEM_BOUND };

static unsigned field(uint64_t met, unsigned i)
{
	return (unsigned)(met >> (8 * i)) & 0xff;
}

static unsigned level1(uint64_t met)
{
	return field(met, 0) + field(met, 1) + field(met, 2) + field(met, 3);
}

static unsigned fixed_flat(const struct pmu *p, unsigned f)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->ctr[i].kind == PMU_CTR_FIXED && p->ctr[i].index == f)
			return i;
	fail_msg("%s: no fixed counter %u", p->name, f);
	return 0;
}

/* Fixed counters 3 (TOPDOWN.SLOTS) and 1 (cycles) over iters of w, with
 * EN_PERF_METRICS when metrics; slots, cycles and PERF_METRICS out. */
static void window(const char *model, const struct workload *w, bool metrics, uint64_t *slots,
		   uint64_t *cyc, uint64_t *met)
{
	struct pmu *p = drv_up(model, SF_NONE);
	unsigned f3 = fixed_flat(p, 3), f1 = fixed_flat(p, 1);
	struct pmu_event ev = {
	    .code = 0x00, .umask = 0x04, .counters = 1u << f3, .fixed_only = true};
	uint64_t mask = (1ull << f3) | (1ull << f1);

	assert_int_equal(p->ops->program(p, f3, &ev, PMU_F_OS), HW_OK);
	drv_program(p, f1, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(hw_wrmsr(MSR_PERF_METRICS, 0), HW_OK);
	assert_int_equal(p->ops->start(p, mask), HW_OK);
	if (metrics)
		assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, drv_msr(MSR_PERF_GLOBAL_CTRL) |
								    GLOBAL_CTRL_EN_PERF_METRICS),
				 HW_OK);
	hw_run_workload(w, ITERS);
	assert_int_equal(p->ops->stop(p, mask), HW_OK);
	*slots = drv_read(p, f3);
	*cyc = drv_read(p, f1);
	*met = drv_msr(MSR_PERF_METRICS);
}

/* TOPDOWN.SLOTS: 6 a cycle on Golden Cove, 8 on Lion Cove. */
static void slots_width_per_cycle(void **st)
{
	(void)st;
	static const struct {
		const char *model;
		uint64_t width;
	} w[] = {{"alderlake", 6}, {"arrowlake", 8}};
	uint64_t slots, cyc, met;

	for (unsigned k = 0; k < 2; k++) {
		window(w[k].model, &wl_loop, false, &slots, &cyc, &met);
		assert_true(cyc >= ITERS);
		assert_int_equal(slots, w[k].width * cyc);
		assert_int_equal(met, 0); /* EN_PERF_METRICS clear: no metrics */
	}
}

/* wl_loop: 3 micro-ops in a cycle of W slots, nothing mispredicted or
 * stalled: retiring 3/W, the rest frontend bound (issue slots left empty). */
static void metrics_add_up(void **st)
{
	(void)st;
	uint64_t slots, cyc, met;

	window("arrowlake", &wl_loop, true, &slots, &cyc, &met);
	assert_in_range(level1(met), 254, 256);
	assert_in_range(field(met, RETIRING), 95, 97); /* 255 * 3 / 8 = 95.6 */
	assert_int_equal(field(met, BAD_SPEC), 0);
	assert_int_equal(field(met, BE_BOUND), 0);
	assert_in_range(field(met, FE_BOUND), 158, 160);
	window("alderlake", &wl_loop, true, &slots, &cyc, &met);
	assert_in_range(level1(met), 254, 256);
	assert_in_range(field(met, RETIRING), 127, 128); /* 3 of 6 */
}

/* From what the workload does: mispredicted branches are bad speculation
 * (all of it branch mispredicts), CPUID's serialising cycles backend bound
 * but not memory bound, its micro-ops heavy operations. */
static void metrics_follow_the_workload(void **st)
{
	(void)st;
	uint64_t slots, cyc, met;

	window("alderlake", &wl_br_random, true, &slots, &cyc, &met);
	assert_in_range(level1(met), 253, 257);
	assert_true(field(met, BAD_SPEC) > 20);
	assert_in_range(field(met, BR_MISP), field(met, BAD_SPEC) - 1, field(met, BAD_SPEC) + 1);
	assert_int_equal(field(met, HEAVY), 0);
	window("alderlake", &wl_cpuid, true, &slots, &cyc, &met);
	assert_in_range(level1(met), 253, 257);
	assert_true(field(met, BE_BOUND) > 100);
	assert_int_equal(field(met, MEM_BOUND), 0);
	assert_true(field(met, HEAVY) > 0);
	assert_true(field(met, HEAVY) <= field(met, RETIRING) + 1);
	assert_int_equal(field(met, BAD_SPEC), 0);
}

/* 329H: zeroed by a write of 0, absent (#GP) on cores without
 * PERF_CAPABILITIES[15]: Skylake, Alder Lake's E-cores. */
static void metrics_register(void **st)
{
	(void)st;
	uint64_t slots, cyc, met;

	window("arrowlake", &wl_loop, true, &slots, &cyc, &met);
	assert_true(met != 0);
	assert_int_equal(hw_wrmsr(MSR_PERF_METRICS, 0), HW_OK);
	assert_int_equal(drv_msr(MSR_PERF_METRICS), 0);
	drv_up("skylake", SF_NONE);
	assert_int_equal(hw_rdmsr(MSR_PERF_METRICS, &met), HW_FAULT_GP);
	assert_int_equal(sim_start("alderlake", SF_NONE), 0);
	assert_int_equal(sim_cpu_switch(2), 0); /* a Gracemont E-core */
	assert_int_equal(hw_rdmsr(MSR_PERF_METRICS, &met), HW_FAULT_GP);
	assert_int_equal(drv_msr(MSR_PERF_CAPABILITIES) & PERF_CAP_PERF_METRICS, 0);
	assert_true(drv_msr(MSR_PERF_CAPABILITIES) & PERF_CAP_PEBS_PT);
}

static void check_passes(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "alderlake", "arrowlake", "skylake-kvm"};
	for (unsigned m = 0; m < sizeof(models) / sizeof(models[0]); m++)
		for (uint64_t seed = 0; seed <= SEEDS; seed++) {
			up(models[m], SF_NONE, seed ? SIM_REALISM_ALL : 0, seed);
			const struct result *r = run_check("pmu.capabilities");
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s", models[m], (unsigned long long)seed,
					 r->msg);
		}
	up("arrowlake", SF_NONE, SIM_REALISM_ALL, 1);
	assert_non_null(strstr(run_check("pmu.capabilities")->msg, "8.00 a cycle"));
}

static void check_skips(void **st)
{
	(void)st;
	static const char *const models[] = {"core2", "yonah", "pentium3", "zen4", "knc"};
	for (unsigned m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		up(models[m], SF_NONE, SIM_REALISM_ALL, 1);
		const struct result *r = run_check("pmu.capabilities");
		if (r->v != V_SKIP || !strstr(r->msg, "PDCM"))
			fail_msg("%s: %s", models[m], r->msg);
	}
}

static void check_catches_metrics_unscaled(void **st)
{
	(void)st;
	static const char *const models[] = {"alderlake", "arrowlake"};
	for (unsigned m = 0; m < 2; m++)
		for (uint64_t seed = 0; seed <= SEEDS; seed++) {
			up(models[m], SF_METRICS_UNSCALED, seed ? SIM_REALISM_ALL : 0, seed);
			const struct result *r = run_check("pmu.capabilities");
			if (r->v != V_FAIL || !strstr(r->msg, "add up to 128"))
				fail_msg("%s seed %llu: %s", models[m], (unsigned long long)seed,
					 r->msg);
		}
}

/* PERF_CAPABILITIES as the check reads it, bit 13 taken away. */
static void no_fw_bit(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	(void)s;
	if (msr == MSR_PERF_CAPABILITIES)
		*v &= ~PERF_CAP_FW_WRITE;
}

/* Bit 13 and the alias disagree either way: a FAIL naming 0x4C1. */
static void check_catches_full_width_lies(void **st)
{
	(void)st;
	sim_rdmsr_filter = no_fw_bit; /* clear, yet 0x4C1 takes the write */
	up("skylake", SF_NONE, 0, 0);
	const struct result *r = run_check("pmu.capabilities");
	sim_rdmsr_filter = 0;
	if (r->v != V_FAIL || !strstr(r->msg, "0x4c1") || !strstr(r->msg, "not #GP"))
		fail_msg("bit 13 clear, alias there: %s", r->msg);
	up("skylake", SF_NONE, 0, 0);
	sim.refuse.msr = MSR_IA32_PMC0; /* set, yet 0x4C1 #GPs (with IF clear) */
	sim.refuse.mask = 0;
	sim.refuse.val = 0;
	bool irq = hw_irq_enabled();
	hw_irq_disable();
	r = run_check("pmu.capabilities");
	if (irq)
		hw_irq_enable();
	sim.refuse.msr = 0;
	if (r->v != V_FAIL || !strstr(r->msg, "0x4c1") || !strstr(r->msg, "#GP"))
		fail_msg("bit 13 set, alias #GP: %s", r->msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(slots_width_per_cycle),
	    cmocka_unit_test(metrics_add_up),
	    cmocka_unit_test(metrics_follow_the_workload),
	    cmocka_unit_test(metrics_register),
	    cmocka_unit_test(check_passes),
	    cmocka_unit_test(check_skips),
	    cmocka_unit_test(check_catches_metrics_unscaled),
	    cmocka_unit_test(check_catches_full_width_lies),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
