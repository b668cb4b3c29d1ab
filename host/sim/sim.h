/* Simulated CPUs: the host implementation of pmu/hw.h. The core (sim.c) owns
 * counters and the workload engine, sim_apic.c the local APIC's LVT
 * performance-counter entry and PMI delivery; each model (model_*.c) owns
 * its CPUID values, its MSR file with the documented widths and write
 * semantics, and the decoding of its event selects. Freestanding: no libc. */
#ifndef PMH_SIM_SIM_H
#define PMH_SIM_SIM_H

#include <stdint.h>
#include <stdbool.h>
#include "../../pmu/hw.h"
#include "../../pmu/cpu.h"
#include "../../events/workload.h"
#include "sim_smp.h"

#define SIM_MAX_CTRS  32
#define SIM_STORM_MAX 1000 /* pmi-storm repeats in one power-on (sim_apic.c) */

/* Faults that can be injected (by name on the command line). */
enum sim_fault {
	SF_NONE,
	SF_STUCK_COUNTER,	/* counter 0 never increments */
	SF_NARROW_COUNTER,	/* counters wrap at 32 bits whatever the width */
	SF_NO_SIGN_EXTEND,	/* 32-bit writes do not sign-extend bit 31 */
	SF_NO_OVERFLOW_STATUS,	/* overflow never sets the status bit / OVF flag */
	SF_LOST_PMI,		/* overflow interrupts are never raised */
	SF_SPURIOUS_PMI,	/* a PMI arrives with nothing overflowed */
	SF_ENABLE_IGNORED,	/* counters count with their enable bit clear */
	SF_GLOBAL_CTRL_IGNORED, /* counters count with the global enable clear */
	SF_WRONG_EVENT,		/* instructions count branches and vice versa */
	SF_MSR_FAULT,		/* counter 1's MSRs raise #GP */
	SF_OVERCOUNT,		/* one extra event per iteration (double counting) */
	SF_LVT_STUCK_MASKED,	/* LVTPC mask bit cannot be cleared */
	SF_ACK_IGNORED,		/* clearing overflow status has no effect */
	SF_PMI_STORM,		/* one overflow bit will not clear: PMI after PMI */
	SF_ENABLE_IGNORED_ONE,	/* counter 1 alone counts with its enable bit clear */
	SF_WRONG_VECTOR,	/* the PMI arrives on another vector than LVTPC's */
	SF_GLOBAL_IGNORED_GP,	/* GP counters ignore the global enable (fixed obey) */
	SF_WIDTH_HIGH_BITS,	/* bits above the counter width hold what is written */
	SF_WRITE_DROPPED,	/* a read-write PMU register drops writes to one bit */
	SF_DUPLICATE_PMI,	/* counters overflowing together raise a PMI each */
	SF_STATUS_NOT_STICKY,	/* the overflow flag clears itself once read */
	SF_SKID_LONG,		/* the PMI comes 100x the model's longest skid late */
	SF_OS_IGNORED,		/* the OS (ring 0) bit ignored: USR-only counts ring 0 too */
	SF_EDGE_IGNORED,	/* the edge-detect bit ignored: every asserted cycle counts */
	SF_INV_IGNORED,		/* the invert bit ignored: the comparison is never inverted */
	SF_CMASK_IGNORED,	/* the counter mask ignored: events count as with mask 0 */
	SF_EOI_IGNORED,		/* EOI does not clear the in-service bit */
	SF_NMI_LOST,		/* an NMI sent through the ICR is never delivered */
	SF_CYCLES_SLOW,		/* core-cycle events count every second core cycle */
	SF_CYCLES_REF,		/* core-cycle events count at the TSC (reference) rate */
	/* Event decoding: each changes what a model's decode makes of the
	 * outcome of a workload, never the workload itself. */
	SF_EVENT_DEAD,	     /* mispredicted-branch events count nothing */
	SF_EVENT_MISWIRED,   /* mispredicted-branch events count every retired branch */
	SF_UMASK_IGNORED,    /* a unit-mask bit ignored (Skylake L2_RQSTS hit states, K8 42h) */
	SF_MISS_COUNTS_HITS, /* L1D / L1I / L2 / LLC miss events count accesses or references */
	SF_DOUBLE_COUNT,     /* near returns (AMD C8h), branches (Intel C4h) counted twice */
	SF_REFCYC_CORE,	     /* reference cycles count core cycles (Intel fixed 2, 013Ch) */
	/* Counting features and ring 3. */
	SF_USER_AS_OS,	 /* events at CPL 3 count as ring 0's: OS-only counts them, USR-only not */
	SF_PCE_IGNORED,	 /* RDPMC at CPL 3 runs with CR4.PCE clear (no #GP) */
	SF_TR_LEAKED,	 /* the platform's return from ring 3 leaves the harness's TR loaded */
	SF_WRITE_RESETS, /* a write to a running counter restarts it from 0, not the value */
	SF_FAST_RDPMC_FULL,  /* RDPMC with ECX[31] (fast read) returns the whole counter */
	SF_FULL_WIDTH_NO_GP, /* a full-width write with bits above the width is truncated, no #GP */
	SF_FREEZE_IGNORED,   /* DEBUGCTL.FREEZE_PERFMON_ON_PMI ignored: counters run on at a PMI */
	SF_OVERFLOW_FREEZES, /* a counter's overflow stops every other counter (freeze unasked) */
	SF_ALIAS_BROKEN,     /* AMD's legacy PerfCtr/PerfEvtSel MSRs are not the core counters */
	SF_SPFLT_IGNORED,    /* KNC: PERF_SPFLT_CONTROL's USER_PREF does not gate its counters */
	SF_IN_TX_IGNORED,    /* IN_TX (event select bit 32) ignored: it counts outside RTM too */
	SF_EMULATED_UNCOUNTED, /* KVM does not count the instructions it emulates (before 5.17) */
	SF_METRICS_UNSCALED,   /* PERF_METRICS fields are parts of 0x80, not 0xFF: do not add up */
	/* Sampling hardware (sim_smp.h). */
	SF_LBR_OFF_BY_ONE,	  /* each LBR FROM is paired with the TO of the branch before */
	SF_LBR_FILTER_IGNORED,	  /* the LBR branch-type filters record every kind */
	SF_LBR_FREEZE_IGNORED,	  /* FREEZE_LBRS_ON_PMI held, the LBRs record on past the PMI */
	SF_LBR_CALLSTACK_IGNORED, /* call-stack mode held, returns recorded instead of popping */
	SF_PEBS_NEXT_IP,	  /* a PEBS record's eventing IP is the next instruction's */
	SF_PEBS_RESET_IGNORED, /* the DS area's counter reset value is not reloaded after a record
				*/
	SF_DS_THRESHOLD_LOST,  /* a DS buffer reaching its interrupt threshold raises no PMI */
	SF_BTS_SKIPS_BRANCH,   /* the branch trace store drops every 16th branch */
	SF_IBS_RIP_OUTSIDE,    /* IBS_OP_RIP names an address outside what retired */
	SF_IBS_LVT_IGNORED,    /* IBS interrupts arrive on LVTPC, not IBS_CTL's extended LVT */
	SF_COUNT
};
/* The event-decoding faults, and one reason for all of them where a model
 * cannot have them (fault_na). */
