/* Model "pentium4": a Pentium 4 (GenuineIntel family 0xF model 2, no HT)
 * written from the SDM Vol. 3B NetBurst sections and Linux intel/p4.c. 18 40-bit
 * counters at 0x300+i with CCCRs at 0x360+i; every ESCR of Linux msr-index.h (46,
 * IQ_ESCR0/1 included: they exist on models 1-2). A counter counts when its
 * CCCR ENABLE is set and its ESCR select names an ESCR of its counter group
 * whose event and mask the model knows and whose T0_OS bit is set (the
 * harness runs in ring 0). Overflow sets the sticky CCCR.OVF and, with
 * OVF_PMI_T0, requests a PMI; the local APIC masks LVTPC on delivery.
 * CCCR1's ENABLE does not work (Linux p4_pmu_enable_event).
 *
 * Model "pentium4-ht" is the same part with Hyper-Threading, the harness
 * running on logical processor 1 (CPUID.1: HTT, two logical processors,
 * initial APIC ID 1). The PMU is shared by both threads (Linux p4_pmu_swap_config_ts):
 * there an ESCR counts the harness's events only with its T1_OS bit and an
 * overflow interrupts it only through CCCR OVF_PMI_T1 (SDM NetBurst 'CCCR MSRs').
 *
 * Realism "firmware" adds erratum N15 (specification update #249199): a write of a new value
 * to a counter does not take one time in four; writing the same value again
 * does, which is why Linux writes twice (p4_pmu_set_period).
 *
 * Events: netburst_events.c, on the micro-architecture below, and here
 * front_end_event with uop_type's front-end tagging, whose tags live in the
 * RAT ESCRs of this register file. PEBS: sim_pebs_p4.c (sim_smp_pentium4),
 * to which IA32_DS_AREA, MSR_PEBS_ENABLE and MSR_PEBS_MATRIX_VERT go. Not
 * modelled: FORCE_OVF, execution and replay tagging, thread 0's own
 * events, the L2's adjacent-sector prefetch. */
#include "model_netburst.h"
#include "../../pmu/msr.h"
#include "sim.h"
#include "uarch.h"

#define NCTR		18
#define CCCR_ENABLE	(1ull << 12)
#define CCCR_OVF_PMI_T0 (1ull << 26)
#define CCCR_RW		0x4ffff000ull /* 30, 27:12; OVF (31) only clears by software */
#define ESCR_RW		0x7fffffffull
#define ESCR_T0_OS	(1ull << 3)
#define ESCR_T0_USR	(1ull << 2)
#define ESCR_T1_OS	(1ull << 1)
#define ESCR_T1_USR	(1ull << 0)
#define CCCR_COMPARE	(1ull << 18)
#define CCCR_COMPLEMENT (1ull << 19)
#define CCCR_EDGE	(1ull << 24)
#define CCCR_OVF_PMI_T1 (1ull << 27)

/* SDM table of counters and ESCRs per counter group: the ESCR with select
 * value s for group g, half h (ESCRx0 feeds the first counters of a group,
 * ESCRx1 the rest). */
struct m_escr {
	uint32_t addr;
	uint8_t group, half, select;
};

