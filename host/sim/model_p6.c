/* Model "pentium3": an Intel P6 PMU (Pentium III, family 6 model 7) written
 * from the SDM Vol. 3B P6 section and Linux p6.c. Two 40-bit counters at 0xC1/0xC2 whose
 * writes keep bits 31:0 and sign-extend bit 31 into 39:32, event selects at
 * 0x186/0x187 with EN only in EVNTSEL0 (it gates both counters), no global
 * registers and no overflow status, and a local APIC that does not mask
 * LVTPC when it delivers a PMI. A Katmai's caches, TLBs and predictor
 * (host/sim/uarch.h) make each workload's outcome, from which the event
 * selects decode the SDM's P6 events (Intel SDM Vol. 3B, P6 family events),
 * with the event-decoding faults of sim.h. */
#include "../../pmu/msr.h"
#include "sim.h"
#include "uarch.h"

#define P6_CTRS	       2
#define P6_WIDTH       40
#define REG_EVNTSEL(i) (i)
#define REG_UCODE      8
#define P6_UCODE_REV   0x10ull
/* SDM Vol. 3B P6 section: bit 21 is reserved on P6 and EN (22) exists only in EVNTSEL0. */
#define SEL0_RW 0xffdfffffull
#define SEL1_RW 0xff9fffffull

/* The micro-architecture (host/sim/uarch.h) of a Pentium III Katmai,
 * published as its CPUID leaf 02H descriptors (SDM Vol. 2A, CPUID,
 * "Encoding of Cache and TLB Descriptors"): EAX 01H (one call), 01H ITLB
 * 4 KiB pages 4-way 32 entries, 02H ITLB 4 MiB pages, 03H DTLB 4 KiB pages
 * 4-way 64 entries; EDX 43H L2 512 KiB 4-way 32-byte lines, 08H L1I 16 KiB
 * 4-way, 04H DTLB 4 MiB pages, 0CH L1D 16 KiB 4-way 32-byte lines. The L2
 * is neither inclusive nor exclusive of the L1D; of enum ua_l2_policy
 * non-inclusive fits. No L2 TLB, no hardware prefetcher. Three
 * instructions retired a cycle, a 16-entry return stack buffer and a
 * misprediction of about 10-15 cycles (Agner Fog, microarchitecture
 * manual, PPro/PII/PIII). Katmai's L2 is off the die at half the core
 * clock, slower than Coppermine's 10 cycles: 20 are ours, as are the L1
 * (3), memory (100), the page walk, the misses in flight and the costs of
 * the serialising kinds. */
static const struct uarch_cfg ua_p6 = {
    .name = "p6-katmai",
    .leaf2 = {0x03020101u, 0, 0, 0x0c040843u},
    .line = 32,
    .l1d = {16 * 1024, 4},
    .l1i = {16 * 1024, 4},
    .l2 = {512 * 1024, 4},
    .l2_policy = UA_L2_NONINCLUSIVE,
    .dtlb1 = {64, 4},
    .itlb1 = {32, 4},
    .lat_l1 = 3,
    .lat_l2 = 20,
    .lat_mem = 100,
    .lat_walk = 15,
    .mlp = 4,
    .width = 3,
    .ras = 16,
    .mispredict = 13,
    .cpuid_cyc = 80,
    .lock_cyc = 20,
    .lock_spec_cyc = 4,
    .seg_cyc = 10,
    .far_cyc = 30,
    .clflush_cyc = 50,
    .x87_cyc = 3,
};

static void reset(struct sim_cpu *s)
{
	/* Katmai has max leaf 2 and no 0AH (Linux intel_pmu_init picks P6 by family). */
	sim_vendor(s, 2, "GenuineIntel");
	/* leaf 1 EDX: FPU, VME, DE, PSE, TSC, MSR, PAE, MCE, CX8, APIC, SEP,
	 * MTRR, PGE, MCA, CMOV, PAT, PSE36, MMX, FXSR, SSE */
	sim_set_cpuid(s, 1, 0, sim_fms(6, 7, 3), 0, 0, 0x0383fbffu);
	uarch_setup(s, &ua_p6); /* leaf 02H: its descriptors */
	/* A Pentium III has no brand-string leaves; the simulator adds them so
	 * that its output names the model. */
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	sim_brand(s, "Simulated Intel Pentium III (P6)");
	s->n_ctr = P6_CTRS;
	for (unsigned i = 0; i < P6_CTRS; i++)
		s->width[i] = P6_WIDTH;
	s->reg[REG_UCODE] = P6_UCODE_REV << 32;
	/* Realism "firmware": counter 0 left counting cycles with EN set, the
	 * "Broken BIOS" state of Linux's check_hw_exists (arch/x86/events/core.c). */
	if (sim_real(s, SE_FIRMWARE))
		s->reg[REG_EVNTSEL(0)] = EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | 0x79;
}