#define SIM_EVENT_FAULTS                                                                           \
	(SIM_F(SF_EVENT_DEAD) | SIM_F(SF_EVENT_MISWIRED) | SIM_F(SF_UMASK_IGNORED) |               \
	 SIM_F(SF_MISS_COUNTS_HITS) | SIM_F(SF_DOUBLE_COUNT) | SIM_F(SF_REFCYC_CORE))
/* A configuration whose whole run host/unit/test_hv_verdicts.c pins (the
 * hypervisor models): its pinned_by, and every fault refused with one
 * reason (sim_start and the tests over every model want a reason for each
 * fault a model lacks). */
#define SIM_PINNED_BY "test_hv_verdicts.c"
#define SIM_NA_PINNED                                                                              \
	[SF_STUCK_COUNTER... SF_COUNT - 1] = "a pinned configuration: its whole run is judged by " \
					     "host/unit/" SIM_PINNED_BY ", not the fault matrix"
#define SIM_NA_EVENT(why)                                                                          \
	[SF_EVENT_DEAD] = why, [SF_EVENT_MISWIRED] = why, [SF_UMASK_IGNORED] = why,                \
	[SF_MISS_COUNTS_HITS] = why, [SF_DOUBLE_COUNT] = why, [SF_REFCYC_CORE] = why
/* The filter faults: every family with a ring-0 bit, a counter mask (or
 * NetBurst's threshold), invert and edge detect can have them. */
#define SIM_FILTER_FAULTS                                                                          \
	(SIM_F(SF_OS_IGNORED) | SIM_F(SF_EDGE_IGNORED) | SIM_F(SF_INV_IGNORED) |                   \
	 SIM_F(SF_CMASK_IGNORED) | SIM_F(SF_USER_AS_OS))
/* Why the harness could not catch a decode fault on a catalogue without
 * event.semantics rules. */
#define SIM_NA_NO_RULES                                                                            \
	"the harness has no event.semantics rules for this family's catalogue: a decode fault "    \
	"could not be caught"
/* One fault as a bit of sim_model.faults. */
#define SIM_F(f) (UINT64_C(1) << (f))
/* The local APIC's faults (sim_apic.c) and the ring-3 excursion's
 * (sim_user.c): every model has its APIC, its CR4.PCE and a platform. */
#define SIM_APIC_FAULTS                                                                            \
	(SIM_F(SF_EOI_IGNORED) | SIM_F(SF_NMI_LOST) | SIM_F(SF_PCE_IGNORED) | SIM_F(SF_TR_LEAKED))
/* cycles-ref where the model's core clock is the TSC's: nothing tells the
 * two rates apart. */
#define SIM_NA_CYCLES_REF                                                                          \
	"the model's core clock runs at the TSC's rate (no turbo, sim_silicon.turbo_x100): "       \
	"counting core cycles at the reference rate counts the same"
/* The faults of one family's registers (amd.legacy-alias, knc.spflt), and
 * why a model of another has neither (fault_na). */