/* clang-format off */
static const struct m_escr escr_tab[] = {
	/* BPU group: counters 0,1 / 2,3 */
	{0x3b2, 0, 0, 0}, {0x3b3, 0, 1, 0}, /* BPU */
	{0x3b4, 0, 0, 1}, {0x3b5, 0, 1, 1}, /* IS */
	{0x3aa, 0, 0, 2}, {0x3ab, 0, 1, 2}, /* MOB */
	{0x3b6, 0, 0, 3}, {0x3b7, 0, 1, 3}, /* ITLB */
	{0x3ac, 0, 0, 4}, {0x3ad, 0, 1, 4}, /* PMH */
	{0x3c8, 0, 0, 5}, {0x3c9, 0, 1, 5}, /* IX */
	{0x3a2, 0, 0, 6}, {0x3a3, 0, 1, 6}, /* FSB */
	{0x3a0, 0, 0, 7}, {0x3a1, 0, 1, 7}, /* BSU */
	/* MS group: counters 4,5 / 6,7 */
	{0x3c0, 1, 0, 0}, {0x3c1, 1, 1, 0}, /* MS */
	{0x3c4, 1, 0, 1}, {0x3c5, 1, 1, 1}, /* TC */
	{0x3c2, 1, 0, 2}, {0x3c3, 1, 1, 2}, /* TBPU */
	/* FLAME group: counters 8,9 / 10,11 */
	{0x3a6, 2, 0, 0}, {0x3a7, 2, 1, 0}, /* FLAME */
	{0x3a4, 2, 0, 1}, {0x3a5, 2, 1, 1}, /* FIRM */
	{0x3ae, 2, 0, 2}, {0x3af, 2, 1, 2}, /* SAAT */
	{0x3b0, 2, 0, 3}, {0x3b1, 2, 1, 3}, /* U2L */
	{0x3a8, 2, 0, 5}, {0x3a9, 2, 1, 5}, /* DAC */
	/* IQ group: counters 12,13,16 / 14,15,17 */
	{0x3ba, 3, 0, 0}, {0x3bb, 3, 1, 0}, /* IQ (models 1-2) */
	{0x3ca, 3, 0, 1}, {0x3cb, 3, 1, 1}, /* ALF */
	{0x3bc, 3, 0, 2}, {0x3bd, 3, 1, 2}, /* RAT */
	{0x3be, 3, 0, 3}, {0x3bf, 3, 1, 3}, /* SSU (ESCR1: "guess: not in manual" in Linux) */
	{0x3b8, 3, 0, 4}, {0x3b9, 3, 1, 4}, /* CRU0/1 */
	{0x3cc, 3, 0, 5}, {0x3cd, 3, 1, 5}, /* CRU2/3 */
	{0x3e0, 3, 0, 6}, {0x3e1, 3, 1, 6}, /* CRU4/5 */
};
/* clang-format on */
#define N_ESCR (sizeof(escr_tab) / sizeof(escr_tab[0]))
_Static_assert(N_ESCR == 46, "Linux msr-index.h: 46 ESCRs on models 1-2");

static void ctr_place(unsigned i, unsigned *group, unsigned *half)
{
	static const uint8_t g[NCTR] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3};
	static const uint8_t h[NCTR] = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1};
	*group = g[i];
	*half = h[i];
}

static int escr_index(uint32_t msr)
{
	for (unsigned k = 0; k < N_ESCR; k++)
		if (escr_tab[k].addr == msr)
			return (int)k;
	return -1;
}

/* Northwood: 8 KiB 4-way L1D, a trace cache instead of an L1I, 512 KiB
 * 8-way L2 with 64-byte sectors of 128-byte lines, no L3; a 64-entry DTLB
 * and ITLB (leaf 02H: 66h, 7Bh, 5Bh, 50h, trace cache 70h, no L3 40h: SDM
 * Vol. 2A CPUID descriptors). L1 2 and L2 about 18 cycles, a 16-entry
 * return stack, three micro-ops retired a cycle and a misprediction of
 * about 20 cycles (Intel optimization manual, NetBurst chapter); memory
 * and the other costs ours. */
static const struct uarch_cfg ua_northwood = {
    .name = "northwood",
    .leaf2 = {0x665b5001u, 0, 0, 0x007b7040u},
    .line = 64,
    .l1d = {8 * 1024, 4},
    .l2 = {512 * 1024, 8},
    .l2_policy = UA_L2_NONINCLUSIVE,
    .dtlb1 = {64, 64},
    .itlb1 = {64, 64},
    .lat_l1 = 2,
    .lat_l2 = 18,
    .lat_mem = 300,
    .lat_walk = 30,
    .mlp = 4,
    .width = 3,
    .ras = 16,
    .mispredict = 20,
    .cpuid_cyc = 200,
    .lock_cyc = 100,
    .lock_spec_cyc = 10,
    .seg_cyc = 20,
    .far_cyc = 60,
    .clflush_cyc = 60,
    .x87_cyc = 5,
};