/* The msr-fault fault removes counter 1's MSRs. */
static bool faulted(const struct sim_cpu *s, uint32_t msr)
{
	return sim_has_fault(s, SF_MSR_FAULT) &&
	       (msr == MSR_P6_PERFCTR0 + 1 || msr == MSR_P6_EVNTSEL0 + 1);
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (faulted(s, msr))
		return HW_FAULT_GP;
	if (msr >= MSR_P6_PERFCTR0 && msr < MSR_P6_PERFCTR0 + P6_CTRS) {
		*v = sim_ctr_read(s, msr - MSR_P6_PERFCTR0);
		return HW_OK;
	}
	if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + P6_CTRS) {
		*v = s->reg[REG_EVNTSEL(msr - MSR_P6_EVNTSEL0)];
		return HW_OK;
	}
	if (msr == MSR_IA32_BIOS_SIGN_ID) {
		*v = s->reg[REG_UCODE];
		return HW_OK;
	}
	return HW_FAULT_GP;
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (faulted(s, msr))
		return HW_FAULT_GP;
	if (msr >= MSR_P6_PERFCTR0 && msr < MSR_P6_PERFCTR0 + P6_CTRS) {
		/* SDM Vol. 3B P6: only 32 bits are writable, 39:32 follow bit 31 */
		uint64_t w = v & 0xffffffffull;
		if (!sim_has_fault(s, SF_NO_SIGN_EXTEND))
			w = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
		sim_ctr_set(s, msr - MSR_P6_PERFCTR0, w);
		return HW_OK;
	}
	if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + P6_CTRS) {
		unsigned i = msr - MSR_P6_EVNTSEL0;
		s->reg[REG_EVNTSEL(i)] = v & (i == 0 ? SEL0_RW : SEL1_RW);
		return HW_OK;
	}
	if (msr == MSR_IA32_BIOS_SIGN_ID) {
		/* writing 0 then CPUID(1) latches the revision (SDM 9.11.7.1) */
		s->reg[REG_UCODE] = P6_UCODE_REV << 32;
		return HW_OK;
	}
	return HW_FAULT_GP;
}

static int rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	/* RDPMC ECX = counter index; P6 has no fast-read or fixed forms. */
	if (ecx >= P6_CTRS)
		return HW_FAULT_GP;
	*v = sim_ctr_read(s, ecx);
	return HW_OK;
}

/* L2_RQSTS (2EH): the L1's requests (data reads, RFOs, code reads,
 * software prefetches) by the state they find the line in, the unit mask's
 * MESI bits: 08H M, 04H E, 02H S (none on one processor), 01H I (a miss).
 * Intel SDM Vol. 3B, P6 family events. Faults: miss-counts-hits makes the
 * I bit count every state; umask-ignored drops the S/E/M qualification,
 * so that any of them counts every state, I included. */
static uint64_t l2_rqsts(const struct sim_cpu *s, unsigned um, const struct workload_vector *v)
{
	uint64_t st[4] = {0}; /* I, S, E, M */
	for (unsigned o = WL_L2_DATA_RD; o <= WL_L2_L1PF; o++) {
		st[0] += v->l2[o][WL_L2_MISS];
		st[2] += v->l2[o][WL_L2_HIT_ES];
		st[3] += v->l2[o][WL_L2_HIT_M];
	}
	uint64_t all = st[0] + st[1] + st[2] + st[3], n = 0;
	if ((sim_has_fault(s, SF_MISS_COUNTS_HITS) && (um & 0x01)) ||
	    (sim_has_fault(s, SF_UMASK_IGNORED) && (um & 0x0e)))
		return all;
	for (unsigned b = 0; b < 4; b++)
		n += (um >> b & 1) ? st[b] : 0;
	return n;
}

