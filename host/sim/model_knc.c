/* Model "knc": an Intel Xeon Phi coprocessor core (Knights Corner,
 * GenuineIntel family 0xB model 1) written from the KNC PMU document
 * (#327357, Japanese edition 327357-001JA) §1.4.1-§1.4.3 and Linux knc.c. Two
 * 40-bit counters (0x20/0x21,
 * read and written in full, §1.4.3.2), 32-bit event selects (0x28/0x29, bit
 * 19 reserved, table 1-5), PERF_SPFLT_CONTROL (0x2C, table 1-7), a sticky
 * read-only GLOBAL_STATUS (0x2D, §1.4.3.5), a write-only GLOBAL_OVF_CTRL that
 * clears it (0x2E, §1.4.3.6) and GLOBAL_CTRL (0x2F) AND-ed with EVNTSEL.EN
 * (§1.4.1, §1.4.3.7). The PMU reaches the APIC through a 1-bit line: a PMI
 * is requested only when (status & counters with INT) goes from 0 to 1
 * (§1.4.3.9); the APIC masks LVTPC on delivery (the SDM text quoted there).
 * The events of table 1-6 are decoded from what a workload does on the
 * core's caches, TLBs and predictor (ua_knc, host/sim/uarch.h).
 *
 * Not modelled: the thread-count mode (bit 21), the other three hardware
 * threads, the VPU, vprefetch and snoops. */
#include "model_knc.h"
#include "../../pmu/msr.h"
#include "sim.h"
#include "uarch.h"

#define NCTR		2
#define CTR_BITS	0x3ull
#define EVTSEL_RW	0xfff7ffffull		  /* 32 bits, bit 19 reserved */
#define SPFLT_RW	((1ull << 63) | CTR_BITS) /* USER_PREF and per-counter enables */
#define SPFLT_USER_PREF (1ull << 63)

/* One KNC core (Intel Xeon Phi Coprocessor System Software Developer's
 * Guide #328207, "Cache hierarchy" and "TLB hierarchy"): L1D and L1I 32 KiB
 * 8-way, a 512 KiB 8-way unified L2 per core, 64-byte lines; an L1 DTLB of
 * 64 entries 4-way for 4 KiB pages, an L2 TLB of 64 entries 4-way (held
 * here as 4 KiB pages), an L1 ITLB of 32 entries 4-way. Code walks look up
 * the L2 TLB too (table 1-6, 3Bh: long code walks missed it); it is held
 * here as a copy of its geometry per side (ours). In order, two
 * instructions a clock (U and V pipes: PMU guide events 16h, 17h). The L2
 * is inclusive of the L1s; the closest policy here is the non-inclusive
 * one, which fills both levels from memory, keeps the L2's copy on a hit
 * and takes the L1's dirty victims, and differs only in not
 * back-invalidating the L1 when the L2 evicts. L1 3 cycles, L2 24 (J.
 * McCalpin's pointer chase: 23.4 cycles, Intel MIC forum topic 499156,
 * 2014), memory 300 (ours, the order of published measurements); the L2
 * hardware prefetcher follows strided streams (#328207). The page walk,
 * misses in flight, return stack, misprediction penalty, costs of the
 * serialising kinds and the prefetcher's share are ours. */
static const struct uarch_cfg ua_knc = {
    .name = "knc",
    .line = 64,
    .l1d = {32 * 1024, 8},
    .l1i = {32 * 1024, 8},
    .l2 = {512 * 1024, 8},
    .l2_policy = UA_L2_NONINCLUSIVE,
    .dtlb1 = {64, 4},
    .dtlb2 = {64, 4},
    .itlb1 = {32, 4},
    .itlb2 = {64, 4},
    .lat_l1 = 3,
    .lat_l2 = 24,
    .lat_mem = 300,
    .lat_walk = 30,
    .mlp = 4,
    .width = 2,
    .ras = 8,
    .mispredict = 5,
    .cpuid_cyc = 100,
    .lock_cyc = 15,
    .lock_spec_cyc = 2,
    .seg_cyc = 10,
    .far_cyc = 30,
    .clflush_cyc = 50,
    .x87_cyc = 4,
    .l2_streamer = true,
    .pf_min_pm = 20,
    .pf_max_pm = 100,
};

