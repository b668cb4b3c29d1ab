/* Model "vmware": a guest of VMware ESXi on the bare-metal "skylake"
 * (model_arch.c) with "Virtualize CPU performance counters" (vPMC) on and
 * vpmc.freezeMode left at its default, hybrid. From VMware KB 2030221
 * (Broadcom 344161, "Using Virtual CPU Performance Monitoring Counters"):
 *  - virtualized MSRs: IA32_PERFEVTSELx, IA32_PMCx, IA32_FIXED_CTRx,
 *    IA32_PERF_GLOBAL_CTRL, _STATUS, _OVF_CTRL and IA32_FIXED_CTR_CTRL; the
 *    virtual PMCs count the same core events as the physical ones. Ours: no
 *    other PMU MSR exists in the guest (GLOBAL_STATUS_SET, PERF_CAPABILITIES
 *    and its 4C1H aliases, PEBS, DS #GP), and CPUID.0AH is the host's with
 *    the version that list describes, 3.
 *  - hybrid: instructions retired and branches retired count guest
 *    instructions only; every other event also counts while the hypervisor
 *    runs on the guest's behalf. Here each intercepted PMU MSR access is a
 *    VM exit whose handler runs VMW_EXIT_CYCLES core cycles (ours) that
 *    count in the cycle events and fixed counters 1 and 2, never in
 *    instructions or branches.
 *  - "a performance monitoring counter cannot be virtualized ... when the
 *    host is already using the physical CPU performance counter for
 *    another use". What the guest then sees is not documented; ours: one
 *    GP counter, drawn from the seed, is taken by the host once the
 *    guest's workloads have retired a number of instructions also drawn
 *    from the seed, and counts nothing for the rest of the run (it keeps
 *    what it held or is written, and never overflows).
 *  - CPUID 4000_0000h "VMwareVMware", highest leaf 4000_0010h (Linux
 *    arch/x86/kernel/cpu/vmware.c CPUID_VMWARE_FEATURES_LEAF), whose EAX
 *    is the TSC's kHz (EBX, the APIC bus kHz: ours). */
#include "model_hv.h"

#define REG_VMW_FROM	 REG_HV(0) /* instructions after which the host takes it */
#define REG_VMW_CTR	 REG_HV(1) /* the GP counter the host takes */
#define REG_VMW_TAKEN	 REG_HV(2)
#define REG_VMW_DEBUGCTL REG_HV(3)

#define VMW_GP	  4
#define VMW_FIXED 3
/* A VM exit and entry with the MSR access emulated, in core cycles: ours
 * (no published ESXi figure; a few hundred cycles for the exit and entry
 * alone on Skylake-era cores, the rest the VMM's handler). */
#define VMW_EXIT_CYCLES 1200
/* The host takes its counter after 2-40 million workload instructions
 * (ours: a host profiler started some time into the guest's run). */
#define VMW_TAKE_MIN 2000000ull
#define VMW_TAKE_MAX 40000000ull

/* A draw from the seed that leaves the realism generator's sequence as
 * the host model's (splitmix64's finalizer). */
static uint64_t vmw_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void sim_vmware_taken(const struct sim_cpu *s, unsigned *ctr, uint64_t *from)
{
	*ctr = (unsigned)s->reg[REG_VMW_CTR];
	*from = s->reg[REG_VMW_FROM];
}

static void vmw_reset(struct sim_cpu *s)
{
	uint64_t r = vmw_mix(s->real.seed ^ 0x564d77617265ull /* "VMware" */);

	sim_host_reset(s);
	hv_guest_identity(s, "Simulated Intel Core i7-6700 (VMware guest)");
	hv_cpuid_edit(s, CPUID_LEAF_PERFMON, 0, 0xff, 3);
	hv_signature(s, 0x40000000u, 0x40000010u, "VMwareVMware");
	sim_set_cpuid(s, 0x40000010u, 0, 3400000u, 1000000u, 0, 0);
	/* The VM's firmware leaves the virtual PMU at its RESET state; the
	 * host's microcode workaround does not hold PMC3 (ours). */
	hv_host_pmu_idle(s, VMW_GP, VMW_FIXED);
	sim_host_wrmsr(s, MSR_TSX_FORCE_ABORT, 1);
	s->reg[REG_VMW_CTR] = r % VMW_GP;
	s->reg[REG_VMW_FROM] = VMW_TAKE_MIN + (r >> 8) % (VMW_TAKE_MAX - VMW_TAKE_MIN + 1);
	s->reg[REG_VMW_TAKEN] = 0;
	s->reg[REG_VMW_DEBUGCTL] = 0;
}

