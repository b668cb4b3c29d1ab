/* count.tsx and the simulator's Intel TSX: RTM is enumerated where the
 * models have it (skylake and its guests); IN_TX counts only inside
 * transactions and IN_TXCP takes back an aborted one's counts, on
 * IA32_PERFEVTSEL2 only (SDM Vol. 3B 20.3.6.5), and KVM #GPs it elsewhere;
 * TSX_FORCE_ABORT aborts every transaction while MSR 10FH bit 0 is set,
 * under KVM only while the guest's counter 3 runs; XBEGIN without RTM is a
 * #UD. Each effect's test fails when the effect is a no-op. The check
 * PASSes on the healthy RTM models with every realism effect (its
 * TSX_FORCE_ABORT given back as found), SKIPs with the reason elsewhere,
 * and FAILs under in-tx-ignored on every seed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../pmu/cpuid.h"
#include "../../tests/measure.h"
#include "sim_suite.h"

#define ALL   SIM_REALISM_ALL
#define FW    (1u << SE_FIRMWARE)
#define SEEDS 3
#define L     8 /* steps inside a transaction */
#define N     100

static struct wl_args args = {0, L, 0, 1};

static struct workload with_args(const struct workload *w)
{
	struct workload x = *w;
	x.args = &args;
	return x;
}

/* The construction of one iteration of w at L. */
static struct workload_vector built(const struct workload *w)
{
	struct workload x = with_args(w);
	struct workload_vector v;
	workload_iteration(&x, &v);
	return v;
}

/* Counter i counting instructions in ring 0 with select bits q, from 0
 * over n iterations of w (at L); realism none: nothing else counts. */
