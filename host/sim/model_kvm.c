/* Models "skylake-kvm" and "zen4-kvm": what KVM's perf-based vPMU (the
 * default one, not the mediated PMU) gives a guest started with -cpu host on
 * a Skylake and on a Zen 4 host, under OVMF. Each wraps its host's
 * bare-metal model (model_arch.c "skylake", model_amd_core.c "zen4", found
 * in the registry) and applies KVM's rules around it. Sources: Linux
 * arch/x86/kvm/pmu.c, vmx/pmu_intel.c, vmx/vmx.c, svm/pmu.c, svm/svm.c,
 * lapic.c, x86.c (L: below), kvm-unit-tests x86/pmu.c and its history (K:).
 *  - CPUID.1:ECX[31] and leaf 4000_0000h "KVMKVMKVM\0\0\0" (KVM's CPUID
 *    signature, Documentation/virt/kvm/x86/cpuid.rst).
 *  - Intel: arch perfmon capped at version 2 (L:pmu.c kvm_init_pmu_capability
 *    "min(kvm_pmu_cap.version, 2)"): no GLOBAL_STATUS_SET, no AnyThread.
 *    Reserved bits #GP (L:pmu.c kvm_pmu_set_msr: "Intel generates #GP on
 *    attempts to write reserved/RO MSRs"), 0x4C1+i takes only the counter
 *    width (L:pmu_intel.c intel_pmu_set_msr), RDPMC #GPs for an index past
 *    the guest's counters and for the "fast" flag (L:pmu_intel.c
 *    intel_rdpmc_ecx_to_pmc, "Disallow fast RDPMC for architectural Intel
 *    PMUs", 6.9), DEBUGCTL takes no FREEZE_PERFMON_ON_PMI (L:vmx.c
 *    vmx_get_supported_debugctl), LVTPC masked on delivery (L:lapic.c
 *    kvm_apic_local_deliver, a16eb25b09c0 "Mask LVTPC when handling a PMI").
 *  - AMD: PerfMonV2 since 6.5 (4a2771895ca6 "Add AMD PerfMonV2 support");
 *    reserved bits and read-only MSRs are ignored, not #GP (L:pmu.c); RDPMC
 *    reaches the 6 core counters only (L:svm/pmu.c amd_check_rdpmc_early);
 *    LVTPC is not masked on delivery (lapic.c, "Do not mask LVTPC when
 *    handling a PMI on AMD platforms", 2024).
 *  - Both: GLOBAL_CTRL resets with every GP enable set (7b46b733bdb4, 6.9;
 *    K:0bd5a078 zeroes it for that reason); MSR_SMI_COUNT is KVM's count of
 *    SMIs injected into the guest, never the host's (L:x86.c
 *    kvm_get_msr_common); nothing is left behind by the firmware.
 * The handlers are shared (model_kvm.h) with the configurations and older
 * releases of model_kvm_policy.c and model_kvm_eras.c. */
#include "../../apic/apic.h"
#include "../../pmu/msr.h"
#include "amd_sim.h"
#include "model_kvm.h"

/* REG_KVM_SEL_PC: KVM keeps the guest's PC bit (L:pmu_intel.c
 * reserved_bits leaves bit 19 out), the host's Sandy Bridge or later core
 * keeps it reserved. */
#define SKL_GP		  KVM_SKL_GP /* the host's 4 GP counters (CPUID.0AH below) */
#define ZEN_CTRS	  KVM_ZEN_CTRS
#define INTEL_RDPMC_FIXED (1u << 30)
#define INTEL_RDPMC_FAST  (1u << 31)
#define MISC_BTS_UNAVAIL  (1ull << 11)
#define MISC_PEBS_UNAVAIL (1ull << 12)

/* ---- shared by both guests ---------------------------------------------- */

/* KVM's two leaves at base (4000_0000h, or 4000_0100h behind Hyper-V's):
 * the signature, and KVM_FEATURE_* bits in base + 1 EAX (clocksource,
 * nop-io-delay, clocksource2, async-pf, steal-time, pv-eoi, pv-unhalt,
 * clocksource-stable). */