static void reset(struct sim_cpu *s)
{
	/* Max leaf 4: no leaf 0AH, so no architectural perfmon (Linux intel_pmu_init). */
	sim_vendor(s, 4, "GenuineIntel");
	sim_set_cpuid(s, 1, 0, sim_fms(0xb, 1, 1), 0, 0, (1u << 4) | (1u << 5) | (1u << 9));
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	sim_brand(s, "Simulated Intel(R) Xeon Phi(TM) coprocessor (Knights Corner)");
	uarch_setup(s, &ua_knc); /* published in CPUID leaf 04H */
	s->n_ctr = NCTR;
	for (unsigned i = 0; i < NCTR; i++)
		s->width[i] = 40;
	/* Every control register and counter resets to 0 (§1.4.4). */
}

static bool gp_faults(const struct sim_cpu *s, unsigned i)
{
	return s->fault == SF_MSR_FAULT && i == 1;
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	switch (msr) {
	case MSR_KNC_PERFCTR0:
	case MSR_KNC_PERFCTR0 + 1:
		if (gp_faults(s, msr - MSR_KNC_PERFCTR0))
			return HW_FAULT_GP;
		*v = sim_ctr_read(s, msr - MSR_KNC_PERFCTR0);
		return HW_OK;
	case MSR_KNC_EVNTSEL0:
	case MSR_KNC_EVNTSEL0 + 1:
		if (gp_faults(s, msr - MSR_KNC_EVNTSEL0))
			return HW_FAULT_GP;
		*v = s->reg[KNCSIM_EVNTSEL(msr - MSR_KNC_EVNTSEL0)];
		return HW_OK;
	case MSR_KNC_SPFLT_CTRL:
		*v = s->reg[KNCSIM_SPFLT];
		return HW_OK;
	case MSR_KNC_GLOBAL_STATUS:
		*v = s->reg[KNCSIM_STATUS];
		if (s->fault == SF_STATUS_NOT_STICKY)
			s->reg[KNCSIM_STATUS] = 0; /* the read clears it */
		return HW_OK;
	case MSR_KNC_GLOBAL_OVF_CTRL:
		*v = 0; /* write-only (§1.4.3.6); modelled as reading 0 */
		return HW_OK;
	case MSR_KNC_GLOBAL_CTRL:
		*v = s->reg[KNCSIM_CTRL];
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	switch (msr) {
	case MSR_KNC_PERFCTR0:
	case MSR_KNC_PERFCTR0 + 1:
		if (gp_faults(s, msr - MSR_KNC_PERFCTR0))
			return HW_FAULT_GP;
		sim_ctr_set(s, msr - MSR_KNC_PERFCTR0, v); /* all 40 bits (§1.4.3.2) */
		return HW_OK;
	case MSR_KNC_EVNTSEL0:
	case MSR_KNC_EVNTSEL0 + 1:
		if (gp_faults(s, msr - MSR_KNC_EVNTSEL0))
			return HW_FAULT_GP;
		s->reg[KNCSIM_EVNTSEL(msr - MSR_KNC_EVNTSEL0)] = v & EVTSEL_RW;
		return HW_OK;
	case MSR_KNC_SPFLT_CTRL:
		s->reg[KNCSIM_SPFLT] = v & SPFLT_RW;
		return HW_OK;
	case MSR_KNC_GLOBAL_STATUS:
		return HW_FAULT_GP; /* read-only (§1.4.3.5) */
	case MSR_KNC_GLOBAL_OVF_CTRL:
		/* Each set bit clears that status bit (§1.4.3.6). */
		for (unsigned i = 0; i < NCTR; i++)
			if (sim_flag_stuck(s, i)) /* pmi-storm: this bit stays; the
						   * line is an edge, so no repeat */
				v &= ~(1ull << i);
		if (s->fault != SF_ACK_IGNORED)
			s->reg[KNCSIM_STATUS] &= ~(v & CTR_BITS);
		return HW_OK;
	case MSR_KNC_GLOBAL_CTRL:
		s->reg[KNCSIM_CTRL] = v & CTR_BITS;
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

static int rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	/* ECX 0/1, the counter zero-extended from 40 bits (table 1-1) */
	if (ecx >= NCTR || gp_faults(s, ecx))
		return HW_FAULT_GP;
	*v = sim_ctr_read(s, ecx);
	return HW_OK;
}

/* ---- event decoding ---------------------------------------------------------
 * Table 1-6 of the KNC PMU guide from a workload iteration's construction
 * and outcome (events/workload.h, host/sim/uarch.h), with the event-decoding
 * faults of sim.h. The unit mask selects the functional unit (FUB): 0x00
 * the core (P54C events), 0x10 the L2 (CRI), 0x20 the VPU, which no
 * workload uses. One core: a line read from memory arrives E, none is S. */
#define FUB_CORE 0x00
#define FUB_CRI	 0x10

static uint64_t segs(const struct workload_vector *v)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < WL_SEGS; i++)
		n += v->seg_loads[i];
	return n;
}