static uint64_t count_on(struct pmu *p, unsigned i, uint64_t q, const struct workload *w,
			 uint64_t n)
{
	struct workload x = with_args(w);
	uint32_t msr = p->ctr[i].ctl_msr;

	drv_program(p, i, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(hw_wrmsr(msr, drv_msr(msr) | q), HW_OK);
	assert_int_equal(p->ops->write(p, i, 0, PMU_WRITE_PRELOAD), HW_OK);
	assert_int_equal(p->ops->start(p, 1ull << i), HW_OK);
	hw_run_workload(&x, n);
	assert_int_equal(p->ops->stop(p, 1ull << i), HW_OK);
	return drv_read(p, i);
}

/* Leaf 7's EBX once identification has cleared the firmware's LIMIT_CPUID. */
static uint32_t leaf7_ebx(void)
{
	struct cpuid_regs r;
	cpu_identify(&drv_ci);
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	return r.ebx;
}

static void rtm_where_modelled(void **st)
{
	(void)st;
	static const char *const with[] = {"skylake", "skylake-kvm", "skylake-kvm-fep", "vmware"};
	static const char *const without[] = {"core2", "yonah", "arrowlake", "alderlake", "zen4"};
	for (unsigned k = 0; k < sizeof(with) / sizeof(with[0]); k++) {
		assert_int_equal(sim_start_real(with[k], SF_NONE, ALL, 1), 0);
		assert_int_equal(leaf7_ebx() & (CPUID_7_EBX_RTM | CPUID_7_EBX_HLE),
				 CPUID_7_EBX_RTM | CPUID_7_EBX_HLE);
	}
	/* the firmware's TSX_FORCE_ABORT bit beside them on the bare metal */
	struct cpuid_regs r;
	assert_int_equal(sim_start_real("skylake", SF_NONE, FW, 1), 0);
	assert_true(leaf7_ebx() & CPUID_7_EBX_RTM);
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	assert_true(r.edx & CPUID_7_EDX_TSX_FORCE_ABORT);
	for (unsigned k = 0; k < sizeof(without) / sizeof(without[0]); k++) {
		assert_int_equal(sim_start_real(without[k], SF_NONE, ALL, 1), 0);
		assert_int_equal(leaf7_ebx() & CPUID_7_EBX_RTM, 0);
	}
}

static void in_tx_counts_inside_only(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	struct workload_vector c = built(&wl_tx_commit);

	assert_int_equal(count_on(p, 0, EVTSEL_IN_TX, &wl_loop, N), 0);
	assert_int_equal(count_on(p, 0, EVTSEL_IN_TX, &wl_tx_commit, N), N * c.tx_insn);
	assert_true(c.tx_insn >= 2 * L && c.tx_insn < c.instructions);
	assert_int_equal(count_on(p, 1, 0, &wl_tx_commit, N),
			 wl_tx_commit.fixed.instructions + N * c.instructions);
	/* in-tx-ignored: IN_TX counts everything */
	p = drv_up("skylake", SF_IN_TX_IGNORED);
	assert_int_equal(count_on(p, 0, EVTSEL_IN_TX, &wl_tx_commit, N),
			 wl_tx_commit.fixed.instructions + N * c.instructions);
}

static void in_txcp_takes_back_aborted(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	struct workload_vector a = built(&wl_tx_abort), c = built(&wl_tx_commit);
	uint64_t plain = wl_tx_abort.fixed.instructions + N * a.instructions;

	assert_int_equal(a.tx_abort_insn, 2 * L);
	assert_int_equal(count_on(p, 2, EVTSEL_IN_TX, &wl_tx_abort, N), N * a.tx_insn);
	assert_int_equal(count_on(p, 2, EVTSEL_IN_TX | EVTSEL_IN_TXCP, &wl_tx_abort, N), 0);
	assert_int_equal(count_on(p, 2, EVTSEL_IN_TXCP, &wl_tx_abort, N),
			 plain - N * a.tx_abort_insn);
	/* a committed transaction keeps what it counted */
	assert_int_equal(count_on(p, 2, EVTSEL_IN_TX | EVTSEL_IN_TXCP, &wl_tx_commit, N),
			 N * c.tx_insn);
}

static void in_txcp_counter_2_only(void **st)
{
	(void)st;
	uint64_t v = 0;
	assert_int_equal(sim_start_real("skylake", SF_NONE, 0, 1), 0);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, EVTSEL_IN_TX | EVTSEL_IN_TXCP | 0xc0), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0), EVTSEL_IN_TX | 0xc0);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 2, EVTSEL_IN_TX | EVTSEL_IN_TXCP), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + 2), EVTSEL_IN_TX | EVTSEL_IN_TXCP);
	/* KVM: IN_TX on every GP counter, IN_TXCP on counter 2, else #GP */
	assert_int_equal(sim_start_real("skylake-kvm", SF_NONE, 0, 1), 0);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, EVTSEL_IN_TXCP), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, EVTSEL_IN_TX), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 2, EVTSEL_IN_TX | EVTSEL_IN_TXCP), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_P6_EVNTSEL0 + 2, &v), HW_OK);
	assert_int_equal(v, EVTSEL_IN_TX | EVTSEL_IN_TXCP);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, 1ull << 34), HW_FAULT_GP);
}

/* With the firmware's TSX_FORCE_ABORT the driver's reset set bit 0
 * (pmu/intel_arch.c): every transaction aborts at XBEGIN. */
static void force_abort_aborts_every_transaction(void **st)
{
	(void)st;
	assert_int_equal(sim_start_real("skylake", SF_NONE, FW, 1), 0);
	cpu_identify(&drv_ci);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.ops->reset(&drv_p), HW_OK);
	struct workload_vector c = built(&wl_tx_commit);
	uint64_t fixed = wl_tx_commit.fixed.instructions;

	assert_int_equal(drv_msr(MSR_TSX_FORCE_ABORT), 1);
	assert_int_equal(count_on(&drv_p, 0, EVTSEL_IN_TX, &wl_tx_commit, N), 0);
	assert_int_equal(count_on(&drv_p, 1, 0, &wl_tx_commit, N),
			 fixed + N * (c.instructions - c.tx_insn));
	assert_int_equal(hw_wrmsr(MSR_TSX_FORCE_ABORT, 0), HW_OK);
	assert_int_equal(count_on(&drv_p, 0, EVTSEL_IN_TX, &wl_tx_commit, N), N * c.tx_insn);
	assert_int_equal(count_on(&drv_p, 1, 0, &wl_tx_commit, N), fixed + N * c.instructions);
}