#define SIM_NA_ALIAS                                                                               \
	[SF_ALIAS_BROKEN] = "the legacy PerfEvtSel/PerfCtr MSRs alias core counters only on AMD "  \
			    "parts with the core extension, CPUID 8000_0001h ECX[23] (AMD APM "    \
			    "Vol. 2 §13.2)"
#define SIM_NA_SPFLT                                                                               \
	[SF_SPFLT_IGNORED] = "PERF_SPFLT_CONTROL (MSR 2CH) and USER_PREF are Knights Corner's "    \
			     "(KNC PMU guide #327357 §1.4.3.4)"
#define SIM_NA_FAMILY_REGS SIM_NA_ALIAS, SIM_NA_SPFLT
/* freeze.pmi's and pmu.capabilities' faults (Intel arch perfmon v2+'s
 * DEBUGCTL freeze, the topdown PERF_METRICS of P-cores from Ice Lake), and
 * why a model of another family has neither (fault_na). */
#define SIM_NA_FREEZE_WHY                                                                          \
	"DEBUGCTL.FREEZE_PERFMON_ON_PMI is Intel architectural perfmon v2's and later's (SDM "     \
	"Vol. 3B \"Freezing LBR and Performance Counters on PMI\")"
#define SIM_NA_METRICS_WHY                                                                         \
	"IA32_PERF_METRICS (329H) is there where IA32_PERF_CAPABILITIES[15] says so, Intel "       \
	"P-cores from Ice Lake (Linux intel/core.c icl_update_topdown_event)"
#define SIM_NA_TOPDOWN                                                                             \
	[SF_FREEZE_IGNORED] = SIM_NA_FREEZE_WHY, [SF_METRICS_UNSCALED] = SIM_NA_METRICS_WHY
/* count.tsx and kvm.emulated (tests/checks/tsx_qualifiers.c, kvm_emulated.c):
 * in-tx-ignored where the model has no RTM (why: the family's reason), and
 * emulated-uncounted anywhere but a KVM guest whose host turns forced
 * emulation on (model_kvm_fep.c). */
#define SIM_NA_NO_FEP                                                                              \
	"not a KVM guest with force_emulation_prefix on (Linux arch/x86/kvm/x86.c handle_ud): "    \
	"nothing the harness runs is emulated"
#define SIM_NA_TSX_FEP(why) [SF_IN_TX_IGNORED] = why, [SF_EMULATED_UNCOUNTED] = SIM_NA_NO_FEP
#define SIM_NA_TSX_AMD	    SIM_NA_TSX_FEP("AMD has no TSX: no IN_TX bit (AMD APM Vol. 2 13.2.1)")
#define SIM_NA_NO_RTM                                                                              \
	"no RTM (CPUID.(7,0):EBX[11] clear): IN_TX and IN_TXCP are reserved (SDM Vol. 3B "         \
	"20.3.6.5)"
/* The sampling faults, and why a model without the hardware has none. */
#define SIM_LBR_FAULTS                                                                             \
	(SIM_F(SF_LBR_OFF_BY_ONE) | SIM_F(SF_LBR_FILTER_IGNORED) | SIM_F(SF_LBR_FREEZE_IGNORED) |  \
	 SIM_F(SF_LBR_CALLSTACK_IGNORED))
#define SIM_PEBS_FAULTS                                                                            \
	(SIM_F(SF_PEBS_NEXT_IP) | SIM_F(SF_PEBS_RESET_IGNORED) | SIM_F(SF_DS_THRESHOLD_LOST))
#define SIM_BTS_FAULTS (SIM_F(SF_BTS_SKIPS_BRANCH))
#define SIM_IBS_FAULTS (SIM_F(SF_IBS_RIP_OUTSIDE) | SIM_F(SF_IBS_LVT_IGNORED))
#define SIM_NA_LBR(why)                                                                            \
	[SF_LBR_OFF_BY_ONE] = why, [SF_LBR_FILTER_IGNORED] = why, [SF_LBR_FREEZE_IGNORED] = why,   \
	[SF_LBR_CALLSTACK_IGNORED] = why
#define SIM_NA_PEBS(why)                                                                           \
	[SF_PEBS_NEXT_IP] = why, [SF_PEBS_RESET_IGNORED] = why, [SF_DS_THRESHOLD_LOST] = why
#define SIM_NA_BTS(why) [SF_BTS_SKIPS_BRANCH] = why
#define SIM_NA_IBS(why) [SF_IBS_RIP_OUTSIDE] = why, [SF_IBS_LVT_IGNORED] = why
#define SIM_NA_IBS_AMD	"IBS is AMD's (AMD APM Vol. 2 13.3, CPUID 8000_0001h ECX[10])"
#define SIM_NA_DS_INTEL                                                                            \
	"the debug store (BTS, PEBS) is Intel's (SDM Vol. 3B 18.6.3.4): AMD has none"
#define SIM_NA_NO_SMP_WHY                                                                          \
	"the model has no sampling hardware the simulator models (LBR, PEBS, BTS, IBS: "           \
	"host/sim/sim_smp.h)"
#define SIM_NA_NO_SMP                                                                              \
	SIM_NA_LBR(SIM_NA_NO_SMP_WHY), SIM_NA_PEBS(SIM_NA_NO_SMP_WHY),                             \
	    SIM_NA_BTS(SIM_NA_NO_SMP_WHY), SIM_NA_IBS(SIM_NA_NO_SMP_WHY)