/* Requests of origin o that reached the L2, any result: one per L1D miss
 * (data reads: the L1's read misses; RFOs: its write misses). */
static uint64_t l2_all(const struct workload_vector *v, enum wl_l2_origin o)
{
	return v->l2[o][WL_L2_MISS] + v->l2[o][WL_L2_HIT_ES] + v->l2[o][WL_L2_HIT_M];
}

/* L2 reads (data and code) with result r. */
static uint64_t l2_reads(const struct workload_vector *v, enum wl_l2_result r)
{
	return v->l2[WL_L2_DATA_RD][r] + v->l2[WL_L2_CODE_RD][r];
}

/* Cycles in microcode: CPUID, far transfers and segment loads (their
 * costs are the micro-architecture's, ours). */
static uint64_t microcode(const struct uarch_cfg *c, const struct workload_vector *v)
{
	return v->cpuid * c->cpuid_cyc + v->far * c->far_cyc + segs(v) * c->seg_cyc;
}

/* Completed E-stage cycles: the issue cycles (the iteration's cycles less
 * its stalls) plus the multi-cycle kinds' E-stage cycles. */
static uint64_t exec_cycles(const struct uarch_cfg *c, const struct workload_vector *v)
{
	uint64_t multi = microcode(c, v) + v->locked * c->lock_cyc + v->clflush * c->clflush_cyc +
			 v->x87 * c->x87_cyc;
	uint64_t n = v->cycles - v->stall_cycles + multi;
	return n < v->cycles ? n : v->cycles;
}

/* P54C events (FUB 0x00). miss-counts-hits: DATA_READ_MISS counts every
 * read, CODE_CACHE_MISS every code read; double-count: BRANCHES twice. */
