/* The sampling hardware of a simulated core: last branch records
 * (sim_lbr.c), the debug store's branch trace and PEBS (sim_ds.c) and
 * AMD's instruction-based sampling (sim_ibs.c). What a model has is data
 * (struct sim_smp_cfg, sim_model.smp; the configurations in
 * sim_smp_models.c); the state is per CPU (sim_cpu.smp). They see the
 * sampling kernel's instructions one by one (sim_trace.c decodes its
 * bytes): a workload that is not traced retires no sampled instruction,
 * but the harness's own branches still enter the LBRs (realism
 * "overhead"). */
#ifndef PMH_SIM_SIM_SMP_H
#define PMH_SIM_SIM_SMP_H

#include <stdbool.h>
#include <stdint.h>

struct sim_cpu;

enum sim_lbr_kind {
	SIM_LBR_NONE,
	SIM_LBR_LEGACY, /* model-specific stack with a TOS (Linux intel/lbr.c) */
	SIM_LBR_ARCH,	/* architectural LBRs (CPUID 1CH) */
	SIM_LBR_AMD_V2, /* AMD LBR v2 (CPUID 8000_0022h) */
};

/* What a model's sampling hardware is. */
struct sim_smp_cfg {
	/* ---- LBR ---- */
	uint8_t lbr_kind;   /* enum sim_lbr_kind */
	uint8_t lbr_depth;  /* entries (arch: the largest CPUID 1CH offers) */
	uint8_t lbr_format; /* legacy: PERF_CAPABILITIES[5:0] */
	uint32_t lbr_from;  /* legacy: the FROM and TO stacks' bases */
	uint32_t lbr_to;
	bool lbr_info;	     /* legacy: LBR_INFO at 0xDC0 (format 5) */
	bool lbr_freeze;     /* DEBUGCTL.FREEZE_LBRS_ON_PMI works */
	bool lbr_callstack;  /* call-stack mode: LBR_SELECT[9] (legacy, Haswell on), LBR_CTL[3] */
	bool lbr_status_frz; /* the freeze sets GLOBAL_STATUS.LBR_FRZ (v4, AMD
				PerfMonV2) instead of clearing DEBUGCTL.LBR */
	/* the model's global status registers: its status, the register that
	 * sets bits in it and the one that clears them */
	uint32_t status_msr, status_set_msr, status_clr_msr;
	/* where set bits cannot go through a STATUS_SET the model has (a
	 * hypervisor's guest of perfmon v2 whose host sets them): this sets
	 * them in the model's status instead (NULL: status_set_msr) */
	void (*status_set)(struct sim_cpu *s, uint64_t bits);
	/* the model has no IA32_DEBUGCTL of its own: sim_smp holds it */
	bool own_debugctl;
	/* ---- DS: BTS and PEBS (sim_ds.c) ---- */
	bool bts;
	uint8_t pebs_fmt;     /* PERF_CAPABILITIES[11:8]; 0 with pebs_ctrs 0: none */
	bool pebs_adaptive;   /* PERF_CAPABILITIES[14]: PEBS_DATA_CFG groups */
	uint64_t pebs_ctrs;   /* PEBS_ENABLE bits the model takes (GP i, fixed 32+i) */
	uint16_t pebs_assist; /* cycles one PEBS assist costs (realism) */
	/* NetBurst PEBS (sim_pebs_p4.c) instead of the above: IQ_COUNTER4
	 * alone, MSR_PEBS_ENABLE's thread bits, MSR_PEBS_MATRIX_VERT */
	bool pebs_p4;
	/* formats 1-3: the precise-distribution event (umask << 8 | event)
	 * and the GP counter it is precise on; any other event's record may
	 * come up to pebs_shadow events late (realism "skid") */
	uint16_t pdir_enc;
	uint8_t pdir_ctr, pebs_shadow;
	/* ---- IBS (sim_ibs.c) ---- */
	uint32_t ibs_caps; /* CPUID 8000_001Bh EAX; 0: no IBS */
	uint8_t ibs_lvt;   /* the extended LVT entry IBS_CTL names */
};

#define SIM_LBR_MAX 64

/* One branch as the LBRs and the BTS take it. */
struct sim_branch {
	uint64_t from, to;
	uint8_t kind; /* enum smp_kind (events/sample.h) */
	bool mispred;
	uint8_t cpl;
};

struct sim_lbr {
	uint64_t from[SIM_LBR_MAX], to[SIM_LBR_MAX], info[SIM_LBR_MAX];
	unsigned tos;	     /* legacy: the youngest entry */
	uint64_t select;     /* LBR_SELECT (legacy, AMD) */
	uint64_t ctl, depth; /* arch: LBR_CTL, LBR_DEPTH */
	uint64_t extn;	     /* AMD DBG_EXTN_CFG */
	uint64_t last_to;    /* lbr-off-by-one: the TO of the branch before */
	bool frozen;	     /* GLOBAL_STATUS.LBR_FRZ set (sim_smp_wrote follows it) */
};

/* The branch predictor the mispredicted flags come from (ours: a 2-bit
 * counter per conditional, the last target per indirect branch, a return
 * stack of 16; direct jumps and calls never mispredict once decoded). */
#define SIM_BP_SLOTS 64
#define SIM_RAS	     16
struct sim_bp {
	uint64_t at[SIM_BP_SLOTS], target[SIM_BP_SLOTS];
	uint8_t ctr[SIM_BP_SLOTS];
	uint64_t ras[SIM_RAS];
	unsigned ras_top, ras_n;
};

