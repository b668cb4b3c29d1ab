/* Event semantics: what a documented event must count on a workload whose
 * construction is known (events/workload.h), one rule per validated event
 * in the family's catalogue (struct event_table.sem), each with its source.
 * The check event.semantics (tests/checks/event_semantics.c) measures every
 * rule of the CPU's tables; the simulator never reads these rules. */
#ifndef PMH_EVENTS_SEMANTICS_H
#define PMH_EVENTS_SEMANTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "workload.h"

/* What a count is compared with: a quantity of the workload's construction
 * per iteration, times the iterations measured (N/2N difference). */
enum sem_quantity {
	SQ_ZERO, /* nothing: the count must be 0 */
	SQ_INSTRUCTIONS,
	SQ_BRANCHES,
	SQ_TAKEN,
	SQ_NOT_TAKEN, /* branches less taken ones */
	SQ_COND,
	SQ_CALLS,
	SQ_RETS,
	SQ_FAR,
	SQ_INDIRECT,
	SQ_SEG_ES,
	SQ_SEG_CS,
	SQ_SEG_SS,
	SQ_SEG_DS,
	SQ_SEG_ALL, /* every segment register load */
	SQ_LOCKED,
	SQ_MISALIGNED,
	SQ_PF_LOAD,
	SQ_PF_STORE,
	SQ_PF_NTA,
	SQ_CLFLUSH,
	SQ_CPUID,
	SQ_X87,
	SQ_X87_FASTFLAG,
	SQ_X87_MUL,
	SQ_NT_STORES,
	SQ_LOADS,
	SQ_STORES,
	SQ_ELEMENTS, /* elements of one pass (args.lines): the accesses of a walk */
	SQ_ITERATIONS,
	SQ_EVENTS, /* the sum of the partner events' counts on the same workload */
	SQ_TSC,	   /* TSC ticks over the same windows */
	SQ_COUNT
};

enum sem_kind {
	SEM_EXACT,   /* count == q (within the family's slack: m_diff_slack) */
	SEM_BOUNDED, /* lo_pm/1000 x q <= count <= hi_pm/1000 x q */
	SEM_NONE,    /* no designed workload can fix it: `source` says why */
};
#define SEM_NO_MAX 0xffffffffu /* hi_pm: no upper bound */

/* The buffer a walking workload gets, sized from the CPU's caches
 * (pmu/cache.h) at run time. */
enum sem_footprint {
	FP_NONE,    /* no buffer (register-only kernels) */
	FP_LINE,    /* one 64-byte line */
	FP_L1,	    /* half the L1D: every access hits L1 */
	FP_L2,	    /* four times the L1D, at most half the L2: misses L1, hits L2 */
	FP_MEM,	    /* four times the last level (capped, see event.semantics) */
	FP_L2_OVER, /* four times the L2 (and less than the LLC where it can) */
	/* Walks through a page window (events/pagewin.h): the pages of a TLB
	 * walk all map one frame (no data-cache misses), code walks run
	 * code the harness wrote (wl_code). */
	FP_DTLB_L1, /* 4x the L1 DTLB's pages, at most half the L2 DTLB's: hits L2 */
	FP_DTLB_L2, /* 4x the L2 DTLB's pages: misses both */
	FP_ITLB_L1, /* the same for the ITLBs, one wl_code block per page */
	FP_ITLB_L2,
	FP_CODE_L1,  /* code of half the L1I: hits it */
	FP_CODE_L2,  /* code of 4x the L1I, at most half the L2: misses L1I, hits L2 */
	FP_CODE_MEM, /* code of 4x the last level */
	FP_COUNT
};

struct sem_rule {
	const char *event; /* catalogue name (events_find); a sub-event's full name */
	const struct workload *wl;
	enum sem_footprint fp;
	enum sem_kind kind;
	enum sem_quantity q;
	uint32_t lo_pm, hi_pm;	/* SEM_BOUNDED: per mille of q */
	const char *partner[3]; /* SQ_EVENTS: catalogue names, their sum is q */
	const char *claim;	/* what the document says it counts */
	const char *source;	/* where the rule and its bounds come from ("ours" if nowhere) */
	bool extended;		/* only with events = all (long walks) */
};

struct event_table;
/* The family tables' rules, each ended by {0}. */
extern const struct sem_rule events_amd_k7_sem[], events_amd_k8_sem[], events_intel_skylake_sem[],
    events_intel_arch_sem[], events_intel_netburst_sem[], events_intel_p6_sem[],
    events_intel_knc_sem[];
/* The rules of a table (0 when it has none). */
size_t sem_rules(const struct event_table *t, const struct sem_rule **out);
/* The name of a quantity ("loads", "near returns") for rule text. */
const char *sem_quantity_name(enum sem_quantity q);
/* The value of q in one iteration's construction v (SQ_EVENTS, SQ_TSC: 0). */
uint64_t sem_quantity(enum sem_quantity q, const struct workload_vector *v);
/* Whether the rule's event is a top-level event of the table (for the
 * coverage count: events, not unit masks) and how many of the table's
 * top-level events have a rule (validated) or a SEM_NONE entry. */
struct sem_coverage {
	unsigned events, validated, not_validatable;
};
void sem_coverage(const struct event_table *t, struct sem_coverage *out);

#endif
