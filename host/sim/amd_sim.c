/* AMD event-select decoding for the simulated AMD CPUs: the K8 events
 * (BKDG #26094 §10.2.1; unit masks as in events/amd_k8.c) from a workload
 * iteration's construction and outcome (events/workload.h), with the
 * event-decoding faults of sim.h. The later families (AMD's Family 10h and
 * later BKDGs) keep the codes of the few events they share with K8. */
#include "amd_sim.h"
#include "sim.h"
#include "uarch.h"
#include "../../pmu/msr.h"

/* DRAM page outcome of an access, ours: a walk's lines mostly share an
 * open DRAM page; a quarter open a closed one, an eighth conflict. */
#define DRAM_MISS_DIV	  4
#define DRAM_CONFLICT_DIV 8

static uint64_t sel_bit(unsigned umask, unsigned bit, uint64_t n)
{
	return (umask & bit) ? n : 0;
}

/* Demand data refills of the L1D (loads, stores, software prefetches) by
 * where the L2 found the line. */
static uint64_t dc_refills(const struct workload_vector *v, enum wl_l2_result r)
{
	return v->l2[WL_L2_DATA_RD][r] + v->l2[WL_L2_RFO][r] + v->l2[WL_L2_L1PF][r];
}

/* Code reads that reached the L2 (the L1I's misses), any result. */
static uint64_t l2_code(const struct workload_vector *v)
{
	return v->l2[WL_L2_CODE_RD][WL_L2_MISS] + v->l2[WL_L2_CODE_RD][WL_L2_HIT_ES] +
	       v->l2[WL_L2_CODE_RD][WL_L2_HIT_M];
}

static uint64_t l2_data_misses(const struct workload_vector *v)
{
	return dc_refills(v, WL_L2_MISS) + v->l2[WL_L2_L2PF][WL_L2_MISS];
}

/* MOVNTI lines: eight 8-byte stores fill a write-combining buffer, one
 * request a line (ours). */
static uint64_t nt_lines(const struct workload_vector *v)
{
	return (v->nt_stores + 7) / 8;
}

/* 42h: refills from the L2 by the line's state (02h S, 04h E, 08h O, 10h
 * M; a single core has no S or O) and 01h, refills from the system. */
static uint64_t dc_refills_l2(const struct sim_cpu *s, unsigned um, const struct workload_vector *v)
{
	uint64_t es = dc_refills(v, WL_L2_HIT_ES), m = dc_refills(v, WL_L2_HIT_M);
	uint64_t n = sel_bit(um, 0x01, dc_refills(v, WL_L2_MISS));
	if (sim_has_fault(s, SF_UMASK_IGNORED) && (um & 0x1e))
		return n + es + m; /* any state bit: every L2 refill */
	return n + sel_bit(um, 0x04, es) + sel_bit(um, 0x10, m);
}

/* 43h: refills from the system by state: a read gets E, a store (RFO) M. */
static uint64_t dc_refills_sys(unsigned um, const struct workload_vector *v)
{
	uint64_t m = v->l2[WL_L2_RFO][WL_L2_MISS];
	return sel_bit(um, 0x04, dc_refills(v, WL_L2_MISS) - m) + sel_bit(um, 0x10, m);
}

/* E0h: DRAM accesses (misses read, dirty lines and MOVNTI lines written)
 * split by page outcome: 01h hit, 02h miss, 04h conflict. */
static uint64_t dram(unsigned um, const struct workload_vector *v)
{
	uint64_t n = l2_data_misses(v) + v->l2_evict_m + nt_lines(v);
	uint64_t miss = n / DRAM_MISS_DIV, conflict = n / DRAM_CONFLICT_DIV;
	return sel_bit(um, 0x01, n - miss - conflict) + sel_bit(um, 0x02, miss) +
	       sel_bit(um, 0x04, conflict);
}

static uint64_t seg_loads(unsigned um, const struct workload_vector *v)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < WL_SEGS; i++) /* bit 6 (HS) counts nothing here */
		n += sel_bit(um, 1u << i, v->seg_loads[i]);
	return n;
}

static uint64_t segs(const struct workload_vector *v)
{
	return seg_loads(0x3f, v);
}

