/* Models "bulldozer" (Fam15h) and "zen4" (Fam19h model 61h): the AMD core
 * performance counter extension (AMD APM Vol. 2 #24593 §13.2). Six 48-bit counters with
 * PERF_CTL i at C001_0200h+2i and PERF_CTR i at C001_0201h+2i. zen4 adds
 * PerfMonV2 (8000_0022h EAX[0], EBX[3:0] = 6 counters): GlobalStatus
 * C000_0300h (read-only), GlobalCtl C000_0301h, GlobalStatusClr C000_0302h
 * (write 1 to clear). No LVTPC auto-mask on AMD (Linux amd_pmu_v2_handle_irq).
 *
 * The legacy MSRs C001_0000h-7h alias PERF_CTL0-3 / PERF_CTR0-3: one
 * register behind both addresses (AMD APM Vol. 2 §13.2; BKDG for Fam15h
 * #42301 §2.7; Linux arch/x86/kvm/svm/pmu.c get_gp_pmc_amd maps both to one
 * counter). Under alias-broken they are four selects and four counters of
 * their own that nothing counts into. */
#include "../../pmu/msr.h"
#include "amd_sim.h"
#include "sim.h"

#define N_CTR		 6
#define REG_SEL		 0  /* reg[0..5]: PERF_CTL0-5 */
#define REG_GLOBAL_CTL	 8  /* zen4 GlobalCtl */
#define REG_GLOBAL_STS	 9  /* zen4 GlobalStatus */
#define REG_V2		 10 /* set at reset on models with PerfMonV2 */
#define REG_SPLIT	 16 /* reg[16..23]: alias-broken's C001_0000h-7h */
#define ECX_PERFCTR_CORE (1u << 23)
/* CPUID Fn0000_0006: EAX[2] ARAT; ECX[0] EffFreq, MPERF and APERF at
 * E7h/E8h (BKDG Fam15h, PPR Fam19h; sim_aperfmperf sets it) */
#define AMD_LEAF6_EAX (1u << 2)

static bool has_v2(const struct sim_cpu *s)
{
	return s->reg[REG_V2] != 0;
}

static void reset_common(struct sim_cpu *s)
{
	s->n_ctr = N_CTR;
	for (unsigned i = 0; i < N_CTR; i++) {
		s->width[i] = 48; /* APM Vol. 2 §13.2 */
		s->ctr[i] = 0;
		s->reg[REG_SEL + i] = 0;
	}
	/* GlobalCtl resets to 0 in the model: Linux writes it itself (facts
	 * §7, CPU online), so the driver must enable counters there. */
	s->reg[REG_GLOBAL_CTL] = 0;
	s->reg[REG_GLOBAL_STS] = 0;
}

/* Realism "firmware": counter 0 left counting cycles (76h) with EN set, and
 * its GlobalCtl bit with PerfMonV2: the "Broken BIOS" state of Linux's
 * check_hw_exists (Linux arch/x86/events/core.c). */
static void firmware(struct sim_cpu *s)
{
	if (!sim_real(s, SE_FIRMWARE))
		return;
	s->reg[REG_SEL] = EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | 0x76;
	if (has_v2(s))
		s->reg[REG_GLOBAL_CTL] |= 1;
}

/* Fam15h (Orochi): base family 0Fh + extended family 06h, model 01h. The
 * maximum extended leaf 8000_001Eh is below 8000_0022h: no PerfMonV2. */
static void reset_bulldozer(struct sim_cpu *s)
{
	uint32_t sig = sim_fms(0x15, 0x01, 2);
	sim_vendor(s, 0xd, "AuthenticAMD");
	sim_set_cpuid(s, 1, 0, sig, 0x00080800u, 0x1e98220bu, 0x178bfbffu);
	sim_set_cpuid(s, 0x80000000u, 0, 0x8000001eu, 0, 0, 0);
	sim_set_cpuid(s, 0x80000001u, 0, sig, 0x10000000u, 0x01c9bfffu | ECX_PERFCTR_CORE,
		      0x2fd3fbffu);
	sim_brand(s, "AMD Opteron(TM) Processor 6272");
	sim_aperfmperf(s, AMD_LEAF6_EAX);
	reset_common(s);
	firmware(s);
}

