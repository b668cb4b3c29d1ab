/* Event decoding of the "pentium4" models (model_netburst.c): the NetBurst
 * events of events/intel_netburst.c from a workload iteration's
 * construction and outcome (events/workload.h), with the event-decoding
 * faults of sim.h. Event masks: Intel SDM Vol. 3B, NetBurst event tables. */
#include "model_netburst.h"
#include "sim.h"

/* Wrong-path instructions that reach retirement marked bogus, per
 * misprediction (ours: a few of the many a 20-stage pipeline fetches). */
#define BOGUS_PER_MISS 4
/* Conditional branches retired_branch_type overcounts per misprediction
 * (the SDM's note: new traces built after mispredictions; the share ours). */
#define OVERCOUNT_DIV 2

static uint64_t sel(unsigned mask, unsigned bit, uint64_t n)
{
	return (mask & bit) ? n : 0;
}

/* branch_retired (06h): MMNP 1, MMNM 2, MMTP 4, MMTM 8. event-dead: the
 * mispredicted bits count nothing; event-miswired: every branch of their
 * direction; umask-ignored: the direction bits ignored (MMTP selects every
 * predicted branch, MMTM every mispredicted one). */
static uint64_t branch_retired(const struct sim_cpu *s, unsigned m, const struct workload_vector *v)
{
	uint64_t tm = v->taken_misses, nm = v->branch_misses - v->taken_misses;
	uint64_t tp = v->taken - tm, np = v->branches - v->taken - nm;

	if (sim_has_fault(s, SF_EVENT_DEAD))
		tm = nm = 0;
	if (sim_has_fault(s, SF_EVENT_MISWIRED)) {
		tm = v->taken;
		nm = v->branches - v->taken;
	}
	if (sim_has_fault(s, SF_UMASK_IGNORED)) {
		unsigned p = (m & 5) ? 5 : 0, x = (m & 0xa) ? 0xa : 0;
		m = p | x;
	}
	return sel(m, 1, np) + sel(m, 2, nm) + sel(m, 4, tp) + sel(m, 8, tm);
}

/* retired_branch_type (04h): CONDITIONAL 2, CALL 4, RETURN 8, INDIRECT 10h
 * (returns, indirect calls and jumps); a branch counts once, whichever of
 * its bits select it. */
static uint64_t branch_type(const struct sim_cpu *s, unsigned m, const struct workload_vector *v)
{
	uint64_t n = sel(m, 0x02, v->cond + v->branch_misses / OVERCOUNT_DIV) +
		     sel(m, 0x04, v->calls) + sel(m, 0x18, v->rets) + sel(m, 0x10, v->indirect);
	return sim_has_fault(s, SF_DOUBLE_COUNT) ? 2 * n : n;
}

/* BSQ_cache_reference (0Ch): 2nd-level reads (loads, RFOs and software
 * prefetches) by the line's state: HITS 1 (one core has no Shared line),
 * HITE 2, HITM 4, MISS 100h; no 3rd level. miss-counts-hits: MISS takes
 * every read. */
static uint64_t bsq(const struct sim_cpu *s, unsigned m, const struct workload_vector *v)
{
	uint64_t r[3] = {0};
	for (unsigned res = 0; res < 3; res++)
		r[res] = v->l2[WL_L2_DATA_RD][res] + v->l2[WL_L2_RFO][res] + v->l2[WL_L2_L1PF][res];
	uint64_t miss = r[WL_L2_MISS];
	if (sim_has_fault(s, SF_MISS_COUNTS_HITS))
		miss += r[WL_L2_HIT_ES] + r[WL_L2_HIT_M];
	return sel(m, 0x2, r[WL_L2_HIT_ES]) + sel(m, 0x4, r[WL_L2_HIT_M]) + sel(m, 0x100, miss);
}

uint64_t p4sim_event(const struct sim_cpu *s, uint32_t escr, unsigned event, unsigned mask,
		     const struct workload_vector *v)
{
	bool fsb = escr == 0x3a2 || escr == 0x3a3, cru01 = escr == 0x3b8 || escr == 0x3b9;

	switch (event) {
	case 0x13: /* global_power_events on FSB_ESCR0/1, RUNNING = bit 0 */
		return fsb && (mask & 1) ? sim_core_cycles(s, v) : 0;
	case 0x02: /* instr_retired on CRU_ESCR0/1: NBOGUSNTAG 1, BOGUSNTAG 4;
		    * the harness tags nothing (NBOGUSTAG 2, BOGUSTAG 8) */
		return cru01 ? sel(mask, 1, v->instructions) +
				   sel(mask, 4, v->branch_misses * BOGUS_PER_MISS)
			     : 0;
	case 0x03: /* mispred_branch_retired on CRU_ESCR0/1, NBOGUS = bit 0 */
		return cru01 && (mask & 1) ? sim_mispredicted(s, v) : 0;
	case 0x06: /* branch_retired on CRU_ESCR2/3 */
		return escr == 0x3cc || escr == 0x3cd ? branch_retired(s, mask, v) : 0;
	case 0x04: /* retired_branch_type on TBPU_ESCR0/1 */
		return escr == 0x3c2 || escr == 0x3c3 ? branch_type(s, mask, v) : 0;
	case 0x0c: /* BSQ_cache_reference on BSU_ESCR0/1 */
		return escr == 0x3a0 || escr == 0x3a1 ? bsq(s, mask, v) : 0;
	default:
		return 0;
	}
}
