/* The local APIC's faults and the core-clock faults, each caught by its
 * check on the simulated CPUs with every realism effect on: eoi-ignored by
 * apic.self-ipi, nmi-lost by apic.nmi, cycles-slow and cycles-ref by
 * count.cycles (through APERF, KNC's TSC or the family's floor); every
 * healthy model passes the three; the simulator's MPERF and APERF advance
 * at the reference and the core clock, where the model has them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../pmu/cpuid.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define ALL   SIM_REALISM_ALL
#define SEEDS 5
#define TURBO (1u << SE_TURBO)

/* The check id on model with fault f, every effect on, as the suite runs
 * it; a model without a working PMU (nopmu) is powered on without one. */
static const struct result *on(const char *model, enum sim_fault f, uint64_t seed, const char *id)
{
	if (strcmp(model, "nopmu")) {
		up(model, f, ALL, seed);
		return run_check(id);
	}
	assert_int_equal(sim_start_real(model, f, ALL, seed), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	options_default(&opt);
	return run_check(id);
}

/* Every model that has fault f: check id FAILs on every seed, its message
 * holding one of the words (the matrix's symptom); returns how many. */
static unsigned caught(enum sim_fault f, const char *id, const char *const *words)
{
	unsigned n, models = 0;
	const struct sim_model *const *m = sim_models(&n);

	for (unsigned k = 0; k < n; k++) {
		if (!(m[k]->faults & SIM_F(f)))
			continue;
		assert_null(m[k]->pinned_by); /* a pinned configuration has no faults */
		models++;
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			const struct result *r = on(m[k]->name, f, seed, id);
			bool named = false;
			for (unsigned w = 0; words[w]; w++)
				named |= strstr(r->msg, words[w]) != 0;
			if (r->v != V_FAIL || !named)
				fail_msg("%s %s seed %llu: %s %s: %s", m[k]->name,
					 sim_fault_name(f), (unsigned long long)seed, id,
					 r->v == V_FAIL ? "FAIL without the symptom" : "not FAIL",
					 r->msg);
		}
	}
	return models;
}

/* The models of the fault matrix: every one but the pinned configurations
 * (the hypervisors', test_hv_verdicts.c), whose whole runs are pinned. */
static unsigned in_matrix(void)
{
	unsigned n, k = 0;
	const struct sim_model *const *m = sim_models(&n);
	for (unsigned i = 0; i < n; i++)
		k += !m[i]->pinned_by;
	return k;
}

static void eoi_ignored_caught(void **st)
{
	(void)st;
	static const char *const w[] = {"EOI", "in service", "ISR", 0};
	assert_int_equal(caught(SF_EOI_IGNORED, "apic.self-ipi", w), in_matrix());
	const struct result *r = on("skylake", SF_EOI_IGNORED, 1, "apic.self-ipi");
	assert_non_null(strstr(r->msg, "expected ISR bit 0xef clear after EOI, got set"));
}

static void nmi_lost_caught(void **st)
{
	(void)st;
	static const char *const w[] = {"NMI", 0};
	assert_int_equal(caught(SF_NMI_LOST, "apic.nmi", w), in_matrix());
	assert_non_null(strstr(on("core2", SF_NMI_LOST, 1, "apic.nmi")->msg, "got 0"));
}

/* cycles-slow through each bound: APERF, KNC's TSC, a retire-width and a
 * DEC-chain floor. */
static void cycles_slow_caught(void **st)
{
	(void)st;
	static const char *const w[] = {"cycles", 0};
	assert_int_equal(caught(SF_CYCLES_SLOW, "count.cycles", w), 17);
	assert_non_null(strstr(on("zen4", SF_CYCLES_SLOW, 1, "count.cycles")->msg, "APERF"));
	assert_non_null(strstr(on("knc", SF_CYCLES_SLOW, 1, "count.cycles")->msg, "the TSC's"));
	assert_non_null(strstr(on("pentium4", SF_CYCLES_SLOW, 1, "count.cycles")->msg,
			       "3 uops retire a clock"));
	assert_non_null(
	    strstr(on("zen4-kvm", SF_CYCLES_SLOW, 1, "count.cycles")->msg, "DEC latency 1"));
}

