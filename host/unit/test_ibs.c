/* AMD instruction-based sampling on simulated CPUs. First the simulator
 * (host/sim/sim_ibs.c, sim_apic_ext.c) directly: op and fetch sampling tag
 * the instruction after the period on the kernel's own walk, IbsOpVal
 * stops the counter, IBS_CTL names extended LVT entry 0, the extended APIC
 * registers reset masked and deliver through their vector, and each IBS
 * fault does what it says. Then the check: ibs.sample PASSes on zen4 over
 * 25 seeds with every realism effect, FAILs under each IBS fault on every
 * seed naming the symptom, and SKIPs where there is no IBS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../events/sample.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define SEEDS  25
#define MAXCNT 0x10u /* IbsOpMaxCnt: a period of 256 */
#define PERIOD (MAXCNT << 4)
#define ITERS  64u /* about 1450 kernel instructions: past one period */

#define O_EN	    (1ull << 17)
#define O_VAL	    (1ull << 18)
#define O_CNT_CTL   (1ull << 19)
#define F_EN	    (1ull << 48)
#define F_VAL	    (1ull << 49)
#define D_RETURN    (1ull << 34)
#define D_BRN_TAKEN (1ull << 35)
#define D_BRN_RET   (1ull << 37)
#define EILVT0	    0x500
#define VEC	    0xef

/* The k-th instruction (from 1) one call of the kernel retires. */
struct nth {
	uint64_t k, i;
	struct smp_step st;
};

static void nth_step(void *ctx, const struct smp_step *st)
{
	struct nth *n = ctx;
	if (++n->i == n->k)
		n->st = *st;
}

static struct smp_step step_at(uint64_t k)
{
	struct nth n = {.k = k};
	assert_true(smp_walk(ITERS, nth_step, &n) >= k);
	return n.st;
}

/* Op sampling with the extended LVT entry masked (its reset state): the
 * instruction after PERIOD ops is sampled, IbsOpVal holds the counter,
 * clearing it samples again; the branch bits are the instruction's. */
static void op_sample_at_the_period(void **st)
{
	(void)st;
	drv_up("zen4", SF_NONE);
	struct smp_step want = step_at(PERIOD + 1);
	uint64_t lo, hi;

	smp_bounds(&lo, &hi);
	assert_int_equal(drv_msr(MSR_AMD_IBS_CTL), 0x100); /* LvtOffsetVal, entry 0 */
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(hw_wrmsr(MSR_AMD_IBS_OP_CTL, O_EN | O_CNT_CTL | MAXCNT), HW_OK);
		hw_run_workload(&wl_sample, ITERS);
		uint64_t ctl = drv_msr(MSR_AMD_IBS_OP_CTL), rip = drv_msr(MSR_AMD_IBS_OP_RIP);
		uint64_t d = drv_msr(MSR_AMD_IBS_OP_DATA);
		assert_true(ctl & O_VAL);
		assert_true(rip >= lo && rip < hi && smp_is_insn(rip));
		assert_int_equal(rip, want.ip);
		assert_int_equal(!!(d & D_BRN_RET), want.kind != SMP_NONE);
		assert_int_equal(!!(d & D_BRN_TAKEN), want.taken);
		assert_int_equal(!!(d & D_RETURN), want.kind == SMP_RET);
		if (want.taken)
			assert_int_equal(drv_msr(MSR_AMD_IBS_BR_TARGET), want.next);
	}
	/* not enabled: nothing counts */
	assert_int_equal(hw_wrmsr(MSR_AMD_IBS_OP_CTL, MAXCNT), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	assert_int_equal(drv_msr(MSR_AMD_IBS_OP_CTL), MAXCNT);
}

/* Fetch sampling the same way: the address of the instruction whose
 * fetch came after the period, IbsFetchVal set. */
static void fetch_sample_at_the_period(void **st)
{
	(void)st;
	drv_up("zen4", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_AMD_IBS_FETCH_CTL, F_EN | MAXCNT), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	assert_true(drv_msr(MSR_AMD_IBS_FETCH_CTL) & F_VAL);
	assert_int_equal(drv_msr(MSR_AMD_IBS_FETCH_LINADDR), step_at(PERIOD + 1).ip);
}

static unsigned hits, last_vec;

static void on_vec(struct int_frame *f)
{
	hits++;
	last_vec = (unsigned)f->vector;
	apic_eoi();
}

/* One op sample with extended LVT entry 0 at lvt and LVTPC on VEC_PMI,
 * interrupts on: how many interrupts came. */
