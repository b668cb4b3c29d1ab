/* Model "skylake-kvm-fep": skylake-kvm (model_kvm.c) on a host whose kvm
 * module runs with force_emulation_prefix=1 (Linux arch/x86/kvm/x86.c
 * handle_ud: "ud2" and the bytes "kvm" before an instruction make KVM
 * emulate it; off, the ud2 is a #UD for the guest; kvm-unit-tests runs
 * x86/pmu.c so, lib/x86/desc.c is_fep_available). What KVM emulates never
 * runs in the guest, so the hardware counts none of it; since Linux 5.17
 * KVM counts it itself, each emulated instruction in the counters whose
 * event is instructions retired (00C0H, and fixed counter 0), each
 * emulated branch in those counting branch instructions retired (00C4H),
 * where the counter is enabled, globally enabled, its privilege bit
 * matches the CPL and the VM's event filter allows it; the counter mask,
 * invert and edge bits are not applied (9cd803d496e7 "KVM: x86: Update
 * vPMCs when retiring instructions", 018d70ffcfec "KVM: x86: Update vPMCs
 * when retiring branch instructions"; L:pmu.c kvm_pmu_trigger_event,
 * cpl_is_matched, pmc_event_is_allowed). Before 5.17 it counted none of it:
 * the fault emulated-uncounted, run on this model with the local APIC's
 * (every other one is skylake-kvm's, the same guest without the prefix). */
#include "../../pmu/msr.h"
#include "model_kvm.h"

#define EV_INSTRUCTIONS 0x00c0 /* event select and unit mask (L:pmu.c kvm_pmu_eventsel) */
#define EV_BRANCHES	0x00c4
#define FIXED_OS	(1ull << 0) /* FIXED_CTR_CTRL field 0 (SDM Vol. 3B 20.2.2) */
#define FIXED_USR	(1ull << 1)

static const struct sim_model skylake_kvm_fep;

bool kvm_fep_on(const struct sim_cpu *s)
{
	return s->m == &skylake_kvm_fep;
}

/* KVM's count of v's emulated instructions and branches in counter i. */
static uint64_t kvm_share(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t g = sim_host_msr(s, MSR_PERF_GLOBAL_CTRL);

	if (i < KVM_SKL_GP) {
		uint64_t sel = sim_host_msr(s, MSR_P6_EVNTSEL0 + i);
		if (!((g >> i) & 1) || !(sel & EVTSEL_EN) ||
		    !(sel & (s->cpl ? EVTSEL_USR : EVTSEL_OS)))
			return 0;
		return (sel & 0xffff) == EV_INSTRUCTIONS ? v->emulated
		       : (sel & 0xffff) == EV_BRANCHES	 ? v->emulated_br
							 : 0;
	}
	uint64_t fc = sim_host_msr(s, MSR_FIXED_CTR_CTRL);
	bool on = i == KVM_SKL_GP && ((g >> 32) & 1) && (fc & (s->cpl ? FIXED_USR : FIXED_OS));
	return on ? v->emulated : 0;
}

static uint64_t fep_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	struct workload_vector hw = *v;

	hw.instructions -= v->emulated;
	hw.branches -= v->emulated_br;
	uint64_t r = sim_host_rate(s, i, &hw);
	if (!v->emulated || sim_has_fault(s, SF_EMULATED_UNCOUNTED) || !kvm_skl_allowed(s, i))
		return r;
	return r + kvm_share(s, i, v);
}

static const struct sim_model skylake_kvm_fep = {
    .name = "skylake-kvm-fep",
    .host = "skylake",
    .doc = "KVM guest on Skylake (-cpu host), kvm.force_emulation_prefix=1: what KVM emulates "
	   "counted as instructions and branches (Linux 5.17, 9cd803d496e7, 018d70ffcfec)",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = SIM_F(SF_EMULATED_UNCOUNTED) | SIM_APIC_FAULTS, /* every model has its APIC */
    .fault_na = {[SF_STUCK_COUNTER... SF_COUNT - 1] = "run on skylake-kvm, the same guest "
						      "without forced emulation"},
    .reset = kvm_skl_reset,
    .rdmsr = kvm_skl_rdmsr,
    .wrmsr = kvm_skl_wrmsr,
    .rdpmc = kvm_skl_rdpmc,
    .rate = fep_rate,
    .overflow = sim_host_overflow,
    .lvt_automask = true,
    .pending = sim_host_pending,
    .si = &kvm_si_skylake,
};
SIM_MODEL(skylake_kvm_fep);
