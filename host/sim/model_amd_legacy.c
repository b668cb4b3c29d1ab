/* Models "athlon" (K7) and "opteron" (K8): the AMD legacy PMU. Four 48-bit
 * counters PerfCtr0-3 at C001_0004h-7h with event selects PerfEvtSel0-3 at
 * C001_0000h-3h (K8 BKDG §10.1-10.2; Athlon x86 Code Optimization guide,
 * PerfEvtSel fields). Per-counter EN (bit 22) and INT (bit 20); no global
 * control, no overflow status: overflow is a carry out of bit 47, and the
 * local APIC does not mask LVTPC on delivery (Linux amd_pmu_v2_handle_irq's comment). */
#include "../../pmu/msr.h"
#include "amd_sim.h"
#include "sim.h"
#include "uarch.h"

#define N_CTR	  4
#define REG_SEL	  0 /* reg[0..3]: PerfEvtSel0-3 */
#define REG_PATCH 8 /* PATCH_LEVEL (8Bh) value; 0 = the MSR does not exist */

/* The micro-architectures (host/sim/uarch.h), published in 8000_0005h and
 * 8000_0006h. K8: 64 KiB 2-way L1D and L1I, a 1 MiB 16-way L2 that is an
 * exclusive victim cache, no L3, 64-byte lines; L1 DTLB 32 entries fully
 * associative, L2 DTLB 512 entries 4-way (K8 BKDG #26094 "CPUID" and AMD
 * Software Optimization Guide #25112 "cache architecture"); 3-cycle L1
 * load-to-use, three macro-ops dispatched a cycle, a 12-entry return stack
 * (#25112); a misprediction costs about 10 cycles (Agner Fog,
 * microarchitecture manual, K8). L2 12 and memory 150 cycles are the order
 * of published measurements; the values, the page walk, the misses in
 * flight and the costs of the serialising kinds are ours. No L2 streamer is
 * modelled. */
/* What K7 and K8 share: the 64 KiB 2-way L1s with 64-byte lines in front
 * of an exclusive victim L2, the L1 load-to-use, the dispatch width, the
 * return stack and the costs above. */
#define K7_K8_CORE                                                                                 \
	.amd = true, .line = 64, .l1d = {64 * 1024, 2}, .l1i = {64 * 1024, 2},                     \
	.l2_policy = UA_L2_EXCLUSIVE, .dtlb1 = {32, 32}, .lat_l1 = 3, .lat_mem = 150,              \
	.lat_walk = 20, .mlp = 8, .width = 3, .ras = 12, .mispredict = 10, .cpuid_cyc = 60,        \
	.lock_cyc = 20, .lock_spec_cyc = 4, .seg_cyc = 10, .far_cyc = 30, .clflush_cyc = 50,       \
	.x87_cyc = 4

/* clang-format off */
static const struct uarch_cfg ua_k8 = {
    K7_K8_CORE,
    .name = "k8",
    .l2 = {1024 * 1024, 16},
    .dtlb2 = {512, 4},
    .itlb1 = {32, 32},
    .itlb2 = {512, 4},
    .lat_l2 = 12,
};
/* clang-format on */

/* K7 Athlon (Thunderbird): the same L1s, a 256 KiB 16-way exclusive L2;
 * L1 DTLB 32 entries fully associative, L2 DTLB 256 entries 4-way, a
 * 12-entry return stack (Athlon x86 Code Optimization Guide #22007,
 * "cache and TLB", "branch prediction"); latencies ours, of K8's order. */
/* clang-format off */
static const struct uarch_cfg ua_k7 = {
    K7_K8_CORE,
    .name = "k7",
    .l2 = {256 * 1024, 16},
    .dtlb2 = {256, 4},
    .itlb1 = {16, 16},
    .itlb2 = {256, 4},
    .lat_l2 = 11,
};
/* clang-format on */