void kvm_cpuid_leaves(struct sim_cpu *s, uint32_t base)
{
	sim_set_cpuid(s, base, 0, base + 1, 0x4b4d564bu /* "KVMK" */, 0x564b4d56u /* "VMKV" */,
		      0x0000004du /* "M\0\0\0" */);
	sim_set_cpuid(s, base + 1, 0, 0x010000fbu, 0, 0, 0);
}

/* CPUID of a KVM guest: the hypervisor bit and KVM's leaves. OVMF keeps
 * the local APIC in xAPIC mode (x2APIC only for APIC IDs above 255). */
void kvm_guest_identity(struct sim_cpu *s, const char *brand)
{
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == 1)
			s->cpuid[i].r.ecx |= 1u << 31;
	kvm_cpuid_leaves(s, 0x40000000u);
	if (brand) /* -cpu host passes the host's brand string on */
		sim_brand(s, brand);
	s->apic_base &= ~APIC_BASE_X2APIC;
	/* Leaf 6 is ARAT alone (L:cpuid.c __do_cpuid_func, case 6): no
	 * MPERF/APERF, whose reads #GP (a VMM may opt into passing them
	 * through, KVM_X86_DISABLE_EXITS_APERFMPERF; the default guest has
	 * neither). */
	sim_set_cpuid(s, 6, 0, 1u << 2, 0, 0, 0);
	s->aperfmperf = false;
	/* QEMU's firmware leaves no counter running and no LIMIT_CPUID, and
	 * KVM does not implement LIMIT_CPUID. */
	s->real.limit_cpuid = false;
	s->reg[REG_KVM_DEBUGCTL] = 0;
	s->reg[REG_KVM_SEL_PC] = 0;
}

/* KVM's increment of counter i for an instruction it emulated, noted for
 * the eras that mishandled it (model_kvm_eras.c). */
static void bump(struct sim_cpu *s, unsigned i)
{
	s->reg[REG_KVM_BUMPED] |= 1ull << i;
	sim_ctr_bump(s, i, 1);
}

/* An instruction KVM intercepted and emulated retires in every enabled
 * counter whose event is "instructions retired" and whose OS bit matches
 * CPL 0, with the counter mask, invert and edge bits ignored (L:pmu.c
 * kvm_pmu_trigger_event via kvm_skip_emulated_instruction). sel is the
 * event select, 0 when the counter does not count it. */
static void emulated_retired(struct sim_cpu *s, unsigned i, uint64_t sel, uint64_t ev_mask)
{
	if ((sel & EVTSEL_EN) && (sel & EVTSEL_OS) && (sel & ev_mask) == 0xc0)
		bump(s, i);
}

/* ---- skylake-kvm -------------------------------------------------------- */

/* KVM's reserved bits for a v2 guest with 4 GP and 3 fixed counters
 * (L:pmu_intel.c intel_pmu_refresh): EVNTSEL bits 63:32 and 21 (AnyThread:
 * v3), FIXED_CTR_CTRL fields without AnyThread, GLOBAL_CTRL counters only,
 * GLOBAL_OVF_CTRL counters plus 62-63; TSX's IN_TX bits below. */
#define SKL_SEL_RSVD	  0xffffffff00200000ull
#define SKL_FIXED_CTRL_OK 0xbbbull
#define SKL_GLOBAL_OK	  (0xfull | 0x7ull << 32)
#define SKL_OVF_OK	  (SKL_GLOBAL_OK | 3ull << 62)
#define SKL_WIDTH_MASK	  ((1ull << 48) - 1)

/* With HLE or RTM in the guest's CPUID (the Skylake host's, -cpu host) KVM
 * frees IN_TX on every GP counter and IN_TXCP on counter 2 only
 * (L:pmu_intel.c intel_pmu_refresh "reserved_bits ^= HSW_IN_TX",
 * intel_pmu_set_msr "pmc->idx == 2 ... HSW_IN_TX_CHECKPOINTED"). */
static uint64_t skl_sel_rsvd(unsigned i)
{
	return SKL_SEL_RSVD & ~EVTSEL_IN_TX & ~(i == 2 ? EVTSEL_IN_TXCP : 0);
}