static unsigned sample_irqs(const char *model, enum sim_fault f, uint32_t lvt)
{
	drv_up(model, f);
	hits = last_vec = 0;
	isr_set_handler(VEC, on_vec);
	isr_set_handler(VEC_PMI, on_vec);
	apic_lvt_pc_write(VEC_PMI);
	apic_write(EILVT0, lvt);
	assert_int_equal(apic_read(EILVT0), lvt);
	hw_irq_enable();
	assert_int_equal(hw_wrmsr(MSR_AMD_IBS_OP_CTL, O_EN | O_CNT_CTL | MAXCNT), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	hw_irq_disable();
	isr_set_handler(VEC, 0);
	isr_set_handler(VEC_PMI, 0);
	return hits;
}

/* The extended APIC space: four entries, masked at reset; an IBS sample
 * comes on the entry's vector, once (IbsOpVal holds the counter), and
 * not at all while the entry is masked; ibs-lvt-ignored sends it through
 * LVTPC instead. */
static void extended_lvt_delivers(void **st)
{
	(void)st;
	drv_up("zen4", SF_NONE);
	assert_int_equal((apic_read(0x400) >> 16) & 0xff, 4);
	for (unsigned n = 0; n < 4; n++)
		assert_int_equal(apic_read(EILVT0 + 0x10 * n), LVT_MASKED);
	assert_int_equal(sample_irqs("zen4", SF_NONE, VEC), 1);
	assert_int_equal(last_vec, VEC);
	assert_int_equal(sample_irqs("zen4", SF_NONE, LVT_MASKED | VEC), 0);
	assert_true(drv_msr(MSR_AMD_IBS_OP_CTL) & O_VAL); /* sampled, not delivered */
	assert_int_equal(sample_irqs("zen4", SF_IBS_LVT_IGNORED, VEC), 1);
	assert_int_equal(last_vec, VEC_PMI);
	/* in x2APIC mode the same registers are MSRs 840h and 850h-853h */
	drv_up("zen4", SF_NONE);
	sim.apic_base |= APIC_BASE_X2APIC;
	assert_int_equal(drv_msr(0x850), LVT_MASKED);
	assert_int_equal(hw_wrmsr(0x851, LVT_DM_NMI), HW_OK);
	assert_int_equal(drv_msr(0x851), LVT_DM_NMI);
	assert_int_equal(drv_msr(0x840) >> 16, 4);
	/* Intel's APIC has no extended space */
	drv_up("skylake", SF_NONE);
	apic_write(EILVT0, VEC);
	assert_int_equal(apic_read(EILVT0), 0);
	assert_int_equal(apic_read(0x400), 0);
}

/* ibs-rip-outside: the RIP one byte into the tagged instruction. */
static void rip_outside_fault(void **st)
{
	(void)st;
	drv_up("zen4", SF_IBS_RIP_OUTSIDE);
	assert_int_equal(hw_wrmsr(MSR_AMD_IBS_OP_CTL, O_EN | O_CNT_CTL | MAXCNT), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	assert_int_equal(drv_msr(MSR_AMD_IBS_OP_RIP), step_at(PERIOD + 1).ip + 1);
}

/* Models without IBS have none of its MSRs. */
static void no_ibs_no_msrs(void **st)
{
	(void)st;
	uint64_t v;
	drv_up("skylake", SF_NONE);
	assert_int_equal(hw_rdmsr(MSR_AMD_IBS_OP_CTL, &v), HW_FAULT_GP);
	assert_int_equal(pmu_sampling(drv_up("zen4", SF_NONE))->ibs.caps, 0x3ff);
	assert_int_equal(pmu_sampling(drv_up("zen4-kvm", SF_NONE))->ibs.caps, 0);
	assert_non_null(strstr(drv_p.smp.ibs.why, "8000_0001h ECX[10]"));
}

static void check_passes(void **st)
{
	(void)st;
	for (uint64_t seed = 0; seed < SEEDS; seed++) {
		up("zen4", SF_NONE, SIM_REALISM_ALL, seed);
		const struct result *r = run_check("ibs.sample");
		if (r->v != V_PASS)
			fail_msg("zen4 seed %llu: %s", (unsigned long long)seed, r->msg);
		assert_non_null(strstr(r->msg, "op samples"));
	}
}

static void check_catches(enum sim_fault f, const char *symptom)
{
	for (uint64_t seed = 0; seed < SEEDS; seed++) {
		up("zen4", f, SIM_REALISM_ALL, seed);
		const struct result *r = run_check("ibs.sample");
		if (r->v != V_FAIL || !strstr(r->msg, symptom))
			fail_msg("zen4 %s seed %llu: %s", sim_fault_name(f),
				 (unsigned long long)seed, r->msg);
	}
}

static void check_catches_rip_outside(void **st)
{
	(void)st;
	check_catches(SF_IBS_RIP_OUTSIDE, "IBS_OP_RIP");
}

static void check_catches_lvt_ignored(void **st)
{
	(void)st;
	check_catches(SF_IBS_LVT_IGNORED, "LVTPC");
}

/* Without IBS (Intel, KVM's AMD guest, a hypervisor without a PMU) the
 * check SKIPs with the reason. */
static void check_skips(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "zen4-kvm", "nopmu"};
	for (unsigned m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
		assert_int_equal(sim_start_real(models[m], SF_NONE, SIM_REALISM_ALL, 1), 0);
		cpu_identify(&drv_ci);
		apic_detect(&drv_ai);
		pmu_attach(&drv_p, &drv_ci);
		options_default(&opt);
		const struct result *r = run_check("ibs.sample");
		if (r->v != V_SKIP)
			fail_msg("%s: %s", models[m], r->msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(op_sample_at_the_period),
	    cmocka_unit_test(fetch_sample_at_the_period),
	    cmocka_unit_test(extended_lvt_delivers),
	    cmocka_unit_test(rip_outside_fault),
	    cmocka_unit_test(no_ibs_no_msrs),
	    cmocka_unit_test(check_passes),
	    cmocka_unit_test(check_catches_rip_outside),
	    cmocka_unit_test(check_catches_lvt_ignored),
	    cmocka_unit_test(check_skips),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
