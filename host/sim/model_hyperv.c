/* Model "hyperv": a generation 2 guest of Hyper-V (Windows Server 2022,
 * 10.0.20348) on the bare-metal "skylake" (model_arch.c) without
 * performance monitoring hardware, the default: Set-VMProcessor -Perfmon
 * was never given (Microsoft Learn, "Enable Intel Performance Monitoring
 * Hardware in a Hyper-V Virtual Machine": off unless enabled per VM).
 *  - CPUID: 4000_0000h "Microsoft Hv", 4000_0001h "Hv#1", 4000_0002h the
 *    version: EAX the build, EBX major << 16 | minor (Hyper-V TLFS,
 *    "Hypervisor Version Information"; Linux arch/x86/include/asm/
 *    hyperv-tlfs.h HYPERV_CPUID_VERSION). The highest leaf and the
 *    privilege and feature bits of 4000_0003h: ours, what a generation 2
 *    VM is commonly given. Leaf 0AH empty: no architectural perfmon.
 *  - MSRs: every PMU MSR and RDPMC raise #GP (ours: no public source says
 *    what a guest without -Perfmon gets; the TLFS documents only the
 *    synthetic MSRs). IA32_MISC_ENABLE without EMON (ours), the
 *    microcode revision all ones (ours). */
#include "model_hv.h"

#define REG_HYV_DEBUGCTL REG_HV(0)

#define HYV_BUILD 20348u
#define HYV_MAJOR 10u
#define HYV_MINOR 0u

static void hyv_reset(struct sim_cpu *s)
{
	sim_host_reset(s);
	hv_guest_identity(s, "Simulated Intel Core i7-6700 (Hyper-V guest)");
	sim_set_cpuid(s, CPUID_LEAF_PERFMON, 0, 0, 0, 0, 0);
	hv_signature(s, 0x40000000u, 0x4000000bu, "Microsoft Hv");
	sim_set_cpuid(s, 0x40000001u, 0, 0x31237648u /* "Hv#1" */, 0, 0, 0);
	sim_set_cpuid(s, 0x40000002u, 0, HYV_BUILD, HYV_MAJOR << 16 | HYV_MINOR, 0, 0);
	/* ours: VP runtime, reference counter, SynIC, synthetic timers, APIC,
	 * hypercall, VP index, reference TSC, idle, frequency MSRs */
	sim_set_cpuid(s, 0x40000003u, 0, 0x2e7fu, 0, 0, 0);
	sim_set_cpuid(s, 0x40000005u, 0, 0x800u, 0x40u, 0, 0); /* ours: limits */
	/* no counter exists in the guest: none of the host's is visible */
	hv_host_pmu_idle(s, 4, 3);
	s->n_ctr = 0;
	s->reg[REG_HYV_DEBUGCTL] = 0;
}

static int hyv_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	switch (msr) {
	case MSR_IA32_MISC_ENABLE:
		*v = MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL;
		return HW_OK;
	case MSR_IA32_BIOS_SIGN_ID:
		*v = 0xffffffffull << 32;
		return HW_OK;
	case MSR_DEBUGCTL:
		*v = s->reg[REG_HYV_DEBUGCTL];
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

static int hyv_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	switch (msr) {
	case MSR_IA32_MISC_ENABLE: /* ours: the value read back, or #GP */
		return v == (MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL) ? HW_OK : HW_FAULT_GP;
	case MSR_IA32_BIOS_SIGN_ID:
		return v ? HW_FAULT_GP : HW_OK;
	case MSR_DEBUGCTL: /* ours: no LBR without -Perfmon lbr; BTF held */
		if (v & ~2ull)
			return HW_FAULT_GP;
		s->reg[REG_HYV_DEBUGCTL] = v;
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

static int hyv_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	(void)s;
	(void)ecx;
	*v = 0;
	return HW_FAULT_GP;
}

/* Numbers: the host's for the harness's own code (model_arch.c); nothing
 * counts. */
static const struct sim_silicon si_hyperv =
    SI_SKYLAKE(.turbo_x100 = 120, /* the host's core clock (model_arch.c si_skylake) */
    );

static const struct sim_model hyperv = {
    .name = "hyperv",
    .host = "skylake",
    .doc = "Hyper-V 10.0.20348 generation 2 guest on Skylake without -Perfmon: CPUID.0AH "
	   "empty, PMU MSRs and RDPMC #GP (ours); Hyper-V TLFS leaves 4000_0000h-2h",
    .driver = PMU_DRV_NONE,
    .faults = 0,
    .fault_na = {SIM_NA_PINNED},
    .reset = hyv_reset,
    .rdmsr = hyv_rdmsr,
    .wrmsr = hyv_wrmsr,
    .rdpmc = hyv_rdpmc,
    .rate = sim_no_rate,
    .overflow = sim_no_overflow,
    .lvt_automask = true, /* ours: the host's APIC behaviour */
    .si = &si_hyperv,
    .pinned_by = SIM_PINNED_BY,
};
SIM_MODEL(hyperv);