static void skl_emulated(struct sim_cpu *s)
{
	if (!sim_real(s, SE_OVERHEAD))
		return;
	uint64_t g = sim_host_msr(s, MSR_PERF_GLOBAL_CTRL),
		 fc = sim_host_msr(s, MSR_FIXED_CTR_CTRL);
	/* a counter the VM's event filter denies is not bumped (L:pmu.c
	 * kvm_pmu_trigger_event, pmc_event_is_allowed; dfdeda67ea2d "KVM:
	 * x86/pmu: Prevent the PMU from counting disallowed events", 6.4) */
	for (unsigned i = 0; i < SKL_GP; i++)
		if (((g >> i) & 1) && kvm_skl_allowed(s, i))
			emulated_retired(s, i, sim_host_msr(s, MSR_P6_EVNTSEL0 + i), 0xffff);
	/* fixed counter 0 counts instructions retired (L:pmu_intel.c
	 * fixed_pmc_events) */
	if (((g >> 32) & 1) && (fc & 1) && kvm_skl_allowed(s, SKL_GP))
		bump(s, SKL_GP);
}

/* Whether a write is one KVM refuses with #GP (reserved bits, read-only or
 * absent registers), and what DEBUGCTL keeps. */
static bool skl_refused(const struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + SKL_GP)
		return (*v & skl_sel_rsvd(msr - MSR_P6_EVNTSEL0)) != 0;
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + SKL_GP) /* full-width-no-gp: taken */
		return (*v & ~SKL_WIDTH_MASK) != 0 && !sim_has_fault(s, SF_FULL_WIDTH_NO_GP);
	switch (msr) {
	case MSR_FIXED_CTR_CTRL:
		return (*v & ~SKL_FIXED_CTRL_OK) != 0;
	case MSR_PERF_GLOBAL_CTRL:
		return (*v & ~SKL_GLOBAL_OK) != 0;
	case MSR_PERF_GLOBAL_OVF_CTRL:
		return (*v & ~SKL_OVF_OK) != 0;
	case MSR_PERF_GLOBAL_STATUS_SET: /* v4 only: not in a v2 guest */
	case MSR_TSX_FORCE_ABORT:
		return true;
	case MSR_DEBUGCTL:
		/* With LBR virtualization (the guest's PERF_CAPABILITIES has an
		 * LBR format) LBR and FREEZE_LBRS_ON_PMI are kept; BTF is
		 * dropped; every other bit, FREEZE_PERFMON_ON_PMI (12) and
		 * FREEZE_IN_SMM (14) included, is #GP (L:vmx.c
		 * vmx_get_supported_debugctl, vmx_set_msr). */
		*v &= ~DEBUGCTL_BTF;
		return (*v & ~(DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI)) != 0;
	default:
		return false;
	}
}

int kvm_skl_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	int st = HW_OK;

	switch (msr) {
	case MSR_PERF_GLOBAL_STATUS_SET:
	case MSR_TSX_FORCE_ABORT:
		return HW_FAULT_GP;
	case MSR_DEBUGCTL:
		*v = s->reg[REG_KVM_DEBUGCTL];
		break;
	case MSR_SMI_COUNT: /* SMIs KVM injected: none */
		*v = 0;
		break;
	case MSR_PERF_CAPABILITIES: /* full-width writes and the host's LBR
				     * format (L:vmx/capabilities.h
				     * vmx_get_perf_capabilities) */
		*v = PERF_CAP_FW_WRITE |
		     (s->m->smp && s->m->smp->lbr_kind ? s->m->smp->lbr_format : 0);
		break;
	case MSR_IA32_MISC_ENABLE:
		*v = s->reg[REG_KVM_MISC];
		break;
	default:
		st = sim_host_rdmsr(s, msr, v);
		if (st == HW_OK && msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + SKL_GP &&
		    (s->reg[REG_KVM_SEL_PC] >> (msr - MSR_P6_EVNTSEL0) & 1))
			*v |= EVTSEL_PC;
	}
	if (st == HW_OK)
		skl_emulated(s);
	return st;
}