_Static_assert(SF_COUNT <= 64, "sim_model.faults is a 64-bit mask");

/* Realism: what real silicon does that an ideal model would not. Each
 * effect is one bit, switchable on its own (--realism), drawn from a seeded
 * generator (--seed) so that a run is reproducible. Implemented in
 * realism.c; the per-family numbers live in each model's sim_silicon. */
enum sim_effect {
	SE_OVERHEAD,   /* the harness's own code retires into enabled counters */
	SE_SKID,       /* the overflow is signalled some instructions late */
	SE_INEXACT,    /* AMD counts vary by a few events between identical runs */
	SE_LATE_ACK,   /* unmasking LVTPC with an overflow bit set re-raises a PMI */
	SE_INTERRUPTS, /* firmware timer interrupts (IF=1) and SMIs land in windows */
	SE_FIRMWARE,   /* what firmware leaves behind and platform quirks */
	SE_TURBO,      /* the core clock runs above the TSC rate (sim_silicon.turbo_x100) */
	SE_PREFETCH,   /* the L2 hardware prefetcher serves some misses of strided walks */
	SE_COUNT
};
#define SIM_REALISM_ALL ((1u << SE_COUNT) - 1)

/* Per-family behaviour of real cores, each number from the source cited
 * (or "ours") where the model defines it. Ranges are inclusive. Every size
 * and rate is at --realism-scale 1; realism_scale.c multiplies them. */
struct sim_silicon {
	/* overhead: instructions retired by one seam access and the harness
	 * code that leads to it; branches are about one in five of them */
	uint16_t insn_min, insn_max;
	uint16_t cpi_x10; /* cycles per harness instruction, x10 */
	/* skid: instructions retired between an overflow and the PMI */
	uint32_t skid_min, skid_max;
	/* the most branches a skid spans on this core, whatever its length in
	 * instructions (rr's skid_size where rr has the family); 0: no bound */
	uint32_t skid_cap_br;
	/* interrupt entry + exit stubs, retired around every handler */
	uint16_t entry_insn;
	/* what the delivery of a hardware interrupt itself adds to the
	 * instruction and branch counts, besides its handler's code */
	uint8_t irq_insn, irq_br;
	/* inexact: per counting window, with probability inexact_pm per mille,
	 * a counter gains 1..inexact_max events it should not have */
	uint16_t inexact_max, inexact_pm;
	bool late_ack;	 /* Linux acks late on this core (Haswell and later) */
	bool smi_count;	 /* MSR_SMI_COUNT (0x34) counts SMIs */
	bool smm_counts; /* counters keep counting inside SMM (no freeze) */
	/* turbo: the core clock over the TSC (reference) clock, x100; 0 or 100:
	 * the core runs at the TSC rate */
	uint16_t turbo_x100;
};

struct sim_cpu;
struct uarch_cfg;

struct sim_model {
	const char *name;
	const char *doc;	   /* the document section it is written from */
	enum pmu_driver_id driver; /* the driver the harness should choose */
	/* Faults that make sense for this family (SIM_F bit per enum sim_fault). */
	uint64_t faults;
	/* Why an inapplicable fault makes no sense here (index by fault). */
	const char *fault_na[SF_COUNT];
	/* Power-on state: CPUID table, counters (widths), registers. */
	void (*reset)(struct sim_cpu *s);
	/* The model's MSR file; return HW_FAULT_GP for MSRs that do not exist. */
	int (*rdmsr)(struct sim_cpu *s, uint32_t msr, uint64_t *v);
	int (*wrmsr)(struct sim_cpu *s, uint32_t msr, uint64_t v);
	int (*rdpmc)(struct sim_cpu *s, uint32_t ecx, uint64_t *v);
	/* Events counter i counts per workload iteration with its current
	 * programming (0 when it does not count: EN clear, global off, USR-only
	 * in ring 0, unknown event...). The core applies faults on top. */
	uint64_t (*rate)(struct sim_cpu *s, unsigned i, const struct workload_vector *v);
	/* Counter i overflowed: record status; return true to request a PMI. */
	bool (*overflow)(struct sim_cpu *s, unsigned i);
	/* The local APIC masks LVTPC when it delivers a PMI (Linux
	 * perfctr-watchdog.c, i386 nmi.c). */
	bool lvt_automask;
	/* Overflows still flagged in status (late-ack), 0 if none or no status. */
	uint64_t (*pending)(struct sim_cpu *s);
	/* Realism numbers for this family; 0 = behaves ideally. */
	const struct sim_silicon *si;
	/* Logical CPUs of the machine (0: one); each has its own CPUID values
	 * and MSR file, powered on by reset with sim_cpu.cpu_no set. */
	unsigned cpus;
	/* A hypervisor's guest: the bare-metal model it runs on (sim_guest.c),
	 * NULL on bare metal. */
	const char *host;
	/* A configuration whose whole run a unit test pins (its file under
	 * host/unit/, e.g. "test_hv_kvm.c"), verdict and lines, instead of the
	 * fault matrix (scripts/sim-matrix.py leaves it out); NULL: in the
	 * matrix. */
	const char *pinned_by;
	/* Optional: k iterations of v are about to retire with the counters
	 * as they are (one step of the workload engine, sim_engine.c): state
	 * a model derives from what retires besides its counters (the topdown
	 * PERF_METRICS, model_arch_topdown.c). */
	void (*retired)(struct sim_cpu *s, const struct workload_vector *v, uint64_t k);
	/* Its sampling hardware (sim_smp.h); NULL: none. */
	const struct sim_smp_cfg *smp;
};

