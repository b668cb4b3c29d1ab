/* kvm.emulated and the simulator's forced emulation (model_kvm_fep.c): the
 * prefix is a #UD (a guarded run comes back with it) everywhere but the KVM
 * guest whose host takes it; there KVM counts each emulated instruction in
 * the counters that count instructions retired (GP 00C0H, fixed counter 0)
 * and each emulated branch in those counting branches (00C4H), enabled and
 * with the OS bit at CPL 0 (Linux arch/x86/kvm/pmu.c
 * kvm_pmu_trigger_event, cpl_is_matched), and the hardware counts none of
 * it. Each effect's test fails when it is a no-op. The check PASSes there
 * with every realism effect, SKIPs with the reason elsewhere, and FAILs
 * under emulated-uncounted (KVM before 5.17) on every seed, naming it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/measure.h"
#include "sim_suite.h"

#define ALL   SIM_REALISM_ALL
#define SEEDS 3
#define FEP   "skylake-kvm-fep"
#define N     100

/* Counter i with generic event g and flags, from 0 over n iterations of
 * wl_kvm_fep; realism none: nothing else counts. */
static uint64_t fep_count(struct pmu *p, unsigned i, enum pmu_generic g, uint32_t flags, uint64_t n)
{
	drv_program(p, i, g, flags);
	assert_int_equal(p->ops->write(p, i, 0, PMU_WRITE_PRELOAD), HW_OK);
	assert_int_equal(p->ops->start(p, 1ull << i), HW_OK);
	hw_run_workload(&wl_kvm_fep, n);
	assert_int_equal(p->ops->stop(p, 1ull << i), HW_OK);
	return drv_read(p, i);
}

static void prefix_is_ud_without_the_host(void **st)
{
	(void)st;
	static const char *const ud[] = {"skylake", "skylake-kvm", "zen4-kvm", "xen-vpmu-on"};
	for (unsigned k = 0; k < sizeof(ud) / sizeof(ud[0]); k++) {
		assert_int_equal(sim_start_real(ud[k], SF_NONE, ALL, 1), 0);
		assert_int_equal(hw_run_workload_guarded(&wl_kvm_fep, 1), HW_FAULT_UD);
	}
	assert_int_equal(sim_start_real(FEP, SF_NONE, ALL, 1), 0);
	assert_int_equal(hw_run_workload_guarded(&wl_kvm_fep, 1), HW_OK);
	assert_int_equal(hw_run_workload_guarded(&wl_loop, 1), HW_OK);
}

static void kvm_counts_what_it_emulates(void **st)
{
	(void)st;
	const struct workload_vector *v = &wl_kvm_fep.per_iter;
	const struct workload_vector *f = &wl_kvm_fep.fixed;
	struct pmu *p = drv_up(FEP, SF_NONE);

	assert_int_equal(v->emulated, 2);
	assert_int_equal(fep_count(p, 0, GEN_INSTRUCTIONS, PMU_F_OS, N),
			 f->instructions + N * v->instructions);
	assert_int_equal(fep_count(p, 1, GEN_BRANCHES, PMU_F_OS, N), f->branches + N * v->branches);
	/* fixed counter 0 too (L:pmu_intel.c fixed_pmc_events) */
	unsigned fx = p->n_gp;
	assert_int_equal(fep_count(p, fx, GEN_INSTRUCTIONS, PMU_F_OS, N),
			 f->instructions + N * v->instructions);
	/* the hardware alone: KVM before 5.17 */
	p = drv_up(FEP, SF_EMULATED_UNCOUNTED);
	assert_int_equal(fep_count(p, 0, GEN_INSTRUCTIONS, PMU_F_OS, N),
			 f->instructions + N * (v->instructions - v->emulated));
	assert_int_equal(fep_count(p, 1, GEN_BRANCHES, PMU_F_OS, N),
			 f->branches + N * (v->branches - v->emulated_br));
}

/* KVM's count obeys the counter's privilege bits, enable and event. */
static void kvm_count_is_filtered(void **st)
{
	(void)st;
	struct pmu *p = drv_up(FEP, SF_NONE);

	/* USR alone at CPL 0: neither the hardware nor KVM counts */
	assert_int_equal(fep_count(p, 0, GEN_INSTRUCTIONS, PMU_F_USR, N), 0);
	assert_int_equal(fep_count(p, 1, GEN_BRANCHES, PMU_F_USR, N), 0);
	/* a stopped counter: nothing */
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(p->ops->write(p, 0, 0, PMU_WRITE_PRELOAD), HW_OK);
	hw_run_workload(&wl_kvm_fep, N);
	assert_int_equal(drv_read(p, 0), 0);
}

/* kvm.emulated on model with fault f, every realism effect, seed. */
static const struct result *emulated(const char *model, enum sim_fault f, uint64_t seed)
{
	(void)up(model, f, ALL, seed);
	return run_check("kvm.emulated");
}

static void check_passes_with_the_prefix(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		const struct result *r = emulated(FEP, SF_NONE, seed);
		if (r->v != V_PASS)
			fail_msg("seed %llu: %s", (unsigned long long)seed, r->msg);
		assert_non_null(strstr(r->msg, "exact"));
	}
}

static void check_skips_elsewhere(void **st)
{
	(void)st;
	static const char *const cases[][2] = {
	    {"skylake", "not under a hypervisor"},
	    {"zen4", "not under a hypervisor"},
	    {"skylake-kvm", "force_emulation_prefix off"},
	    {"zen4-kvm", "force_emulation_prefix off"},
	    {"xen-vpmu-on", "not under KVM"},
	    {"vmware", "not under KVM"},
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct result *r = emulated(cases[k][0], SF_NONE, 1);
		if (r->v != V_SKIP || !strstr(r->msg, cases[k][1]))
			fail_msg("%s: %s", cases[k][0], r->msg);
	}
}

static void check_fails_emulated_uncounted(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		const struct result *r = emulated(FEP, SF_EMULATED_UNCOUNTED, seed);
		assert_int_equal(r->v, V_FAIL);
		assert_non_null(strstr(r->msg, "emulated not counted"));
		assert_non_null(strstr(r->msg, "5.17"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(prefix_is_ud_without_the_host),
	    cmocka_unit_test(kvm_counts_what_it_emulates),
	    cmocka_unit_test(kvm_count_is_filtered),
	    cmocka_unit_test(check_passes_with_the_prefix),
	    cmocka_unit_test(check_skips_elsewhere),
	    cmocka_unit_test(check_fails_emulated_uncounted),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
