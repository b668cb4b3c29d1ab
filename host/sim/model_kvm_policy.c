/* KVM guests as a VMM or a cloud configures them, over today's KVM
 * (model_kvm.c's rules). L: below is Linux arch/x86/kvm, Q: QEMU.
 *  - "skylake-kvm-deny": skylake-kvm under a KVM_SET_PMU_EVENT_FILTER deny
 *    list (L:pmu.c kvm_vm_ioctl_set_pmu_event_filter), as a cloud that keeps
 *    tenants from watching shared structures sets one (the list is ours),
 *    started with QEMU's Hyper-V enlightenments (hv-relaxed, hv-vapic,
 *    hv-time) as Windows guests are.
 *  - "skylake-kvm-arch": an allow list of the architectural events that are
 *    not LLC events, Google Compute Engine's ARCHITECTURAL PMU level
 *    (compute v1 API AdvancedMachineFeatures.performanceMonitoringUnit:
 *    "Architecturally defined non-LLC events"; cloud.google.com/compute/
 *    docs/pmu-overview). GCE's mechanism is not public: modelled as KVM's
 *    filter (ours), on a Skylake host where GCE offers the PMU on C4.
 *  - "zen4-kvm-pmuoff": -cpu EPYC,pmu=off on a Zen 4 host: QEMU never asks
 *    KVM to turn the vPMU off (KVM_CAP_PMU_CAPABILITY, ba7bb663f554 "KVM:
 *    x86: Provide per VM capability for disabling PMU virtualization", 5.18,
 *    is unused by Q:target/i386/kvm/kvm.c kvm_arch_pre_create_vcpu), and
 *    AMD's legacy counters are not enumerated by CPUID: they count. */
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "model_kvm.h"

/* ---- the PMU event filter ------------------------------------------------ */

/* What KVM keeps of KVM_SET_PMU_EVENT_FILTER: its action, the events (unit
 * mask << 8 | event select: without KVM_PMU_EVENT_FLAG_MASKED_EVENTS an
 * entry matches exactly that pair, L:pmu.c convert_to_masked_filter) and
 * fixed_counter_bitmap. */
struct event_filter {
	bool allow; /* KVM_PMU_EVENT_ALLOW, else KVM_PMU_EVENT_DENY */
	const uint16_t *events;
	unsigned n;
	uint32_t fixed;
};

/* Ours: a cloud's deny list against one tenant observing another through
 * what they share: mispredicted branches (architectural C5H), the LLC
 * (architectural 2EH references and misses), the off-core responses, and
 * fixed counter 2 (reference cycles, the host's clock). */
static const uint16_t deny_events[] = {
    0x00c5, /* BR_MISP_RETIRED.ALL_BRANCHES */
    0x4f2e, /* LONGEST_LAT_CACHE.REFERENCE */
    0x412e, /* LONGEST_LAT_CACHE.MISS */
    0x01b7, /* OFFCORE_RESPONSE_0 */
    0x01bb, /* OFFCORE_RESPONSE_1 */
};
static const struct event_filter deny = {false, deny_events, 5, 1u << 2};

/* GCE's ARCHITECTURAL level: the architectural events of CPUID.0AH less
 * the two LLC ones; pmu-overview names branches, branch misses,
 * instructions and core cycles (and top-down slots, a fixed counter 3 a
 * Skylake guest has not). Reference cycles are architectural and not LLC:
 * kept (ours). The fixed counters 0-2 count the same events: all allowed. */
static const uint16_t arch_events[] = {
    0x003c, /* UnHalted Core Cycles */
    0x00c0, /* Instructions Retired */
    0x013c, /* UnHalted Reference Cycles */
    0x00c4, /* Branch Instructions Retired */
    0x00c5, /* Branch Misses Retired */
};
static const struct event_filter arch = {true, arch_events, 5, 0x7};

static const struct sim_model skylake_kvm_deny, skylake_kvm_arch;

static const struct event_filter *filter_of(const struct sim_model *m)
{
	return m == &skylake_kvm_deny ? &deny : m == &skylake_kvm_arch ? &arch : 0;
}

static bool listed(const struct event_filter *f, uint16_t ev)
{
	for (unsigned k = 0; k < f->n; k++)
		if (f->events[k] == ev)
			return true;
	return false;
}

/* L:pmu.c check_pmu_event_filter: a GP counter by its event select and
 * unit mask (is_gp_event_allowed), a fixed counter by its bit in
 * fixed_counter_bitmap (is_fixed_event_allowed). */