static void reset(struct sim_cpu *s)
{
	sim_vendor(s, 2, "GenuineIntel");
	/* CPUID.1: family 0xF model 2 stepping 9; EDX: TSC, MSR, APIC, DS */
	sim_set_cpuid(s, 1, 0, sim_fms(0xf, 2, 9), 0, 0,
		      (1u << 4) | (1u << 5) | (1u << 9) | (1u << 21));
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	sim_brand(s, "Simulated Intel(R) Pentium(R) 4 (NetBurst)");
	uarch_setup(s, &ua_northwood);
	s->n_ctr = NCTR;
	for (unsigned i = 0; i < NCTR; i++)
		s->width[i] = 40;
	/* EMON (bit 7): performance monitoring available (SDM Vol. 4 Table 2-2) */
	s->reg[P4SIM_MISC_ENABLE] = MISC_ENABLE_EMON;
}

/* Logical processor 1 of an HT package: CPUID.1 EBX[31:24] initial APIC ID
 * 1, EBX[23:16] two logical processors, EDX[28] HTT (SDM Vol. 3A 8.6). */
static void reset_ht(struct sim_cpu *s)
{
	reset(s);
	sim_set_cpuid(s, 1, 0, sim_fms(0xf, 2, 9), 1u << 24 | 2u << 16, 0,
		      (1u << 4) | (1u << 5) | (1u << 9) | (1u << 21) | (1u << 28));
	s->apic_id = 1;
	s->apic_base &= ~APIC_BASE_BSP;
}

static bool thread1(const struct sim_cpu *s)
{
	return (s->apic_id & 1) != 0;
}

/* Erratum N15: true when this write is lost (see the top of the file). The
 * erratum gives no rate; one fresh write in four is ours, times
 * --realism-scale up to every fresh write (the second write still takes). */
static bool n15_lost(struct sim_cpu *s, unsigned i, uint64_t v)
{
	bool fresh = s->reg[P4SIM_LASTW(i)] != v;

	if (!sim_real(s, SE_FIRMWARE))
		return false;
	s->reg[P4SIM_LASTW(i)] = v;
	return fresh && sim_rand(s, 1, 4) <= sim_k(s);
}

