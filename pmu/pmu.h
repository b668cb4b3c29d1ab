/* The PMU driver interface: one ops table per family, the same checks for all.
 * Counters are numbered flat: GP counters first, then fixed counters; a mask
 * bit i always means flat counter i. */
#ifndef PMH_PMU_PMU_H
#define PMH_PMU_PMU_H

#include "sampling.h"
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "cpu.h"
#include "msr.h"

#define PMU_MAX_COUNTERS 32
/* On every op and helper that returns an enum hw_err: a caller that drops
 * the result fails the build (-Werror=unused-result), so that no failure
 * reads on as a measurement. */
#define PMU_MUST_USE __attribute__((warn_unused_result))

enum pmu_status { PMU_ABSENT, PMU_NOT_FUNCTIONAL, PMU_FUNCTIONAL };

enum pmu_ctr_kind { PMU_CTR_GP, PMU_CTR_FIXED };

/* Which MSR a counter write goes through. */
enum pmu_write_path {
	PMU_WRITE_PRELOAD, /* the path the driver uses for overflow preloads */
	PMU_WRITE_LEGACY,  /* the plain counter MSR (32-bit sign-extending on P6/arch) */
	PMU_WRITE_FULL,	   /* the full-width alias (arch 0x4C1+i) or a full write */
};

struct pmu_counter {
	enum pmu_ctr_kind kind;
	uint8_t index;	      /* index within its kind */
	uint8_t width;	      /* implemented bits */
	uint8_t preload_bits; /* bits a preload can set: 32 when writes sign-extend bit 31 */
	bool sign_extends;    /* legacy writes sign-extend from bit 31 */
	uint32_t ctr_msr;     /* counter MSR read by RDMSR */
	uint32_t full_msr;    /* full-width write alias, 0 if none */
	uint32_t ctl_msr;     /* event select / CCCR; FIXED_CTR_CTRL for fixed counters */
	uint32_t aux_msr;     /* NetBurst: ESCR currently bound, else 0 */
	uint32_t rdpmc;	      /* RDPMC ECX for this counter */
	char name[16];	      /* "gp0", "fixed1", "MS_COUNTER0" */
};

/* Event flags, given in the P6/arch event-select bit positions (msr.h
 * EVTSEL_*), so that P6, arch, KNC and AMD write them as they are; NetBurst
 * translates them (ESCR T0_OS/T0_USR and CCCR edge/compare). */
#define PMU_F_USR	  ((uint32_t)EVTSEL_USR)
#define PMU_F_OS	  ((uint32_t)EVTSEL_OS)
#define PMU_F_EDGE	  ((uint32_t)EVTSEL_EDGE)
#define PMU_F_INT	  ((uint32_t)EVTSEL_INT)
#define PMU_F_INV	  ((uint32_t)EVTSEL_INV)
#define PMU_F_CMASK(n)	  ((uint32_t)(n) << EVTSEL_CMASK_SHIFT)
#define PMU_F_CMASK_OF(f) (((f) >> EVTSEL_CMASK_SHIFT) & 0xffu)
/* Every flag there is: the mask of what a driver writes (never PC, ANY or
 * EN, which the drivers own). */
#define PMU_F_ALL (PMU_F_USR | PMU_F_OS | PMU_F_EDGE | PMU_F_INT | PMU_F_INV | PMU_F_CMASK(0xff))

/* A hardware event in the family's own encoding. */
struct pmu_event {
	uint16_t code;	     /* event select (12 bits on AMD: 35:32 + 7:0) */
	uint8_t umask;	     /* unit mask / NetBurst: unused */
	uint32_t escr_mask;  /* NetBurst: ESCR event mask (ESCR bits 24:9 >> 9) */
	uint8_t escr_select; /* NetBurst: CCCR ESCR-select */
	uint32_t escr_msr;   /* NetBurst: ESCR address for thread 0 */
	uint32_t counters;   /* allowed flat counters (bit mask), 0 = any GP */
	bool fixed_only;     /* arch fixed-counter pseudo events */
	char name[40];
};