/* Zen 4 (Raphael): family 0Fh + 0Ah = 19h, model 61h; CPUID.1 ECX[21]
 * x2APIC, and the firmware left the APIC in x2APIC mode. */
static void reset_zen4(struct sim_cpu *s)
{
	uint32_t sig = sim_fms(0x19, 0x61, 2);
	sim_vendor(s, 0x10, "AuthenticAMD");
	sim_set_cpuid(s, 1, 0, sig, 0x00200800u, 0x7ef8320bu | (1u << 21), 0x178bfbffu);
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000028u, 0, 0, 0);
	sim_set_cpuid(s, 0x80000001u, 0, sig, 0x40000000u, 0x75c237ffu | ECX_PERFCTR_CORE,
		      0x2fd3fbffu);
	/* 8000_0022h: EAX[0] PerfMonV2; EBX[3:0] = 6 core PMCs (APM Vol. 3 E.4.23). */
	sim_set_cpuid(s, 0x80000022u, 0, 0x1, 0x6, 0, 0);
	sim_brand(s, "AMD Ryzen 9 7950X 16-Core Processor");
	sim_aperfmperf(s, AMD_LEAF6_EAX);
	s->apic_base |= APIC_BASE_X2APIC;
	reset_common(s);
	s->reg[REG_V2] = 1;
	firmware(s);
}

/* alias-broken: C001_0000h-7h as registers of their own, with the
 * widths of the ones they should be; true when msr is one of them. */
static bool split(struct sim_cpu *s, uint32_t msr, uint64_t *v, bool write)
{
	if (!sim_has_fault(s, SF_ALIAS_BROKEN) || msr < MSR_K7_EVNTSEL0 ||
	    msr >= MSR_K7_EVNTSEL0 + 8)
		return false;
	uint64_t *r = &s->reg[REG_SPLIT + (msr - MSR_K7_EVNTSEL0)];
	if (write)
		*r = *v & (msr < MSR_K7_PERFCTR0 ? AMD_SEL_MASK_F10 : (1ull << 48) - 1);
	else
		*v = *r;
	return true;
}

