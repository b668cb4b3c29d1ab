/* Model "sapphirerapids-kvm": what KVM's perf-based vPMU (not the mediated
 * PMU) gives a guest started with -cpu host on a Sapphire Rapids host
 * (model_arch_models.c "sapphirerapids", wrapped as model_kvm.c wraps
 * Skylake). Sources: Linux arch/x86/kvm pmu.c, pmu.h, cpuid.c, x86.c,
 * vmx/pmu_intel.c, vmx/vmx.c, vmx/capabilities.h (L: below).
 *  - CPUID.0AH: version 2 (L:pmu.h kvm_init_pmu_capability "min(...,
 *    2)"), the host's 8 GP counters of 48 bits, 3 fixed counters
 *    (KVM_PMC_MAX_FIXED; L:pmu_intel.c fixed_pmc_events has no
 *    TOPDOWN.SLOTS before the mediated vPMU), ECX 0 and AnyThread
 *    deprecated (L:cpuid.c __do_cpuid_func case 0xa).
 *  - PERF_CAPABILITIES (L:vmx.c vmx_get_perf_capabilities): full-width
 *    writes and the host's PEBS fields (trap, arch regs, format 4,
 *    baseline: PERF_CAP_PEBS_MASK where vmx_pebs_supported); no LBR format,
 *    as the host's LBRs are architectural and KVM does not advertise
 *    ARCH_LBR; no SMM freeze, no PERF_METRICS.
 *  - Guest PEBS (Linux 5.16, "KVM: x86/pmu: Add IA32_PEBS_ENABLE MSR
 *    emulation for extended PEBS" and its series): PEBS_ENABLE,
 *    DS_AREA and PEBS_DATA_CFG are emulated (sim_smp_spr_kvm, sim_ds.c);
 *    with PEBS_BASELINE event select bit 34 and FIXED_CTR_CTRL bits
 *    32 + 4i are not reserved (L:pmu_intel.c intel_pmu_refresh
 *    "reserved_bits &= ~ICL_EVENTSEL_ADAPTIVE", ICL_FIXED_0_ADAPTIVE);
 *    MISC_ENABLE says BTS unavailable, PEBS available, both read-only
 *    (L:x86.c MSR_IA32_MISC_ENABLE_PMU_RO_MASK: a write that changes them
 *    #GPs). The PEBS buffer's PMI sets GLOBAL_STATUS bit 62 in KVM's copy
 *    of the guest's status (L:pmu.c __kvm_perf_overflow
 *    GLOBAL_STATUS_BUFFER_OVF_BIT): kvm_spr_status_set.
 *  - DEBUGCTL (L:vmx.c vmx_get_supported_debugctl, vmx_is_valid_debugctl):
 *    without an LBR format LBR and BTF are dropped without a fault; every
 *    other bit #GPs (no bus-lock detection enumerated).
 *  - The rest as skylake-kvm's (model_kvm.c): reserved bits #GP, RDPMC
 *    #GPs the fast flag and an index past the guest's counters,
 *    GLOBAL_CTRL resets with every GP enable set, MSR_SMI_COUNT is KVM's,
 *    intercepted instructions KVM emulates are counted. */
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "model_kvm.h"

#define SPR_GP	  8 /* the host's GP counters (KVM_INTEL_PMC_MAX_GENERIC is 8) */
#define SPR_FIXED 3 /* KVM_PMC_MAX_FIXED */
#define SPR_WIDTH 48
/* Adaptive PEBS's select bits (Linux perf_event.h ICL_EVENTSEL_ADAPTIVE,
 * ICL_FIXED_0_ADAPTIVE shifted 4i) */
#define SPR_SEL_ADAPTIVE (1ull << 34)
#define SPR_FIX_ADAPTIVE (1ull << 32 | 1ull << 36 | 1ull << 40)
/* KVM's reserved bits for this guest (L:pmu_intel.c intel_pmu_refresh):
 * EVNTSEL 63:32 and 21 (AnyThread) but bit 34; no RTM on the host, so
 * IN_TX and IN_TXCP stay reserved; FIXED_CTR_CTRL's OS, USR, PMI and
 * adaptive bits of 3 counters; GLOBAL_CTRL the counters;
 * GLOBAL_OVF_CTRL the counters and 62-63. */