/* Generic events the checks use (Linux's generic event maps). */
enum pmu_generic {
	GEN_CYCLES,
	GEN_INSTRUCTIONS,
	GEN_BRANCHES,
	GEN_BRANCH_MISSES,
	GEN_CACHE_REFS,
	GEN_CACHE_MISSES,
	GEN_REF_CYCLES,
	GEN_COUNT
};

/* Capabilities: checks declare what they need from this set. */
#define PMU_CAP_GLOBAL_CTRL    (1u << 0)  /* a global enable register */
#define PMU_CAP_STATUS_REG     (1u << 1)  /* an overflow status register with ack */
#define PMU_CAP_FIXED	       (1u << 2)  /* fixed-function counters */
#define PMU_CAP_FULL_WIDTH     (1u << 3)  /* full-width counter writes */
#define PMU_CAP_STATUS_SET     (1u << 4)  /* arch v4 GLOBAL_STATUS_SET */
#define PMU_CAP_RDPMC	       (1u << 5)  /* RDPMC works */
#define PMU_CAP_STICKY_OVF     (1u << 6)  /* NetBurst CCCR.OVF */
#define PMU_CAP_SIGN_OVERFLOW  (1u << 7)  /* overflow seen as top bit clear */
#define PMU_CAP_SINGLE_ENABLE  (1u << 8)  /* P6: EN only in EVNTSEL0 */
#define PMU_CAP_PERFMON_V2     (1u << 9)  /* AMD PerfMonV2 globals */
#define PMU_CAP_EDGE_INV_CMASK (1u << 10) /* edge, invert, counter-mask filters */
/* RDPMC with ECX[31] reads bits 31:0 alone, EDX 0: the family documents the
 * fast read (SDM Vol. 2B RDPMC: Pentium 4 and Xeon only; ECX[31] is
 * reserved on arch perfmon, AMD APM Vol. 3 RDPMC takes an index only) */
#define PMU_CAP_FAST_RDPMC (1u << 11)
/* Intel arch perfmon v2+: IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12) stops
 * the counters when an overflow requests a PMI, clearing GLOBAL_CTRL (SDM
 * Vol. 3B "Freezing LBR and Performance Counters on PMI", 17.4.7 in the
 * 2016 edition) */
#define PMU_CAP_FREEZE_PMI (1u << 12)
/* ... and from v4 the streamlined freeze instead: GLOBAL_CTRL kept,
 * GLOBAL_STATUS.CTR_FRZ (bit 59) set and the counters frozen until software
 * clears it through GLOBAL_STATUS_RESET (SDM Vol. 3B "Enhancement in
 * IA32_PERF_GLOBAL_STATUS", 20.2.4.1) */
#define PMU_CAP_FREEZE_CTR_FRZ (1u << 13)

/* How the family's PMI must be serviced (Linux's PMI handlers, KNC PMU guide §1.4.3.8-9). */
#define PMU_PMI_AUTOMASK    (1u << 0) /* the local APIC masks LVTPC on delivery */
#define PMU_PMI_UNMASK_LATE (1u << 1) /* unmask only after overflow flags are cleared */
/* A PMI may arrive for an overflow an earlier PMI already collected: the
 * family documents it (AMD NMI latency, Linux amd_pmu_adjust_nmi_window;
 * arch/x86/events/amd/core.c), so the service counts it as an echo, not as spurious. */
#define PMU_PMI_LATE_ECHO (1u << 2)

/* The most rounds a PMI service loops collecting overflows before it calls a
 * flag stuck: Linux's bound in every x86 PMI handler (intel_pmu_handle_irq, knc_pmu_handle_irq). */
#define PMU_PMI_MAX_ROUNDS 100

struct pmu;

/* A PMU MSR the driver documents, for msr.access. */
struct pmu_msr_desc {
	uint32_t addr;
	char name[24];
	uint8_t access;	  /* PMU_MSR_RW, PMU_MSR_RO, PMU_MSR_WO */
	uint64_t rw_mask; /* bits that hold written values (RW registers) */
};
#define PMU_MSR_RW 0
#define PMU_MSR_RO 1
#define PMU_MSR_WO 2