struct sim_cpuid {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
};

struct sim_stats {
	uint64_t pmi_raised;	/* overflow interrupt requests from counters */
	uint64_t pmi_delivered; /* PMIs that reached isr_dispatch */
	uint64_t pmi_dropped;	/* requests that met a masked LVT entry */
	uint64_t nmi_delivered;
	uint64_t eoi;
	uint64_t instructions;	/* retired by workloads (the simulated RIP) */
	uint64_t overhead_insn; /* retired by the harness's own code (realism) */
	uint64_t skid_total;	/* instructions between overflows and their PMIs */
	uint64_t inexact_events;
	uint64_t late_ack_pmis;
	uint64_t timer_irqs;
	uint64_t smis;
};

/* State of the realism effects (realism.c). */
struct sim_real {
	uint32_t on;	    /* SE_* bits */
	uint64_t seed, rng; /* xorshift64* state */
	uint32_t last_site; /* the previous access: a site is a pair of accesses */
	unsigned busy;	    /* nesting guard for overhead */
	bool latched;	    /* an overflow waits out its skid */
	uint64_t skid_left;
	uint64_t skid_br_left; /* the skid's branch bound (sim_silicon.skid_cap_br); 0: none */
	unsigned scale;	       /* --realism-scale K (0 reads as 1), realism_scale.c */
	uint64_t timer_next, smi_next; /* TSC deadlines */
	bool timer_pending;
	uint64_t smi_count; /* MSR_SMI_COUNT */
	bool limit_cpuid;   /* IA32_MISC_ENABLE[22]: CPUID leaves above 2 hidden */
	/* Tunables (tests raise them to make an effect certain). */
	uint64_t timer_min_us, timer_max_us, smi_min_us, smi_max_us;
};

/* --skid N: every overflow's PMI comes exactly n instructions late,
 * whatever the realism (0: the model's drawn skid). */
void sim_set_skid(uint64_t n);
/* --realism-scale K (SIM_SCALE_MIN..SIM_SCALE_MAX): every realism effect's
 * size and rate times K from the next power-on (sim_start_real) on, each
 * capped where it stops describing a real core (realism_scale.c). The
 * scale of the current machine: sim_realism_scale(). */
#define SIM_SCALE_MIN 1
#define SIM_SCALE_MAX 16
void sim_set_realism_scale(unsigned k);
unsigned sim_realism_scale(void);
/* Parses the value of --realism-scale into *k; -1 with a message naming
 * the option in err when it is not a whole number in range. */
int sim_realism_scale_parse(const char *s, unsigned *k, char *err, unsigned errlen);

/* CPUID entries of one CPU: a model's few, or a real part's dump. */
#define SIM_MAX_CPUID 256

struct sim_cpu {
	const struct sim_model *m;
	enum sim_fault fault;
	/* the harness's per-CPU block in a parallel run (hw_cpu_local), NULL
	 * in a serial one */
	void *pcpu;
	/* a hybrid machine larger than alderlake's (model_manycore.c): its
	 * first E-core (0: alderlake's own split) */
	unsigned hybrid_first_atom;
	struct sim_cpuid cpuid[SIM_MAX_CPUID];
	unsigned n_cpuid;
	/* counters, by the model's own numbering */
	unsigned n_ctr;
	uint64_t ctr[SIM_MAX_CTRS];
	uint8_t width[SIM_MAX_CTRS];
	uint64_t ctr_hi[SIM_MAX_CTRS]; /* width-high-bits: written bits above the width */
	/* model registers (event selects, CCCRs, ESCRs, globals), model-defined */
	uint64_t reg[128];
	/* local APIC */
	uint64_t apic_base; /* IA32_APIC_BASE value */
	/* IA32_PKRS where CPUID enumerates PKS; a write with a reserved bit
	 * raises #GP (SDM Vol. 3A 4.6.2) unless pkrs_gp_lost (unit tests: the
	 * fault turned into a silent write, as a careless hypervisor might). */
	uint64_t pkrs;
	bool pkrs_gp_lost;
	uint32_t apic_id; /* this logical processor's APIC ID (0 unless the model says) */
	unsigned cpu_no;  /* this CPU's number in a machine of several (sim_cpu_switch) */
	uint32_t lvt_pc;
	uint32_t tpr, svr;
	uint8_t irr[32], isr[32]; /* 256-bit vectors */
	bool nmi_pending, in_nmi;
	bool irq_enabled;
	unsigned depth; /* delivery nesting guard */
	/* faults on the PMI path (sim.c, sim_apic.c) */
	unsigned pmi_ovf;	/* overflows that asked for a PMI since the last one */
	unsigned pmi_owed;	/* duplicate-pmi: PMIs still to send */
	uint8_t storm_ctr;	/* pmi-storm: 1 + the counter whose flag sticks */
	unsigned storm_repeats; /* PMIs the stuck flag raised again */
	uint64_t relax_ns;	/* the next spin-wait step (hw_relax) */
	/* Unit tests only: a write to refuse.msr (0: none) whose value has
	 * (v & refuse.mask) == refuse.val, made with interrupts off as inside
	 * a measurement window, raises #GP; refuse.hits counts them. */
	struct {
		uint32_t msr;
		uint64_t mask, val;
		unsigned hits;
	} refuse;
	uint64_t tsc;
	/* The micro-architecture the model's reset set (host/sim/uarch.h; 0:
	 * the unpublished default), the reference clock's fraction of a tick
	 * carried between steps, and the counters that counted in the current
	 * workload (for inexact). */
	const struct uarch_cfg *ua;
	/* CR3 as the harness loaded it (hw_paging_load); 0: the firmware's
	 * tables (sim_mmu.c), in which all memory is identity-mapped. */
	uint64_t cr3;
	/* Ring 3 (sim_user.c): the privilege level the core runs at (0: the
	 * harness; 3: inside hw_user_run / hw_user_rdpmc), and the
	 * descriptor-table registers and CR4 as the firmware left them (CR4.PCE
	 * is set only inside hw_user_rdpmc, which nothing can observe). */
	unsigned cpl;
	struct hw_cpu_tables tables;
	uint64_t ref_carry;
	uint32_t counted;
	/* overflow-freezes: the counters an overflow stopped, until the next
	 * write to a model register (sim.c hw_wrmsr) */
	uint64_t frozen;
	/* IA32_MPERF / IA32_APERF where the model has them (sim_aperfmperf):
	 * the reference and the core clock of the cycles the core ran
	 * (sim_engine.c advance). */
	bool aperfmperf;
	uint64_t mperf, aperf;
	struct sim_stats st;
	struct sim_real real;
	struct sim_smp smp; /* sampling hardware (sim_smp.h) */
};