/* The P6 bus moves 64 bits a bus clock: a 32-byte line is 4 transfers,
 * each a clock with DRDY# asserted by the agent that drives the data. The
 * core runs at a multiple of the bus clock (ours: 500 MHz on 100 MHz). */
#define BUS_XFERS_PER_LINE 4
#define BUS_RATIO	   5

/* BUS_DRDY_CLOCKS (62H): unit mask 00H counts bus clocks in which this
 * processor drives DRDY# (its writes: lines written back); 20H counts
 * processor clocks in which any agent does (reads from memory too).
 * Intel SDM Vol. 3B, P6 family events. */
static uint64_t bus_drdy(unsigned um, const struct workload_vector *v)
{
	uint64_t reads = 0;
	for (unsigned o = WL_L2_DATA_RD; o <= WL_L2_L1PF; o++)
		reads += v->l2[o][WL_L2_MISS];
	if (um & 0x20)
		return (reads + v->l2_evict_m) * BUS_XFERS_PER_LINE * BUS_RATIO;
	return v->l2_evict_m * BUS_XFERS_PER_LINE;
}

/* Events per iteration of the event select sel, from the workload's
 * construction and outcome. DIV, CYCLES_DIV_BUSY and FP_ASSIST count 0:
 * no workload divides or meets an assist; RESOURCE_STALLS (timing) is not
 * modelled. */
static uint64_t event_rate(const struct sim_cpu *s, uint64_t sel, const struct workload_vector *v)
{
	unsigned um = (unsigned)(sel >> 8) & 0xff;

	switch (sel & 0xff) {
	case 0x79: /* CPU_CLK_UNHALTED */
		return sim_core_cycles(s, v);
	case 0xc0: /* INST_RETIRED */
		return v->instructions;
	case 0xc4: /* BR_INST_RETIRED */
		return sim_has_fault(s, SF_DOUBLE_COUNT) ? 2 * v->branches : v->branches;
	case 0xc5: /* BR_MISS_PRED_RETIRED */
		return sim_mispredicted(s, v);
	case 0x2e: /* L2_RQSTS */
		return l2_rqsts(s, um, v);
	case 0x62: /* BUS_DRDY_CLOCKS */
		return bus_drdy(um, v);
	case 0xc1: /* FLOPS: FADD, FMUL and FCOMI each one op (ours: FCOMI counted) */
		return v->x87;
	case 0x12: /* MUL: the workloads' only multiplies are FMULs */
		return v->x87_mul;
	case 0x10: /* FP_COMP_OPS_EXE: speculative ones too, but the x87
		    * kernel's branches are learnt: none on a wrong path */
		return v->x87;
	default:
		return 0;
	}
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t sel = s->reg[REG_EVNTSEL(i)];
	/* EVNTSEL0.EN gates both counters (SDM Vol. 3B P6 section). */
	bool en = (s->reg[REG_EVNTSEL(0)] & EVTSEL_EN) != 0;

	if (!sim_ctr_counting(s, i, true, en, true))
		return 0;
	/* The harness runs in ring 0: only OS counts. */
	if (!sim_priv_counts(s, (sel & EVTSEL_OS) != 0, (sel & EVTSEL_USR) != 0))
		return 0;
	/* CMASK, INV, E (SDM Vol. 3B 18.2.1.1, as on P6); 79H is a clock */
	return sim_filter(s, v, event_rate(s, sel, v), (sel & 0xff) == 0x79,
			  (unsigned)(sel >> 24) & 0xff, (sel & EVTSEL_INV) != 0,
			  (sel & EVTSEL_EDGE) != 0);
}

static bool overflow(struct sim_cpu *s, unsigned i)
{
	/* No status register: the overflow is only the wrapped counter; INT
	 * asks for the PMI. */
	return (s->reg[REG_EVNTSEL(i)] & EVTSEL_INT) != 0;
}