/* Maps an MSR to a counter's CTL (*ctl = true) or CTR; -1 if neither. */
static int decode(uint32_t msr, bool *ctl)
{
	if (msr >= MSR_F15H_PERF_CTL0 && msr < MSR_F15H_PERF_CTL0 + 2 * N_CTR) {
		*ctl = !((msr - MSR_F15H_PERF_CTL0) & 1);
		return (int)((msr - MSR_F15H_PERF_CTL0) / 2);
	}
	/* The legacy aliases of counters 0-3 (see above). */
	if (msr >= MSR_K7_EVNTSEL0 && msr < MSR_K7_EVNTSEL0 + 4) {
		*ctl = true;
		return (int)(msr - MSR_K7_EVNTSEL0);
	}
	if (msr >= MSR_K7_PERFCTR0 && msr < MSR_K7_PERFCTR0 + 4) {
		*ctl = false;
		return (int)(msr - MSR_K7_PERFCTR0);
	}
	return -1;
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	bool ctl;
	int i = decode(msr, &ctl);

	if (split(s, msr, v, false))
		return HW_OK;
	if (i >= 0) {
		if (i == 1 && sim_has_fault(s, SF_MSR_FAULT))
			return HW_FAULT_GP;
		*v = ctl ? s->reg[REG_SEL + (unsigned)i] : sim_ctr_read(s, (unsigned)i);
		return HW_OK;
	}
	if (msr == MSR_IA32_BIOS_SIGN_ID) { /* PATCH_LEVEL */
		*v = has_v2(s) ? 0x0a601203u : 0x06000852u;
		return HW_OK;
	}
	if (!has_v2(s))
		return HW_FAULT_GP;
	switch (msr) {
	case MSR_AMD_GLOBAL_STATUS:
		*v = s->reg[REG_GLOBAL_STS];
		if (sim_has_fault(s, SF_STATUS_NOT_STICKY))
			s->reg[REG_GLOBAL_STS] = 0; /* the read clears it */
		return HW_OK;
	case MSR_AMD_GLOBAL_CTL:
		*v = s->reg[REG_GLOBAL_CTL];
		return HW_OK;
	case MSR_AMD_GLOBAL_STATUS_CLR:
	case MSR_AMD_GLOBAL_STATUS_SET:
		*v = 0; /* model assumption: the clear and set registers read as zero */
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	bool ctl;
	int i = decode(msr, &ctl);

	if (split(s, msr, &v, true))
		return HW_OK;
	if (i >= 0) {
		if (i == 1 && sim_has_fault(s, SF_MSR_FAULT))
			return HW_FAULT_GP;
		if (ctl)
			s->reg[REG_SEL + (unsigned)i] = v & AMD_SEL_MASK_F10;
		else
			sim_ctr_set(s, (unsigned)i, v); /* 48 bits kept (APM Vol. 2 §13.2) */
		return HW_OK;
	}
	if (!has_v2(s))
		return HW_FAULT_GP;
	switch (msr) {
	case MSR_AMD_GLOBAL_STATUS:
		return HW_FAULT_GP; /* read-only (APM Vol. 2 §13.2) */
	case MSR_AMD_GLOBAL_CTL:
		s->reg[REG_GLOBAL_CTL] = v & ((1ull << N_CTR) - 1);
		return HW_OK;
	case MSR_AMD_GLOBAL_STATUS_CLR:
		for (unsigned k = 0; k < N_CTR; k++)
			if (sim_flag_stuck(s, k)) /* pmi-storm: this bit stays */
				v &= ~(1ull << k);
		if (!sim_has_fault(s, SF_ACK_IGNORED))
			s->reg[REG_GLOBAL_STS] &= ~v;
		return HW_OK;
	case MSR_AMD_GLOBAL_STATUS_SET: /* the counters' bits and LBR_FRZ (58) */
		s->reg[REG_GLOBAL_STS] |= v & (((1ull << N_CTR) - 1) | GLOBAL_STATUS_LBR_FRZ);
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

/* RDPMC ECX 0-5 reads the core counters; 6-9 the northbridge / data fabric
 * counters (8000_0001h ECX[24], both models) and 10-15 the L3 counters
 * (ECX[28], zen4), AMD APM Vol. 3 RDPMC. Those count traffic outside the
 * harness: under realism "firmware" they read a drawn value; an ideal model
 * has the core counters only. */
static int rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	uint32_t end = !sim_real(s, SE_FIRMWARE) ? N_CTR : has_v2(s) ? 16 : 10;

	if (ecx >= end)
		return HW_FAULT_GP;
	*v = ecx < N_CTR ? sim_ctr_read(s, ecx) : sim_rand(s, 0, (1ull << 48) - 1);
	return HW_OK;
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	uint64_t sel = s->reg[REG_SEL + i];
	/* Without PerfMonV2 there is no global enable; with it a counter
	 * counts only while its GlobalCtl bit is set as well. */
	bool global = !has_v2(s) || (s->reg[REG_GLOBAL_CTL] >> i) & 1;
	return amd_sim_rate(s, sel, sim_ctr_counting(s, i, true, (sel & EVTSEL_EN) != 0, global),
			    v);
}

static bool overflow(struct sim_cpu *s, unsigned i)
{
	if (has_v2(s) && !sim_has_fault(s, SF_NO_OVERFLOW_STATUS))
		s->reg[REG_GLOBAL_STS] |= 1ull << i;
	return (s->reg[REG_SEL + i] & EVTSEL_INT) != 0;
}

#define COMMON_FAULTS                                                                              \
	(SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |                \
	 SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) | SIM_F(SF_ENABLE_IGNORED) |                  \
	 SIM_F(SF_WRONG_EVENT) | SIM_F(SF_MSR_FAULT) | SIM_F(SF_OVERCOUNT) |                       \
	 SIM_F(SF_LVT_STUCK_MASKED) | SIM_F(SF_ENABLE_IGNORED_ONE) | SIM_F(SF_WIDTH_HIGH_BITS) |   \
	 SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_WRONG_VECTOR) | SIM_FILTER_FAULTS | SIM_APIC_FAULTS |  \
	 SIM_F(SF_CYCLES_SLOW) | SIM_F(SF_ALIAS_BROKEN) | AMD_WRITE_FAULTS)