static void reset_common(struct sim_cpu *s)
{
	s->n_ctr = N_CTR;
	for (unsigned i = 0; i < N_CTR; i++) {
		s->width[i] = 48; /* K8 BKDG §10.1: four 48-bit counters */
		s->ctr[i] = 0;
		s->reg[REG_SEL + i] = 0;
	}
	/* Realism "firmware": counter 0 left counting cycles (76h) with EN set,
	 * the "Broken BIOS" state of Linux's check_hw_exists (arch/x86/events/core.c). */
	if (sim_real(s, SE_FIRMWARE))
		s->reg[REG_SEL] = EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | 0x76;
}

/* K7 Athlon (Thunderbird): family 6 model 4. CPUID.1 EDX: FPU, TSC (4),
 * MSR (5), APIC (9), CMOV (15), MMX (23). No 8000_0001h ECX[23]. */
static void reset_athlon(struct sim_cpu *s)
{
	uint32_t sig = sim_fms(6, 4, 2);
	sim_vendor(s, 1, "AuthenticAMD");
	sim_set_cpuid(s, 1, 0, sig, 0, 0, 0x0183fbffu);
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000006u, 0, 0, 0);
	sim_set_cpuid(s, 0x80000001u, 0, sig, 0, 0, 0xc1c3fbffu);
	sim_brand(s, "AMD Athlon(tm) Processor");
	uarch_setup(s, &ua_k7);
	reset_common(s);
}

/* K8 Opteron (SledgeHammer): family 0Fh model 5, extended family 0. Long
 * mode in 8000_0001h EDX[29]; ECX[23] clear. */
static void reset_opteron(struct sim_cpu *s)
{
	uint32_t sig = sim_fms(0xf, 5, 1);
	sim_vendor(s, 1, "AuthenticAMD");
	sim_set_cpuid(s, 1, 0, sig, 0x00000800u, 0, 0x078bfbffu);
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000018u, 0, 0, 0);
	sim_set_cpuid(s, 0x80000001u, 0, sig, 0, 0, 0xe1d3fbffu);
	sim_brand(s, "AMD Opteron(tm) Processor 248");
	uarch_setup(s, &ua_k8);
	reset_common(s);
	s->reg[REG_PATCH] = 0x00000041u;
}

/* The msr-fault injection: counter 1's event select and counter. */
static bool faulted(const struct sim_cpu *s, uint32_t msr)
{
	return sim_has_fault(s, SF_MSR_FAULT) &&
	       (msr == MSR_K7_EVNTSEL0 + 1 || msr == MSR_K7_PERFCTR0 + 1);
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (faulted(s, msr))
		return HW_FAULT_GP;
	if (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + N_CTR) {
		*v = s->reg[REG_SEL + msr - MSR_K7_EVNTSEL0];
		return HW_OK;
	}
	if (msr >= MSR_K7_PERFCTR0 && msr < MSR_K7_PERFCTR0 + N_CTR) {
		*v = sim_ctr_read(s, msr - MSR_K7_PERFCTR0);
		return HW_OK;
	}
	/* PATCH_LEVEL (8Bh) exists from K8 on; the K7 model has none. */
	if (msr == MSR_IA32_BIOS_SIGN_ID && s->reg[REG_PATCH]) {
		*v = s->reg[REG_PATCH];
		return HW_OK;
	}
	return HW_FAULT_GP;
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (faulted(s, msr))
		return HW_FAULT_GP;
	if (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + N_CTR) {
		/* Model assumption: reserved bits (21, 63:32) read as zero and
		 * ignore writes; the documents do not say whether they #GP. */
		s->reg[REG_SEL + msr - MSR_K7_EVNTSEL0] = v & AMD_SEL_MASK_K7K8;
		return HW_OK;
	}
	if (msr >= MSR_K7_PERFCTR0 && msr < MSR_K7_PERFCTR0 + N_CTR) {
		/* Writes keep all 48 bits; 63:48 are RAZ (K8 BKDG §10.1). */
		sim_ctr_set(s, msr - MSR_K7_PERFCTR0, v);
		return HW_OK;
	}
	return HW_FAULT_GP;
}