/* The MSRs the KB lists (the v3 set for 4 GP and 3 fixed counters). */
static bool vpmc_msr(uint32_t msr)
{
	return (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + VMW_GP) ||
	       (msr >= MSR_P6_PERFCTR0 && msr < MSR_P6_PERFCTR0 + VMW_GP) ||
	       (msr >= MSR_FIXED_CTR0 && msr < MSR_FIXED_CTR0 + VMW_FIXED) ||
	       (msr >= MSR_FIXED_CTR_CTRL && msr <= MSR_PERF_GLOBAL_OVF_CTRL);
}

/* Half an exit's hypervisor time: the exit before the access takes
 * effect, the entry after. Hybrid: cycles only, no instruction or branch
 * (sim_retire's vector of 0 instructions and branches). */
static void vmw_hv_time(struct sim_cpu *s)
{
	sim_retire(s, 0, 0, VMW_EXIT_CYCLES / 2);
}

static bool taken(struct sim_cpu *s, unsigned i)
{
	if (i != s->reg[REG_VMW_CTR])
		return false;
	if (!s->reg[REG_VMW_TAKEN] && s->st.instructions >= s->reg[REG_VMW_FROM])
		s->reg[REG_VMW_TAKEN] = 1; /* for the rest of the run */
	return s->reg[REG_VMW_TAKEN] != 0;
}

static int vmw_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	int st;

	if (vpmc_msr(msr)) {
		vmw_hv_time(s);
		st = sim_host_rdmsr(s, msr, v);
		vmw_hv_time(s);
		return st;
	}
	switch (msr) {
	case MSR_IA32_MISC_ENABLE: /* ours: EMON, no BTS or PEBS */
		*v = MISC_ENABLE_EMON | MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL;
		return HW_OK;
	case MSR_DEBUGCTL:
		*v = s->reg[REG_VMW_DEBUGCTL];
		return HW_OK;
	case MSR_IA32_BIOS_SIGN_ID:
		return sim_host_rdmsr(s, msr, v);
	default:
		return HW_FAULT_GP;
	}
}

static int vmw_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	int st;

	if (vpmc_msr(msr)) {
		vmw_hv_time(s);
		st = sim_host_wrmsr(s, msr, v);
		vmw_hv_time(s);
		return st;
	}
	switch (msr) {
	case MSR_IA32_MISC_ENABLE: /* ours: writes dropped */
	case MSR_IA32_BIOS_SIGN_ID:
		return HW_OK;
	case MSR_DEBUGCTL: /* ours: LBR and BTF held, the rest #GP */
		if (v & ~DEBUGCTL_LBR_BTF)
			return HW_FAULT_GP;
		s->reg[REG_VMW_DEBUGCTL] = v;
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

/* RDPMC runs on the loaded counters without an exit (ours). */
static int vmw_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	return sim_host_rdpmc(s, ecx, v);
}

static uint64_t vmw_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	return taken(s, i) ? 0 : sim_host_rate(s, i, v);
}

static bool vmw_overflow(struct sim_cpu *s, unsigned i)
{
	return !taken(s, i) && sim_host_overflow(s, i);
}

/* Numbers: the bare-metal Skylake's (model_arch.c) for the guest's own
 * code; no MSR_SMI_COUNT in the guest (ours). The virtual APIC behaves as
 * the physical one: LVTPC masked on delivery, the late re-raise on an
 * unmask with a flag still set (ours: VMware emulates the part). */
static const struct sim_silicon si_vmware =
    SI_SKYLAKE(.late_ack = true,   /* ours: as the host's APIC */
	       .smm_counts = true, /* the host's (SDM Vol. 3B 17.4.7) */
	       .turbo_x100 = 120,  /* the host's core clock (model_arch.c si_skylake) */
    );

static const struct sim_model vmware = {
    .name = "vmware",
    .host = "skylake",
    .doc = "VMware ESXi guest on Skylake, vPMC on, vpmc.freezeMode hybrid: VMware KB 2030221 "
	   "(Broadcom 344161); a counter the host takes (ours)",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = 0,
    .fault_na = {SIM_NA_PINNED},
    .reset = vmw_reset,
    .rdmsr = vmw_rdmsr,
    .wrmsr = vmw_wrmsr,
    .rdpmc = vmw_rdpmc,
    .rate = vmw_rate,
    .overflow = vmw_overflow,
    .lvt_automask = true,
    .pending = sim_host_pending,
    .si = &si_vmware,
    .pinned_by = SIM_PINNED_BY,
};
SIM_MODEL(vmware);