/* PerfMonV2 flags still set: the PMU keeps its request up (pmi-storm). */
static uint64_t pending(struct sim_cpu *s)
{
	return has_v2(s) ? s->reg[REG_GLOBAL_STS] : 0;
}

#define NA_SIGN_EXTEND                                                                             \
	[SF_NO_SIGN_EXTEND] = "AMD counter writes are full 48-bit width (APM §13.2); nothing "    \
			      "sign-extends",                                                      \
	[SF_DUPLICATE_PMI] = "AMD documents a late PMI for an overflow an earlier PMI already "    \
			     "handled (NMI latency, Linux amd_pmu_adjust_nmi_window): "            \
			     "reported, not failed, so a duplicate cannot be told from it",        \
	SIM_NA_EVENT(SIM_NA_NO_RULES " (events/amd_zen.c)"), AMD_NA_COUNTER_ACCESS

/* Realism (sim.h), at --realism-scale 1: harness paths of 20-90
 * instructions and stubs of 45 (ours: objdump of pmu/amd.o). The PMI comes
 * hundreds of instructions after the overflow (ours; Linux amd/core.c
 * amd_pmu_wait_on_overflow waits up to 50 us for it) and never past rr's
 * bound (src/PerfCounters.cc skid_size: 250 taken branches on Family 15h,
 * 10,000 conditional branches on Zen, which rr marks as exceeded in rare
 * cases, PMU_SKID_UNBOUNDED). An interrupt counts as one instruction and
 * one branch (K8 BKDG events C0h and C2h; Weaver and McKee, IISWC 2008).
 * Fam15h counts vary as K8's do (K8 BKDG §10.1, no bound given), Zen's
 * rarely by one event (ours); kvm-unit-tests x86/pmu.c
 * check_counter_overflow accepts an AMD count from 2 below to 5 above the
 * exact one, and both stay inside that. SMM is counted (ours: the PMU has
 * no freeze in SMM). */