static bool gp_faults(const struct sim_cpu *s, unsigned i)
{
	return s->fault == SF_MSR_FAULT && i == 1;
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	int k;

	if (msr >= MSR_P4_COUNTER0 && msr < MSR_P4_COUNTER0 + NCTR) {
		if (gp_faults(s, msr - MSR_P4_COUNTER0))
			return HW_FAULT_GP;
		*v = sim_ctr_read(s, msr - MSR_P4_COUNTER0);
		return HW_OK;
	}
	if (msr >= MSR_P4_CCCR0 && msr < MSR_P4_CCCR0 + NCTR) {
		if (gp_faults(s, msr - MSR_P4_CCCR0))
			return HW_FAULT_GP;
		*v = s->reg[P4SIM_CCCR(msr - MSR_P4_CCCR0)];
		if (s->fault == SF_STATUS_NOT_STICKY) /* the read clears OVF */
			s->reg[P4SIM_CCCR(msr - MSR_P4_CCCR0)] &= ~P4SIM_CCCR_OVF;
		return HW_OK;
	}
	k = escr_index(msr);
	if (k >= 0) {
		*v = s->reg[P4SIM_ESCR(k)];
		return HW_OK;
	}
	if (msr == MSR_IA32_MISC_ENABLE) {
		*v = s->reg[P4SIM_MISC_ENABLE];
		return HW_OK;
	}
	if (sim_p4_pebs_msr(s, msr)) /* the debug store's PEBS (sim_pebs_p4.c) */
		return sim_p4_pebs_rdmsr(s, msr, v);
	return HW_FAULT_GP;
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	int k;

	s->reg[P4SIM_WLOG(s->reg[P4SIM_WLOG_N])] = msr;
	s->reg[P4SIM_WLOG_N]++;

	if (msr >= MSR_P4_COUNTER0 && msr < MSR_P4_COUNTER0 + NCTR) {
		if (gp_faults(s, msr - MSR_P4_COUNTER0))
			return HW_FAULT_GP;
		if (!n15_lost(s, msr - MSR_P4_COUNTER0, v))
			sim_ctr_set(s, msr - MSR_P4_COUNTER0, v); /* all 40 bits (SDM NetBurst) */
		return HW_OK;
	}
	if (msr >= MSR_P4_CCCR0 && msr < MSR_P4_CCCR0 + NCTR) {
		unsigned i = msr - MSR_P4_CCCR0;
		uint64_t old = s->reg[P4SIM_CCCR(i)];
		uint64_t ovf = old & P4SIM_CCCR_OVF;
		if (gp_faults(s, i))
			return HW_FAULT_GP;
		/* OVF is sticky: software can clear it, not set it (Linux p4_pmu_clear_cccr_ovf);
		 * the ack-ignored fault keeps it whatever is written. */
		if (!(v & P4SIM_CCCR_OVF) && s->fault != SF_ACK_IGNORED && !sim_flag_stuck(s, i))
			ovf = 0; /* pmi-storm: the stuck one stays */
		s->reg[P4SIM_CCCR(i)] = (v & CCCR_RW) | ovf;
		return HW_OK;
	}
	k = escr_index(msr);
	if (k >= 0) {
		s->reg[P4SIM_ESCR(k)] = v & ESCR_RW;
		return HW_OK;
	}
	if (msr == MSR_IA32_MISC_ENABLE)
		return HW_OK; /* the model keeps EMON as reset left it */
	if (sim_p4_pebs_msr(s, msr))
		return sim_p4_pebs_wrmsr(s, msr, v);
	return HW_FAULT_GP;
}

static int rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	unsigned i = ecx & 0x1f;
	if (i >= NCTR || gp_faults(s, i))
		return HW_FAULT_GP;
	*v = sim_ctr_read(s, i);
	/* fast read, ECX[31]: bits 31:0 in EAX, EDX 0 (SDM Vol. 2B RDPMC,
	 * Pentium 4 and Xeon); fast-rdpmc-full returns all 40 bits */
	if ((ecx & (1u << 31)) && !sim_has_fault(s, SF_FAST_RDPMC_FULL))
		*v &= 0xffffffffull;
	return HW_OK;
}

/* The CCCR's filters (SDM Vol. 3B, NetBurst CCCR: COMPARE 18, COMPLEMENT
 * 19, THRESHOLD 23:20, EDGE 24): with COMPARE a cycle counts once when its
 * events are more than THRESHOLD (at most THRESHOLD with COMPLEMENT);
 * EDGE counts the false-to-true transitions of that comparison and is
 * active only with COMPARE. global_power_events (13h) is a clock. */
static uint64_t cccr_filter(const struct sim_cpu *s, uint64_t cccr, unsigned event, uint64_t n,
			    const struct workload_vector *v)
{
	if (!(cccr & CCCR_COMPARE))
		return n;
	return sim_filter(s, v, n, event == 0x13, (unsigned)((cccr >> 20) & 0xf) + 1,
			  (cccr & CCCR_COMPLEMENT) != 0, (cccr & CCCR_EDGE) != 0);
}

