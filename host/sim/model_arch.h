/* The "yonah", "core2" and "skylake" models (model_arch.c): their
 * sim_cpu.reg[] layout and the firmware realism in model_arch_firmware.c. */
#ifndef PMH_SIM_MODEL_ARCH_H
#define PMH_SIM_MODEL_ARCH_H

#include "sim.h"

#define REG_EVNTSEL(i)	  (i)
#define REG_FIXED_CTRL	  16
#define REG_GLOBAL_CTRL	  17
#define REG_GLOBAL_STATUS 18
#define REG_UCODE	  19
#define REG_TFA		  20	     /* MSR_TSX_FORCE_ABORT (0x10F) */
#define REG_DEBUGCTL	  40	     /* IA32_DEBUGCTL (model_arch_freeze.c) */
#define REG_TD(k)	  (48 + (k)) /* slots of each topdown category (model_arch_topdown.c) */

struct arch_cfg {
	const struct sim_model *m;
	unsigned version, n_gp, gp_width, n_fixed, fixed_width;
	uint32_t max_leaf, ebx, leaf1_ecx, leaf1_edx;
	unsigned family, model, stepping;
	const char *brand;
	uint64_t perf_caps; /* 0: no PERF_CAPABILITIES (CPUID.1:ECX[15] clear) */
	uint32_t ucode;
	bool x2apic;
	bool tfa; /* firmware: microcode with TSX_FORCE_ABORT (CPUID.7:EDX[13]) */
	bool rtm; /* TSX: HLE and RTM (CPUID.(7,0):EBX[4], [11]), IN_TX and IN_TXCP */
	bool v6;  /* leaf 23H bitmaps and the v6 addresses */
	/* hybrid: leaf 1AH's core type, and what CPUID.0AH lists (0: n_gp
	 * up to the legacy eight, n_fixed) */
	uint32_t core_type;
	unsigned shared_gp, shared_fixed;
	/* the micro-architecture (host/sim/uarch.h; 0: none published), and
	 * whether event 24h is Skylake's L2_RQSTS */
	const struct uarch_cfg *ua;
	bool l2_rqsts;
	/* TOPDOWN.SLOTS per core cycle: fixed counter 3 counts them (0: the
	 * core has no such counter; model_arch_topdown.c) */
	uint8_t td_width;
};

/* The configuration of s's CPU (model_arch_models.c). */
const struct arch_cfg *arch_cfg_of(const struct sim_cpu *s);
/* The register file and behaviour every arch model shares (model_arch.c):
 * the sim_model hooks of the same names. */
void arch_sim_reset(struct sim_cpu *s);
int arch_sim_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int arch_sim_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
int arch_sim_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v);
uint64_t arch_sim_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v);
bool arch_sim_overflow(struct sim_cpu *s, unsigned i);
uint64_t arch_sim_pending(struct sim_cpu *s);
/* CPUID.1:ECX bits the configurations take out or the reset puts in. */
#define CPUID1_ECX_PDCM	  (1u << 15)
#define CPUID1_ECX_X2APIC (1u << 21)
/* Events per iteration of event select enc (umask << 8 | code), and the
 * reference cycles (fixed counter 2) of v (model_arch_events.c). */
uint64_t arch_event_rate(const struct sim_cpu *s, uint16_t enc, const struct workload_vector *v);
uint64_t arch_ref_cycles(const struct sim_cpu *s, const struct workload_vector *v);
/* What an event counts under the TSX qualifiers of its select sel (IN_TX,
 * IN_TXCP) where the model has RTM: n, v's count without them (model_arch_events.c). */
uint64_t arch_tx_rate(const struct sim_cpu *s, uint64_t sel, uint64_t n,
		      const struct workload_vector *v);

/* DEBUGCTL and the freeze on PMI (model_arch_freeze.c): the MSRs beyond the
 * counters' (DEBUGCTL, PERF_METRICS), whether msr is one of them; an
 * overflow that requests a PMI (freezes where DEBUGCTL asks); whether
 * CTR_FRZ holds every counter (v4+), and the status bits it adds. */
bool arch_more_msr(const struct sim_cpu *s, uint32_t msr);
int arch_more_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int arch_more_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
void arch_freeze_on_pmi(struct sim_cpu *s);
bool arch_frozen(const struct sim_cpu *s);
uint64_t arch_freeze_status_bits(const struct sim_cpu *s);
/* Topdown (model_arch_topdown.c): fixed counter 3's TOPDOWN.SLOTS of v;
 * the GLOBAL_CTRL bits beyond the counters' (EN_PERF_METRICS); the
 * retired hook that accumulates PERF_METRICS; its MSR. */
uint64_t arch_slots(const struct sim_cpu *s, const struct workload_vector *v);
uint64_t arch_td_ctrl_bits(const struct sim_cpu *s);
void arch_td_retired(struct sim_cpu *s, const struct workload_vector *v, uint64_t k);
int arch_td_rdmsr(struct sim_cpu *s, uint64_t *v);
int arch_td_wrmsr(struct sim_cpu *s, uint64_t v);

/* The micro-architectures (model_arch_uarch.c). */
extern const struct uarch_cfg arch_ua_skylake, arch_ua_core2, arch_ua_yonah;

/* The hybrid "alderlake" (model_hybrid.c): its CPUs and the configuration
 * of CPU s->cpu_no. */
#define HYBRID_CPUS 4
extern const struct sim_model arch_alderlake;
const struct arch_cfg *arch_hybrid_cfg(const struct sim_cpu *s);
/* Alder Lake's numbers, for a machine built of its CPUs (manycore). */
extern const struct sim_silicon si_alderlake;

/* Power-on under realism "firmware"; globals: arch perfmon v2+, tfa: the
 * microcode has TSX_FORCE_ABORT. */
void arch_firmware(struct sim_cpu *s, bool globals, bool tfa);
/* Whether the TSX workaround holds PMC3 (counter k == 3). */
bool arch_pmc3_taken(const struct sim_cpu *s, unsigned k, bool tfa);
/* IA32_MISC_ENABLE and MSR_TSX_FORCE_ABORT. */
int arch_firmware_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v, bool tfa);
int arch_firmware_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v, bool tfa);

/* Skylake's numbers for the harness's own code (ours: objdump, the
 * stubs), its skid (ours, capped by rr's skid_size for Skylake) and its
 * interrupt entry (Weaver and McKee: every x86 but NetBurst), with what a
 * model adds: the bare-metal model's (model_arch.c si_skylake) and its
 * guests' (model_kvm.c, model_xen.c, model_vmware.c, model_hyperv.c), whose
 * code runs on the same core. */
#define SI_SKYLAKE(...)                                                                            \
	{                                                                                          \
		.insn_min = 12, .insn_max = 60, .cpi_x10 = 8, .skid_min = 10, .skid_max = 100,     \
		.skid_cap_br = 100, .entry_insn = 40, .irq_insn = 1, __VA_ARGS__                   \
	}

#endif
