/* KVM releases whose vPMU behaved otherwise than today's (model_kvm.c),
 * each named by the commits that bound it. L: below is Linux arch/x86/kvm.
 *  - "zen4-kvm-lvtpc": 6.6 to 6.8 (and the stable releases that took the
 *    first commit before the second): a16eb25b09c0 "KVM: x86: Mask LVTPC
 *    when handling a PMI" (6.6) masked LVTPC on every PMI, AMD guests too,
 *    until 49ff3b4aec51 "KVM: x86/pmu: Do not mask LVTPC when handling a PMI
 *    on AMD platforms" (6.9-rc4).
 *  - "skylake-kvm-dpmi": 5.17 to 6.5: 9cd803d496e7 "KVM: x86: Update vPMCs
 *    when retiring instructions" (5.17) let an overflow raise two PMIs,
 *    until 73554b29bd70 "KVM: x86/pmu: Synthesize at most one PMI per
 *    VM-exit" and a16eb25b09c0 (both 6.6).
 *  - "alderlake-kvm": 6.2 and later (6.1.y by backport) on a hybrid host:
 *    4d7404e5ee00 "KVM: x86/pmu: Disable vPMU support on hybrid CPUs (host
 *    PMUs)" clears enable_pmu (L:pmu.h kvm_init_pmu_capability).
 * What the two older releases did unlike today's, besides their bug:
 * GLOBAL_CTRL / GlobalCtl reset to 0 (every GP enable set from 7b46b733bdb4,
 * 6.9), and RDPMC took the "fast" flag, ECX[31], on both vendors as a read
 * of the low 32 bits and ignored ECX[30] on AMD (L:pmu.c kvm_pmu_rdpmc
 * "mask = fast_mode ? ~0u : ~0ull", until d652981db08f "Apply "fast" RDPMC
 * only to Intel PMUs", 5728a4a0ea79 "Disallow "fast" RDPMC for
 * architectural Intel PMUs", ecb490770ad4 "Don't ignore bits 31:30 for
 * RDPMC index on AMD", all 6.9). Not modelled (ours): the wide values
 * stored by legacy counter writes before b29a2acd36dd "Truncate counter
 * value to allowed width on write" (6.6). */
#include "../../apic/apic.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "model_kvm.h"

#define RDPMC_FAST (1u << 31)

/* RDPMC before 6.9: drop the bits KVM ignored (keep: the rest), read the
 * counter, keep its low 32 bits for the fast flag. */
static int old_rdpmc(int (*rd)(struct sim_cpu *, uint32_t, uint64_t *), struct sim_cpu *s,
		     uint32_t ecx, uint32_t keep, uint64_t *v)
{
	int st = rd(s, ecx & keep, v);
	if (st == HW_OK && (ecx & RDPMC_FAST))
		*v &= 0xffffffffull;
	return st;
}

/* ---- zen4-kvm-lvtpc -------------------------------------------------------- */

static void lvtpc_reset(struct sim_cpu *s)
{
	kvm_zen_reset(s);
	sim_host_wrmsr(s, MSR_AMD_GLOBAL_CTL, 0);
}

static int lvtpc_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	return old_rdpmc(kvm_zen_rdpmc, s, ecx, ~(3u << 30), v);
}

/* ---- skylake-kvm-dpmi ------------------------------------------------------ */

/* How one overflow became two PMIs (9cd803d496e7 until 73554b29bd70; Jim
 * Mattson's changelog of the latter; Mingwei Zhang's trace on the kvm list,
 * 2023-06-30, "pmc->counter: 12 pmc->prev_counter: fffffffffb3d"): a guest
 * counter overflows in hardware, and the host's PMI for it lands while
 * KVM handles an exit (here: the skid still runs when the guest's next
 * intercepted instruction exits). Host context queues irq_work that
 * delivers PMI one at once (L:pmu.c __kvm_perf_overflow, in_pmi and not
 * kvm_handling_nmi_from_guest). The same exit emulates the instruction and
 * bumps every counter that counts it (kvm_pmu_incr_counter): the count
 * before the bump is taken before KVM folds in what perf counted (since
 * de0f619564f4 as prev_counter), so the wrap perf already reported looks
 * like the bump's own and raises PMI two (KVM_REQ_PMI). LVTPC was not
 * masked on delivery then (before a16eb25b09c0): with NMI delivery,
 * Linux's, the second NMI is held and taken after the first one's IRET
 * ("Dazed and confused"); fixed-vector requests meet in IRR before the
 * guest runs again and are one. */
static bool exit_begin(struct sim_cpu *s)
{
	bool host_ctx = s->real.latched && !s->reg[REG_KVM_EXIT];

	if (!s->real.latched) /* its NMI exited the guest: KVM synced it */
		s->reg[REG_KVM_HW_OVF] = 0;
	if (!s->reg[REG_KVM_EXIT]++)
		s->reg[REG_KVM_BUMPED] = 0;
	return host_ctx;
}