/* Load/store, data cache, L2 and system events (20h-7Fh). */
static uint64_t memory_event(const struct sim_cpu *s, unsigned code, unsigned um,
			     const struct workload_vector *v)
{
	const struct uarch_cfg *c = uarch_of(s);
	bool mch = sim_has_fault(s, SF_MISS_COUNTS_HITS);

	switch (code) {
	case 0x20:
		return seg_loads(um, v);
	case 0x24: /* locked ops: executed, cycles speculative / non-speculative (ours) */
		return sel_bit(um, 0x01, v->locked) +
		       sel_bit(um, 0x02, v->locked * c->lock_spec_cyc) +
		       sel_bit(um, 0x04, v->locked * (c->lock_cyc - c->lock_spec_cyc));
	case 0x40:
		return v->l1d_access;
	case 0x41:
		return mch ? v->l1d_access : v->l1d_miss;
	case 0x42:
		return dc_refills_l2(s, um, v);
	case 0x43:
		return dc_refills_sys(um, v);
	case 0x44: /* lines evicted by state: 04h E, 10h M */
		return sel_bit(um, 0x04, v->l1d_evict - v->l1d_evict_m) +
		       sel_bit(um, 0x10, v->l1d_evict_m);
	case 0x45:
		return v->dtlb_l1_miss - v->dtlb_l2_miss;
	case 0x46:
		return v->dtlb_l2_miss;
	case 0x47:
		return v->misaligned;
	case 0x4b:
		return sel_bit(um, 0x01, v->pf_load) + sel_bit(um, 0x02, v->pf_store) +
		       sel_bit(um, 0x04, v->pf_nta);
	case 0x64: /* K7's DRAM system requests (#22007 Table 11), which K8
		    * counts as E0h; reserved on K8, where any count is allowed */
		return dram(0x07, v);
	case 0x65: /* 80h streaming stores; 01h UC, 02h WC: none in the workloads */
		return sel_bit(um, 0x80, nt_lines(v));
	case 0x6c: /* system read responses: 01h E, 02h M, 04h S */
		return sel_bit(um, 0x01, l2_data_misses(v) - v->l2[WL_L2_RFO][WL_L2_MISS]) +
		       sel_bit(um, 0x02, v->l2[WL_L2_RFO][WL_L2_MISS]);
	case 0x6d: /* quadwords written: a dirty line is eight, a MOVNTI one */
		return sel_bit(um, 0x01, v->l2_evict_m * 8 + nt_lines(v) * 8);
	case 0x7d: /* requests to L2: 01h IC fill, 02h DC fill, 04h TLB fill (the
		    * page walks of both TLBs) */
		return sel_bit(um, 0x01, l2_code(v)) + sel_bit(um, 0x02, v->l1d_miss) +
		       sel_bit(um, 0x04, v->dtlb_l2_miss + v->itlb_l2_miss);
	case 0x7e: /* L2 misses: 01h IC fill, 02h DC fill (miss-counts-hits: the
		    * requests, 7Dh) */
		return sel_bit(um, 0x01, mch ? l2_code(v) : v->l2[WL_L2_CODE_RD][WL_L2_MISS]) +
		       sel_bit(um, 0x02, mch ? v->l1d_miss : l2_data_misses(v));
	case 0x7f: /* 01h L2 fills from L1 victims (K8's victim L2: the L1D's and
		    * the L1I's; in a steady pass each L1I miss evicts a line, ours),
		    * 02h writebacks */
		return sel_bit(um, 0x01,
			       c->l2_policy == UA_L2_EXCLUSIVE ? v->l1d_evict + v->ic_miss : 0) +
		       sel_bit(um, 0x02, v->l2_evict_m);
	default:
		return 0;
	}
}

/* Instruction cache and ITLB events (80h-85h; BKDG #26094 §10.2.1.5, as
 * events/amd_k8.c lists them). A refill from the L2 is an L1I miss the L2
 * hit, one from the system one it missed. miss-counts-hits: 81h counts
 * every fetch, as 41h counts every data access. */
static uint64_t ic_event(const struct sim_cpu *s, unsigned code, const struct workload_vector *v)
{
	switch (code) {
	case 0x80:
		return v->ic_fetch;
	case 0x81:
		return sim_has_fault(s, SF_MISS_COUNTS_HITS) ? v->ic_fetch : v->ic_miss;
	case 0x82:
		return v->l2[WL_L2_CODE_RD][WL_L2_HIT_ES] + v->l2[WL_L2_CODE_RD][WL_L2_HIT_M];
	case 0x83:
		return v->l2[WL_L2_CODE_RD][WL_L2_MISS];
	case 0x84:
		return v->itlb_l1_miss - v->itlb_l2_miss;
	default: /* 85h */
		return v->itlb_l2_miss;
	}
}