/* cycles-ref where turbo makes the core clock differ from the TSC: APERF
 * (Core 2's 1.08 is 7 % off, beyond 1/32) and Skylake's floor in a guest. */
static void cycles_ref_caught(void **st)
{
	(void)st;
	static const char *const w[] = {"cycles", 0};
	assert_int_equal(caught(SF_CYCLES_REF, "count.cycles", w), 7);
	assert_non_null(strstr(on("core2", SF_CYCLES_REF, 1, "count.cycles")->msg, "(0.92 x)"));
	assert_non_null(
	    strstr(on("skylake-kvm", SF_CYCLES_REF, 1, "count.cycles")->msg, "at least 1000000"));
	/* no turbo: the reference rate is the core's, nothing to catch */
	assert_int_equal(sim_start("zen4", SF_CYCLES_REF), -1);
	assert_non_null(sim_model_find("zen4")->fault_na[SF_CYCLES_REF]);
}

static void healthy_pass(void **st)
{
	(void)st;
	static const char *const ids[] = {"apic.self-ipi", "apic.nmi", "count.cycles"};
	unsigned n;
	const struct sim_model *const *m = sim_models(&n);

	for (unsigned k = 0; k < n; k++)
		for (uint64_t seed = 1; seed <= SEEDS && !m[k]->pinned_by; seed++)
			for (unsigned i = 0; i < 3; i++) {
				const struct result *r = on(m[k]->name, SF_NONE, seed, ids[i]);
				bool skip = r->v == V_SKIP && !strcmp(m[k]->name, "nopmu");
				if (r->v != V_PASS && !skip)
					fail_msg("%s seed %llu: %s: %s", m[k]->name,
						 (unsigned long long)seed, ids[i], r->msg);
			}
	/* the PASS names the bound that held */
	assert_non_null(strstr(on("skylake", SF_NONE, 1, "count.cycles")->msg, "APERF"));
	assert_non_null(strstr(on("opteron", SF_NONE, 1, "count.cycles")->msg, "floor"));
}

/* MPERF and APERF over n iterations of wl_loop (one core cycle each) with
 * the effects real; *tsc: the TSC's ticks meanwhile. */
static void clocks(const char *model, uint32_t real, uint64_t n, uint64_t *a, uint64_t *m,
		   uint64_t *tsc)
{
	uint64_t a0, m0, a1, m1, t0;

	assert_int_equal(sim_start_real(model, SF_NONE, real, 1), 0);
	assert_int_equal(hw_rdmsr(MSR_IA32_APERF, &a0), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_IA32_MPERF, &m0), HW_OK);
	t0 = sim.tsc;
	hw_run_workload(&wl_loop, n);
	*tsc = sim.tsc - t0;
	assert_int_equal(hw_rdmsr(MSR_IA32_APERF, &a1), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_IA32_MPERF, &m1), HW_OK);
	*a = a1 - a0;
	*m = m1 - m0;
}

static void aperf_mperf_rates(void **st)
{
	(void)st;
	uint64_t a, m, tsc;

	/* Skylake under turbo: APERF the core's 1.20 x MPERF, the TSC's rate */
	clocks("skylake", TURBO, 600000, &a, &m, &tsc);
	assert_int_equal(a, 600000);
	assert_int_equal(m, tsc);
	assert_true(m >= 500000 && m <= 500002); /* 600000 / 1.2, the call's tick */
	clocks("core2", TURBO, 108000, &a, &m, &tsc);
	assert_int_equal(a, 108000);
	assert_true(m >= 100000 && m <= 100002);
	/* without turbo both count the same clock */
	clocks("zen4", 0, 1000, &a, &m, &tsc);
	assert_int_equal(a, 1000);
	assert_true(m >= 1000 && m <= 1001);
	/* read-write (SDM Vol. 4 Table 2-2) */
	assert_int_equal(hw_wrmsr(MSR_IA32_APERF, 5), HW_OK);
	assert_int_equal(drv_msr(MSR_IA32_APERF), 5);
}