int kvm_skl_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	int st = HW_OK;

	if (skl_refused(s, msr, &v))
		return HW_FAULT_GP;
	if (msr == MSR_DEBUGCTL)
		s->reg[REG_KVM_DEBUGCTL] = v;
	else if (msr == MSR_SMI_COUNT)
		return HW_FAULT_GP;	      /* writable by the host only */
	else if (msr == MSR_IA32_MISC_ENABLE) /* EMON is read-only (L:x86.c) */
		s->reg[REG_KVM_MISC] = (v & ~MISC_ENABLE_EMON) | MISC_ENABLE_EMON;
	else
		st = sim_host_wrmsr(s, msr, v);
	if (st == HW_OK && msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + SKL_GP) {
		uint64_t b = 1ull << (msr - MSR_P6_EVNTSEL0);
		s->reg[REG_KVM_SEL_PC] =
		    (v & EVTSEL_PC) ? s->reg[REG_KVM_SEL_PC] | b : s->reg[REG_KVM_SEL_PC] & ~b;
	}
	if (st == HW_OK)
		skl_emulated(s);
	return st;
}

int kvm_skl_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	/* The "fast" flag is reserved on architectural PMUs; the type in
	 * ECX[31:16] is 0 (GP) or 4000h (fixed). */
	if ((ecx & INTEL_RDPMC_FAST) || (ecx & ~(INTEL_RDPMC_FIXED | 0xffffu)))
		return HW_FAULT_GP;
	int st = sim_host_rdpmc(s, ecx, v);
	if (st == HW_OK)
		skl_emulated(s); /* the legacy vPMU intercepts RDPMC */
	return st;
}

/* CPUID.0AH as KVM builds it from the host (L:cpuid.c): version 2, 4 GP x
 * 48 bits, mask length 7, 3 fixed x 48 bits. PERF_CAPABILITIES keeps
 * full-width writes (L:vmx.c vmx_get_perf_capabilities); LBR format and
 * PEBS need QEMU's lbr-fmt and Ice Lake, and are absent. */
void kvm_skl_reset(struct sim_cpu *s)
{
	sim_host_reset(s);
	sim_set_cpuid(s, 0x0a, 0, 2u | SKL_GP << 8 | 48u << 16 | 7u << 24, 0, 0, 3u | 48u << 5);
	kvm_guest_identity(s, "Simulated Intel Core i7-6700 (KVM guest)");
	s->reg[REG_KVM_MISC] = MISC_ENABLE_EMON | MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL;
	for (unsigned i = 0; i < SKL_GP; i++) {
		sim_host_wrmsr(s, MSR_P6_EVNTSEL0 + i, 0);
		sim_host_wrmsr(s, MSR_P6_PERFCTR0 + i, 0);
	}
	sim_host_wrmsr(s, MSR_FIXED_CTR_CTRL, 0);
	/* TSX_FORCE_ABORT belongs to the host: KVM exposes neither CPUID.7:
	 * EDX[13] nor MSR 0x10F, and host perf sets it when the guest's
	 * counter 3 needs PMC3 (Linux intel_set_tfa). */
	sim_host_wrmsr(s, MSR_TSX_FORCE_ABORT, 1);
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == 7)
			s->cpuid[i].r.edx &= ~(1u << 13);
	/* At RESET every GP enable is set in GLOBAL_CTRL (7b46b733bdb4). */
	sim_host_wrmsr(s, MSR_PERF_GLOBAL_CTRL, (1ull << SKL_GP) - 1);
}

/* Numbers: the bare-metal Skylake's (model_arch.c); VM-exits add nothing
 * on Intel, where GLOBAL_CTRL is switched at entry and exit and K:x86/pmu.c
 * expects exact instructions and branches in a guest (89126fa4). No late
 * ack: KVM raises a guest PMI only for an overflow, never on an LVTPC
 * unmask. Host SMIs run with the guest's counters on (the host's
 * freeze_on_smi is off by default) and the guest's MSR_SMI_COUNT does not
 * see them. */
const struct sim_silicon kvm_si_skylake =
    SI_SKYLAKE(.smm_counts = true, /* the host's freeze_on_smi off (Linux default) */
	       .turbo_x100 = 120,  /* the host's core clock (model_arch.c si_skylake) */
    );