/* Every op that returns int returns an enum hw_err (hw.h): HW_OK, the fault
 * an access raised, HW_REFUSED for a request the PMU does not allow (a
 * counter, event or value), HW_UNSUPPORTED for what the family lacks (a
 * register, write path or event), HW_STUCK for a flag that did not clear
 * within PMU_PMI_MAX_ROUNDS. */
struct pmu_ops {
	const char *name;
	enum pmu_driver_id id;
	/* Events of the generic instructions event a healthy core counts past
	 * an overflow before its PMI stops the counters, at most, besides the
	 * harness's own handler (skid, overflow.rearm): from the family's
	 * documented skid (rr's skid_size where rr has the family), in
	 * instructions of the skid check's loop, with a margin; each driver
	 * cites its source and says which part is ours. */
	uint32_t skid_limit;
	/* Fill counters, widths, MSRs and capabilities from CPUID; no MSR writes.
	 * Returns HW_OK, or an error with p->reason set. */
	PMU_MUST_USE int (*init)(struct pmu *p);
	/* Program flat counter ctr (stopped) with an event and PMU_F_* flags. */
	PMU_MUST_USE int (*program)(struct pmu *p, unsigned ctr, const struct pmu_event *ev,
				    uint32_t flags);
	/* Write a counter through a path; val is what the counter should hold. */
	PMU_MUST_USE int (*write)(struct pmu *p, unsigned ctr, uint64_t val,
				  enum pmu_write_path path);
	PMU_MUST_USE int (*read)(struct pmu *p, unsigned ctr, uint64_t *val);
	/* Start / stop the counters in mask (enable bits and global control). */
	PMU_MUST_USE int (*start)(struct pmu *p, uint64_t mask);
	PMU_MUST_USE int (*stop)(struct pmu *p, uint64_t mask);
	/* Counters whose overflow is pending (status, CCCR.OVF or sign bit). */
	PMU_MUST_USE int (*overflow_status)(struct pmu *p, uint64_t *mask);
	/* Clear the pending overflow of the counters in mask. */
	PMU_MUST_USE int (*ack)(struct pmu *p, uint64_t mask);
	/* PMI protocol step: stop counting, collect and clear every pending
	 * overflow until none is left; returns the flat mask collected. */
	PMU_MUST_USE int (*pmi_collect)(struct pmu *p, uint64_t *mask);
	/* Disable and zero every counter and clear all status. */
	PMU_MUST_USE int (*reset)(struct pmu *p);
	/* The PMU MSRs this family documents. */
	size_t (*msrs)(struct pmu *p, struct pmu_msr_desc *out, size_t max);
	/* The encoding of a generic event for a counter, or HW_UNSUPPORTED / HW_REFUSED. */
	PMU_MUST_USE int (*generic_event)(struct pmu *p, enum pmu_generic g, unsigned ctr,
					  struct pmu_event *out);
	/* Optional: undo what the driver set beyond the counters (Skylake's
	 * TSX force-abort) before the harness returns to the firmware. */
	void (*release)(struct pmu *p);
};