/* Front-end tagging (SDM Vol. 3B 18.15.6.2 "Tagging Mechanism for
 * Front_end_event": "Tagging μops for μop decode events requires specifying
 * bits in the ESCR associated with the performance-monitoring event,
 * Uop_type"): uop_type (02H on RAT_ESCR0/1) tags load (TAGLOADS, mask bit 1)
 * and store (TAGSTORES, bit 2) μops, "only used to tag uops"; the tags of a
 * RAT ESCR whose thread and privilege bits qualify the μop (ours: the ESCR
 * alone, no CCCR need select it, as none counts it). */
#define EV_UOP_TYPE   0x02
#define EV_FRONT_END  0x08
#define UOP_TAGLOADS  (1u << 1)
#define UOP_TAGSTORES (1u << 2)
static unsigned uop_tags(const struct sim_cpu *s)
{
	static const uint32_t rat[2] = {0x3bc, 0x3bd};
	bool t1 = thread1(s);
	unsigned tags = 0;

	for (unsigned k = 0; k < 2; k++) {
		uint64_t escr = s->reg[P4SIM_ESCR(escr_index(rat[k]))];
		if (((escr >> 25) & 0x3f) != EV_UOP_TYPE ||
		    !sim_priv_counts(s, (escr & (t1 ? ESCR_T1_OS : ESCR_T0_OS)) != 0,
				     (escr & (t1 ? ESCR_T1_USR : ESCR_T0_USR)) != 0))
			continue;
		tags |= (unsigned)(escr >> 9) & (UOP_TAGLOADS | UOP_TAGSTORES);
	}
	return tags;
}

/* front_end_event (08H on CRU_ESCR2/3, CCCR select 05H; "Can Support PEBS:
 * Yes", SDM Vol. 3B at-retirement events table): the retired μops front-end
 * tagging marked, NBOGUS (bit 0) the non-bogus ones; BOGUS (bit 1) counts
 * none here (ours: the wrong path's stores and loads are not modelled). A
 * near return loads and a near call stores the return address: most
 * vectors count them in loads and stores (events/workloads.c), the traced
 * kernel's (sim_trace.c) and wl_loop's fixed part leave them out, so at
 * least rets loads and calls stores. One tagged μop per memory instruction
 * (ours). */
static uint64_t front_end(const struct sim_cpu *s, unsigned mask, const struct workload_vector *v)
{
	unsigned tags = (mask & 1) ? uop_tags(s) : 0;
	uint64_t ld = v->loads > v->rets ? v->loads : v->rets;
	uint64_t st = v->stores > v->calls ? v->stores : v->calls;

	return ((tags & UOP_TAGLOADS) ? ld : 0) + ((tags & UOP_TAGSTORES) ? st : 0);
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t cccr = s->reg[P4SIM_CCCR(i)], escr;
	unsigned group, half, sel = (unsigned)(cccr >> 13) & 7;
	bool enabled = (cccr & CCCR_ENABLE) && i != 1; /* CCCR1 ENABLE erratum */

	if (!sim_ctr_counting(s, i, true, enabled, true))
		return 0;
	ctr_place(i, &group, &half);
	for (unsigned k = 0; k < N_ESCR; k++) {
		const struct m_escr *e = &escr_tab[k];
		if (e->group != group || e->half != half || e->select != sel)
			continue;
		escr = s->reg[P4SIM_ESCR(k)];
		bool t1 = thread1(s);
		if (!sim_priv_counts(s, (escr & (t1 ? ESCR_T1_OS : ESCR_T0_OS)) != 0,
				     (escr & (t1 ? ESCR_T1_USR : ESCR_T0_USR)) != 0))
			return 0;
		unsigned event = (unsigned)(escr >> 25) & 0x3f,
			 mask = (unsigned)(escr >> 9) & 0xffff;
		uint64_t n = event == EV_FRONT_END && (e->addr == 0x3cc || e->addr == 0x3cd)
				 ? front_end(s, mask, v)
				 : p4sim_event(s, e->addr, event, mask, v);
		return cccr_filter(s, cccr, event, n, v);
	}
	return 0; /* the select names no ESCR of this group */
}