static void exit_end(struct sim_cpu *s, bool host_ctx)
{
	uint64_t stale;

	if (--s->reg[REG_KVM_EXIT] || !host_ctx)
		return;
	stale = s->reg[REG_KVM_HW_OVF] & s->reg[REG_KVM_BUMPED];
	s->reg[REG_KVM_HW_OVF] = 0;
	sim_real_retired(s, s->real.skid_left, 0); /* PMI one */
	if (stale && (s->lvt_pc & LVT_DM_MASK) == LVT_DM_NMI)
		sim_pmi_request(s); /* PMI two */
}

/* An overflow that asks for a PMI while the guest runs (not KVM's own
 * emulated increment during an exit). */
static bool dpmi_overflow(struct sim_cpu *s, unsigned i)
{
	bool pmi = sim_host_overflow(s, i);

	if (pmi && !s->reg[REG_KVM_EXIT])
		s->reg[REG_KVM_HW_OVF] |= 1ull << i;
	return pmi;
}

static int dpmi_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	bool host_ctx = exit_begin(s);
	int st = kvm_skl_rdmsr(s, msr, v);
	exit_end(s, host_ctx);
	return st;
}

static int dpmi_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	bool host_ctx = exit_begin(s);
	int st = kvm_skl_wrmsr(s, msr, v);
	exit_end(s, host_ctx);
	return st;
}

/* Intel ignored only the fast flag: ECX[30] selects the fixed counters. */
static int dpmi_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	bool host_ctx = exit_begin(s);
	int st = old_rdpmc(kvm_skl_rdpmc, s, ecx, ~RDPMC_FAST, v);
	exit_end(s, host_ctx);
	return st;
}

static void dpmi_reset(struct sim_cpu *s)
{
	kvm_skl_reset(s);
	sim_host_wrmsr(s, MSR_PERF_GLOBAL_CTRL, 0);
}

/* ---- alderlake-kvm ----------------------------------------------------------- */

#define MISC_BTS_UNAVAIL  (1ull << 11)
#define MISC_PEBS_UNAVAIL (1ull << 12)

/* With enable_pmu off KVM_GET_SUPPORTED_CPUID zeroes leaf 0AH (L:cpuid.c
 * __do_cpuid_func) and QEMU's -cpu host takes it as is; PDCM goes with the
 * vPMU (L:vmx.c vmx_set_cpu_caps), CPUID.7:EDX[15] is not among the bits
 * KVM passes (L:cpuid.c kvm_set_cpu_caps, CPUID_7_EDX) and QEMU answers
 * leaf 1AH with zeros (target/i386/cpu.c cpu_x86_cpuid has no case for
 * it). Family 6 model 97H and the brand are the host's. EMON stays clear:
 * only the vPMU's refresh sets it (L:vmx/pmu_intel.c intel_pmu_refresh). */
static void adl_reset(struct sim_cpu *s)
{
	sim_host_reset(s);
	kvm_guest_identity(s, 0);
	for (unsigned i = 0; i < s->n_cpuid; i++) {
		struct sim_cpuid *e = &s->cpuid[i];
		if (e->leaf == 1)
			e->r.ecx &= ~CPUID_1_ECX_PDCM;
		else if (e->leaf == CPUID_LEAF_EXT_FEATURES)
			e->r.edx &= ~CPUID_7_EDX_HYBRID;
	}
	sim_set_cpuid(s, CPUID_LEAF_PERFMON, 0, 0, 0, 0, 0);
	sim_set_cpuid(s, CPUID_LEAF_HYBRID, 0, 0, 0, 0, 0);
	s->n_ctr = 0;
	s->reg[REG_KVM_MISC] = MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL;
}

/* The PMU MSRs x86.c itself answers with the vPMU off: P6 counters and
 * selects 0-1 and the K7 four read 0 and drop writes (L:x86.c
 * kvm_get_msr_common, kvm_set_msr_common). */
static bool adl_legacy(uint32_t msr)
{
	return msr == MSR_P6_PERFCTR0 || msr == MSR_P6_PERFCTR0 + 1 || msr == MSR_P6_EVNTSEL0 ||
	       msr == MSR_P6_EVNTSEL0 + 1 || (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + 8);
}

/* Every other PMU MSR is no MSR of the guest's: #GP (kvm_pmu_is_valid_msr
 * is false, KVM_MSR_RET_INVALID): counters and selects 2-7, the
 * full-width, fixed, global, PEBS and DS MSRs, PERF_CAPABILITIES without
 * PDCM, the v6 block, and TSX_FORCE_ABORT, which KVM never emulates. */
