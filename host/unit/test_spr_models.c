/* The Sapphire Rapids models (host/sim/model_arch_models.c
 * "sapphirerapids", host/sim/model_kvm_spr.c "sapphirerapids-kvm"): what
 * each enumerates (CPUID 0AH, PERF_CAPABILITIES, the architectural LBRs'
 * CPUID.(7,0):EDX[19] and leaf 1CH on bare metal only), adaptive PEBS's
 * select bits, the registers KVM takes away from the guest, the guest's
 * way to set GLOBAL_STATUS bit 62 without STATUS_SET, and that each fault
 * is either applicable or refused with a reason. Each expectation is the
 * document's number, not the model's, so that a changed model fails here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../sim/model_kvm.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/sampling.h"

#define SPR "sapphirerapids"
#define KVM "sapphirerapids-kvm"

#define SEL_ADAPTIVE	(1ull << 34)		 /* Linux ICL_EVENTSEL_ADAPTIVE */
#define FIX_ADAPTIVE(i) (1ull << (32 + 4 * (i))) /* ICL_FIXED_0_ADAPTIVE << 4i */
#define RDPMC_FIXED	(1u << 30)
#define STATUS_BUF	GLOBAL_STATUS_DS_BUFFER

static struct cpuid_regs leaf(uint32_t l, uint32_t sub)
{
	struct cpuid_regs r;
	hw_cpuid(l, sub, &r);
	return r;
}

static void assert_regs(struct cpuid_regs r, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	assert_int_equal(r.eax, a);
	assert_int_equal(r.ebx, b);
	assert_int_equal(r.ecx, c);
	assert_int_equal(r.edx, d);
}

/* Bare metal: perfmon v5, 8 GP x 48, mask length 7, fixed bitmap 0xF, 4
 * fixed x 48, AnyThread deprecated (SDM Vol. 2A CPUID 0AH); PERF_CAPABILITIES
 * 0xF4FF; architectural LBRs 8 to 32 deep with CPL and branch filters,
 * call-stack mode and the mispredicted bit (leaf 1CH). */
static void bare_metal_enumerates(void **st)
{
	(void)st;
	struct pmu *p = drv_up(SPR, SF_NONE);
	struct pmu_lbr lbr;
	assert_false(drv_ci.hypervisor);
	assert_int_equal(drv_ci.family, 6);
	assert_int_equal(drv_ci.model, 0x8f);
	assert_regs(leaf(CPUID_LEAF_PERFMON, 0), 0x07300805u, 0, 0xf, 0x8604u);
	assert_int_equal(drv_msr(MSR_PERF_CAPABILITIES), 0xf4ff);
	assert_true(leaf(CPUID_LEAF_MAX, 0).eax >= CPUID_LEAF_ARCH_LBR);
	assert_true(leaf(CPUID_LEAF_EXT_FEATURES, 0).edx & CPUID_7_EDX_ARCH_LBR);
	assert_false(leaf(CPUID_LEAF_EXT_FEATURES, 0).ebx & CPUID_7_EBX_RTM);
	assert_regs(leaf(CPUID_LEAF_ARCH_LBR, 0), 0xf, 7, 7, 0);
	assert_int_equal(drv_msr(MSR_IA32_MISC_ENABLE) &
			     (MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL),
			 0);
	assert_int_equal(p->version, 5);
	assert_int_equal(p->n_gp, 8);
	assert_int_equal(p->n_fixed, 4);
	pmu_lbr_detect(p, &lbr);
	assert_int_equal(lbr.kind, PMU_LBR_ARCH);
	assert_int_equal(lbr.depth, 32);
}

/* The guest: perfmon v2 (KVM's cap), the host's 8 GP counters, 3 fixed
 * (KVM_PMC_MAX_FIXED), ECX 0, AnyThread deprecated (Linux kvm/cpuid.c);
 * PERF_CAPABILITIES full-width write and the PEBS fields, no LBR format,
 * no SMM freeze, no PERF_METRICS (0x64C0); no architectural LBRs; BTS
 * unavailable, PEBS available. */
static void guest_enumerates(void **st)
{
	(void)st;
	struct pmu *p = drv_up(KVM, SF_NONE);
	struct pmu_lbr lbr;
	assert_true(drv_ci.hypervisor);
	assert_int_equal(drv_ci.hv.id, HV_KVM);
	assert_int_equal(drv_ci.model, 0x8f);
	assert_regs(leaf(CPUID_LEAF_PERFMON, 0), 0x07300802u, 0, 0, 0x8603u);
	assert_int_equal(drv_msr(MSR_PERF_CAPABILITIES), 0x64c0);
	assert_false(leaf(CPUID_LEAF_EXT_FEATURES, 0).edx & CPUID_7_EDX_ARCH_LBR);
	assert_regs(leaf(CPUID_LEAF_ARCH_LBR, 0), 0, 0, 0, 0);
	assert_int_equal(drv_msr(MSR_IA32_MISC_ENABLE) &
			     (MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL),
			 MISC_ENABLE_BTS_UNAVAIL);
	assert_int_equal(p->version, 2);
	assert_int_equal(p->n_gp, 8);
	assert_int_equal(p->n_fixed, 3);
	assert_int_equal(p->caps & PMU_CAP_STATUS_SET, 0);
	pmu_lbr_detect(p, &lbr);
	assert_int_equal(lbr.kind, PMU_LBR_NONE);
}