static bool overflow(struct sim_cpu *s, unsigned i)
{
	uint64_t *cccr = &s->reg[P4SIM_CCCR(i)];
	if (s->fault != SF_NO_OVERFLOW_STATUS)
		*cccr |= P4SIM_CCCR_OVF;
	/* The interrupt still fires without the flag: Linux's "unflagged
	 * overflow" (Linux p4_pmu_clear_cccr_ovf). */
	return (*cccr & (thread1(s) ? CCCR_OVF_PMI_T1 : CCCR_OVF_PMI_T0)) != 0;
}

/* Counters whose OVF is set with this thread's OVF_PMI: while one is, "the
 * NMI line will continue to be asserted" (Linux p4_pmu_handle_irq); pmi-storm uses it. */
static uint64_t pending(struct sim_cpu *s)
{
	uint64_t m = 0, pmi = thread1(s) ? CCCR_OVF_PMI_T1 : CCCR_OVF_PMI_T0;
	for (unsigned i = 0; i < NCTR; i++)
		if ((s->reg[P4SIM_CCCR(i)] & P4SIM_CCCR_OVF) && (s->reg[P4SIM_CCCR(i)] & pmi))
			m |= 1ull << i;
	return m;
}

/* Realism (sim.h), at --realism-scale 1: harness paths of 15-70
 * instructions (ours: objdump of pmu/intel_netburst.o, program 151, start
 * 40) and stubs of 50 (ours); NetBurst's deep pipeline delivers the PMI
 * hundreds to thousands of instructions late (ours; Linux p4.c
 * p4_pmu_handle_irq allows for PMIs still in flight after the counter
 * stopped). rr does not run on NetBurst: the branch bound is ours, its Zen
 * value, the largest it gives an x86 core. NetBurst is the one x86 whose
 * instruction count an interrupt does not raise (Weaver and McKee, IISWC
 * 2008). SMM counted (SDM Vol. 3B 17.4.7), no MSR_SMI_COUNT. */
static const struct sim_silicon si_p4 = {
    .insn_min = 15,	  /* ours: objdump */
    .insn_max = 70,	  /* ours: objdump */
    .cpi_x10 = 25,	  /* ours */
    .skid_min = 100,	  /* ours */
    .skid_max = 2000,	  /* ours */
    .skid_cap_br = 10000, /* ours: rr's largest x86 bound */
    .entry_insn = 50,	  /* ours: the stubs */
    .irq_insn = 0,	  /* Weaver and McKee: none on Pentium 4 */
    .smm_counts = true,	  /* SDM Vol. 3B 17.4.7 */
};
#define P4_FAULTS                                                                                  \
	(SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |                \
	 SIM_F(SF_NO_OVERFLOW_STATUS) | SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) |              \
	 SIM_F(SF_ENABLE_IGNORED) | SIM_F(SF_WRONG_EVENT) | SIM_F(SF_MSR_FAULT) |                  \
	 SIM_F(SF_OVERCOUNT) | SIM_F(SF_LVT_STUCK_MASKED) | SIM_F(SF_ACK_IGNORED) |                \
	 SIM_F(SF_WIDTH_HIGH_BITS) | SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_STATUS_NOT_STICKY) |       \
	 SIM_F(SF_PMI_STORM) | SIM_F(SF_WRONG_VECTOR) | SIM_F(SF_DUPLICATE_PMI) |                  \
	 (SIM_EVENT_FAULTS & ~SIM_F(SF_REFCYC_CORE)) | SIM_FILTER_FAULTS | SIM_APIC_FAULTS |       \
	 SIM_F(SF_CYCLES_SLOW) | P4_WRITE_FAULTS | SIM_PEBS_FAULTS)