extern struct sim_cpu sim;

/* Translation (sim_mmu.c): the physical address of va through the tables
 * s->cr3 names, 4-level IA-32e paging as the harness built them; false
 * when a table the walk reaches marks va not present (a page fault). *big:
 * a 2 MiB or 1 GiB page. */
bool sim_translate(const struct sim_cpu *s, uint64_t va, uint64_t *pa, bool *big);

/* A guest's host model (sim_model.host; NULL when there is none), and its
 * handlers run as themselves (sim_guest.c); sim_host_msr reads 0 for an
 * MSR the host faults on. */
const struct sim_model *sim_guest_host(const struct sim_model *guest);
int sim_host_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_host_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);
int sim_host_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v);
uint64_t sim_host_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v);
bool sim_host_overflow(struct sim_cpu *s, unsigned i);
uint64_t sim_host_pending(struct sim_cpu *s);
void sim_host_reset(struct sim_cpu *s);
uint64_t sim_host_msr(struct sim_cpu *s, uint32_t msr);

/* Model registry. */
const struct sim_model *sim_model_find(const char *name);
const struct sim_model *const *sim_models(unsigned *n);
const char *sim_fault_name(enum sim_fault f);
enum sim_fault sim_fault_from_name(const char *name);

/* Select and power on a model with an injected fault (SF_NONE = healthy).
 * Returns -1 for an unknown model or a fault that makes no sense for it. */
int sim_start(const char *model, enum sim_fault fault);
/* The same with realism effects (SE_* bits) drawn from seed. */
int sim_start_real(const char *model, enum sim_fault fault, uint32_t realism, uint64_t seed);
/* Machines of several CPUs (sim_model.cpus): the number of CPUs, and CPU n
 * made the current one (sim), the state of the one before kept; a CPU is
 * powered on at its first switch. -1 when there is no CPU n. */
#define SIM_MAX_CPUS 1024 /* as the suite's selection (tests/suite.h SUITE_MAX_CPUS) */
unsigned sim_cpu_count(void);
int sim_cpu_switch(unsigned n);
/* A parallel run's fibers (sim_par.c): run every job of p, taking turns
 * from seed; tick: a seam call, where the running fiber's turn may end. */
struct cpu_par;
void sim_par_run(struct cpu_par *p, const uint32_t *flags, uint64_t seed);
void sim_par_tick(void);
/* The running fiber's CPU stopped for good (hw_halt): its job is never
 * done and it never runs again; returns at once outside a parallel run. */
void sim_par_halt(void);
/* A fault for the tests: every AP of a parallel run on one per-CPU block,
 * as if the harness's state were shared between CPUs. */
void sim_par_share_blocks(bool on);
/* The platform's run_cpus for such a machine (sim_mp.c): the suite on the
 * CPUs the cpus option selects, CPU 0 the boot CPU; ctx unused. */
struct harness;
void sim_run_cpus(void *ctx, struct harness *h);
static inline bool sim_real(const struct sim_cpu *s, enum sim_effect e)
{
	return (s->real.on >> e) & 1u;
}
const char *sim_effect_name(enum sim_effect e);
/* Parses "none", "all" or a comma list of effect names into *mask;
 * returns -1 and the offending word in *bad on an unknown name. */