static uint64_t core_event(const struct sim_cpu *s, unsigned code, const struct workload_vector *v)
{
	const struct uarch_cfg *c = uarch_of(s);

	switch (code) {
	case 0x00: /* DATA_READ: loads (prefetches too on A0 only) */
		return v->loads;
	case 0x01: /* DATA_WRITE */
		return v->stores;
	case 0x02: /* DATA_PAGE_WALK: an L1 DTLB miss walks */
		return v->dtlb_l1_miss;
	case 0x03: /* DATA_READ_MISS */
		return sim_has_fault(s, SF_MISS_COUNTS_HITS) ? v->loads : l2_all(v, WL_L2_DATA_RD);
	case 0x04: /* DATA_WRITE_MISS */
		return l2_all(v, WL_L2_RFO);
	case 0x06: /* DATA_CACHE_LINES_WRITTEN_BACK: the L1D's dirty victims */
		return v->l1d_evict_m;
	case 0x0c: /* CODE_READ: fetch blocks */
		return v->ic_fetch;
	case 0x0d: /* CODE_PAGE_WALK: an L1 ITLB miss walks, as DATA_PAGE_WALK */
		return v->itlb_l1_miss;
	case 0x0e: /* CODE_CACHE_MISS */
		return sim_has_fault(s, SF_MISS_COUNTS_HITS) ? v->ic_fetch : v->ic_miss;
	case 0x12: /* BRANCHES */
		return sim_has_fault(s, SF_DOUBLE_COUNT) ? 2 * v->branches : v->branches;
	case 0x15: /* PIPELINE_FLUSHES: mispredictions, segment descriptor loads */
		return v->branch_misses + segs(v);
	case 0x16: /* INSTRUCTIONS_EXECUTED: in order, only what retires */
		return v->instructions;
	case 0x28: /* DATA_READ_OR_WRITE */
		return v->loads + v->stores;
	case 0x29: /* DATA_READ_MISS_OR_WRITE_MISS */
		return l2_all(v, WL_L2_DATA_RD) + l2_all(v, WL_L2_RFO);
	case 0x2a: /* CPU_CLK_UNHALTED */
		return sim_core_cycles(s, v);
	case 0x2b: /* BRANCHES_MISPREDICTED counts mispredictions on BTB hits
		    * (table 1-6): a steady iteration's branches have all been
		    * met, so every misprediction of the predictor is on a hit */
		return sim_mispredicted(s, v);
	case 0x2c: /* MICROCODE_CYCLES */
		return microcode(c, v);
	case 0x2d: /* FE_STALLED: memory, mispredictions, multi-cycle kinds */
		return v->stall_cycles;
	case 0x2e: /* EXEC_STAGE_CYCLES */
		return exec_cycles(c, v);
	case 0x3a: /* LONG_DATA_PAGE_WALK: the L2 TLB missed too */
		return v->dtlb_l2_miss;
	case 0x3b: /* LONG_CODE_PAGE_WALK: the L2 TLB missed too */
		return v->itlb_l2_miss;
	default: /* VPU, vprefetch, pairing, stalls: not modelled */
		return 0;
	}
}

/* CRI (L2) events (FUB 0x10). umask-ignored: the read-hit events ignore
 * their MESI state and count every read hit; miss-counts-hits:
 * L2_READ_MISS counts every read. A prefetch and a demand read of one line
 * both count as read misses (table 1-6, CBh): the streamer's requests. */
static uint64_t cri_event(const struct sim_cpu *s, unsigned code, const struct workload_vector *v)
{
	uint64_t hits = l2_reads(v, WL_L2_HIT_ES) + l2_reads(v, WL_L2_HIT_M);
	bool any_state = sim_has_fault(s, SF_UMASK_IGNORED);

	switch (code) {
	case 0xc8: /* L2_READ_HIT_E */
		return any_state ? hits : l2_reads(v, WL_L2_HIT_ES);
	case 0xc9: /* L2_READ_HIT_M */
		return any_state ? hits : l2_reads(v, WL_L2_HIT_M);
	case 0xca: /* L2_READ_HIT_S: only another core's copy makes S */
		return any_state ? hits : 0;
	case 0xcb: /* L2_READ_MISS */
		if (sim_has_fault(s, SF_MISS_COUNTS_HITS))
			return hits + l2_reads(v, WL_L2_MISS);
		return l2_reads(v, WL_L2_MISS) + v->l2[WL_L2_L2PF][WL_L2_MISS];
	case 0xf5: /* L2_CODE_READ_MISS_MEM_FILL */
		return v->l2[WL_L2_CODE_RD][WL_L2_MISS];
	case 0xf6: /* L2_DATA_READ_MISS_MEM_FILL */
		return v->l2[WL_L2_DATA_RD][WL_L2_MISS];
	case 0xf7: /* L2_DATA_WRITE_MISS_MEM_FILL */
		return v->l2[WL_L2_RFO][WL_L2_MISS];
	default: /* snoops, other cores' fills, vprefetch1: not modelled */
		return 0;
	}
}