/* ---- zen4-kvm ----------------------------------------------------------- */

/* PERF_CTL bits KVM keeps (L:svm/pmu.c amd_pmu_refresh reserved_bits
 * 0xfffffff000280000): bit 19, bit 21 and 63:36 are dropped, Guest/HostOnly
 * (40, 41) with them. */
#define ZEN_SEL_KEEP   (~0xfffffff000280000ull)
#define ZEN_EVENT_MASK 0xf0000ffffull /* event[11:0] and unit mask */

static bool zen_ctl(uint32_t msr)
{
	return (msr >= MSR_F15H_PERF_CTL0 && msr < MSR_F15H_PERF_CTL0 + 2 * ZEN_CTRS &&
		!((msr - MSR_F15H_PERF_CTL0) & 1)) ||
	       (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + 4);
}

/* An intercepted instruction on AMD: KVM counts it as emulated (as on
 * Intel, AMD's event 0C0h), and the VMRUN that resumes the guest retires
 * in guest context as one instruction and one branch (K:89126fa4 "AMD CPUs
 * count VMRUN as a branch instruction in guest context"; Sandipan Das, kvm
 * list 2024-07-04: "instructions leading to a VM-Entry or VM-Exit are
 * accounted"). The legacy vPMU intercepts every PMU MSR and RDPMC
 * (L:svm.c init_vmcb). */
static void zen_exit(struct sim_cpu *s)
{
	if (!sim_real(s, SE_OVERHEAD))
		return;
	uint64_t g = sim_host_msr(s, MSR_AMD_GLOBAL_CTL);
	if (!g && !sim_has_fault(s, SF_GLOBAL_CTRL_IGNORED))
		return; /* nothing counts: spare the simulator the retire */
	for (unsigned i = 0; i < ZEN_CTRS; i++)
		if ((g >> i) & 1)
			emulated_retired(s, i, sim_host_msr(s, MSR_F15H_PERF_CTL0 + 2 * i),
					 ZEN_EVENT_MASK);
	sim_retire(s, 1, 1, 0);
}

int kvm_zen_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	int st = HW_OK;

	if (msr == MSR_SMI_COUNT) /* emulated on every vendor (L:x86.c) */
		*v = 0;
	else
		st = sim_host_rdmsr(s, msr, v);
	if (st == HW_OK)
		zen_exit(s);
	return st;
}

int kvm_zen_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	int st = HW_OK;

	/* "AMD ignores writes to reserved bits and read-only PMU MSRs"
	 * (L:pmu.c kvm_pmu_set_msr). */
	if (msr == MSR_AMD_GLOBAL_STATUS)
		st = HW_OK;
	else if (msr == MSR_SMI_COUNT)
		return HW_FAULT_GP;
	else if (msr == MSR_AMD_GLOBAL_CTL)
		st = sim_host_wrmsr(s, msr, v & ((1ull << ZEN_CTRS) - 1));
	else
		st = sim_host_wrmsr(s, msr, zen_ctl(msr) ? v & ZEN_SEL_KEEP : v);
	if (st == HW_OK)
		zen_exit(s);
	return st;
}

int kvm_zen_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	/* The host's data-fabric and L3 indexes (6-15) are not the guest's:
	 * #GP before any intercept (L:pmu.c kvm_pmu_check_rdpmc_early). */
	if (ecx >= ZEN_CTRS)
		return HW_FAULT_GP;
	int st = sim_host_rdpmc(s, ecx, v);
	if (st == HW_OK)
		zen_exit(s);
	return st;
}

/* CPUID 8000_0001h ECX as KVM filters it (L:cpuid.c kvm_set_cpu_caps):
 * LahfLM, CmpLegacy, AltMovCr8, ABM, SSE4A, MisAlignSse, 3DNowPrefetch,
 * OSVW, XOP, FMA4, TBM, TopologyExtensions and PerfCtrExtCore; no
 * PerfCtrExtNB (24) or PerfCtrExtLLC (28): the guest has no data-fabric or
 * L3 counters. 8000_0022h (PerfMonV2, 6 core counters) is the host's. */
#define ZEN_EXT1_ECX_KVM 0x00e10bf3u

