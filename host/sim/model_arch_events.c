/* Event decoding of the Intel models (model_arch.c): the architectural
 * events, Skylake's L2_RQSTS and the reference clock, from a workload
 * iteration's construction and outcome (events/workload.h), with the
 * event-decoding faults of sim.h. */
#include "../../pmu/msr.h"
#include "model_arch.h"

/* Reference cycles: the TSC-rate clock (sim_engine.c advance), or core cycles
 * under refcyc-core. */
uint64_t arch_ref_cycles(const struct sim_cpu *s, const struct workload_vector *v)
{
	return sim_has_fault(s, SF_REFCYC_CORE) ? v->cycles : v->ref_cycles;
}

/* Skylake L2_RQSTS (event 24h): unit-mask bits 4:0 select the request's
 * origin (demand data read, RFO, code read, L1 prefetch, L2 prefetcher),
 * 7:5 its result (miss, hit E/S, hit M); a request counts when it matches
 * a selected origin and a selected result, so the SDM's 41h counts E/S
 * hits only (Travis Downs, "perf stat recipes", L2_RQSTS; events/intel_skylake.c).
 * umask-ignored: 40h and 80h each take any hit; miss-counts-hits: 20h takes
 * every result. */
static uint64_t l2_rqsts(const struct sim_cpu *s, unsigned um, const struct workload_vector *v)
{
	bool any_hit = sim_has_fault(s, SF_UMASK_IGNORED) && (um & 0xc0);
	bool any = sim_has_fault(s, SF_MISS_COUNTS_HITS) && (um & 0x20);
	uint64_t n = 0;

	for (unsigned o = 0; o < 5; o++) {
		if (!(um & (1u << o)))
			continue;
		for (unsigned r = 0; r < 3; r++) {
			bool sel = ((um >> (5 + r)) & 1) || any || (any_hit && r != WL_L2_MISS);
			if (sel)
				n += v->l2[o][r];
		}
	}
	return n;
}

/* LLC misses (2Eh/41h): miss-counts-hits counts the references; on the
 * Core models, whose 2Eh unit mask holds the line's MESI state (41h: I),
 * umask-ignored counts every state, that is every reference. */
static uint64_t llc_misses(const struct sim_cpu *s, const struct workload_vector *v)
{
	if (sim_has_fault(s, SF_MISS_COUNTS_HITS) ||
	    (sim_has_fault(s, SF_UMASK_IGNORED) && !arch_cfg_of(s)->l2_rqsts))
		return v->llc_ref;
	return v->llc_miss;
}

/* Skylake and its derivatives (family 6 models 4EH, 5EH, 55H, 8EH, 9EH:
 * Linux intel/core.c intel_pmu_init, whose intel_skl_pebs_event_constraints
 * name INST_RETIRED.PREC_DIST), the models with the precise-distribution
 * event C0H/01H (SDM Vol. 3B 20.3.8.1). */
static bool skl_pdir(const struct sim_cpu *s)
{
	static const uint8_t skl[] = {0x4e, 0x5e, 0x55, 0x8e, 0x9e};
	const struct arch_cfg *c = arch_cfg_of(s);

	for (unsigned i = 0; c->family == 6 && i < sizeof(skl); i++)
		if (c->model == skl[i])
			return true;
	return false;
}

/* Architectural events (SDM Vol. 3B "Pre-defined Architectural Performance
 * Events"), Skylake's L2_RQSTS and INST_RETIRED.PREC_DIST to workload
 * fields, with the decode faults of sim.h. */
uint64_t arch_event_rate(const struct sim_cpu *s, uint16_t enc, const struct workload_vector *v)
{
	if ((enc & 0xff) == 0x24 && arch_cfg_of(s)->l2_rqsts)
		return l2_rqsts(s, enc >> 8, v);
	/* INST_RETIRED.PREC_DIST: instructions retired, the PDIR event the
	 * Skylake models sample with PEBS (pmu/ds.c). Real Skylake counts it
	 * on IA32_PMC1 alone (SDM Vol. 3B 20.3.8.1; Linux constraint 0x01c0 on
	 * counter mask 0x2); this rate has no counter index (model_arch.c
	 * arch_sim_rate calls it with the select alone), so every GP counter
	 * counts it here (ours). */
	if (enc == 0x01c0 && skl_pdir(s))
		return v->instructions;
	switch (enc) {
	case 0x003c: /* UnHalted Core Cycles */
		return sim_core_cycles(s, v);
	case 0x013c: /* UnHalted Reference Cycles */
		return arch_ref_cycles(s, v);
	case 0x00c0: /* Instructions Retired */
		return v->instructions;
	case 0x00c4: /* Branch Instructions Retired */
		return sim_has_fault(s, SF_DOUBLE_COUNT) ? 2 * v->branches : v->branches;
	case 0x00c5: /* Branch Misses Retired */
		return sim_mispredicted(s, v);
	case 0x4f2e: /* LLC Reference */
		return v->llc_ref;
	case 0x412e: /* LLC Misses */
		return llc_misses(s, v);
	default: /* the rest is not modelled: 0 */
		return 0;
	}
}

/* The TSX qualifiers (SDM Vol. 3B 20.3.6.5), modelled for instructions
 * retired (C0H) and branch instructions retired (C4H), whose counts inside
 * transactions the workloads give (events/workload.h tx_*): IN_TX counts
 * only what retires inside a transactional region, aborted or committed;
 * IN_TXCP takes back what an aborted region counted (the counter goes back
 * to its value at the region's start). Any other event with IN_TX counts
 * nothing (ours: not modelled). in-tx-ignored: IN_TX has no effect. */
uint64_t arch_tx_rate(const struct sim_cpu *s, uint64_t sel, uint64_t n,
		      const struct workload_vector *v)
{
	uint16_t enc = (uint16_t)(sel & 0xffff);
	bool insn = enc == 0x00c0, br = enc == 0x00c4;
	uint64_t in = insn ? v->tx_insn : br ? v->tx_br : 0;
	uint64_t aborted = insn ? v->tx_abort_insn : br ? v->tx_abort_br : 0;

	if ((sel & EVTSEL_IN_TX) && !sim_has_fault(s, SF_IN_TX_IGNORED))
		n = in;
	if (sel & EVTSEL_IN_TXCP)
		n -= aborted < n ? aborted : n;
	return n;
}