bool kvm_skl_allowed(struct sim_cpu *s, unsigned i)
{
	const struct event_filter *f = filter_of(s->m);
	bool hit;

	if (!f)
		return true;
	if (i >= KVM_SKL_GP)
		hit = (f->fixed >> (i - KVM_SKL_GP)) & 1;
	else
		hit = listed(f, (uint16_t)sim_host_msr(s, MSR_P6_EVNTSEL0 + i));
	return hit == f->allow;
}

/* A denied counter's event select is taken and reads back, but KVM does
 * not reprogram its perf event (L:pmu.c reprogram_counter returns once
 * pmc_event_is_allowed says no, the event paused): it keeps its value, no
 * overflow, no PMI, no #GP. */
static uint64_t filtered_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	return kvm_skl_allowed(s, i) ? sim_host_rate(s, i, v) : 0;
}

/* ---- Hyper-V enlightenments ------------------------------------------------ */

#define HV_FEAT_EAX (1u << 1 | 1u << 4 | 1u << 5 | 1u << 9)
#define HV_FEAT_EDX (1u << 3)
#define HV_RECOMM   (1u << 3 | 1u << 5)

/* Q:target/i386/kvm/kvm.c hyperv_fill_cpuids: "Microsoft Hv" up to
 * 4000_0005h, interface "Hv#1", version WS2016 (build 0x3839, 10.0: the
 * hv-version-id-* defaults since QEMU 6.2), features: hv-time's reference
 * counter and TSC page (1, 9), hv-vapic (4), the hypercall page (5, always)
 * and dynamic partitioning (EDX 3, always); recommendations hv-vapic (3)
 * and hv-relaxed (5), spinlock retries 0xffffffff (never); limits
 * 0xffffffff VPs (x-hv-max-vps -1), 64 LPs. KVM's leaves move to
 * 4000_0100h (kvm_base = KVM_CPUID_SIGNATURE_NEXT), where Linux's
 * for_each_possible_cpuid_base_hypervisor finds them. */
static void hyperv_leaves(struct sim_cpu *s)
{
	sim_set_cpuid(s, 0x40000000u, 0, 0x40000005u, 0x7263694du /* "Micr" */,
		      0x666f736fu /* "osof" */, 0x76482074u /* "t Hv" */);
	sim_set_cpuid(s, 0x40000001u, 0, 0x31237648u /* "Hv#1" */, 0, 0, 0);
	sim_set_cpuid(s, 0x40000002u, 0, 0x3839, 0x000a0000u, 0, 0);
	sim_set_cpuid(s, 0x40000003u, 0, HV_FEAT_EAX, 0, 0, HV_FEAT_EDX);
	sim_set_cpuid(s, 0x40000004u, 0, HV_RECOMM, 0xffffffffu, 0, 0);
	sim_set_cpuid(s, 0x40000005u, 0, 0xffffffffu, 64, 0, 0);
	kvm_cpuid_leaves(s, 0x40000100u);
}

static void deny_reset(struct sim_cpu *s)
{
	kvm_skl_reset(s);
	hyperv_leaves(s);
}

/* ---- zen4-kvm-pmuoff ----------------------------------------------------- */

/* Q:target/i386/cpu.c: the "EPYC" model (version 1; perfctr-core only from
 * EPYC-v3) is family 17h model 1 stepping 2, levels 0Dh and 8000_001Eh,
 * 8000_0001h ECX LahfSahf, SVM, AltMovCr8, ABM, SSE4A, MisAlignSse,
 * 3DNowPrefetch, OSVW and TopologyExtensions: no PerfCtrExtCore (23).
 * pmu=off clears 8000_0022h (cpu_x86_cpuid: PerfMonV2 only with
 * cpu->enable_pmu), out of range here anyway. */
#define EPYC_EXT1_ECX 0x004003f5u

static void pmuoff_reset(struct sim_cpu *s)
{
	uint32_t sig = sim_fms(0x17, 0x01, 2);

	kvm_zen_reset(s);
	for (unsigned i = 0; i < s->n_cpuid; i++) {
		struct sim_cpuid *e = &s->cpuid[i];
		if (e->leaf == 0)
			e->r.eax = 0xd;
		else if (e->leaf == 1)
			e->r.eax = sig;
		else if (e->leaf == CPUID_LEAF_EXT_MAX)
			e->r.eax = 0x8000001eu;
		else if (e->leaf == CPUID_LEAF_AMD_FEATURES)
			e->r = (struct cpuid_regs){sig, 0, EPYC_EXT1_ECX, e->r.edx};
	}
	sim_set_cpuid(s, CPUID_LEAF_AMD_PERFMON, 0, 0, 0, 0, 0);
	sim_brand(s, "AMD EPYC Processor");
	/* A guest without PerfMonV2 has no global enable (L:pmu.h
	 * pmc_is_globally_enabled): the host's stays on for the four. */
	sim_host_wrmsr(s, MSR_AMD_GLOBAL_CTL, 0xf);
}