void kvm_zen_reset(struct sim_cpu *s)
{
	sim_host_reset(s);
	kvm_guest_identity(s, 0);
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == 0x80000001u)
			s->cpuid[i].r.ecx &= ZEN_EXT1_ECX_KVM;
	for (unsigned i = 0; i < ZEN_CTRS; i++) {
		sim_host_wrmsr(s, MSR_F15H_PERF_CTL0 + 2 * i, 0);
		sim_host_wrmsr(s, MSR_F15H_PERF_CTL0 + 2 * i + 1, 0);
	}
	sim_host_wrmsr(s, MSR_AMD_GLOBAL_CTL, (1ull << ZEN_CTRS) - 1); /* RESET value */
}

/* Numbers: the bare-metal Zen 4's (model_amd_core.c) for the harness's
 * code and skid; each intercepted access adds the VMRUN above. Host
 * interrupts, IPIs and NMIs exit the guest at any time, IF=0 or not, and
 * each exit adds one instruction and one branch to the guest's counts: a
 * window is disturbed by 1-2 events in about 15 % of windows (the host's
 * tick is 1-4 ms; the simulated time is compressed as the firmware timer's
 * is). SMIs are intercepted (L:svm.c intercept_smi) and run in host
 * context: the guest's counters do not count SMM. */
const struct sim_silicon kvm_si_zen4 = {
    .insn_min = 20,	  /* ours: objdump */
    .insn_max = 90,	  /* ours: objdump */
    .cpi_x10 = 6,	  /* ours */
    .skid_min = 50,	  /* ours */
    .skid_max = 800,	  /* ours */
    .skid_cap_br = 10000, /* rr skid_size, Zen 4 (the host) */
    .entry_insn = 45,	  /* ours: the stubs */
    .irq_insn = 1,	  /* ours: the host's (K8 BKDG C0h) */
    .irq_br = 1,	  /* ours: the host's (K8 BKDG C2h) */
    .inexact_max = 2,	  /* the VMRUN of 1-2 exits (ours) */
    .inexact_pm = 150,	  /* ours */
};

/* ---- the models ---------------------------------------------------------- */

/* every fault but a Knights Corner's (no model here hosts a KNC) and the
 * host's own (KVM_HOST_ONLY_FAULTS) */
#define KVM_ALL_FAULTS                                                                             \
	((SIM_F(SF_COUNT) - 1) & ~SIM_F(SF_NONE) & ~SIM_F(SF_SPFLT_IGNORED) & ~KVM_HOST_ONLY_FAULTS)

static const struct sim_model skylake_kvm = {
    .name = "skylake-kvm",
    .host = "skylake",
    .doc = "KVM guest on Skylake (-cpu host): Linux arch/x86/kvm pmu.c, vmx/pmu_intel.c, "
	   "lapic.c; arch perfmon v2",
    .driver = PMU_DRV_INTEL_ARCH,
    /* the host's applicability (model_arch.c skylake), but a dead event: in a
     * guest, an event that counts 0 on every counter while instructions
     * count is what a hypervisor's filter does (tests/hv_policy.c) */
    .faults = KVM_ALL_FAULTS & ~SIM_F(SF_EVENT_DEAD) & ~SIM_F(SF_FAST_RDPMC_FULL) &
	      ~SIM_F(SF_ALIAS_BROKEN) & ~SIM_F(SF_EMULATED_UNCOUNTED) & ~SIM_PEBS_FAULTS &
	      ~SIM_BTS_FAULTS & ~SIM_IBS_FAULTS,
    .fault_na = {KVM_NA_HOST_ONLY, SIM_NA_FAMILY_REGS, [SF_EMULATED_UNCOUNTED] = SIM_NA_NO_FEP,
		 SIM_NA_PEBS("KVM gives a guest PEBS on Ice Lake server hosts and later only "
			     "(Linux kvm/vmx/capabilities.h vmx_pebs_supported)"),
		 SIM_NA_BTS("KVM reports BTS unavailable in MISC_ENABLE (Linux kvm/vmx/vmx.c)"),
		 SIM_NA_IBS(SIM_NA_IBS_AMD),
		 [SF_EVENT_DEAD] = "in a guest an event that counts 0 on every counter while "
				   "instructions count is the hypervisor's filter, a "
				   "pmu.restricted line (tests/hv_policy.c)",
		 [SF_FAST_RDPMC_FULL] = "KVM #GPs RDPMC with ECX[31] on architectural PMUs "
					"(L:pmu_intel.c intel_rdpmc_ecx_to_pmc), as the host "
					"does: no fast read"},
    .reset = kvm_skl_reset,
    .rdmsr = kvm_skl_rdmsr,
    .wrmsr = kvm_skl_wrmsr,
    .rdpmc = kvm_skl_rdpmc,
    .rate = sim_host_rate,
    .overflow = sim_host_overflow,
    .lvt_automask = true,
    .pending = sim_host_pending,
    .si = &kvm_si_skylake,
    .smp = &sim_smp_skylake_kvm,
};
SIM_MODEL(skylake_kvm);