struct sim_ds {
	uint64_t area, pebs_enable, data_cfg;
	uint64_t armed;	      /* PEBS: counters that overflowed, waiting for their next event */
	unsigned records;     /* written since power-on (the simulator's statistics) */
	unsigned bts_records; /* BTS records written since power-on (statistics) */
	unsigned bts_seen;    /* bts-skips-branch: branches the BTS took in */
	/* PEBS's shadow (realism "skid"): events an armed counter still lets
	 * pass before its record, per PEBS_ENABLE bit */
	uint8_t shadow[64];
};

struct sim_ibs {
	uint64_t fetch_ctl, fetch_linaddr, op_ctl, op_rip, op_data[3], ctl, br_target;
	uint64_t op_count; /* ops since the last tag */
	uint64_t lvt[4];   /* extended LVT entries (APIC 500h + 10h n) */
};

struct sim_smp {
	uint64_t debugctl; /* where cfg->own_debugctl */
	struct sim_lbr lbr;
	struct sim_bp bp;
	struct sim_ds ds;
	struct sim_ibs ibs;
};

/* One retired instruction of a traced kernel (sim_trace.c). */
struct sim_step {
	uint64_t ip, next;
	uint8_t kind; /* enum smp_kind */
	bool taken;
	bool mispred; /* the predictor got its direction or target wrong */
	/* counters that wrapped as it retired */
	uint64_t wrapped;
};

/* What one retired instruction adds to the counters: a vector of one
 * (sim_trace.c); what the samplers ask the model's rate about. */
struct workload_vector;
void sim_step_vector(const struct sim_step *st, struct workload_vector *v);
/* Power-on state (sim.c after the model's reset). */
void sim_smp_reset(struct sim_cpu *s);
/* The sampling MSRs of the model: whether msr is one, and its access. */
bool sim_smp_msr(const struct sim_cpu *s, uint32_t msr);
int sim_smp_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_smp_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
/* A traced instruction retired (after the counters counted it). */
void sim_smp_step(struct sim_cpu *s, const struct sim_step *st);
/* Whether something samples instruction by instruction now (PEBS enabled,
 * IBS op or fetch sampling on): sim_trace.c steps every instruction then,
 * else only the branches. */
bool sim_smp_per_insn(const struct sim_cpu *s);
/* A branch of the harness's own code with known addresses (the platform's
 * CALL into a traced kernel): to the LBRs and the BTS only, its
 * instruction retired with the harness's code. */
void sim_smp_branch(struct sim_cpu *s, uint64_t from, uint64_t to, uint8_t kind);
/* The harness's own code retired br branches (addresses outside the
 * sampling kernel). */
void sim_smp_harness(struct sim_cpu *s, uint64_t br);
/* An overflow requested a PMI (the LBR freeze). */
void sim_smp_pmi_request(struct sim_cpu *s);
/* IA32_DEBUGCTL as the core holds it (the model's or sim_smp's). */
uint64_t sim_smp_debugctl(struct sim_cpu *s);
/* A write to msr the model took (sim.c hw_wrmsr): what sim_smp follows of
 * the model's registers without reading them (a read can have effects:
 * status-not-sticky, a hypervisor's exit). */
void sim_smp_wrote(struct sim_cpu *s, uint32_t msr, uint64_t v);
/* Bits set in the model's global status (through its STATUS_SET). */
void sim_smp_status_set(struct sim_cpu *s, uint64_t bits);
/* The predictor's verdict on a branch, and its update (sim_trace.c). */
bool sim_bp_mispredicts(struct sim_bp *bp, uint64_t at, uint8_t kind, bool taken, uint64_t to,
			uint64_t ret_to);

/* The parts (each file's): whether each records now, */
bool sim_lbr_on(struct sim_cpu *s);
bool sim_ds_bts_on(struct sim_cpu *s);
bool sim_lbr_msr(const struct sim_cpu *s, uint32_t msr);
int sim_lbr_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_lbr_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
void sim_lbr_branch(struct sim_cpu *s, const struct sim_branch *b);
void sim_lbr_pmi_request(struct sim_cpu *s);
bool sim_ds_msr(const struct sim_cpu *s, uint32_t msr);
int sim_ds_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_ds_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
void sim_ds_step(struct sim_cpu *s, const struct sim_step *st);
void sim_ds_branch(struct sim_cpu *s, const struct sim_branch *b);
bool sim_ibs_msr(const struct sim_cpu *s, uint32_t msr);
int sim_ibs_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_ibs_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
void sim_ibs_step(struct sim_cpu *s, const struct sim_step *st);
/* NetBurst PEBS (sim_pebs_p4.c), where sim_smp_cfg.pebs_p4: its MSRs (the
 * pentium4 models' MSR files hand them over) and its step. */
bool sim_p4_pebs_msr(const struct sim_cpu *s, uint32_t msr);
int sim_p4_pebs_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_p4_pebs_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
void sim_p4_pebs_step(struct sim_cpu *s, const struct sim_step *st);

/* The models' configurations (sim_smp_models.c). */
extern const struct sim_smp_cfg sim_smp_skylake, sim_smp_skylake_kvm, sim_smp_spr, sim_smp_spr_kvm,
    sim_smp_zen4, sim_smp_zen4_kvm, sim_smp_bulldozer;
extern const struct sim_smp_cfg sim_smp_pentium4;

#endif
