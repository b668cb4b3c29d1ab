/* Model "pentium3": an Intel P6 PMU (Pentium III, family 6 model 7) written
 * from x86-pmu-facts.md §1-§3 and §8. Two 40-bit counters at 0xC1/0xC2 whose
 * writes keep bits 31:0 and sign-extend bit 31 into 39:32, event selects at
 * 0x186/0x187 with EN only in EVNTSEL0 (it gates both counters), no global
 * registers and no overflow status, and a local APIC that does not mask
 * LVTPC when it delivers a PMI. */
#include "../../pmu/msr.h"
#include "sim.h"

#define P6_CTRS 2
#define P6_WIDTH 40
#define REG_EVNTSEL(i) (i)
#define REG_UCODE 8
#define P6_UCODE_REV 0x10ull
/* facts §1: bit 21 is reserved on P6 and EN (22) exists only in EVNTSEL0. */
#define SEL0_RW 0xffdfffffull
#define SEL1_RW 0xff9fffffull

static void reset(struct sim_cpu *s)
{
	/* Katmai has max leaf 2 and no 0AH (facts §0 picks P6 by family). */
	sim_vendor(s, 2, "GenuineIntel");
	/* leaf 1 EDX: FPU, VME, DE, PSE, TSC, MSR, PAE, MCE, CX8, APIC, SEP,
	 * MTRR, PGE, MCA, CMOV, PAT, PSE36, MMX, FXSR, SSE */
	sim_set_cpuid(s, 1, 0, sim_fms(6, 7, 3), 0, 0, 0x0383fbffu);
	sim_set_cpuid(s, 2, 0, 0x03020101u, 0, 0, 0x0c040843u);
	/* A Pentium III has no brand-string leaves; the simulator adds them so
	 * that its output names the model. */
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	sim_brand(s, "Simulated Intel Pentium III (P6)");
	s->n_ctr = P6_CTRS;
	for (unsigned i = 0; i < P6_CTRS; i++)
		s->width[i] = P6_WIDTH;
	s->reg[REG_UCODE] = P6_UCODE_REV << 32;
	/* Realism "firmware": counter 0 left counting cycles with EN set, the
	 * "Broken BIOS" state of Linux's check_hw_exists (facts §0). */
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
		/* facts §2: only 32 bits are writable, 39:32 follow bit 31 */
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

/* facts §3 event map; the workload vector supplies the counts. */
static uint64_t event_rate(uint64_t sel, const struct workload_vector *v)
{
	switch (sel & 0xff) {
	case 0x79: /* CPU_CLK_UNHALTED */
		return v->cycles;
	case 0xc0: /* INST_RETIRED */
		return v->instructions;
	case 0xc4: /* BR_INST_RETIRED */
		return v->branches;
	case 0xc5: /* BR_MISS_PRED_RETIRED */
		return v->branch_misses;
	default: /* L2_RQSTS (0x2E) and the rest are not modelled: 0 */
		return 0;
	}
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t sel = s->reg[REG_EVNTSEL(i)];
	/* EVNTSEL0.EN gates both counters (facts §3). */
	bool en = (s->reg[REG_EVNTSEL(0)] & EVTSEL_EN) != 0;

	if (!sim_ctr_counting(s, i, true, en, true))
		return 0;
	/* The harness runs in ring 0: only OS counts. */
	if (!(sel & EVTSEL_OS))
		return 0;
	/* CMASK, INV, E (facts §1) */
	return sim_filter(event_rate(sel, v), v->cycles, (unsigned)(sel >> 24) & 0xff,
			  (sel & EVTSEL_INV) != 0, (sel & EVTSEL_EDGE) != 0);
}

static bool overflow(struct sim_cpu *s, unsigned i)
{
	/* No status register: the overflow is only the wrapped counter; INT
	 * asks for the PMI. */
	return (s->reg[REG_EVNTSEL(i)] & EVTSEL_INT) != 0;
}

/* Realism (sim.h): harness paths of 12-50 instructions (objdump of
 * pmu/intel_p6.o), a short skid on the P6 core (facts §8), SMM counted
 * (SDM Vol. 3B 17.4.7) and no MSR_SMI_COUNT before Nehalem. */
static const struct sim_silicon si_p6 = {
    .insn_min = 12, .insn_max = 50, .cpi_x10 = 15, .skid_min = 2, .skid_max = 40,
    .entry_insn = 40, .smm_counts = true,
};
static const struct sim_model pentium3 = {
    .name = "pentium3",
    .doc = "x86-pmu-facts.md §1-§3 (P6), §8 (LVTPC not auto-masked on P6 before Pentium M)",
    .driver = PMU_DRV_INTEL_P6,
    .faults = (1u << SF_STUCK_COUNTER) | (1u << SF_NARROW_COUNTER) | (1u << SF_NO_SIGN_EXTEND) |
	      (1u << SF_LOST_PMI) | (1u << SF_SPURIOUS_PMI) | (1u << SF_ENABLE_IGNORED) |
	      (1u << SF_WRONG_EVENT) | (1u << SF_MSR_FAULT) | (1u << SF_OVERCOUNT) |
	      (1u << SF_LVT_STUCK_MASKED) | (1u << SF_ENABLE_IGNORED_ONE) |
	      (1u << SF_WIDTH_HIGH_BITS) | (1u << SF_WRITE_DROPPED) | (1u << SF_WRONG_VECTOR) |
	      (1u << SF_DUPLICATE_PMI),
    .fault_na =
	{
	    [SF_PMI_STORM] = "P6 has no overflow flag that could stick: overflow is the "
			     "counter's top bit, rewritten by the re-arm (facts §9)",
	    [SF_NO_OVERFLOW_STATUS] = "P6 has no overflow status register; overflow "
				      "is the counter's top bit going clear (facts §9)",
	    [SF_GLOBAL_CTRL_IGNORED] = "P6 has no global control register (facts §3)",
	    [SF_GLOBAL_IGNORED_GP] = "P6 has no global control register (facts §3)",
	    [SF_ACK_IGNORED] = "P6 has no overflow status to acknowledge (facts §9)",
	    [SF_STATUS_NOT_STICKY] = "P6 has no overflow status register; overflow "
				     "is the counter's top bit going clear (facts §9)",
	    SIM_NA_EVENT(SIM_NA_NO_RULES " (events/intel_p6.c)"),
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