static bool adl_gp(uint32_t msr)
{
	return (msr >= MSR_P6_PERFCTR0 + 2 && msr < MSR_P6_PERFCTR0 + 8) ||
	       (msr >= MSR_P6_EVNTSEL0 + 2 && msr < MSR_P6_EVNTSEL0 + 8) ||
	       (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + 8) ||
	       (msr >= MSR_FIXED_CTR0 && msr < MSR_FIXED_CTR0 + 4) ||
	       (msr >= MSR_FIXED_CTR_CTRL && msr <= MSR_PERF_GLOBAL_STATUS_SET + 1) ||
	       (msr >= MSR_V6_GP0_CTR && msr < MSR_V6_GP0_CTR + 0x100) || msr == 0x3f1 ||
	       msr == 0x3f2 || msr == 0x600 || msr == MSR_PERF_CAPABILITIES ||
	       msr == MSR_TSX_FORCE_ABORT;
}

static int adl_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (adl_gp(msr))
		return HW_FAULT_GP;
	*v = 0;
	if (adl_legacy(msr))
		return HW_OK;
	return kvm_skl_rdmsr(s, msr, v); /* DEBUGCTL, SMI count, MISC_ENABLE: KVM's */
}

static int adl_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (adl_gp(msr))
		return HW_FAULT_GP;
	if (adl_legacy(msr))
		return HW_OK;
	if (msr == MSR_IA32_MISC_ENABLE) { /* EMON keeps its value, clear */
		s->reg[REG_KVM_MISC] = v & ~MISC_ENABLE_EMON;
		return HW_OK;
	}
	return kvm_skl_wrmsr(s, msr, v);
}

/* L:pmu.c kvm_pmu_rdpmc: no vPMU (pmu->version 0), #GP for any index. */
static int adl_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	(void)s;
	(void)ecx;
	*v = 0;
	return HW_FAULT_GP;
}

/* ---- the models ---------------------------------------------------------- */

static const struct sim_model zen4_kvm_lvtpc = {
    .name = "zen4-kvm-lvtpc",
    .host = "zen4",
    .doc = "KVM 6.6-6.8 guest on Zen 4: LVTPC masked on every PMI (a16eb25b09c0 \"KVM: x86: "
	   "Mask LVTPC when handling a PMI\" until 49ff3b4aec51), GlobalCtl reset 0",
    .driver = PMU_DRV_AMD_CORE,
    .faults = 0,
    .fault_na = {SIM_NA_PINNED},
    .reset = lvtpc_reset,
    .rdmsr = kvm_zen_rdmsr,
    .wrmsr = kvm_zen_wrmsr,
    .rdpmc = lvtpc_rdpmc,
    .rate = sim_host_rate,
    .overflow = sim_host_overflow,
    .lvt_automask = true,
    .pending = sim_host_pending,
    .si = &kvm_si_zen4,
    .pinned_by = SIM_PINNED_BY,
};
SIM_MODEL(zen4_kvm_lvtpc);

static const struct sim_model skylake_kvm_dpmi = {
    .name = "skylake-kvm-dpmi",
    .host = "skylake",
    .doc = "KVM 5.17-6.5 guest on Skylake: two PMIs for an overflow whose host PMI lands in an "
	   "exit that emulates a counted instruction (9cd803d496e7 until 73554b29bd70 \"KVM: "
	   "x86/pmu: Synthesize at most one PMI per VM-exit\"), LVTPC not masked",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = 0,
    .fault_na = {SIM_NA_PINNED},
    .reset = dpmi_reset,
    .rdmsr = dpmi_rdmsr,
    .wrmsr = dpmi_wrmsr,
    .rdpmc = dpmi_rdpmc,
    .rate = sim_host_rate,
    .overflow = dpmi_overflow,
    .lvt_automask = false,
    .pending = sim_host_pending,
    .si = &kvm_si_skylake,
    .pinned_by = SIM_PINNED_BY,
};
SIM_MODEL(skylake_kvm_dpmi);

static const struct sim_model alderlake_kvm = {
    .name = "alderlake-kvm",
    .host = "alderlake",
    .doc = "KVM guest on Alder Lake (-cpu host): vPMU off on hybrid hosts (4d7404e5ee00 \"KVM: "
	   "x86/pmu: Disable vPMU support on hybrid CPUs (host PMUs)\", 6.2), CPUID.0AH zero",
    .driver = PMU_DRV_NONE,
    .faults = 0,
    .fault_na = {SIM_NA_PINNED},
    .reset = adl_reset,
    .rdmsr = adl_rdmsr,
    .wrmsr = adl_wrmsr,
    .rdpmc = adl_rdpmc,
    .rate = sim_no_rate,
    .overflow = sim_no_overflow,
    .lvt_automask = true,
    .si = &kvm_si_skylake, /* ours: the Skylake guest's numbers; nothing counts here */
    .pinned_by = SIM_PINNED_BY,
};
SIM_MODEL(alderlake_kvm);
