/* What the KVM guest models share: model_kvm.c's "skylake-kvm" and
 * "zen4-kvm" (today's KVM, -cpu host), whose handlers the others wrap;
 * model_kvm_policy.c's configurations a VMM or a cloud chooses (an event
 * filter, pmu=off); model_kvm_eras.c's KVM releases that behaved otherwise.
 * L: below is Linux arch/x86/kvm. */
#ifndef PMH_SIM_MODEL_KVM_H
#define PMH_SIM_MODEL_KVM_H

#include "model_arch.h"

/* KVM-private state in sim_cpu.reg[], above every register the bare-metal
 * models use (model_arch.h, model_amd_core.c). */
#define REG_KVM_HW_OVF	 121 /* eras: counters that overflowed while the guest ran */
#define REG_KVM_EXIT	 122 /* eras: nonzero while KVM handles an exit */
#define REG_KVM_BUMPED	 123 /* counters an emulated instruction bumped since cleared */
#define REG_KVM_SEL_PC	 125 /* the PC bit (19) of each EVNTSEL as the guest wrote it */
#define REG_KVM_DEBUGCTL 126
#define REG_KVM_MISC	 127

#define KVM_SKL_GP   4 /* a Skylake guest's GP counters; its fixed ones follow */
#define KVM_ZEN_CTRS 6 /* a Zen 4 guest's core counters */
/* The host's faults no KVM guest can meet (model_kvm.c): KVM refuses a
 * DEBUGCTL write with FREEZE_PERFMON_ON_PMI (#GP: Linux arch/x86/kvm/vmx/
 * vmx.c vmx_get_supported_debugctl allows LBR, FREEZE_LBRS_ON_PMI and
 * BUS_LOCK_DETECT) and gives no guest IA32_PERF_METRICS. */
#define KVM_HOST_ONLY_FAULTS (SIM_F(SF_FREEZE_IGNORED) | SIM_F(SF_METRICS_UNSCALED))
#define KVM_NA_HOST_ONLY                                                                           \
	[SF_FREEZE_IGNORED] = "KVM refuses DEBUGCTL.FREEZE_PERFMON_ON_PMI with #GP (Linux "        \
			      "vmx.c vmx_get_supported_debugctl): no freeze in a guest to break",  \
	[SF_METRICS_UNSCALED] = "KVM gives its guests no IA32_PERF_METRICS (329H)"

/* The hypervisor bit and KVM's leaves at 4000_0000h, xAPIC mode, leaf 6
 * ARAT alone, nothing left by the firmware; brand: -cpu host's (NULL: the
 * host's stays). */
void kvm_guest_identity(struct sim_cpu *s, const char *brand);
/* KVM's signature leaf and features leaf at base (4000_0000h unless
 * another hypervisor's leaves come first). */
void kvm_cpuid_leaves(struct sim_cpu *s, uint32_t base);

/* skylake-kvm's handlers (model_kvm.c), for guests that wrap them. */
void kvm_skl_reset(struct sim_cpu *s);
int kvm_skl_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int kvm_skl_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
int kvm_skl_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v);
extern const struct sim_silicon kvm_si_skylake;

/* zen4-kvm's handlers. */
void kvm_zen_reset(struct sim_cpu *s);
int kvm_zen_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int kvm_zen_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
int kvm_zen_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v);
extern const struct sim_silicon kvm_si_zen4;

/* sapphirerapids-kvm's (model_kvm_spr.c): bits set in the guest's
 * GLOBAL_STATUS where its perfmon v2 has no STATUS_SET (the PEBS buffer's
 * bit 62), for sim_smp_cfg.status_set. */
void kvm_spr_status_set(struct sim_cpu *s, uint64_t bits);

/* Whether KVM lets counter i of a Skylake guest count under the VM's PMU
 * event filter (model_kvm_policy.c; always, for a VM without one). */
bool kvm_skl_allowed(struct sim_cpu *s, unsigned i);
/* Whether s is a guest whose host takes KVM's forced-emulation prefix
 * (model_kvm_fep.c "skylake-kvm-fep"). */
bool kvm_fep_on(const struct sim_cpu *s);

#endif