/* CPUID.06H:ECX[0] and the MSRs go together: absent on the parts without
 * them and in a KVM guest, whose leaf 6 is ARAT alone. */
static void enumerated_where_present(void **st)
{
	(void)st;
	static const char *const with[] = {"core2",	"skylake",   "arrowlake",
					   "alderlake", "bulldozer", "zen4"};
	static const char *const without[] = {"yonah",	  "knc",      "athlon",	     "opteron",
					      "pentium3", "pentium4", "skylake-kvm", "zen4-kvm"};
	struct cpuid_regs r;
	uint64_t v;

	for (unsigned k = 0; k < sizeof(with) / sizeof(with[0]); k++) {
		assert_int_equal(sim_start(with[k], SF_NONE), 0);
		hw_cpuid(CPUID_LEAF_POWER, 0, &r);
		assert_true(r.ecx & CPUID_6_ECX_APERFMPERF);
		assert_int_equal(hw_rdmsr(MSR_IA32_MPERF, &v), HW_OK);
	}
	for (unsigned k = 0; k < sizeof(without) / sizeof(without[0]); k++) {
		assert_int_equal(sim_start(without[k], SF_NONE), 0);
		hw_cpuid(CPUID_LEAF_POWER, 0, &r);
		assert_false(r.ecx & CPUID_6_ECX_APERFMPERF);
		assert_int_equal(hw_rdmsr(MSR_IA32_APERF, &v), HW_FAULT_GP);
	}
}

/* A hypervisor that enumerates APERF but faults its read: count.cycles
 * takes it as not available, says so, and judges by the floor. */
static void aperf_fault_not_available(void **st)
{
	(void)st;
	for (unsigned f = 0; f < 2; f++) {
		up("skylake-kvm", f ? SF_CYCLES_SLOW : SF_NONE, ALL, 1);
		sim_set_cpuid(&sim, CPUID_LEAF_POWER, 0, 1u << 2, 0, CPUID_6_ECX_APERFMPERF, 0);
		const struct result *r = run_check("count.cycles");
		if (!f) {
			assert_int_equal(r->v, V_PASS);
			assert_non_null(strstr(r->msg, "APERF enumerated, its read raised #GP"));
			assert_non_null(strstr(r->msg, "floor 1000000 (Skylake"));
		} else {
			assert_int_equal(r->v, V_FAIL);
			assert_non_null(strstr(r->msg, "expected at least 1000000 cycles"));
		}
	}
}

/* cycles-slow halves an odd iteration's cycles exactly, two at a time:
 * wl_loop's one cycle an iteration, over an odd count. */
static void slow_counts_every_second_cycle(void **st)
{
	(void)st;
	uint64_t n[2];
	for (unsigned f = 0; f < 2; f++) {
		struct pmu *p = drv_up("pentium3", f ? SF_CYCLES_SLOW : SF_NONE);
		drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
		assert_int_equal(p->ops->write(p, 0, 0, PMU_WRITE_PRELOAD), HW_OK);
		assert_int_equal(p->ops->start(p, 1), HW_OK);
		hw_run_workload(&wl_loop, 1001);
		assert_int_equal(p->ops->stop(p, 1), HW_OK);
		n[f] = drv_read(p, 0);
	}
	assert_int_equal(n[0], 1001);
	assert_int_equal(n[1], 500); /* the last, odd iteration loses its half */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(eoi_ignored_caught),
	    cmocka_unit_test(nmi_lost_caught),
	    cmocka_unit_test(cycles_slow_caught),
	    cmocka_unit_test(cycles_ref_caught),
	    cmocka_unit_test(healthy_pass),
	    cmocka_unit_test(aperf_mperf_rates),
	    cmocka_unit_test(enumerated_where_present),
	    cmocka_unit_test(aperf_fault_not_available),
	    cmocka_unit_test(slow_counts_every_second_cycle),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