/* Events per workload iteration; an unknown code counts nothing and raises
 * no fault (table 1-5). */
static uint64_t decode(const struct sim_cpu *s, unsigned code, unsigned umask,
		       const struct workload_vector *v)
{
	if (umask == FUB_CORE)
		return core_event(s, code, v);
	if (umask == FUB_CRI)
		return cri_event(s, code, v);
	return 0; /* VPU: no workload runs vector instructions */
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t sel = s->reg[KNCSIM_EVNTSEL(i)];
	uint64_t spflt = s->reg[KNCSIM_SPFLT];
	bool en = (sel & EVTSEL_EN) != 0;
	bool global = (s->reg[KNCSIM_CTRL] >> i & 1) != 0;

	/* EVNTSEL.EN AND GLOBAL_CTRL bit i (§1.4.1, table 1-5 bit 22) */
	if (!sim_ctr_counting(s, i, true, en, global))
		return 0;
	/* SPFLT-controlled counters follow USER_PREF (table 1-7); under
	 * spflt-ignored they count whatever it holds. */
	if ((spflt >> i & 1) && !(spflt & SPFLT_USER_PREF) && s->fault != SF_SPFLT_IGNORED)
		return 0;
	/* the harness runs in ring 0 */
	if (!sim_priv_counts(s, (sel & EVTSEL_OS) != 0, (sel & EVTSEL_USR) != 0))
		return 0;
	/* CMASK, INV and E (table 1-5 bits 31:24, 23, 18); 2AH is a clock */
	unsigned code = (unsigned)sel & 0xff;
	return sim_filter(s, v, decode(s, code, (unsigned)(sel >> 8) & 0xff, v), code == 0x2a,
			  (unsigned)(sel >> 24) & 0xff, (sel & EVTSEL_INV) != 0,
			  (sel & EVTSEL_EDGE) != 0);
}

/* The 1-bit PMI line: high while a counter with INT has its status bit set. */
static uint64_t line(const struct sim_cpu *s)
{
	uint64_t intr = 0;
	for (unsigned i = 0; i < NCTR; i++)
		if (s->reg[KNCSIM_EVNTSEL(i)] & EVTSEL_INT)
			intr |= 1ull << i;
	return s->reg[KNCSIM_STATUS] & intr;
}

static bool overflow(struct sim_cpu *s, unsigned i)
{
	bool was_high = line(s) != 0;

	if (s->fault == SF_NO_OVERFLOW_STATUS)
		/* No status bit: the line is pulsed per overflow instead. */
		return (s->reg[KNCSIM_EVNTSEL(i)] & EVTSEL_INT) != 0;
	/* Sticky, and set even without INT (§1.4.3.5). */
	s->reg[KNCSIM_STATUS] |= 1ull << i;
	/* duplicate-pmi: the line pulses per counter instead of once. */
	if (s->fault == SF_DUPLICATE_PMI)
		return (s->reg[KNCSIM_EVNTSEL(i)] & EVTSEL_INT) != 0;
	/* Only a 0->1 change reaches the APIC (§1.4.3.9). */
	return !was_high && line(s) != 0;
}

/* Realism (sim.h), at --realism-scale 1: harness paths of 12-60
 * instructions (ours: objdump of pmu/intel_knc.o, start 73, stop 56) and
 * stubs of 40 (ours); the in-order core stops within a couple of hundred
 * instructions (ours), and rr, which does not run on KNC, has seen no
 * Intel core before Alder Lake pass 100 branches: an in-order core, with
 * fewer instructions in flight, is held to that too (ours). An interrupt counts
 * one instruction (Weaver and McKee, IISWC 2008: every x86 but NetBurst).
 * Its 1-bit PMI line (KNC §1.4.3.9) is modelled by overflow() itself, so
 * no late-ack effect here. SMM is counted (SDM Vol. 3B 17.4.7). */