/* RDPMC ECX = counter number (K8 BKDG §10.1). */
static int rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	if (ecx >= N_CTR)
		return HW_FAULT_GP;
	*v = sim_ctr_read(s, ecx);
	return HW_OK;
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t sel = s->reg[REG_SEL + i];
	/* CNT_MASK 4-255 are reserved (K8 BKDG §10.2), so what the silicon
	 * does with them is undefined: with firmware realism (the platform's
	 * quirks) the model compares against the low two bits only, so that
	 * 255 acts as 3 and 4 as no mask at all. */
	if (sim_real(s, SE_FIRMWARE) && (sel >> EVTSEL_CMASK_SHIFT & 0xff) > 3)
		sel &= ~(0xfcull << EVTSEL_CMASK_SHIFT);
	/* No global enable on the legacy PMU: only EN gates counting. */
	return amd_sim_rate(s, sel, sim_ctr_counting(s, i, true, (sel & EVTSEL_EN) != 0, true), v);
}

/* No status register to record in; INT asks the APIC for an interrupt. */
static bool overflow(struct sim_cpu *s, unsigned i)
{
	return (s->reg[REG_SEL + i] & EVTSEL_INT) != 0;
}

#define LEGACY_FAULTS                                                                              \
	(SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |                \
	 SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) | SIM_F(SF_ENABLE_IGNORED) |                  \
	 SIM_F(SF_WRONG_EVENT) | SIM_F(SF_MSR_FAULT) | SIM_F(SF_OVERCOUNT) |                       \
	 SIM_F(SF_LVT_STUCK_MASKED) | SIM_F(SF_ENABLE_IGNORED_ONE) | SIM_F(SF_WIDTH_HIGH_BITS) |   \
	 SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_WRONG_VECTOR) | SIM_FILTER_FAULTS | SIM_APIC_FAULTS |  \
	 SIM_F(SF_CYCLES_SLOW) | AMD_WRITE_FAULTS)

#define LEGACY_NA                                                                                   \
	AMD_NA_COUNTER_ACCESS, SIM_NA_TSX_AMD,                                                      \
	    [SF_NO_SIGN_EXTEND] = "AMD counter writes are full 48-bit width (APM §13.2); nothing " \
				  "sign-extends",                                                   \
	    [SF_NO_OVERFLOW_STATUS] =                                                               \
		"the legacy PMU has no overflow status register (APM §13.2)",                       \
	    [SF_GLOBAL_CTRL_IGNORED] = "the legacy PMU has no global control (APM §13.2)",          \
	    [SF_GLOBAL_IGNORED_GP] = "the legacy PMU has no global control (APM §13.2)",            \
	    [SF_ACK_IGNORED] = "the legacy PMU has no status register to acknowledge (APM §13.2)",  \
	    [SF_STATUS_NOT_STICKY] = "the legacy PMU has no overflow status: overflow is bit 47 "   \
				     "going clear (Linux x86_pmu_handle_irq)",                      \
	    [SF_PMI_STORM] = "the legacy PMU has no overflow flag that could stick: overflow is "   \
			     "bit 47, rewritten by the re-arm (Linux x86_pmu_handle_irq)",          \
	    [SF_DUPLICATE_PMI] =                                                                    \
		"AMD documents a late PMI for an overflow an earlier PMI already "                  \
		"handled (NMI latency, Linux amd_pmu_adjust_nmi_window): "                          \
		"reported, not failed, so a duplicate cannot be told from it",                      \
	    [SF_ALIAS_BROKEN] =                                                                     \
		"no core extension (CPUID 8000_0001h ECX[23] clear): C001_0000h-7h "                \
		"are the only counters, nothing aliases them",                                      \
	    SIM_NA_SPFLT, [SF_CYCLES_REF] = SIM_NA_CYCLES_REF