#define SPR_SEL_RSVD	  (0xffffffff00200000ull & ~SPR_SEL_ADAPTIVE)
#define SPR_FIXED_CTRL_OK (0xbbbull | SPR_FIX_ADAPTIVE)
#define SPR_GLOBAL_OK	  (0xffull | 0x7ull << 32)
#define SPR_OVF_OK	  (SPR_GLOBAL_OK | 3ull << 62)
#define SPR_WIDTH_MASK	  ((1ull << SPR_WIDTH) - 1)
#define SPR_PEBS_FMT	  (4ull << 8)
#define SPR_PERF_CAPS                                                                              \
	(PERF_CAP_FW_WRITE | PERF_CAP_PEBS_TRAP | PERF_CAP_PEBS_ARCH | SPR_PEBS_FMT |              \
	 PERF_CAP_PEBS_BASE)
#define SPR_MISC_RO	(MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL)
#define SPR_DBG_DROPPED (DEBUGCTL_LBR | DEBUGCTL_BTF)
#define RDPMC_FIXED	(1u << 30)
#define RDPMC_FAST	(1u << 31)
#define RDPMC_INDEX	0xffffu
#define EV_INST_RETIRED 0xc0
#define EV_MASK		0xffffull /* event select and unit mask */
#define FIXED_CTR3	(MSR_FIXED_CTR0 + 3)
#define FIXED0_OS	1ull
#define GLOBAL_FIXED0	(1ull << 32)

/* An instruction KVM intercepted and emulated retires in every enabled
 * counter whose event is instructions retired and whose OS bit matches
 * CPL 0 (L:pmu.c kvm_pmu_trigger_event via kvm_skip_emulated_instruction),
 * fixed counter 0 among them (fixed_pmc_events). */
static void spr_emulated(struct sim_cpu *s)
{
	if (!sim_real(s, SE_OVERHEAD))
		return;
	uint64_t g = sim_host_msr(s, MSR_PERF_GLOBAL_CTRL);
	if (!g)
		return; /* nothing counts */
	for (unsigned i = 0; i < SPR_GP; i++) {
		if (!((g >> i) & 1))
			continue;
		uint64_t sel = sim_host_msr(s, MSR_P6_EVNTSEL0 + i);
		if ((sel & EVTSEL_EN) && (sel & EVTSEL_OS) && (sel & EV_MASK) == EV_INST_RETIRED)
			sim_ctr_bump(s, i, 1);
	}
	if ((g & GLOBAL_FIXED0) && (sim_host_msr(s, MSR_FIXED_CTR_CTRL) & FIXED0_OS))
		sim_ctr_bump(s, SPR_GP, 1);
}

/* The host's registers this guest does not have: GLOBAL_STATUS_SET (v4),
 * TSX_FORCE_ABORT, PERF_METRICS (KVM_NA_HOST_ONLY), fixed counter 3. */
static bool spr_absent(uint32_t msr)
{
	return msr == MSR_PERF_GLOBAL_STATUS_SET || msr == MSR_TSX_FORCE_ABORT ||
	       msr == MSR_PERF_METRICS || msr == FIXED_CTR3;
}

/* Whether a write is one KVM refuses with #GP (reserved bits, read-only
 * bits); what DEBUGCTL keeps goes back through v. */
static bool spr_refused(const struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + SPR_GP)
		return (*v & SPR_SEL_RSVD) != 0;
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + SPR_GP) /* full-width-no-gp: taken */
		return (*v & ~SPR_WIDTH_MASK) != 0 && !sim_has_fault(s, SF_FULL_WIDTH_NO_GP);
	switch (msr) {
	case MSR_FIXED_CTR_CTRL:
		return (*v & ~SPR_FIXED_CTRL_OK) != 0;
	case MSR_PERF_GLOBAL_CTRL:
		return (*v & ~SPR_GLOBAL_OK) != 0;
	case MSR_PERF_GLOBAL_OVF_CTRL:
		return (*v & ~SPR_OVF_OK) != 0;
	case MSR_IA32_MISC_ENABLE:
		return ((s->reg[REG_KVM_MISC] ^ *v) & SPR_MISC_RO) != 0;
	case MSR_DEBUGCTL:
		*v &= ~SPR_DBG_DROPPED;
		return *v != 0;
	default:
		return spr_absent(msr);
	}
}