static const struct sim_silicon si_knc = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 20,	/* ours */
    .skid_min = 20,	/* ours */
    .skid_max = 200,	/* ours */
    .skid_cap_br = 100, /* ours: rr's Intel bound before Alder Lake */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
};
static const struct sim_model knc = {
    .name = "knc",
    .doc = "Intel Xeon Phi (Knights Corner) PMU 327357-001JA §1.4.1-§1.4.4; "
	   "Linux arch/x86/events/intel/knc.c",
    .driver = PMU_DRV_INTEL_KNC,
    .faults = SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |
	      SIM_F(SF_NO_OVERFLOW_STATUS) | SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) |
	      SIM_F(SF_ENABLE_IGNORED) | SIM_F(SF_GLOBAL_CTRL_IGNORED) | SIM_F(SF_WRONG_EVENT) |
	      SIM_F(SF_MSR_FAULT) | SIM_F(SF_OVERCOUNT) | SIM_F(SF_LVT_STUCK_MASKED) |
	      SIM_F(SF_ACK_IGNORED) | SIM_F(SF_ENABLE_IGNORED_ONE) | SIM_F(SF_WIDTH_HIGH_BITS) |
	      SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_STATUS_NOT_STICKY) | SIM_F(SF_PMI_STORM) |
	      SIM_F(SF_WRONG_VECTOR) | SIM_F(SF_DUPLICATE_PMI) | SIM_F(SF_EVENT_DEAD) |
	      SIM_F(SF_EVENT_MISWIRED) | SIM_F(SF_UMASK_IGNORED) | SIM_F(SF_MISS_COUNTS_HITS) |
	      SIM_F(SF_DOUBLE_COUNT) | SIM_FILTER_FAULTS | SIM_APIC_FAULTS | SIM_F(SF_CYCLES_SLOW) |
	      SIM_F(SF_SPFLT_IGNORED) | SIM_F(SF_WRITE_RESETS) | SIM_F(SF_OVERFLOW_FREEZES),
    .fault_na =
	{
	    SIM_NA_TOPDOWN,
	    SIM_NA_ALIAS,
	    SIM_NA_NO_SMP,
	    SIM_NA_TSX_FEP(SIM_NA_NO_RTM),
	    [SF_FAST_RDPMC_FULL] = "KNC documents RDPMC ECX 0 and 1 only, no fast read (KNC "
				   "table 1-1; SDM Vol. 2B RDPMC: fast reads are the Pentium 4's)",
	    [SF_FULL_WIDTH_NO_GP] = "KNC has no full-width counter alias (IA32_A_PMCx, SDM Vol. "
				    "3B 20.2.6): its writes set all 40 bits (KNC §1.4.3.2)",
	    [SF_NO_SIGN_EXTEND] = "KNC counter writes set all 40 bits (KNC §1.4.3.2); "
				  "nothing sign-extends",
	    [SF_GLOBAL_IGNORED_GP] = "KNC has no fixed counters (KNC §1.4.1): both "
				     "counters ignoring GLOBAL_CTRL is global-ctrl-ignored",
	    [SF_REFCYC_CORE] = "KNC has no reference-cycle event (table 1-6): its TSC "
			       "itself counts core cycles (KNC §1.4.3.1)",
	    [SF_CYCLES_REF] = "KNC's TSC counts core cycles (KNC §1.4.3.1): the reference "
			      "rate is the core's, nothing tells the two apart",
	},
    .reset = reset,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .lvt_automask = true,
    .si = &si_knc,
};
SIM_MODEL(knc);