/* Event select bit 34 and FIXED_CTR_CTRL bits 32 + 4i hold where
 * PERF_CAPABILITIES[14] is set, on bare metal and in the guest (its 3
 * fixed counters only, bit 35 still reserved); Skylake, without the
 * capability, drops them. */
static void adaptive_pebs_bits(void **st)
{
	(void)st;
	uint64_t all_fix = FIX_ADAPTIVE(0) | FIX_ADAPTIVE(1) | FIX_ADAPTIVE(2);

	drv_up(SPR, SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 7, SEL_ADAPTIVE | 0xc0), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + 7), SEL_ADAPTIVE | 0xc0);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR_CTRL, all_fix | FIX_ADAPTIVE(3)), HW_OK);
	assert_int_equal(drv_msr(MSR_FIXED_CTR_CTRL), all_fix | FIX_ADAPTIVE(3));

	drv_up(KVM, SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 7, SEL_ADAPTIVE | 0xc0), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + 7), SEL_ADAPTIVE | 0xc0);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, 1ull << 35), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR_CTRL, all_fix), HW_OK);
	assert_int_equal(drv_msr(MSR_FIXED_CTR_CTRL), all_fix);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR_CTRL, FIX_ADAPTIVE(3)), HW_FAULT_GP);

	drv_up("skylake", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, SEL_ADAPTIVE | 0xc0), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0), 0xc0);
}

/* What the host has and KVM does not give: fixed counter 3, STATUS_SET,
 * PERF_METRICS, DEBUGCTL's LBR (dropped) and freeze bits (#GP); the
 * read-only DS bits of MISC_ENABLE; GLOBAL_CTRL's reset value. */
static void guest_registers(void **st)
{
	(void)st;
	uint64_t v;

	drv_up(SPR, SF_NONE);
	assert_int_equal(hw_rdmsr(MSR_FIXED_CTR0 + 3, &v), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_PERF_METRICS, &v), HW_OK);

	assert_int_equal(sim_start(KVM, SF_NONE), 0);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 0xff);
	assert_int_equal(hw_rdmsr(MSR_FIXED_CTR0 + 3, &v), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR0 + 3, 0), HW_FAULT_GP);
	assert_int_equal(hw_rdpmc(RDPMC_FIXED | 3, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdpmc(RDPMC_FIXED | 2, &v), HW_OK);
	assert_int_equal(hw_rdpmc(7, &v), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_STATUS_SET, &v), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_STATUS_SET, 1), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(MSR_PERF_METRICS, &v), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 1ull << 35), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, DEBUGCTL_LBR | DEBUGCTL_BTF), HW_OK);
	assert_int_equal(drv_msr(MSR_DEBUGCTL), 0);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, DEBUGCTL_FREEZE_LBRS_ON_PMI), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, DEBUGCTL_BTS), HW_FAULT_GP);
	v = drv_msr(MSR_IA32_MISC_ENABLE);
	assert_int_equal(hw_wrmsr(MSR_IA32_MISC_ENABLE, v | MISC_ENABLE_PEBS_UNAVAIL), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_IA32_MISC_ENABLE, v), HW_OK);
}

/* kvm_spr_status_set: bit 62 reaches the guest's GLOBAL_STATUS, which
 * GLOBAL_OVF_CTRL clears; the freeze bits a v2 guest's status lacks do not;
 * no-overflow-status sets nothing. */
static void guest_status_set(void **st)
{
	(void)st;
	assert_int_equal(sim_start(KVM, SF_NONE), 0);
	kvm_spr_status_set(&sim, STATUS_BUF | GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | 1);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), STATUS_BUF | 1);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, STATUS_BUF | 1), HW_OK);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 0);
	assert_int_equal(sim_start(KVM, SF_NO_OVERFLOW_STATUS), 0);
	kvm_spr_status_set(&sim, STATUS_BUF);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 0);
}

/* Both in the fault matrix; each fault applicable or refused with a
 * reason; the guest's are the host's but for what KVM gives no guest:
 * the freeze and PERF_METRICS, the LBRs, the BTS, and a dead event. */
static void faults(void **st)
{
	(void)st;
	const struct sim_model *h = sim_model_find(SPR), *g = sim_model_find(KVM);
	assert_non_null(h);
	assert_non_null(g);
	assert_null(h->pinned_by);
	assert_null(g->pinned_by);
	assert_string_equal(g->host, SPR);
	for (unsigned f = 1; f < SF_COUNT; f++) {
		assert_true((h->faults & SIM_F(f)) || h->fault_na[f]);
		assert_true((g->faults & SIM_F(f)) || g->fault_na[f]);
	}
	assert_int_equal(h->faults & (SIM_LBR_FAULTS | SIM_PEBS_FAULTS | SIM_BTS_FAULTS),
			 SIM_LBR_FAULTS | SIM_PEBS_FAULTS | SIM_BTS_FAULTS);
	assert_int_equal(g->faults, h->faults & ~KVM_HOST_ONLY_FAULTS & ~SIM_LBR_FAULTS &
					~SIM_BTS_FAULTS & ~SIM_F(SF_EVENT_DEAD));
	assert_int_equal(sim_start(KVM, SF_LBR_OFF_BY_ONE), -1);
	assert_int_equal(sim_start(SPR, SF_IBS_RIP_OUTSIDE), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bare_metal_enumerates), cmocka_unit_test(guest_enumerates),
	    cmocka_unit_test(adaptive_pebs_bits),    cmocka_unit_test(guest_registers),
	    cmocka_unit_test(guest_status_set),	     cmocka_unit_test(faults),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