struct pmu {
	const struct pmu_ops *ops;
	const struct cpu_info *cpu;
	enum pmu_status status;
	char reason[224];  /* why not functional / absent (a hypervisor: how to enable it) */
	char warning[160]; /* e.g. firmware left a counter enabled */
	char name[24];	   /* driver name as printed */
	unsigned version;  /* arch perfmon version, AMD: 2 with PerfMonV2 */
	unsigned n_gp, n_fixed, n;
	uint32_t caps;	     /* PMU_CAP_* */
	uint8_t cmask_max;   /* largest documented counter mask / threshold */
	uint32_t pmi_flags;  /* PMU_PMI_* */
	uint64_t ctl_enable; /* the enable bit of a GP counter's ctl_msr (EVTSEL_EN,
			      * NetBurst CCCR.ENABLE), for the firmware check */
	uint32_t arch_ebx;   /* Intel arch: unavailable-event bits */
	uint32_t rdpmc_bad;  /* an RDPMC index the family has no counter for (driver, or
			      * one past the last GP counter when the driver leaves 0) */
	uint32_t global_ctrl_msr, global_status_msr, global_ovf_msr, global_status_set_msr;
	/* A second view of counters 0..n_legacy-1 the family documents: AMD's
	 * core extension keeps PerfEvtSel i at legacy_ctl_msr + i and PerfCtr
	 * i at legacy_ctr_msr + i (0 counters: no such view) */
	uint32_t legacy_ctl_msr, legacy_ctr_msr;
	unsigned n_legacy;
	uint32_t spflt_msr; /* KNC PERF_SPFLT_CONTROL (0: none) */
	/* One register file for every logical processor of a core: the
	 * suite on two of them at once would program each other's counters,
	 * so a parallel run goes one CPU after another (tests/cpu_par.c) */
	bool smt_shared;
	struct pmu_counter ctr[PMU_MAX_COUNTERS];
	uint64_t active;	 /* counters started by the harness */
	uint64_t armed;		 /* sign-overflow families: counters preloaded with top bit set */
	unsigned probed;	 /* the counter the functional probe used (Linux check_hw_exists) */
	uint64_t drv[8];	 /* driver-private state */
	struct pmu_sampling smp; /* LBR, DS (BTS, PEBS), IBS (pmu/sampling.h) */
};

/* pmu/pmu.c: selection, probe, helpers built on the ops. */
const struct pmu_ops *pmu_ops_for(enum pmu_driver_id id);
/* init + functional probe (Linux arch/x86/events/core.c check_hw_exists): sets status/reason. */
void pmu_attach(struct pmu *p, const struct cpu_info *ci);
/* The driver's release, where the harness returns to the firmware. */
void pmu_release(struct pmu *p);
const char *pmu_status_name(enum pmu_status s);
uint64_t pmu_width_mask(unsigned bits);
/* Preload so that the counter overflows after exactly n events (n >= 1,
 * n <= pmu_max_period(), else HW_REFUSED); uses the PRELOAD path. */
PMU_MUST_USE int pmu_preload(struct pmu *p, unsigned ctr, uint64_t n);
uint64_t pmu_max_period(const struct pmu *p, unsigned ctr);
uint64_t pmu_all_mask(const struct pmu *p);
/* Counter i's bit in the family's global control and status registers:
 * Intel's fixed counter k at bit 32 + k (SDM Vol. 3B 20.2.2), every other
 * counter at its hardware index (Intel GP counters, which a perfmon v6
 * bitmap may leave holes between; AMD PerfMonV2's PerfCntGlobalCtl, AMD APM
 * Vol. 2 13.2.2; KNC GLOBAL_CTRL, KNC §1.4.3.7; the flat overflow mask of
 * the families without global registers). */
#define PMU_GLOBAL_FIXED_BIT 32u
unsigned pmu_global_bit(const struct pmu *p, unsigned i);
/* Sign-bit overflow (Linux arch/x86/events/core.c x86_pmu_handle_irq), for
 * families without a status flag:
 * a counter whose written value has its top implemented bit set is armed,
 * and an armed counter whose top bit reads clear has overflowed. */
void pmu_track_armed(struct pmu *p, unsigned ctr, uint64_t held);
/* ORs into *mask the armed counters whose top bit is clear; returns HW_OK
 * or the first read fault (the other counters are still scanned). */
PMU_MUST_USE int pmu_sign_overflow(struct pmu *p, uint64_t *mask);

/* The P6-style event select (P6, arch, KNC, AMD) of an event with flags,
 * EN clear; event[11:8] of a 12-bit AMD event goes to bits 35:32 (AMD APM Vol. 2 §13.2). */
static inline uint64_t pmu_evtsel(const struct pmu_event *ev, uint32_t flags)
{
	return (uint64_t)(ev->code & EVTSEL_EVENT_MAX) |
	       (uint64_t)(ev->code >> 8) << EVTSEL_EVENT_HI_SHIFT |
	       (uint64_t)ev->umask << EVTSEL_UMASK_SHIFT | (flags & PMU_F_ALL);
}