static int kvm_spr_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	int st = HW_OK;

	if (spr_absent(msr))
		return HW_FAULT_GP;
	switch (msr) {
	case MSR_DEBUGCTL:
		*v = s->reg[REG_KVM_DEBUGCTL];
		break;
	case MSR_SMI_COUNT: /* SMIs KVM injected: none */
		*v = 0;
		break;
	case MSR_PERF_CAPABILITIES:
		*v = SPR_PERF_CAPS;
		break;
	case MSR_IA32_MISC_ENABLE:
		*v = s->reg[REG_KVM_MISC];
		break;
	default:
		st = sim_host_rdmsr(s, msr, v);
		/* KVM keeps the PC bit the host's core reserves */
		if (st == HW_OK && msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + SPR_GP &&
		    (s->reg[REG_KVM_SEL_PC] >> (msr - MSR_P6_EVNTSEL0) & 1))
			*v |= EVTSEL_PC;
	}
	if (st == HW_OK)
		spr_emulated(s);
	return st;
}

static int kvm_spr_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	int st = HW_OK;

	if (spr_refused(s, msr, &v))
		return HW_FAULT_GP;
	if (msr == MSR_DEBUGCTL)
		s->reg[REG_KVM_DEBUGCTL] = v;
	else if (msr == MSR_SMI_COUNT)
		return HW_FAULT_GP;	      /* writable by the host only */
	else if (msr == MSR_IA32_MISC_ENABLE) /* EMON is read-only, its writes ignored */
		s->reg[REG_KVM_MISC] = (v & ~MISC_ENABLE_EMON) | MISC_ENABLE_EMON;
	else
		st = sim_host_wrmsr(s, msr, v);
	if (st == HW_OK && msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + SPR_GP) {
		uint64_t b = 1ull << (msr - MSR_P6_EVNTSEL0);
		s->reg[REG_KVM_SEL_PC] =
		    (v & EVTSEL_PC) ? s->reg[REG_KVM_SEL_PC] | b : s->reg[REG_KVM_SEL_PC] & ~b;
	}
	if (st == HW_OK)
		spr_emulated(s);
	return st;
}

/* RDPMC: the "fast" flag is reserved on architectural PMUs, the type in
 * ECX[31:16] is 0 (GP) or 4000h (fixed), the index below the guest's
 * counters of that type (L:pmu_intel.c intel_rdpmc_ecx_to_pmc). */
static int kvm_spr_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	if ((ecx & RDPMC_FAST) || (ecx & ~(RDPMC_FIXED | RDPMC_INDEX)) ||
	    ((ecx & RDPMC_FIXED) && (ecx & RDPMC_INDEX) >= SPR_FIXED))
		return HW_FAULT_GP;
	int st = sim_host_rdpmc(s, ecx, v);
	if (st == HW_OK)
		spr_emulated(s); /* the perf-based vPMU intercepts RDPMC */
	return st;
}

void kvm_spr_status_set(struct sim_cpu *s, uint64_t bits)
{
	/* KVM sets the guest's status bits in its own copy; the guest's
	 * counters are the host's, whose status holds them. A v2 guest's
	 * status has no LBR_FRZ or CTR_FRZ (L:pmu_intel.c global_status_rsvd). */
	(void)sim_host_wrmsr(s, MSR_PERF_GLOBAL_STATUS_SET, bits & SPR_OVF_OK);
}

/* CPUID.0AH as KVM builds it (header); the host's counters left as the
 * guest's firmware finds them: none counting, GLOBAL_CTRL at its RESET
 * value with every GP enable set (L:pmu.c 7b46b733bdb4); fixed counter 3,
 * which the guest cannot reach, out of the simulator's counters. */
static void kvm_spr_reset(struct sim_cpu *s)
{
	sim_host_reset(s);
	sim_set_cpuid(s, CPUID_LEAF_PERFMON, 0,
		      2u | SPR_GP << 8 | (uint32_t)SPR_WIDTH << 16 | 7u << 24, 0, 0,
		      SPR_FIXED | (uint32_t)SPR_WIDTH << 5 | CPUID_0A_EDX_ANYTHREAD_DEPRECATED);
	kvm_guest_identity(s, "Simulated Intel Xeon Platinum 8480+ (KVM guest)");
	s->reg[REG_KVM_MISC] = MISC_ENABLE_EMON | MISC_ENABLE_BTS_UNAVAIL;
	for (unsigned i = 0; i < SPR_GP; i++) {
		sim_host_wrmsr(s, MSR_P6_EVNTSEL0 + i, 0);
		sim_host_wrmsr(s, MSR_P6_PERFCTR0 + i, 0);
	}
	sim_host_wrmsr(s, MSR_FIXED_CTR_CTRL, 0);
	s->n_ctr = SPR_GP + SPR_FIXED;
	sim_host_wrmsr(s, MSR_PERF_GLOBAL_CTRL, (1ull << SPR_GP) - 1);
}