/* Counter writes and reads: a running write, RDPMC's fast read (ECX[31],
 * SDM Vol. 2B RDPMC: Pentium 4 and Xeon), a freeze at an overflow. */
#define P4_WRITE_FAULTS                                                                            \
	(SIM_F(SF_WRITE_RESETS) | SIM_F(SF_FAST_RDPMC_FULL) | SIM_F(SF_OVERFLOW_FREEZES))
/* The sampling hardware it has: PEBS (sim_smp_pentium4); the rest not. */
#define P4_NA_SMP_WHY                                                                              \
	"no LBR stack or BTS is modelled for NetBurst: the harness knows family 6 LBR stacks "     \
	"only (pmu/lbr.c) and checks BTS with the arch perfmon driver (pmu/ds.c; NetBurst's "      \
	"MSR_DEBUGCTLA has its BTS bits elsewhere, SDM Vol. 3B 18.5.1)"
#define P4_NA_SMP SIM_NA_LBR(P4_NA_SMP_WHY), SIM_NA_BTS(P4_NA_SMP_WHY), SIM_NA_IBS(SIM_NA_IBS_AMD)
#define P4_NA                                                                                      \
	[SF_NO_SIGN_EXTEND] = "NetBurst counter writes set all 40 bits (SDM NetBurst); "           \
			      "nothing sign-extends",                                              \
	[SF_GLOBAL_CTRL_IGNORED] = "NetBurst has no global enable register, only "                 \
				   "CCCR ENABLE (SDM NetBurst)",                                   \
	[SF_GLOBAL_IGNORED_GP] = "NetBurst has no global enable register, only "                   \
				 "CCCR ENABLE (SDM NetBurst)",                                     \
	[SF_ENABLE_IGNORED_ONE] = "counter 1 is the one whose CCCR ENABLE does not "               \
				  "work (Linux p4_pmu_enable_event): the driver never uses it",    \
	[SF_REFCYC_CORE] = "NetBurst has no reference-cycles event: global_power_events "          \
			   "counts core cycles (SDM NetBurst events)",                             \
	[SF_CYCLES_REF] = SIM_NA_CYCLES_REF,                                                       \
	[SF_FULL_WIDTH_NO_GP] = "NetBurst has no full-width counter alias (IA32_A_PMCx, SDM "      \
				"Vol. 3B 20.2.6): every write sets all 40 bits"

static const struct sim_model pentium4 = {
    .name = "pentium4",
    .doc = "SDM Vol. 3B NetBurst sections; Linux intel/p4.c",
    .driver = PMU_DRV_INTEL_NETBURST,
    .faults = P4_FAULTS,
    .fault_na = {P4_NA, SIM_NA_FAMILY_REGS, P4_NA_SMP, SIM_NA_TSX_FEP(SIM_NA_NO_RTM),
		 SIM_NA_TOPDOWN},
    .reset = reset,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .pending = pending,
    .lvt_automask = true, /* Linux perfctr-watchdog.c p4_rearm */
    .si = &si_p4,
    .smp = &sim_smp_pentium4,
};
SIM_MODEL(pentium4);

static const struct sim_model pentium4_ht = {
    .name = "pentium4-ht",
    .doc = "pentium4 with Hyper-Threading, harness on logical processor 1: ESCR T1 bits, "
	   "OVF_PMI_T1 (Linux p4_pmu_swap_config_ts)",
    .driver = PMU_DRV_INTEL_NETBURST,
    .faults = P4_FAULTS,
    .fault_na = {P4_NA, SIM_NA_FAMILY_REGS, P4_NA_SMP, SIM_NA_TSX_FEP(SIM_NA_NO_RTM),
		 SIM_NA_TOPDOWN},
    .reset = reset_ht,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .lvt_automask = true,
    .si = &si_p4,
    .smp = &sim_smp_pentium4,
};
SIM_MODEL(pentium4_ht);
