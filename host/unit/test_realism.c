/* The simulator's realism effects, one at a time: each test measures the
 * effect on a simulated core and fails when the effect is turned into a
 * no-op (the same measurement with the effect off is the ideal answer). The
 * false FAILs each effect gives today's check logic are shown beside the
 * checks that were fixed for them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"

#define N_ITER 1000

/* Powers on model with only the effects in mask, attaches and resets it. */
static struct pmu *up(const char *model, uint32_t mask, uint64_t seed)
{
	assert_int_equal(sim_start_real(model, SF_NONE, mask, seed), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.status, PMU_FUNCTIONAL);
	assert_int_equal(drv_p.ops->reset(&drv_p), 0);
	return &drv_p;
}

/* Counter 0 counts instructions over one window of N_ITER loop iterations:
 * zero, start, workload, stop, read, as a check does it. */
static uint64_t window(struct pmu *p)
{
	assert_int_equal(p->ops->write(p, 0, 0, PMU_WRITE_PRELOAD), 0);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, N_ITER);
	assert_int_equal(p->ops->stop(p, 1), 0);
	return drv_read(p, 0);
}

static const uint64_t exact = N_ITER * 3; /* wl_loop: 3 instructions an iteration */

static void overhead_counts_the_harness(void **state)
{
	(void)state;
	struct pmu *p = up("skylake", 0, 1);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(wl_loop.per_iter.instructions, 3);
	uint64_t ideal = window(p);
	assert_int_equal(ideal, exact + wl_loop.fixed.instructions);

	p = up("skylake", 1u << SE_OVERHEAD, 1);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	uint64_t real = window(p);
	/* the paths after the enabling write and before the disabling one,
	 * 12-60 instructions each on this model */
	assert_true(real >= ideal + 2 * 12);
	assert_true(real <= ideal + 4 * 60);
	/* the same path retires the same instructions: differences cancel */
	assert_int_equal(window(p), real);
	assert_true(sim.st.overhead_insn > 0);
}

static void overhead_keeps_disabled_counters_still(void **state)
{
	(void)state;
	struct pmu *p = up("zen4", 1u << SE_OVERHEAD, 3);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(p->ops->write(p, 0, 0, PMU_WRITE_PRELOAD), 0);
	for (int i = 0; i < 20; i++) { /* accesses without an enable */
		uint64_t v;
		hw_rdmsr(MSR_F15H_PERF_CTL0, &v);
	}
	assert_int_equal(drv_read(p, 0), 0);
}

/* Preloads counter 0 (instructions, INT) to overflow after n events and
 * returns how far it ran past the wrap when the PMI came. */
static uint64_t past_wrap_at_pmi(uint32_t mask)
{
	struct pmu *p = up("opteron", mask, 11);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	drv_pmi_arm();
	assert_int_equal(pmu_preload(p, 0, 100), 0);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 5000);
	assert_int_equal(p->ops->stop(p, 1), 0);
	assert_int_equal(drv_pmi.taken, 1);
	return sim.st.skid_total;
}

static void skid_delays_the_pmi(void **state)
{
	(void)state;
	assert_int_equal(past_wrap_at_pmi(0), 0);
	uint64_t skid = past_wrap_at_pmi(1u << SE_SKID);
	/* K8: 300-3000 instructions (model_amd_legacy.c si_k8) */
	assert_true(skid >= 300 && skid <= 3000);
}

static void skid_without_workload_runs_out_in_a_wait(void **state)
{
	(void)state;
	struct pmu *p = up("opteron", 1u << SE_SKID, 5);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	drv_pmi_arm();
	assert_int_equal(pmu_preload(p, 0, 3), 0);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 1); /* overflows; the skid has not run out */
	assert_int_equal(p->ops->stop(p, 1), 0);
	assert_int_equal(drv_pmi.taken, 0);
	hw_relax(); /* microseconds pass: the PMI is delivered */
	assert_int_equal(drv_pmi.taken, 1);
}

static void inexact_varies_amd_counts(void **state)
{
	(void)state;
	for (int real = 0; real < 2; real++) {
		struct pmu *p = up("opteron", real ? 1u << SE_INEXACT : 0, 9);
		drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		uint64_t first = window(p), lo = first, hi = first;
		for (int i = 0; i < 60; i++) {
			uint64_t v = window(p);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		if (!real) {
			assert_int_equal(lo, hi);
		} else {
			assert_true(hi > lo); /* K8 BKDG §10.1 */
			assert_true(hi - lo <= 4);
		}
	}
}

static void inexact_spares_intel(void **state)
{
	(void)state;
	struct pmu *p = up("skylake", 1u << SE_INEXACT, 9);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	uint64_t first = window(p);
	for (int i = 0; i < 60; i++)
		assert_int_equal(window(p), first);
}

/* Sets GP0's overflow bit with LVTPC masked, then unmasks LVTPC. */
static uint64_t raised_on_unmask(uint32_t mask)
{
	up("skylake", mask, 2);
	drv_pmi_arm();
	apic_write(APIC_LVT_PC, VEC_PMI | LVT_MASKED);
	uint64_t before = sim.st.pmi_raised;
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_STATUS_SET, 1), HW_OK);
	apic_write(APIC_LVT_PC, VEC_PMI);
	return sim.st.pmi_raised - before;
}

static void late_ack_reraises_on_unmask(void **state)
{
	(void)state;
	assert_int_equal(raised_on_unmask(0), 0);
	assert_int_equal(raised_on_unmask(1u << SE_LATE_ACK), 1);
	assert_int_equal(sim.st.late_ack_pmis, 1);
	/* acked first, then unmasked: nothing more (the order Linux uses) */
	apic_write(APIC_LVT_PC, VEC_PMI | LVT_MASKED);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1), HW_OK);
	apic_write(APIC_LVT_PC, VEC_PMI);
	assert_int_equal(sim.st.late_ack_pmis, 1);
}