/* Branch and execution events (76h-CBh). */
static uint64_t retire_event(const struct sim_cpu *s, unsigned code, unsigned um,
			     const struct workload_vector *v)
{
	switch (code) {
	case 0x76: /* CPU clocks not halted */
		return sim_core_cycles(s, v);
	case 0x88:
		return v->rets - v->ret_misses;
	case 0x89:
		return v->ras_overflows;
	case 0xc0:
		return v->instructions;
	case 0xc1:
		return v->uops;
	case 0xc2:
		return v->branches;
	case 0xc3:
		return sim_mispredicted(s, v);
	case 0xc4:
		return v->taken;
	case 0xc5:
		return v->taken_misses;
	case 0xc6:
		return v->far;
	case 0xc8:
		return sim_has_fault(s, SF_DOUBLE_COUNT) ? 2 * v->rets : v->rets;
	case 0xc9:
		return v->ret_misses;
	case 0xca:
		return v->indirect_misses;
	case 0xcb: /* 01h x87; MMX, SSE: none in the workloads */
		return sel_bit(um, 0x01, v->x87);
	default:
		return 0;
	}
}

/* Events per iteration of the selected event (code with its unit mask);
 * 0 for events the workload vector does not describe. */
static uint64_t event_count(const struct sim_cpu *s, unsigned code, unsigned um,
			    const struct workload_vector *v)
{
	const struct uarch_cfg *c = uarch_of(s);

	switch (code) {
	case 0x00: /* dispatched FPU ops: every x87 op goes down one pipe */
		return (um & 0x3f) ? v->x87 : 0;
	case 0x01: /* cycles without an x87 op retiring: one cycle each */
		return v->cycles > v->x87 ? v->cycles - v->x87 : 0;
	case 0x02:
		return v->x87_fastflag;
	case 0x26:
		return v->clflush;
	case 0x27:
		return v->cpuid;
	case 0xcd:
		return v->masked_cycles;
	case 0xd1:
		return v->stall_cycles;
	case 0xd3: /* CPUID drains the pipe before and after (ours: its whole cost) */
		return v->cpuid * c->cpuid_cyc;
	case 0xd4:
		return segs(v) * c->seg_cyc;
	case 0xda:
		return v->far * c->far_cyc;
	case 0xe0:
		return dram(um, v);
	default:
		break;
	}
	if (code >= 0x20 && code < 0x76)
		return memory_event(s, code, um, v);
	if (code == 0x7d || code == 0x7e || code == 0x7f)
		return memory_event(s, code, um, v);
	if (code >= 0x80 && code <= 0x85)
		return ic_event(s, code, v);
	return retire_event(s, code, um, v);
}

uint64_t amd_sim_rate(const struct sim_cpu *s, uint64_t sel, bool counting,
		      const struct workload_vector *v)
{
	unsigned code = (unsigned)(sel & 0xff) | (unsigned)((sel >> 32) & 0xf) << 8;
	unsigned umask = (unsigned)(sel >> 8) & 0xff;
	unsigned cmask = (unsigned)(sel >> EVTSEL_CMASK_SHIFT) & 0xff;
	uint64_t n;

	if (!counting)
		return 0;
	/* The harness runs at CPL 0: only OS (bit 17) counts it; USR alone
	 * counts at CPL > 0 (K8 BKDG §10.2). */
	if (!sim_priv_counts(s, (sel & EVTSEL_OS) != 0, (sel & EVTSEL_USR) != 0))
		return 0;
	n = event_count(s, code, umask, v);
	/* CNT_MASK, INV and EDGE (K8 BKDG §10.2): one count per cycle whose
	 * event count is >= CNT_MASK (< with INV), or per negated-to-asserted
	 * transition with EDGE; 76h is a clock. */
	return sim_filter(s, v, n, code == 0x76, cmask, (sel & EVTSEL_INV) != 0,
			  (sel & EVTSEL_EDGE) != 0);
}