/* Realism (sim.h), at --realism-scale 1: harness paths of 20-90
 * instructions and stubs of 45 (ours: objdump of pmu/amd.o, plus AMD's
 * longer WRMSR microcode). The PMI comes hundreds to thousands of
 * instructions after the overflow (ours; Linux amd/core.c
 * amd_pmu_wait_on_overflow waits up to 50 us for it); rr does not run on
 * K7 or K8, so the branch bound is ours, its Zen value, the largest it
 * gives an x86 core. An interrupt counts as one instruction and one branch
 * (K8 BKDG events C0h and C2h, the Athlon guide's C0h and C2h; Weaver and
 * McKee, IISWC 2008). Counts vary by a few events between identical runs
 * (K8 BKDG §10.1, no bound given; the sizes ours, inside kvm-unit-tests
 * x86/pmu.c's AMD overflow bound of 2 below to 5 above). SMM is counted
 * (ours). */
static const struct sim_silicon si_k7 = {
    .insn_min = 20,	  /* ours: objdump */
    .insn_max = 90,	  /* ours: objdump */
    .cpi_x10 = 15,	  /* ours */
    .skid_min = 200,	  /* ours */
    .skid_max = 2000,	  /* ours */
    .skid_cap_br = 10000, /* ours: rr's largest x86 bound */
    .entry_insn = 45,	  /* ours: the stubs */
    .irq_insn = 1,	  /* Athlon guide C0h */
    .irq_br = 1,	  /* Athlon guide C2h */
    .inexact_max = 4,	  /* ours, within kvm-unit-tests' +5 */
    .inexact_pm = 300,	  /* ours */
    .smm_counts = true,	  /* ours */
};
static const struct sim_silicon si_k8 = {
    .insn_min = 20,	  /* ours: objdump */
    .insn_max = 90,	  /* ours: objdump */
    .cpi_x10 = 12,	  /* ours */
    .skid_min = 300,	  /* ours */
    .skid_max = 3000,	  /* ours */
    .skid_cap_br = 10000, /* ours: rr's largest x86 bound */
    .entry_insn = 45,	  /* ours: the stubs */
    .irq_insn = 1,	  /* K8 BKDG C0h */
    .irq_br = 1,	  /* K8 BKDG C2h */
    .inexact_max = 4,	  /* ours, within kvm-unit-tests' +5 */
    .inexact_pm = 300,	  /* ours */
    .smm_counts = true,	  /* ours */
};
static const struct sim_model athlon = {
    .name = "athlon",
    .doc = "AMD Athlon x86 Code Optimization guide (22007E) PerfEvtSel; Linux amd/core.c",
    .driver = PMU_DRV_AMD_LEGACY,
    .faults = LEGACY_FAULTS | (SIM_EVENT_FAULTS & ~SIM_F(SF_REFCYC_CORE) & ~SIM_F(SF_DOUBLE_COUNT)),
    .fault_na = {SIM_NA_TOPDOWN, LEGACY_NA, SIM_NA_NO_SMP,
		 [SF_REFCYC_CORE] = "K7 has no reference-cycles event, only CPU clocks (76h, "
				    "#22007 Table 11)",
		 [SF_DOUBLE_COUNT] = "the double count is of near returns (C8h), an event K7 does "
				     "not have (#22007 Table 11 ends at C7h and CDh-CFh)"},
    .reset = reset_athlon,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .lvt_automask = false,
    .si = &si_k7,
};
SIM_MODEL(athlon);

static const struct sim_model opteron = {
    .name = "opteron",
    .doc = "AMD K8 BKDG #26094 §10.1-10.2 (PerfCtr, PerfEvtSel); Linux amd/core.c",
    .driver = PMU_DRV_AMD_LEGACY,
    .faults = LEGACY_FAULTS | (SIM_EVENT_FAULTS & ~SIM_F(SF_REFCYC_CORE)),
    .fault_na = {SIM_NA_TOPDOWN, LEGACY_NA, SIM_NA_NO_SMP,
		 [SF_REFCYC_CORE] = "K8 has no reference-cycles event, only CPU clocks (76h, BKDG "
				    "#26094 sec. 10.2)"},
    .reset = reset_opteron,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .lvt_automask = false,
    .si = &si_k8,
};
SIM_MODEL(opteron);