int sim_realism_parse(const char *s, uint32_t *mask, char *bad, unsigned badlen);

/* For unit tests: a behaviour of some core that no model has, applied to
 * what a successful RDMSR returns (NULL: none). */
extern void (*sim_rdmsr_filter)(struct sim_cpu *s, uint32_t msr, uint64_t *val);

/* realism.c: the seam's hooks. Kinds of access (with a key: MSR, leaf,
 * APIC offset, vector) name the site whose code retires. */
enum sim_access {
	SA_RDMSR = 1,
	SA_WRMSR,
	SA_RDPMC,
	SA_CPUID,
	SA_MMIO,
	SA_TSC,
	SA_IRQ,
	SA_WORKLOAD,
	SA_ENTRY,
	SA_EXIT
};
void sim_real_reset(struct sim_cpu *s);
void sim_real_access(struct sim_cpu *s, enum sim_access kind, uint32_t key);
uint64_t sim_rand(struct sim_cpu *s, uint64_t lo, uint64_t hi); /* inclusive */
/* An overflow wants a PMI: raised now, or after the skid. */
void sim_real_overflow(struct sim_cpu *s);
/* Instructions and branches retired: count down a pending skid. */
void sim_real_retired(struct sim_cpu *s, uint64_t insn, uint64_t br);
/* Time passed (spin-wait): a latched PMI goes out, timers and SMIs fire. */
void sim_real_time(struct sim_cpu *s);
/* After a workload: AMD's inexact counts. */
void sim_real_after_workload(struct sim_cpu *s);
/* LVTPC written: old and new value (late-ack re-raise). */
void sim_real_lvt(struct sim_cpu *s, uint32_t old, uint32_t val);
/* realism_scale.c: a core's scale K (1 unless set), a size times K, a
 * per-mille rate times K (at most 1000), a turbo ratio x100 with its excess
 * over 1.0 times K (capped), and an interrupt source's period in us at K
 * (lo..hi at K = 1, its longest handler busy_us at K). */
unsigned sim_k(const struct sim_cpu *s);
uint64_t sim_k_size(const struct sim_cpu *s, uint64_t v);
uint64_t sim_k_pm(const struct sim_cpu *s, uint64_t pm);
unsigned sim_k_turbo_x100(const struct sim_cpu *s, unsigned t);
void sim_k_period(unsigned k, uint64_t lo, uint64_t hi, uint64_t busy_us, uint64_t *min,
		  uint64_t *max);
/* hw_run_workload with the workload's own instructions (its call and its
 * iterations) retired at privilege level cpl: 0 as the harness, 3 inside
 * hw_user_run (sim_user.c); the harness's code before it at CPL 0. */
void sim_workload_at(struct sim_cpu *s, const struct workload *w, uint64_t iterations,
		     unsigned cpl);
/* sim_trace.c: a traced workload (workload.traced) run from its code,
 * one instruction at a time through advance (sim_engine.c). */
void sim_trace_run(struct sim_cpu *s, const struct workload *w, uint64_t iterations,
		   void (*advance)(struct sim_cpu *, const struct workload_vector *, uint64_t));
/* sim_tx.c: what w comes to on s: itself, or where s forces every RTM
 * transaction to abort (TSX_FORCE_ABORT, SDM Vol. 3B 20.3.6.5) a copy in
 * copy without its transactions' insides. A kernel s cannot run (XBEGIN
 * without RTM, KVM's forced-emulation prefix where nothing takes it) stops
 * the simulator, as the #UD would be fatal on the target;
 * hw_run_workload_guarded returns HW_FAULT_UD for it instead. */
const struct workload *sim_tx_outcome(struct sim_cpu *s, const struct workload *w,
				      struct workload *copy);
/* Whether s aborts every RTM transaction now. */
bool sim_rtm_force_aborted(struct sim_cpu *s);
/* The descriptor tables and CR4 a firmware leaves (sim_user.c). */
void sim_user_power_on(struct sim_cpu *s);
/* Retires insn instructions, branches, cycles into every counting counter. */
void sim_retire(struct sim_cpu *s, uint64_t insn, uint64_t branches, uint64_t cycles);
/* Adds n events to counter i (overflow handled as in a workload). */
void sim_ctr_bump(struct sim_cpu *s, unsigned i, uint64_t n);
static inline bool sim_has_fault(const struct sim_cpu *s, enum sim_fault f)
{
	return s->fault == f;
}
/* A mispredicted-branch event's count (every family's): the outcome's
 * mispredictions, none under event-dead, every branch under
 * event-miswired. */
static inline uint64_t sim_mispredicted(const struct sim_cpu *s, const struct workload_vector *v)
{
	if (sim_has_fault(s, SF_EVENT_DEAD))
		return 0;
	return sim_has_fault(s, SF_EVENT_MISWIRED) ? v->branches : v->branch_misses;
}
/* A core-cycle event's count (unhalted core cycles, every family's):
 * v's cycles; every second one under cycles-slow (sim_engine.c takes an
 * odd iteration in pairs, so that this halves an even count); under
 * cycles-ref the reference clock's, the TSC's rate. */
