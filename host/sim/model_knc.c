/* Model "knc": an Intel Xeon Phi coprocessor core (Knights Corner,
 * GenuineIntel family 0xB model 1) written from the KNC PMU document
 * (327357-001JA) §1.4.1-§1.4.3 and facts §6. Two 40-bit counters (0x20/0x21,
 * read and written in full, §1.4.3.2), 32-bit event selects (0x28/0x29, bit
 * 19 reserved, table 1-5), PERF_SPFLT_CONTROL (0x2C, table 1-7), a sticky
 * read-only GLOBAL_STATUS (0x2D, §1.4.3.5), a write-only GLOBAL_OVF_CTRL that
 * clears it (0x2E, §1.4.3.6) and GLOBAL_CTRL (0x2F) AND-ed with EVNTSEL.EN
 * (§1.4.1, §1.4.3.7). The PMU reaches the APIC through a 1-bit line: a PMI
 * is requested only when (status & counters with INT) goes from 0 to 1
 * (§1.4.3.9); the APIC masks LVTPC on delivery (the SDM text quoted there).
 *
 * Not modelled: CMASK/INV/EDGE filters, the thread-count mode (bit 21), and
 * the other three hardware threads. */
#include "model_knc.h"
#include "../../pmu/msr.h"
#include "sim.h"

#define NCTR 2
#define CTR_BITS 0x3ull
#define EVTSEL_RW 0xfff7ffffull		   /* 32 bits, bit 19 reserved */
#define SPFLT_RW ((1ull << 63) | CTR_BITS) /* USER_PREF and per-counter enables */
#define SPFLT_USER_PREF (1ull << 63)

static void reset(struct sim_cpu *s)
{
	/* Max leaf 4: no leaf 0AH, so no architectural perfmon (facts §0). */
	sim_vendor(s, 4, "GenuineIntel");
	sim_set_cpuid(s, 1, 0, sim_fms(0xb, 1, 1), 0, 0, (1u << 4) | (1u << 5) | (1u << 9));
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	sim_brand(s, "Simulated Intel(R) Xeon Phi(TM) coprocessor (Knights Corner)");
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

/* Events per workload iteration, KNC table 1-6 (P54C events, UMASK 0). */
static uint64_t decode(unsigned code, unsigned umask, const struct workload_vector *v)
{
	if (umask != 0)
		return 0;
	switch (code) {
	case 0x00: /* DATA_READ */
		return v->loads;
	case 0x01: /* DATA_WRITE */
		return v->stores;
	case 0x12: /* BRANCHES */
		return v->branches;
	case 0x16: /* INSTRUCTIONS_EXECUTED */
		return v->instructions;
	case 0x28: /* DATA_READ_OR_WRITE */
		return v->loads + v->stores;
	case 0x2a: /* CPU_CLK_UNHALTED */
		return v->cycles;
	case 0x2b: /* BRANCHES_MISPREDICTED */
		return v->branch_misses;
	default: /* an unknown code counts nothing and raises no fault (table 1-5) */
		return 0;
	}
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
	/* SPFLT-controlled counters follow USER_PREF (table 1-7). */
	if ((spflt >> i & 1) && !(spflt & SPFLT_USER_PREF))
		return 0;
	if (!(sel & EVTSEL_OS)) /* the harness runs in ring 0 */
		return 0;
	/* CMASK, INV and E (table 1-5 bits 31:24, 23, 18) */
	return sim_filter(decode((unsigned)sel & 0xff, (unsigned)(sel >> 8) & 0xff, v), v->cycles,
			  (unsigned)(sel >> 24) & 0xff, (sel & EVTSEL_INV) != 0, (sel & EVTSEL_EDGE) != 0);
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

/* Realism (sim.h): harness paths of 12-60 instructions (objdump of
 * pmu/intel_knc.o: start 73, stop 56); the in-order core stops within a
 * couple of hundred instructions. Its 1-bit PMI line (KNC §1.4.3.9) is
 * modelled by overflow() itself, so no late-ack effect here. */
static const struct sim_silicon si_knc = {
    .insn_min = 12, .insn_max = 60, .cpi_x10 = 20, .skid_min = 20, .skid_max = 200,
    .entry_insn = 40, .smm_counts = true,
};
static const struct sim_model knc = {
    .name = "knc",
    .doc = "Intel Xeon Phi (Knights Corner) PMU 327357-001JA §1.4.1-§1.4.4; "
	   "x86-pmu-facts.md §6, §9 KNC",
    .driver = PMU_DRV_INTEL_KNC,
    .faults = (1u << SF_STUCK_COUNTER) | (1u << SF_NARROW_COUNTER) | (1u << SF_NO_OVERFLOW_STATUS) |
	      (1u << SF_LOST_PMI) | (1u << SF_SPURIOUS_PMI) | (1u << SF_ENABLE_IGNORED) |
	      (1u << SF_GLOBAL_CTRL_IGNORED) | (1u << SF_WRONG_EVENT) | (1u << SF_MSR_FAULT) |
	      (1u << SF_OVERCOUNT) | (1u << SF_LVT_STUCK_MASKED) | (1u << SF_ACK_IGNORED) |
	      (1u << SF_ENABLE_IGNORED_ONE) | (1u << SF_WIDTH_HIGH_BITS) | (1u << SF_WRITE_DROPPED) |
	      (1u << SF_STATUS_NOT_STICKY) | (1u << SF_PMI_STORM) | (1u << SF_WRONG_VECTOR) |
	      (1u << SF_DUPLICATE_PMI),
    .fault_na =
	{
	    [SF_NO_SIGN_EXTEND] = "KNC counter writes set all 40 bits (KNC §1.4.3.2); "
				  "nothing sign-extends",
	    [SF_GLOBAL_IGNORED_GP] = "KNC has no fixed counters (KNC §1.4.1): both "
				     "counters ignoring GLOBAL_CTRL is global-ctrl-ignored",
	    SIM_NA_EVENT(SIM_NA_NO_RULES " (events/intel_knc.c)"),
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
