/* Simulated CPUs: the host implementation of pmu/hw.h. The core (sim.c) owns
 * counters, the workload engine, the local APIC's LVT performance-counter
 * entry and PMI delivery; each model (model_*.c) owns its CPUID values, its
 * MSR file with the documented widths and write semantics, and the decoding
 * of its event selects. Freestanding: no libc. */
#ifndef PMH_SIM_SIM_H
#define PMH_SIM_SIM_H

#include <stdint.h>
#include <stdbool.h>
#include "../../pmu/hw.h"
#include "../../pmu/cpu.h"
#include "../../events/workload.h"

#define SIM_MAX_CTRS 32

/* Faults that can be injected (by name on the command line). */
enum sim_fault {
	SF_NONE,
	SF_STUCK_COUNTER,      /* counter 0 never increments */
	SF_NARROW_COUNTER,     /* counters wrap at 32 bits whatever the width */
	SF_NO_SIGN_EXTEND,     /* 32-bit writes do not sign-extend bit 31 */
	SF_NO_OVERFLOW_STATUS, /* overflow never sets the status bit / OVF flag */
	SF_LOST_PMI,	       /* overflow interrupts are never raised */
	SF_SPURIOUS_PMI,       /* a PMI arrives with nothing overflowed */
	SF_ENABLE_IGNORED,     /* counters count with their enable bit clear */
	SF_GLOBAL_CTRL_IGNORED, /* counters count with the global enable clear */
	SF_WRONG_EVENT,	       /* instructions count branches and vice versa */
	SF_MSR_FAULT,	       /* counter 1's MSRs raise #GP */
	SF_OVERCOUNT,	       /* one extra event per iteration (double counting) */
	SF_LVT_STUCK_MASKED,   /* LVTPC mask bit cannot be cleared */
	SF_ACK_IGNORED,	       /* clearing overflow status has no effect */
	SF_COUNT
};

struct sim_cpu;

struct sim_model {
	const char *name;
	const char *doc; /* the document section it is written from */
	enum pmu_driver_id driver; /* the driver the harness should choose */
	/* Faults that make sense for this family (bit per enum sim_fault). */
	uint32_t faults;
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
	/* The local APIC masks LVTPC when it delivers a PMI (facts §8). */
	bool lvt_automask;
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
};

struct sim_cpu {
	const struct sim_model *m;
	enum sim_fault fault;
	struct sim_cpuid cpuid[48];
	unsigned n_cpuid;
	/* counters, by the model's own numbering */
	unsigned n_ctr;
	uint64_t ctr[SIM_MAX_CTRS];
	uint8_t width[SIM_MAX_CTRS];
	/* model registers (event selects, CCCRs, ESCRs, globals), model-defined */
	uint64_t reg[128];
	/* local APIC */
	uint64_t apic_base; /* IA32_APIC_BASE value */
	uint32_t lvt_pc;
	uint32_t tpr, svr;
	uint8_t irr[32], isr[32]; /* 256-bit vectors */
	bool nmi_pending, in_nmi;
	bool irq_enabled;
	unsigned depth; /* delivery nesting guard */
	uint64_t tsc;
	struct sim_stats st;
};

extern struct sim_cpu sim;

/* Model registry. */
const struct sim_model *sim_model_find(const char *name);
const struct sim_model *const *sim_models(unsigned *n);
const char *sim_fault_name(enum sim_fault f);
enum sim_fault sim_fault_from_name(const char *name);

/* Select and power on a model with an injected fault (SF_NONE = healthy).
 * Returns -1 for an unknown model or a fault that makes no sense for it. */
int sim_start(const char *model, enum sim_fault fault);
static inline bool sim_has_fault(const struct sim_cpu *s, enum sim_fault f)
{
	return s->fault == f;
}

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
uint64_t sim_width_mask(const struct sim_cpu *s, unsigned i);
/* Whether a counter counts given its enable and global-enable state, with
 * the enable-ignored and global-ctrl-ignored faults applied. */
bool sim_counting(const struct sim_cpu *s, bool enabled, bool global_enabled);
/* Applies the counter-mask, invert and edge-detect filters to an event
 * that occurs per_iter times in an iteration of cycles_per_iter cycles;
 * returns the filtered count per iteration. Shared by all models. */
uint64_t sim_filter(uint64_t per_iter, uint64_t cycles_per_iter, unsigned cmask, bool inv,
		    bool edge);
/* Raise the PMU interrupt line (a 0->1 edge; KNC §1.4.3.9). */
void sim_pmi_request(struct sim_cpu *s);
/* Deliver what the APIC has pending, if interrupts allow. */
void sim_deliver(struct sim_cpu *s);

/* Registers a model (a linker section, no central table). */
#define SIM_MODEL(sym)                                                                      \
	static const struct sim_model *const sym##_reg                                       \
		__attribute__((used, section("pmh_sim_models"), aligned(8))) = &sym

#endif