static inline uint64_t sim_core_cycles(const struct sim_cpu *s, const struct workload_vector *v)
{
	if (sim_has_fault(s, SF_CYCLES_REF))
		return v->ref_cycles;
	return sim_has_fault(s, SF_CYCLES_SLOW) ? v->cycles / 2 : v->cycles;
}
/* IA32_MPERF and IA32_APERF on the model: CPUID.06H with ECX[0] and eax
 * (a model's reset; sim_engine.c). sim_clock_msr: whether msr is one of
 * them on this CPU, which sim_clock_rdmsr / _wrmsr then serve (both are
 * read-write, SDM Vol. 4 Table 2-2). */
void sim_aperfmperf(struct sim_cpu *s, uint32_t eax);
bool sim_clock_msr(const struct sim_cpu *s, uint32_t msr);
int sim_clock_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v);
int sim_clock_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v);

/* Helpers for models. */
void sim_set_cpuid(struct sim_cpu *s, uint32_t leaf, uint32_t subleaf, uint32_t a, uint32_t b,
		   uint32_t c, uint32_t d);
void sim_brand(struct sim_cpu *s, const char *brand); /* leaves 8000_0002h-4h */
void sim_vendor(struct sim_cpu *s, uint32_t max_leaf, const char *vendor);
/* EAX of CPUID.1 from display family/model/stepping. */
uint32_t sim_fms(unsigned family, unsigned model, unsigned stepping);
/* Stores v into counter i masked to its width (the narrow-counter fault
 * narrows it). */
void sim_ctr_set(struct sim_cpu *s, unsigned i, uint64_t v);
/* What a read of counter i returns (RDMSR and RDPMC): its value, and with
 * the width-high-bits fault the bits above the width as last written. */
/* A model without counters: nothing counts, nothing overflows
 * (model_nopmu.c; the CPUID-dump replay uses them too). */
uint64_t sim_no_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v);
bool sim_no_overflow(struct sim_cpu *s, unsigned i);
uint64_t sim_ctr_read(const struct sim_cpu *s, unsigned i);
uint64_t sim_width_mask(const struct sim_cpu *s, unsigned i);
/* Whether a counter counts given its enable and global-enable state, with
 * the enable-ignored and global-ctrl-ignored faults applied. */
bool sim_counting(const struct sim_cpu *s, bool enabled, bool global_enabled);
/* pmi-storm: whether counter i's overflow flag will not clear (the first
 * counter to overflow under the fault); models keep it set on every ack. */
bool sim_flag_stuck(const struct sim_cpu *s, unsigned i);
/* The same for counter i of the model (gp: a general-purpose counter, not a
 * fixed-function one), with the per-counter faults applied as well:
 * enable-ignored-one (counter 1) and global-ignored-gp. Models call this. */
bool sim_ctr_counting(const struct sim_cpu *s, unsigned i, bool gp, bool enabled,
		      bool global_enabled);
/* Whether a counter with these privilege bits counts what retires now: at
 * CPL 0 (the harness) OS says so, at CPL 1-3 USR (SDM Vol. 3B 20.2.1.1
 * "USR (user mode) flag ... privilege levels 1, 2 or 3"; AMD APM Vol. 2
 * 13.2.1 PerfEvtSel OS/USR; NetBurst ESCR T0_OS/T0_USR). Under os-ignored
 * USR counts ring 0 as well; under user-as-os ring 3 counts as ring 0. */
static inline bool sim_priv_counts(const struct sim_cpu *s, bool os, bool usr)
{
	if (s->cpl)
		return sim_has_fault(s, SF_USER_AS_OS) ? os : usr;
	return os || (usr && sim_has_fault(s, SF_OS_IGNORED));
}
/* Applies the counter-mask, invert and edge-detect filters (cmask 0: no
 * mask) to an event that occurs n times in iteration v; returns the
 * filtered count per iteration. each_cycle: the event occurs in every
 * cycle (a clock), else where instructions retire, between v's stalls.
 * The filter faults apply here. Shared by all models. */
uint64_t sim_filter(const struct sim_cpu *s, const struct workload_vector *v, uint64_t n,
		    bool each_cycle, unsigned cmask, bool inv, bool edge);
/* Raise the PMU interrupt line (a 0->1 edge; KNC §1.4.3.9). */
void sim_pmi_request(struct sim_cpu *s);
/* Deliver what the APIC has pending, if interrupts allow. */
void sim_deliver(struct sim_cpu *s);
/* x2APIC register MSRs (0x800-0x8FF) for hw_rdmsr/hw_wrmsr; #GP in xAPIC mode. */
int sim_x2apic_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *val);
int sim_x2apic_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t val);

/* model_dump.c: the CPUID values of a real processor and no MSR, for
 * pmuharness-sim --cpuid-dump; found by its name "cpuid-dump" but not
 * listed among the models. sim_dump_load copies the entries (subleaf
 * 0xffffffff: any subleaf) that its reset answers from. */
extern const struct sim_model sim_model_dump;
void sim_dump_load(const struct sim_cpuid *t, unsigned n);

/* Registers a model (a linker section, no central table). */
#define SIM_MODEL(sym)                                                                             \
	static const struct sim_model *const sym##_reg                                             \
	    __attribute__((used, section("pmh_sim_models"), aligned(8))) = &sym

#endif
