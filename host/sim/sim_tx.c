/* The kernels a simulated CPU may refuse or run otherwise than written
 * (events/workload.h WL_NEEDS_RTM, WL_NEEDS_FEP):
 *  - XBEGIN without RTM (CPUID.(7,0):EBX[11] clear) raises #UD (SDM Vol.
 *    2A XBEGIN); KVM's forced-emulation prefix raises #UD unless the CPU
 *    is a KVM guest whose host takes it (model_kvm_fep.c).
 *  - A CPU that forces RTM aborts runs every transaction to its fallback at
 *    once: Skylake-era microcode while TSX_FORCE_ABORT (MSR 10FH) bit 0 is
 *    set (Linux arch/x86/events/intel/core.c intel_set_tfa; Intel article
 *    000059422, "force abort all RTM transactions"); a guest when its
 *    host's bit is set, under KVM only while the guest's counter 3 runs:
 *    host perf sets the bit when it schedules PMC3 and clears it when PMC3
 *    is free again (intel/core.c intel_tfa_commit_scheduling,
 *    intel_tfa_pmu_enable_all; ours: guest counter i on the host's PMC i).
 *    IA32_TSX_CTRL.RTM_DISABLE does the same; no model has that MSR.
 * hw_run_workload_guarded, the simulator's, is here too. */
#include "sim.h"
#include "model_kvm.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"

#define KVM_SIG_EBX 0x4b4d564bu /* "KVMK" (model_kvm.c kvm_cpuid_leaves) */

static const struct cpuid_regs *entry(const struct sim_cpu *s, uint32_t leaf)
{
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == leaf && s->cpuid[i].subleaf == 0)
			return &s->cpuid[i].r;
	return 0;
}

static bool has_rtm(const struct sim_cpu *s)
{
	const struct cpuid_regs *r = entry(s, CPUID_LEAF_EXT_FEATURES);
	return r && (r->ebx & CPUID_7_EBX_RTM);
}

/* KVM's signature at 4000_0000h, or at 4000_0100h behind Hyper-V's. */
static bool kvm_guest(const struct sim_cpu *s)
{
	const struct cpuid_regs *a = entry(s, CPUID_LEAF_HYPERVISOR);
	const struct cpuid_regs *b = entry(s, CPUID_LEAF_HYPERVISOR + 0x100);
	return (a && a->ebx == KVM_SIG_EBX) || (b && b->ebx == KVM_SIG_EBX);
}

bool sim_rtm_force_aborted(struct sim_cpu *s)
{
	uint64_t v = 0;

	if (!has_rtm(s))
		return false;
	if (!s->m->host) /* the bare-metal models' rdmsr has no side effect */
		return s->m->rdmsr(s, MSR_TSX_FORCE_ABORT, &v) == HW_OK &&
		       (v & TFA_RTM_FORCE_ABORT);
	if (!(sim_host_msr(s, MSR_TSX_FORCE_ABORT) & TFA_RTM_FORCE_ABORT))
		return false;
	return !kvm_guest(s) || (sim_host_msr(s, MSR_P6_EVNTSEL0 + 3) & EVTSEL_EN);
}

static bool runs(struct sim_cpu *s, const struct workload *w)
{
	if ((w->needs & WL_NEEDS_RTM) && !has_rtm(s))
		return false;
	return !(w->needs & WL_NEEDS_FEP) || kvm_fep_on(s);
}

/* A transaction aborted at XBEGIN: its inside never retires. Its taken
 * and conditional branches go with it (ours: the loop's other branches
 * stay as built). */
static void strip(struct workload_vector *v)
{
	v->instructions -= v->tx_insn;
	v->branches -= v->tx_br;
	v->taken -= v->taken < v->tx_br ? v->taken : v->tx_br;
	v->cond -= v->cond < v->tx_br ? v->cond : v->tx_br;
	v->tx_insn = v->tx_br = v->tx_abort_insn = v->tx_abort_br = 0;
}

const struct workload *sim_tx_outcome(struct sim_cpu *s, const struct workload *w,
				      struct workload *copy)
{
	if (!(w->needs & (WL_NEEDS_RTM | WL_NEEDS_FEP)))
		return w;
	if (!runs(s, w))
		__builtin_trap(); /* a #UD nothing catches: fatal on the target */
	if (!(w->needs & WL_NEEDS_RTM) || !sim_rtm_force_aborted(s))
		return w;
	*copy = *w;
	strip(&copy->per_iter);
	strip(&copy->per_elem);
	return copy;
}

int hw_run_workload_guarded(const struct workload *w, uint64_t iterations)
{
	if (!runs(&sim, w))
		return HW_FAULT_UD; /* abandoned at its first such instruction */
	hw_run_workload(w, iterations);
	return HW_OK;
}