/* Numbers: the bare-metal Sapphire Rapids' (model_arch_models.c
 * si_sapphirerapids: Golden Cove, rr's 125-branch skid bound); as on
 * skylake-kvm, VM-exits add nothing on Intel, no late ack (KVM raises a
 * guest PMI only for an overflow), host SMIs counted (the host's
 * freeze_on_smi off by default), the guest's MSR_SMI_COUNT KVM's. */
static const struct sim_silicon kvm_si_spr = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 8,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 125, /* rr skid_size, IntelSapphireRapid (the host) */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: every x86 but NetBurst */
    .smm_counts = true, /* the host's freeze_on_smi off (Linux default) */
    .turbo_x100 = 150,	/* the host's core clock */
};

/* The host's applicability (model_arch_models.c sapphirerapids) less what
 * a guest cannot have: KVM_HOST_ONLY_FAULTS, the LBRs and the BTS, and a
 * dead event, which a guest cannot tell from its hypervisor's filter. */
#define SPR_KVM_FAULTS                                                                             \
	(((SIM_F(SF_COUNT) - 1) & ~SIM_F(SF_NONE) & ~KVM_HOST_ONLY_FAULTS) &                       \
	 ~(SIM_F(SF_SPFLT_IGNORED) | SIM_F(SF_ALIAS_BROKEN) | SIM_F(SF_FAST_RDPMC_FULL) |          \
	   SIM_F(SF_IN_TX_IGNORED) | SIM_F(SF_EMULATED_UNCOUNTED) | SIM_F(SF_EVENT_DEAD) |         \
	   SIM_F(SF_UMASK_IGNORED) | SIM_F(SF_MISS_COUNTS_HITS) | SIM_LBR_FAULTS |                 \
	   SIM_BTS_FAULTS | SIM_IBS_FAULTS))
#define SPR_NA_NO_CACHES                                                                           \
	"the host model publishes no caches (CPUID 04H): the harness skips the memory rules "      \
	"that would catch it"

static const struct sim_model sapphirerapids_kvm = {
    .name = "sapphirerapids-kvm",
    .host = "sapphirerapids",
    .doc = "KVM guest on Sapphire Rapids (-cpu host): Linux arch/x86/kvm pmu.c, vmx/pmu_intel.c "
	   "(guest PEBS, 5.16), vmx.c; arch perfmon v2",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = SPR_KVM_FAULTS,
    .fault_na = {KVM_NA_HOST_ONLY, SIM_NA_FAMILY_REGS,
		 SIM_NA_TSX_FEP(SIM_NA_NO_RTM " on the host model (model_arch_models.c)"),
		 SIM_NA_LBR("no architectural LBRs in a KVM guest: KVM does not advertise "
			    "ARCH_LBR and gives no LBR format (ours; Linux kvm/vmx/vmx.c "
			    "vmx_get_perf_capabilities)"),
		 SIM_NA_BTS("KVM reports BTS unavailable in MISC_ENABLE (Linux kvm/vmx/vmx.c)"),
		 SIM_NA_IBS(SIM_NA_IBS_AMD), [SF_UMASK_IGNORED] = SPR_NA_NO_CACHES,
		 [SF_MISS_COUNTS_HITS] = SPR_NA_NO_CACHES,
		 [SF_EVENT_DEAD] = "in a guest an event that counts 0 on every counter while "
				   "instructions count is the hypervisor's filter, a "
				   "pmu.restricted line (tests/hv_policy.c)",
		 [SF_FAST_RDPMC_FULL] = "KVM #GPs RDPMC with ECX[31] on architectural PMUs "
					"(L:pmu_intel.c intel_rdpmc_ecx_to_pmc), as the host "
					"does: no fast read"},
    .reset = kvm_spr_reset,
    .rdmsr = kvm_spr_rdmsr,
    .wrmsr = kvm_spr_wrmsr,
    .rdpmc = kvm_spr_rdpmc,
    .rate = sim_host_rate,
    .overflow = sim_host_overflow,
    .lvt_automask = true, /* L:lapic.c kvm_apic_local_deliver (model_kvm.c) */
    .pending = sim_host_pending,
    .si = &kvm_si_spr,
    .smp = &sim_smp_spr_kvm,
};
SIM_MODEL(sapphirerapids_kvm);
