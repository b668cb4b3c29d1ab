/* Event semantics: quantities of a workload's construction and the coverage
 * of a catalogue by its rules (events/semantics.h). */
#include "semantics.h"
#include "events.h"
#include "../lib/str.h"

size_t sem_rules(const struct event_table *t, const struct sem_rule **out)
{
	size_t n = 0;

	*out = t->sem;
	while (t->sem && t->sem[n].event)
		n++;
	return n;
}

static const char *const q_names[SQ_COUNT] = {
    [SQ_ZERO] = "nothing",
    [SQ_INSTRUCTIONS] = "instructions",
    [SQ_BRANCHES] = "branches",
    [SQ_TAKEN] = "taken branches",
    [SQ_NOT_TAKEN] = "not-taken branches",
    [SQ_COND] = "conditional branches",
    [SQ_CALLS] = "near calls",
    [SQ_RETS] = "near returns",
    [SQ_FAR] = "far transfers",
    [SQ_INDIRECT] = "indirect jumps",
    [SQ_SEG_ES] = "ES loads",
    [SQ_SEG_CS] = "CS loads",
    [SQ_SEG_SS] = "SS loads",
    [SQ_SEG_DS] = "DS loads",
    [SQ_SEG_ALL] = "segment loads",
    [SQ_LOCKED] = "locked instructions",
    [SQ_MISALIGNED] = "misaligned accesses",
    [SQ_PF_LOAD] = "PREFETCHT0",
    [SQ_PF_STORE] = "PREFETCHW",
    [SQ_PF_NTA] = "PREFETCHNTA",
    [SQ_CLFLUSH] = "CLFLUSH",
    [SQ_CPUID] = "CPUID",
    [SQ_X87] = "x87 instructions",
    [SQ_X87_FASTFLAG] = "FCOMI",
    [SQ_X87_MUL] = "FMUL",
    [SQ_NT_STORES] = "MOVNTI",
    [SQ_LOADS] = "loads",
    [SQ_STORES] = "stores",
    [SQ_ELEMENTS] = "elements walked",
    [SQ_ITERATIONS] = "iterations",
    [SQ_EVENTS] = "the partner events",
    [SQ_TSC] = "TSC ticks",
};

const char *sem_quantity_name(enum sem_quantity q)
{
	return (unsigned)q < SQ_COUNT && q_names[q] ? q_names[q] : "?";
}

static uint64_t seg_sum(const struct workload_vector *v)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < WL_SEGS; i++)
		n += v->seg_loads[i];
	return n;
}

uint64_t sem_quantity(enum sem_quantity q, const struct workload_vector *v)
{
	switch (q) {
	case SQ_INSTRUCTIONS:
		return v->instructions;
	case SQ_BRANCHES:
		return v->branches;
	case SQ_TAKEN:
		return v->taken;
	case SQ_NOT_TAKEN:
		return v->branches - v->taken;
	case SQ_COND:
		return v->cond;
	case SQ_CALLS:
		return v->calls;
	case SQ_RETS:
		return v->rets;
	case SQ_FAR:
		return v->far;
	case SQ_INDIRECT:
		return v->indirect;
	case SQ_SEG_ES:
		return v->seg_loads[WL_ES];
	case SQ_SEG_CS:
		return v->seg_loads[WL_CS];
	case SQ_SEG_SS:
		return v->seg_loads[WL_SS];
	case SQ_SEG_DS:
		return v->seg_loads[WL_DS];
	case SQ_SEG_ALL:
		return seg_sum(v);
	case SQ_LOCKED:
		return v->locked;
	case SQ_MISALIGNED:
		return v->misaligned;
	case SQ_PF_LOAD:
		return v->pf_load;
	case SQ_PF_STORE:
		return v->pf_store;
	case SQ_PF_NTA:
		return v->pf_nta;
	case SQ_CLFLUSH:
		return v->clflush;
	case SQ_CPUID:
		return v->cpuid;
	case SQ_X87:
		return v->x87;
	case SQ_X87_FASTFLAG:
		return v->x87_fastflag;
	case SQ_X87_MUL:
		return v->x87_mul;
	case SQ_NT_STORES:
		return v->nt_stores;
	case SQ_LOADS:
		return v->loads;
	case SQ_STORES:
		return v->stores;
	case SQ_ITERATIONS:
		return 1;
	default:
		return 0; /* SQ_ZERO; SQ_ELEMENTS, SQ_EVENTS, SQ_TSC: the check's */
	}
}

void sem_coverage(const struct event_table *t, struct sem_coverage *out)
{
	const struct sem_rule *r;
	size_t n = sem_rules(t, &r);

	out->events = out->validated = out->not_validatable = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct event_def *e = &t->ev[i];
		if (e->flags & (EVF_SUB | EVF_CORRECTED | EVF_FIXED))
			continue;
		out->events++;
		bool val = false, none = false;
		/* a rule on the event or on one of its unit masks */
		for (size_t k = 0; k < n; k++) {
			const struct event_def *d = events_find_in(t, r[k].event);
			/* the event itself, or one of its unit masks */
			if (d != e && !(d && (d->flags & EVF_SUB) && d->code == e->code))
				continue;
			if (r[k].kind == SEM_NONE)
				none = true;
			else
				val = true;
		}
		out->validated += val;
		out->not_validatable += !val && none;
	}
}