static const struct sim_silicon si_fam15h = {
    .insn_min = 20,	/* ours: objdump */
    .insn_max = 90,	/* ours: objdump */
    .cpi_x10 = 12,	/* ours */
    .skid_min = 100,	/* ours */
    .skid_max = 1500,	/* ours */
    .skid_cap_br = 250, /* rr skid_size, AMD Family 15h */
    .entry_insn = 45,	/* ours: the stubs */
    .irq_insn = 1,	/* K8 BKDG C0h, as on every AMD core */
    .irq_br = 1,	/* K8 BKDG C2h */
    .inexact_max = 3,	/* ours, within kvm-unit-tests' +5 */
    .inexact_pm = 200,	/* ours */
    .smm_counts = true, /* ours */
};
static const struct sim_silicon si_zen4 = {
    .insn_min = 20,	  /* ours: objdump */
    .insn_max = 90,	  /* ours: objdump */
    .cpi_x10 = 6,	  /* ours */
    .skid_min = 50,	  /* ours */
    .skid_max = 800,	  /* ours */
    .skid_cap_br = 10000, /* rr skid_size, Zen 4 (rarely exceeded) */
    .entry_insn = 45,	  /* ours: the stubs */
    .irq_insn = 1,	  /* K8 BKDG C0h, as on every AMD core */
    .irq_br = 1,	  /* K8 BKDG C2h */
    .inexact_max = 1,	  /* ours */
    .inexact_pm = 10,	  /* ours */
    .smm_counts = true,	  /* ours */
};
static const struct sim_model bulldozer = {
    .name = "bulldozer",
    .doc = "AMD Fam15h core extension: AMD APM Vol. 2 §13.2 (C001_0200h+2i); legacy MSRs alias "
	   "counters 0-3 (AMD APM Vol. 2 §13.2)",
    .driver = PMU_DRV_AMD_CORE,
    .faults = COMMON_FAULTS | SIM_IBS_FAULTS,
    .fault_na = {SIM_NA_TOPDOWN, NA_SIGN_EXTEND, SIM_NA_SPFLT,
		 SIM_NA_LBR("no LBR v2: it is Zen 4's (CPUID 8000_0022h EAX[1])"),
		 SIM_NA_PEBS(SIM_NA_DS_INTEL), SIM_NA_BTS(SIM_NA_DS_INTEL),
		 SIM_NA_TSX_AMD, [SF_CYCLES_REF] = SIM_NA_CYCLES_REF,
		 [SF_NO_OVERFLOW_STATUS] = "no PerfMonV2: there is no overflow status "
					   "register (APM Vol. 2 §13.2)",
		 [SF_GLOBAL_CTRL_IGNORED] = "no PerfMonV2: there is no global control "
					    "(APM Vol. 2 §13.2)",
		 [SF_GLOBAL_IGNORED_GP] = "no PerfMonV2: there is no global control "
					  "(APM Vol. 2 §13.2)",
		 [SF_ACK_IGNORED] = "no PerfMonV2: there is no status register to "
				    "acknowledge (APM Vol. 2 §13.2)",
		 [SF_STATUS_NOT_STICKY] = "no PerfMonV2: no overflow status, overflow is "
					  "bit 47 going clear (Linux x86_pmu_handle_irq)",
		 [SF_PMI_STORM] = "no PerfMonV2: no overflow flag that could stick, overflow is "
				  "bit 47, rewritten by the re-arm (Linux x86_pmu_handle_irq)"},
    .reset = reset_bulldozer,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .lvt_automask = false,
    .si = &si_fam15h,
    .smp = &sim_smp_bulldozer,
};
SIM_MODEL(bulldozer);

static const struct sim_model zen4 = {
    .name = "zen4",
    .doc = "AMD Fam19h PerfMonV2: AMD APM Vol. 2 §13.2 (C000_0300h-302h), Vol. 3 E.4.23 "
	   "(8000_0022h), Linux amd_pmu_v2_handle_irq",
    .driver = PMU_DRV_AMD_CORE,
    .faults = COMMON_FAULTS | SIM_F(SF_NO_OVERFLOW_STATUS) | SIM_F(SF_GLOBAL_CTRL_IGNORED) |
	      SIM_F(SF_ACK_IGNORED) | SIM_F(SF_STATUS_NOT_STICKY) | SIM_F(SF_PMI_STORM) |
	      (SIM_LBR_FAULTS & ~SIM_F(SF_LBR_CALLSTACK_IGNORED)) | SIM_IBS_FAULTS,
    .fault_na = {SIM_NA_TOPDOWN, NA_SIGN_EXTEND, SIM_NA_SPFLT, SIM_NA_PEBS(SIM_NA_DS_INTEL),
		 [SF_LBR_CALLSTACK_IGNORED] = "AMD LBR v2 has no call-stack mode (LBR_SELECT bits "
					      "0-8 only: AMD APM Vol. 2 13.1.1.9)",
		 SIM_NA_BTS(SIM_NA_DS_INTEL), SIM_NA_TSX_AMD, [SF_CYCLES_REF] = SIM_NA_CYCLES_REF,
		 [SF_GLOBAL_IGNORED_GP] = "no fixed counters (APM Vol. 2 §13.2): every counter "
					  "ignoring GlobalCtl is global-ctrl-ignored"},
    .reset = reset_zen4,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = rdpmc,
    .rate = rate,
    .overflow = overflow,
    .pending = pending,
    .lvt_automask = false,
    .si = &si_zen4,
    .smp = &sim_smp_zen4,
};
SIM_MODEL(zen4);