static const struct sim_model zen4_kvm = {
    .name = "zen4-kvm",
    .host = "zen4",
    .doc = "KVM guest on Zen 4 (-cpu host): Linux arch/x86/kvm pmu.c, svm/pmu.c, lapic.c; "
	   "PerfMonV2",
    .driver = PMU_DRV_AMD_CORE,
    /* the host's applicability (model_amd_core.c zen4) */
    .faults = KVM_ALL_FAULTS & ~SIM_F(SF_NO_SIGN_EXTEND) & ~SIM_F(SF_GLOBAL_IGNORED_GP) &
	      ~SIM_F(SF_DUPLICATE_PMI) & ~SIM_EVENT_FAULTS & ~SIM_F(SF_CYCLES_REF) &
	      ~SIM_F(SF_FAST_RDPMC_FULL) & ~SIM_F(SF_FULL_WIDTH_NO_GP) & ~SIM_F(SF_IN_TX_IGNORED) &
	      ~SIM_F(SF_EMULATED_UNCOUNTED) & ~SIM_LBR_FAULTS & ~SIM_PEBS_FAULTS & ~SIM_BTS_FAULTS &
	      ~SIM_IBS_FAULTS,
    .fault_na = {KVM_NA_HOST_ONLY, SIM_NA_SPFLT, SIM_NA_TSX_AMD,
		 SIM_NA_LBR("KVM clears LbrExtV2 from the guest's CPUID 8000_0022h (Linux "
			    "kvm/cpuid.c kvm_set_cpu_caps)"),
		 SIM_NA_PEBS(SIM_NA_DS_INTEL), SIM_NA_BTS(SIM_NA_DS_INTEL),
		 SIM_NA_IBS("KVM gives a guest no IBS: 8000_0001h ECX[10] clear (Linux "
			    "kvm/cpuid.c kvm_set_cpu_caps)"),
		 [SF_NO_SIGN_EXTEND] = "AMD counter writes are full 48-bit width (APM §13.2), "
				       "and KVM writes them whole (L:pmu.c pmc_write_counter)",
		 [SF_GLOBAL_IGNORED_GP] = "no fixed counters (APM Vol. 2 §13.2): every counter "
					  "ignoring GlobalCtl is global-ctrl-ignored",
		 [SF_DUPLICATE_PMI] = "the AMD driver reports a late PMI for an overflow already "
				      "handled (Linux amd_pmu_adjust_nmi_window) instead of "
				      "failing it: a duplicate cannot be told from it",
		 [SF_CYCLES_REF] = SIM_NA_CYCLES_REF, AMD_NA_COUNTER_ACCESS,
		 SIM_NA_EVENT(SIM_NA_NO_RULES " (events/amd_zen.c)")},
    .reset = kvm_zen_reset,
    .rdmsr = kvm_zen_rdmsr,
    .wrmsr = kvm_zen_wrmsr,
    .rdpmc = kvm_zen_rdpmc,
    .rate = sim_host_rate,
    .overflow = sim_host_overflow,
    .lvt_automask = false,
    .pending = sim_host_pending, /* pmi-storm: a stuck flag keeps the request up */
    .si = &kvm_si_zen4,
    .smp = &sim_smp_zen4_kvm,
};
SIM_MODEL(zen4_kvm);