/* Realism (sim.h), at --realism-scale 1: harness paths of 12-50
 * instructions and stubs of 40 (ours: objdump of pmu/intel_p6.o), a short
 * skid on the P6 core (ours), held to the 100 branches rr has seen on its
 * successor Merom (rr src/PerfCounters.cc skid_size; ours for P6). Its
 * instruction count is high by one per interrupt taken, HW_INT_RX (Weaver
 * and McKee, IISWC 2008). SMM counted (SDM Vol. 3B 17.4.7) and no
 * MSR_SMI_COUNT before Nehalem. */
static const struct sim_silicon si_p6 = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 50,	/* ours: objdump */
    .cpi_x10 = 15,	/* ours */
    .skid_min = 2,	/* ours */
    .skid_max = 40,	/* ours */
    .skid_cap_br = 100, /* ours: rr's Merom bound */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: P6 */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
};
static const struct sim_model pentium3 = {
    .name = "pentium3",
    .doc = "SDM Vol. 3B P6 section; Linux p6.c, perfctr-watchdog.c p6_rearm (LVTPC not "
	   "auto-masked before Pentium M)",
    .driver = PMU_DRV_INTEL_P6,
    .faults = SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |
	      SIM_F(SF_NO_SIGN_EXTEND) | SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) |
	      SIM_F(SF_ENABLE_IGNORED) | SIM_F(SF_WRONG_EVENT) | SIM_F(SF_MSR_FAULT) |
	      SIM_F(SF_OVERCOUNT) | SIM_F(SF_LVT_STUCK_MASKED) | SIM_F(SF_ENABLE_IGNORED_ONE) |
	      SIM_F(SF_WIDTH_HIGH_BITS) | SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_WRONG_VECTOR) |
	      SIM_F(SF_DUPLICATE_PMI) | (SIM_EVENT_FAULTS & ~SIM_F(SF_REFCYC_CORE)) |
	      SIM_FILTER_FAULTS | SIM_APIC_FAULTS | SIM_F(SF_CYCLES_SLOW) | SIM_F(SF_WRITE_RESETS) |
	      SIM_F(SF_OVERFLOW_FREEZES),
    .fault_na =
	{
	    SIM_NA_TOPDOWN,
	    SIM_NA_FAMILY_REGS,
	    SIM_NA_NO_SMP,
	    SIM_NA_TSX_FEP(SIM_NA_NO_RTM),
	    [SF_CYCLES_REF] = SIM_NA_CYCLES_REF,
	    [SF_FAST_RDPMC_FULL] = "P6 documents RDPMC ECX 0 and 1 only, no fast read (SDM "
				   "Vol. 2B RDPMC: fast reads are the Pentium 4's)",
	    [SF_FULL_WIDTH_NO_GP] = "P6 has no full-width counter alias (IA32_A_PMCx, SDM Vol. "
				    "3B 20.2.6): its writes keep 32 bits",
	    [SF_PMI_STORM] = "P6 has no overflow flag that could stick: overflow is the "
			     "counter's top bit, rewritten by the re-arm "
			     "(Linux x86_pmu_handle_irq)",
	    [SF_NO_OVERFLOW_STATUS] = "P6 has no overflow status register; overflow "
				      "is the counter's top bit going clear "
				      "(Linux x86_pmu_handle_irq)",
	    [SF_GLOBAL_CTRL_IGNORED] = "P6 has no global control register (SDM Vol. 3B P6 section)",
	    [SF_GLOBAL_IGNORED_GP] = "P6 has no global control register (SDM Vol. 3B P6 section)",
	    [SF_ACK_IGNORED] = "P6 has no overflow status to acknowledge (SDM Vol. 3B P6 section)",
	    [SF_STATUS_NOT_STICKY] = "P6 has no overflow status register; overflow "
				     "is the counter's top bit going clear "
				     "(Linux x86_pmu_handle_irq)",
	    [SF_REFCYC_CORE] = "P6 has no reference-cycles event: CPU_CLK_UNHALTED (79H) is its "
			       "only clock (Intel SDM Vol. 3B, P6 family events)",
	},
    .reset = reset,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .lvt_automask = false,
    .si = &si_p6,
};
SIM_MODEL(pentium3);