/* Host perf holds TSX_FORCE_ABORT while it schedules PMC3 (Linux
 * intel/core.c intel_tfa_commit_scheduling): the guest's counter 3. */
static void kvm_force_abort_follows_pmc3(void **st)
{
	(void)st;
	assert_int_equal(sim_start_real("skylake-kvm", SF_NONE, FW, 1), 0);
	cpu_identify(&drv_ci);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.ops->reset(&drv_p), HW_OK);
	struct workload_vector c = built(&wl_tx_commit);

	assert_false(sim_rtm_force_aborted(&sim));
	assert_int_equal(count_on(&drv_p, 0, EVTSEL_IN_TX, &wl_tx_commit, N), N * c.tx_insn);
	drv_program(&drv_p, 3, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(drv_p.ops->start(&drv_p, 1ull << 3), HW_OK);
	assert_true(sim_rtm_force_aborted(&sim));
	assert_int_equal(count_on(&drv_p, 0, EVTSEL_IN_TX, &wl_tx_commit, N), 0);
}

static void xbegin_without_rtm_is_ud(void **st)
{
	(void)st;
	struct workload x = with_args(&wl_tx_commit);
	assert_int_equal(sim_start_real("core2", SF_NONE, ALL, 1), 0);
	assert_int_equal(hw_run_workload_guarded(&x, 1), HW_FAULT_UD);
	assert_int_equal(sim_start_real("skylake", SF_NONE, ALL, 1), 0);
	assert_int_equal(hw_run_workload_guarded(&x, 1), HW_OK);
}

/* count.tsx on model with fault f, every realism effect, seed. */
static const struct result *tsx(const char *model, enum sim_fault f, uint64_t seed)
{
	(void)up(model, f, ALL, seed);
	return run_check("count.tsx");
}

static void check_passes_where_rtm(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "skylake-kvm", "skylake-kvm-fep"};
	for (unsigned k = 0; k < 3; k++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			const struct result *r = tsx(models[k], SF_NONE, seed);
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s", models[k], (unsigned long long)seed,
					 r->msg);
		}
	/* the driver's TSX_FORCE_ABORT is back as the check found it */
	(void)tsx("skylake", SF_NONE, 1);
	assert_int_equal(drv_msr(MSR_TSX_FORCE_ABORT), 1);
}

static void check_skips_elsewhere(void **st)
{
	(void)st;
	static const char *const cases[][2] = {
	    {"core2", "RTM not enumerated"},   {"arrowlake", "RTM not enumerated"},
	    {"zen4", "not an Intel CPU"},      {"xen-vpmu-on", "refuses with #GP IN_TX"},
	    {"vmware", "transaction aborted"}, {"skylake-kvm-arch", 0},
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct result *r = tsx(cases[k][0], SF_NONE, 1);
		if (!cases[k][1]) { /* the allow-list keeps 00C0H: it counts */
			assert_int_equal(r->v, V_PASS);
			continue;
		}
		if (r->v != V_SKIP || !strstr(r->msg, cases[k][1]))
			fail_msg("%s: %s", cases[k][0], r->msg);
	}
}

static void check_fails_in_tx_ignored(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "skylake-kvm"};
	for (unsigned k = 0; k < 2; k++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			const struct result *r = tsx(models[k], SF_IN_TX_IGNORED, seed);
			assert_int_equal(r->v, V_FAIL);
			assert_non_null(strstr(r->msg, "IN_TX"));
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rtm_where_modelled),
	    cmocka_unit_test(in_tx_counts_inside_only),
	    cmocka_unit_test(in_txcp_takes_back_aborted),
	    cmocka_unit_test(in_txcp_counter_2_only),
	    cmocka_unit_test(force_abort_aborts_every_transaction),
	    cmocka_unit_test(kvm_force_abort_follows_pmc3),
	    cmocka_unit_test(xbegin_without_rtm_is_ud),
	    cmocka_unit_test(check_passes_where_rtm),
	    cmocka_unit_test(check_skips_elsewhere),
	    cmocka_unit_test(check_fails_in_tx_ignored),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