/* Instructions counted over a window run with IF as given and TPR tpr,
 * the timer made to fire every 1-2 us. */
static uint64_t timer_window(uint32_t mask, bool irq, uint32_t tpr)
{
	struct pmu *p = up("skylake", mask, 4);
	sim.real.timer_min_us = sim.real.timer_max_us = 1;
	sim.real.timer_next = sim.tsc;
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	apic_write(APIC_TPR, tpr);
	if (irq)
		hw_irq_enable();
	else
		hw_irq_disable();
	uint64_t v = window(p);
	hw_irq_enable();
	apic_write(APIC_TPR, 0);
	return v;
}

static void timer_lands_in_windows_with_if_set(void **state)
{
	(void)state;
	uint64_t ideal = exact + wl_loop.fixed.instructions;
	assert_int_equal(timer_window(0, true, 0), ideal);
	assert_true(timer_window(1u << SE_INTERRUPTS, true, 0) >= ideal + 300);
	assert_true(sim.st.timer_irqs >= 1);
	/* IF=0 or a TPR above the timer's class holds it off */
	assert_int_equal(timer_window(1u << SE_INTERRUPTS, false, 0), ideal);
	assert_int_equal(timer_window(1u << SE_INTERRUPTS, true, 0xd0), ideal);
}

static void smi_counts_and_moves_msr_34(void **state)
{
	(void)state;
	for (int real = 0; real < 2; real++) {
		struct pmu *p = up("skylake", real ? 1u << SE_INTERRUPTS : 0, 6);
		uint64_t s0 = drv_msr(MSR_SMI_COUNT);
		sim.real.smi_min_us = sim.real.smi_max_us = 1;
		sim.real.smi_next = sim.tsc;
		drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		hw_irq_disable(); /* SMIs are not masked by IF */
		uint64_t v = window(p);
		hw_irq_enable();
		uint64_t s1 = drv_msr(MSR_SMI_COUNT);
		if (!real) {
			assert_int_equal(v, exact + wl_loop.fixed.instructions);
			assert_int_equal(s1, s0);
		} else {
			assert_true(v >= exact + 2000); /* SMM code counted */
			assert_true(s1 > s0);
		}
	}
}

static void limit_cpuid_hides_leaf_0a(void **state)
{
	(void)state;
	struct cpuid_regs r0, r2, ra;
	up("skylake", 0, 1);
	hw_cpuid(0, 0, &r0);
	assert_true(r0.eax >= 0xa);
	sim.real.limit_cpuid = true;
	hw_cpuid(0, 0, &r0);
	hw_cpuid(2, 0, &r2);
	hw_cpuid(0xa, 0, &ra);
	assert_int_equal(r0.eax, 2);
	assert_memory_equal(&ra, &r2, sizeof(ra)); /* leaf 2's data, SDM Vol. 2A */
}

/* ---- reproducibility -------------------------------------------------- */

static void run_suite(const char *model, uint64_t seed, char *copy)
{
	static struct suite s;
	static struct options o;
	options_default(&o);
	assert_int_equal(sim_start_real(model, SF_NONE, SIM_REALISM_ALL, seed), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	drv_out.len = 0;
	suite_init(&s, &o, &drv_ci, &drv_p, &drv_ai, (struct sink){drv_collect, 0});
	suite_run(&s, 0);
	report_summary(&s);
	drv_out.text[drv_out.len] = 0;
	memcpy(copy, drv_out.text, drv_out.len + 1);
}

static char a[65536], b[65536];

static void same_seed_same_output(void **state)
{
	(void)state;
	run_suite("zen4", 7, a);
	run_suite("zen4", 7, b);
	assert_string_equal(a, b);
	run_suite("zen4", 8, b);
	assert_true(strcmp(a, b) != 0); /* the seed does decide */
}

static void effect_names_parse(void **state)
{
	(void)state;
	uint32_t m;
	char bad[16];
	assert_int_equal(sim_realism_parse("all", &m, bad, sizeof(bad)), 0);
	assert_int_equal(m, SIM_REALISM_ALL);
	assert_int_equal(sim_realism_parse("none", &m, bad, sizeof(bad)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(sim_realism_parse("skid,late-ack", &m, bad, sizeof(bad)), 0);
	assert_int_equal(m, (1u << SE_SKID) | (1u << SE_LATE_ACK));
	assert_int_equal(sim_realism_parse("skid,bogus", &m, bad, sizeof(bad)), -1);
	assert_string_equal(bad, "bogus");
	for (unsigned e = 0; e < SE_COUNT; e++)
		assert_true(strcmp(sim_effect_name((enum sim_effect)e), "?") != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(overhead_counts_the_harness),
	    cmocka_unit_test(overhead_keeps_disabled_counters_still),
	    cmocka_unit_test(skid_delays_the_pmi),
	    cmocka_unit_test(skid_without_workload_runs_out_in_a_wait),
	    cmocka_unit_test(inexact_varies_amd_counts),
	    cmocka_unit_test(inexact_spares_intel),
	    cmocka_unit_test(late_ack_reraises_on_unmask),
	    cmocka_unit_test(timer_lands_in_windows_with_if_set),
	    cmocka_unit_test(smi_counts_and_moves_msr_34),
	    cmocka_unit_test(limit_cpuid_hides_leaf_0a),
	    cmocka_unit_test(same_seed_same_output),
	    cmocka_unit_test(effect_names_parse),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