/* Whether the PMU has flat counter ctr. */
static inline bool pmu_has_ctr(const struct pmu *p, unsigned ctr)
{
	return ctr < p->n;
}

/* Whether ev may go on flat counter ctr as far as the event says: the
 * counter exists and is in the event's counter list (0: any). */
static inline bool pmu_event_allowed(const struct pmu *p, unsigned ctr, const struct pmu_event *ev)
{
	return ev && pmu_has_ctr(p, ctr) && (!ev->counters || (ev->counters >> ctr & 1));
}

/* The first error of two results: a sequence of writes that goes on after
 * a fault reports the first one. */
static inline int pmu_first_err(int a, int b)
{
	return a != HW_OK ? a : b;
}

/* Pieces the drivers share. Each returns HW_OK or the first fault; a
 * failing counter does not stop the others. */
/* The read op of every driver: the counter MSR's implemented bits. */
int pmu_ctr_read(struct pmu *p, unsigned ctr, uint64_t *val);
/* Sets or clears EVTSEL_EN in the event selects of the GP counters in mask
 * (read-modify-write, so the programmed event is kept). */
int pmu_evtsel_enable(struct pmu *p, uint64_t mask, bool on);
/* Writes 0 to the control and the counter MSR of every GP counter: each
 * stops and reads 0 (the reset of P6-style event selects). */
int pmu_zero_gp(struct pmu *p);
/* Counter c as GP counter i with its control and counter MSR, RDPMC index i
 * and name "gp<i>"; writes keep every bit (a driver whose writes
 * sign-extend says so after). */
void pmu_gp_counter(struct pmu_counter *c, unsigned i, unsigned width, uint32_t ctl_msr,
		    uint32_t ctr_msr);
/* Counter c as P6 / arch GP counter i: EVNTSEL 0x186+i, PERFCTR 0xC1+i,
 * whose writes keep 32 bits and sign-extend bit 31 (SDM Vol. 3B 'Performance
 * Monitoring (P6 Family Processor)'). */
void pmu_p6_counter(struct pmu_counter *c, unsigned i, unsigned width);
/* A generic-event map entry: umask << 8 | event and the event's name; a
 * map is indexed by enum pmu_generic, a null name meaning "none". */
struct pmu_gen_map {
	uint16_t enc;
	const char *name;
};
/* The generic_event of a family with one map for every GP counter:
 * HW_UNSUPPORTED when the map has no g, HW_REFUSED for a counter the PMU
 * lacks. */
int pmu_generic_from_map(const struct pmu *p, const struct pmu_gen_map *map, enum pmu_generic g,
			 unsigned ctr, struct pmu_event *out);
/* The PMI loop of a PMU with global registers (Linux intel_pmu_handle_irq, knc_pmu_handle_irq,
 * amd_pmu_v2_handle_irq): global control 0, then read the status and clear what it
 * shows through the write-1-to-clear register until it reads 0. Only the
 * status bits in valid count; *seen is every one read. HW_STUCK when the
 * status has not cleared after PMU_PMI_MAX_ROUNDS rounds. */
int pmu_status_collect(struct pmu *p, uint64_t valid, uint64_t *seen);
/* One entry of a driver's msrs() listing. */
void pmu_msr_desc(struct pmu_msr_desc *d, uint32_t addr, const char *name, uint8_t access,
		  uint64_t rw_mask);

/* The ops table of a driver whose ops are static functions named after the
 * members (init, program, ...), reading counters with pmu_ctr_read; the
 * driver adds msrs, generic_event and the optional release. */
#define PMU_DRIVER_OPS(drv_name, drv_id)                                                           \
	.name = (drv_name), .id = (drv_id), .init = init, .program = program, .write = write,      \
	.read = pmu_ctr_read, .start = start, .stop = stop, .overflow_status = overflow_status,    \
	.ack = ack, .pmi_collect = pmi_collect, .reset = reset

extern const struct pmu_ops pmu_intel_p6_ops, pmu_intel_arch_ops, pmu_intel_netburst_ops,
    pmu_intel_knc_ops, pmu_amd_legacy_ops, pmu_amd_core_ops;

#endif