/* KVM's rules for a guest without PerfCtrExtCore or PerfMonV2 (L:svm/pmu.c
 * amd_pmu_refresh: four counters, version 1): C001_0000h-7h are
 * gp_counters[0-3] (get_gp_pmc_amd); C001_0200h-20Bh need PERFCTR_CORE and
 * the global MSRs version 2, so both #GP from the guest (L:x86.c
 * kvm_get_msr_common / kvm_set_msr_common: an unsupported to-be-saved PMU
 * MSR is 0 to the host only). */
static bool pmuoff_gp(uint32_t msr)
{
	return (msr >= MSR_F15H_PERF_CTL0 && msr < MSR_F15H_PERF_CTL0 + 2 * KVM_ZEN_CTRS) ||
	       (msr >= MSR_AMD_GLOBAL_STATUS && msr <= MSR_AMD_GLOBAL_STATUS_CLR);
}

static int pmuoff_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	return pmuoff_gp(msr) ? HW_FAULT_GP : kvm_zen_rdmsr(s, msr, v);
}

static int pmuoff_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	return pmuoff_gp(msr) ? HW_FAULT_GP : kvm_zen_wrmsr(s, msr, v);
}

/* RDPMC reaches the guest's four counters (L:svm/pmu.c
 * amd_check_rdpmc_early: idx >= nr_arch_gp_counters is #GP). */
static int pmuoff_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	return ecx >= 4 ? HW_FAULT_GP : kvm_zen_rdpmc(s, ecx, v);
}

/* ---- the models ---------------------------------------------------------- */

/* What the two Skylake guests behind a PMU event filter share: KVM's
 * Skylake register file, the filter's rate, the host's overflows. */
#define SKL_FILTERED_GUEST                                                                         \
	.host = "skylake", .driver = PMU_DRV_INTEL_ARCH, .faults = 0, .fault_na = {SIM_NA_PINNED}, \
	.rdmsr = kvm_skl_rdmsr, .wrmsr = kvm_skl_wrmsr, .rdpmc = kvm_skl_rdpmc,                    \
	.rate = filtered_rate, .overflow = sim_host_overflow, .lvt_automask = true,                \
	.pending = sim_host_pending, .si = &kvm_si_skylake, .pinned_by = SIM_PINNED_BY

static const struct sim_model skylake_kvm_deny = {
    .name = "skylake-kvm-deny",
    .doc = "KVM guest on Skylake, PMU event filter DENY C5H, 2EH/4FH, 2EH/41H, B7H, BBH and "
	   "fixed counter 2 (Linux kvm/pmu.c check_pmu_event_filter), QEMU hv-relaxed,hv-vapic,"
	   "hv-time (target/i386/kvm/kvm.c hyperv_fill_cpuids)",
    .reset = deny_reset,
    SKL_FILTERED_GUEST,
};
SIM_MODEL(skylake_kvm_deny);

static const struct sim_model skylake_kvm_arch = {
    .name = "skylake-kvm-arch",
    .doc = "KVM guest on Skylake, PMU event filter ALLOW of the non-LLC architectural events "
	   "and fixed 0-2: GCE performanceMonitoringUnit ARCHITECTURAL "
	   "(cloud.google.com/compute/docs/pmu-overview)",
    .reset = kvm_skl_reset,
    SKL_FILTERED_GUEST,
};
SIM_MODEL(skylake_kvm_arch);

static const struct sim_model zen4_kvm_pmuoff = {
    .name = "zen4-kvm-pmuoff",
    .host = "zen4",
    .doc = "KVM guest on Zen 4, QEMU -cpu EPYC,pmu=off without KVM_PMU_CAP_DISABLE: no "
	   "PerfCtrExtCore or PerfMonV2, the four K7 counters count (Linux kvm/svm/pmu.c "
	   "amd_pmu_refresh)",
    .driver = PMU_DRV_AMD_LEGACY,
    .faults = 0,
    .fault_na = {SIM_NA_PINNED},
    .reset = pmuoff_reset,
    .rdmsr = pmuoff_rdmsr,
    .wrmsr = pmuoff_wrmsr,
    .rdpmc = pmuoff_rdpmc,
    .rate = sim_host_rate,
    .overflow = sim_host_overflow,
    .lvt_automask = false,
    .si = &kvm_si_zen4,
    .pinned_by = SIM_PINNED_BY,
};
SIM_MODEL(zen4_kvm_pmuoff);
