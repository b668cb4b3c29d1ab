/* Models "yonah", "core2", "skylake", "arrowlake": Intel architectural
 * perfmon v1, v2, v4 and v6, written from x86-pmu-facts.md §1, §2, §4, §8
 * and §9, and for v6 the SDM's CPUID leaf 23H and Linux's msr-index.h.
 *  - GP counter i: 0xC1+i (writes keep bits 31:0, sign-extend bit 31 to the
 *    width), event select 0x186+i with its own EN bit; full-width alias
 *    0x4C1+i where PERF_CAPABILITIES[13] is set (skylake).
 *  - Fixed counter i (v2+): 0x309+i, full-width writes (facts §10), enabled
 *    by its FIXED_CTR_CTRL 0x38D field (OS bit0, USR bit1, PMI bit3).
 *  - v2+: GLOBAL_CTRL 0x38F gates every counter, GLOBAL_STATUS 0x38E
 *    (read-only) records overflows, GLOBAL_OVF_CTRL 0x390 clears them
 *    (write 1 to clear); v4: GLOBAL_STATUS_SET 0x391 sets them.
 *  - v6: leaf 23H lists the counters as bitmaps; counter n also sits at
 *    0x1900+4n (counter, full width) and 0x1901+4n (event select), fixed n
 *    at 0x1980+4n; GP counters past the eighth only there.
 *  - The local APIC masks LVTPC on delivery (facts §8).
 * Counters in the simulator's numbering: GP first, then fixed. What
 * firmware and microcode add (realism "firmware") is model_arch_firmware.c. */
#include "../../pmu/msr.h"
#include "../../pmu/cpuid.h"
#include "model_arch.h"
#include "uarch.h"

#define CPUID1_ECX_PDCM	  (1u << 15)
#define CPUID1_ECX_X2APIC (1u << 21)

static const struct arch_cfg *cfg_of(const struct sim_cpu *s);

static unsigned n_gp(const struct sim_cpu *s)
{
	return cfg_of(s)->n_gp;
}

/* GP counters at the legacy addresses 0xC1+i, 0x186+i, 0x4C1+i */
static unsigned n_legacy(const struct sim_cpu *s)
{
	return n_gp(s) < V6_LEGACY_GP ? n_gp(s) : V6_LEGACY_GP;
}

/* Index n of a v6 register base + 4n + off below base + 4 * count, or -1. */
static int v6_index(const struct sim_cpu *s, uint32_t msr, uint32_t base, unsigned count)
{
	if (!cfg_of(s)->v6 || msr < base || msr >= base + MSR_V6_STEP * count ||
	    (msr - base) % MSR_V6_STEP)
		return -1;
	return (int)((msr - base) / MSR_V6_STEP);
}

static bool is_gp(const struct sim_cpu *s, unsigned i)
{
	return i < n_gp(s);
}

static bool globals(const struct sim_cpu *s)
{
	return cfg_of(s)->version >= 2;
}

static bool full_width(const struct sim_cpu *s)
{
	return (cfg_of(s)->perf_caps & PERF_CAP_FW_WRITE) != 0;
}

/* GLOBAL_STATUS / GLOBAL_CTRL bit of simulator counter i (facts §4). */
static uint64_t gbit(const struct sim_cpu *s, unsigned i)
{
	return is_gp(s, i) ? 1ull << i : 1ull << (32 + i - n_gp(s));
}

static uint64_t counter_bits(const struct sim_cpu *s)
{
	uint64_t b = 0;
	for (unsigned i = 0; i < s->n_ctr; i++)
		b |= gbit(s, i);
	return b;
}

/* Status bits the model can hold: counters plus the named summary bits
 * 62 (buffer overflow) and 63 (CondChgd), facts §4. */
static uint64_t status_bits(const struct sim_cpu *s)
{
	return counter_bits(s) | (1ull << 62) | (1ull << 63) | arch_freeze_status_bits(s);
}

/* AnyThread (EVNTSEL bit 21, the fixed counters' bit 2): from v3 until v5,
 * whose cores set CPUID.0AH:EDX[15] (SDM Vol. 3B §20.2.3, §20.2.5). */
static bool any_thread(const struct sim_cpu *s)
{
	return cfg_of(s)->version >= 3 && cfg_of(s)->version < 5;
}

/* The select bits of GP counter k that hold what is written; the TSX
 * qualifiers where the model has RTM, IN_TXCP on counter 2 only (SDM Vol.
 * 3B 20.3.6.5: "may only be set for IA32_PERFEVTSEL2"). */
static uint64_t sel_rw(const struct sim_cpu *s, unsigned k)
{
	uint64_t tx = cfg_of(s)->rtm ? EVTSEL_IN_TX | (k == 2 ? EVTSEL_IN_TXCP : 0) : 0;
	uint64_t rw = (0xffffffffull | tx) & ~(any_thread(s) ? 0 : EVTSEL_ANY);
	/* PC (bit 19) reserved from Sandy Bridge on (SDM Vol. 3B §20.2.1.1):
	 * the v3+ models here are all Sandy Bridge or later */
	return cfg_of(s)->version >= 3 ? rw & ~EVTSEL_PC : rw;
}

static uint64_t fixed_ctrl_rw(const struct sim_cpu *s)
{
	uint64_t f = any_thread(s) ? 0xfull : 0xbull;
	uint64_t rw = 0;
	for (unsigned i = 0; i < cfg_of(s)->n_fixed; i++)
		rw |= f << (4 * i);
	return rw;
}

static bool pmc3_taken(const struct sim_cpu *s, unsigned k)
{
	return arch_pmc3_taken(s, k, cfg_of(s)->tfa);
}

/* What CPUID.0AH lists: on a hybrid part what both core types share. */
static unsigned leaf0a_gp(const struct sim_cpu *s)
{
	return cfg_of(s)->shared_gp ? cfg_of(s)->shared_gp : n_legacy(s);
}

static unsigned leaf0a_fixed(const struct sim_cpu *s)
{
	return cfg_of(s)->shared_fixed ? cfg_of(s)->shared_fixed : cfg_of(s)->n_fixed;
}

static void reset(struct sim_cpu *s)
{
	const struct arch_cfg *c = cfg_of(s);
	uint32_t ecx1 = c->leaf1_ecx;

	sim_vendor(s, c->max_leaf, "GenuineIntel");
	if (c->perf_caps)
		ecx1 |= CPUID1_ECX_PDCM;
	if (c->x2apic)
		ecx1 |= CPUID1_ECX_X2APIC;
	sim_set_cpuid(s, 1, 0, sim_fms(c->family, c->model, c->stepping),
		      0x00010800u | s->apic_id << 24, ecx1, c->leaf1_edx);
	/* CPUID.0AH (facts §4): EAX version | GP count | GP width | mask
	 * length 7; EDX fixed count | fixed width. */
	sim_set_cpuid(s, 0x0a, 0, c->version | leaf0a_gp(s) << 8 | c->gp_width << 16 | 7u << 24,
		      c->ebx, 0,
		      (c->version >= 2 ? (leaf0a_fixed(s) | c->fixed_width << 5) : 0) |
			  (c->version >= 5 ? CPUID_0A_EDX_ANYTHREAD_DEPRECATED : 0));
	/* IA32_MPERF/IA32_APERF, CPUID.06H:ECX[0] (SDM Vol. 3B 15.2): the
	 * v2+ cores here, Core 2 on; EAX[1] their turbo (Intel Dynamic
	 * Acceleration, Turbo Boost). Core Duo's leaf 6 is left out. */
	if (c->version >= 2)
		sim_aperfmperf(s, 1u << 1);
	if (c->rtm) /* HLE and RTM: arch_firmware keeps them beside its EDX bit */
		sim_set_cpuid(s, 7, 0, 0, CPUID_7_EBX_HLE | CPUID_7_EBX_RTM, 0, 0);
	if (c->core_type) { /* hybrid: CPUID.7:EDX[15], leaf 1AH EAX[31:24] */
		sim_set_cpuid(s, 7, 0, 0, 0, 0, CPUID_7_EDX_HYBRID);
		sim_set_cpuid(s, CPUID_LEAF_HYBRID, 0, c->core_type << 24, 0, 0, 0);
	}
	if (c->v6) { /* CPUID.(7,1):EAX[8], leaf 23H subleafs 0 and 1 */
		sim_set_cpuid(s, 7, 1, 1u << 8, 0, 0, 0);
		sim_set_cpuid(s, 0x23, 0, 1u << 1, 0, 0, 0);
		sim_set_cpuid(s, 0x23, 1, (1u << c->n_gp) - 1, (1u << c->n_fixed) - 1, 0, 0);
	}
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000008u, 0, 0, 0);
	sim_set_cpuid(s, 0x80000001u, 0, 0, 0, 0x1u, 0x20100000u);
	sim_brand(s, c->brand);
	if (c->ua)
		uarch_setup(s, c->ua);
	s->n_ctr = c->n_gp + (c->version >= 2 ? c->n_fixed : 0);
	for (unsigned i = 0; i < s->n_ctr; i++)
		s->width[i] = (uint8_t)(i < c->n_gp ? c->gp_width : c->fixed_width);
	s->reg[REG_UCODE] = (uint64_t)c->ucode << 32;
	if (c->x2apic)
		s->apic_base |= APIC_BASE_X2APIC;
	if (sim_real(s, SE_FIRMWARE))
		arch_firmware(s, c->version >= 2, c->tfa);
}

/* msr-fault: counter 1's MSRs raise #GP. */
static bool faulted(const struct sim_cpu *s, uint32_t msr)
{
	return sim_has_fault(s, SF_MSR_FAULT) &&
	       (msr == MSR_P6_PERFCTR0 + 1 || msr == MSR_P6_EVNTSEL0 + 1 ||
		msr == MSR_IA32_PMC0 + 1);
}

/* Simulator counter index of a counter MSR, or -1. */
static int ctr_of(const struct sim_cpu *s, uint32_t msr)
{
	const struct arch_cfg *c = cfg_of(s);
	int k;
	if (msr >= MSR_P6_PERFCTR0 && msr < MSR_P6_PERFCTR0 + n_legacy(s))
		return (int)(msr - MSR_P6_PERFCTR0);
	if (full_width(s) && msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + n_legacy(s))
		return (int)(msr - MSR_IA32_PMC0);
	if (globals(s) && msr >= MSR_FIXED_CTR0 && msr < MSR_FIXED_CTR0 + c->n_fixed)
		return (int)(c->n_gp + msr - MSR_FIXED_CTR0);
	if ((k = v6_index(s, msr, MSR_V6_GP0_CTR, c->n_gp)) >= 0)
		return k;
	k = v6_index(s, msr, MSR_V6_FX0_CTR, c->n_fixed);
	return k >= 0 ? (int)c->n_gp + k : -1;
}

/* The GP counter whose event select msr is, or -1. */
static int sel_of(const struct sim_cpu *s, uint32_t msr)
{
	if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + n_legacy(s))
		return (int)(msr - MSR_P6_EVNTSEL0);
	return v6_index(s, msr, MSR_V6_GP0_CFG_A, n_gp(s));
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	const struct arch_cfg *c = cfg_of(s);
	int k;

	if (faulted(s, msr))
		return HW_FAULT_GP;
	k = ctr_of(s, msr);
	if (k >= 0) {
		*v = sim_ctr_read(s, (unsigned)k);
		return HW_OK;
	}
	if ((k = sel_of(s, msr)) >= 0) {
		*v = s->reg[REG_EVNTSEL(k)];
		return HW_OK;
	}
	switch (msr) {
	case MSR_IA32_BIOS_SIGN_ID:
		*v = s->reg[REG_UCODE];
		return HW_OK;
	case MSR_IA32_MISC_ENABLE:
	case MSR_TSX_FORCE_ABORT:
		return arch_firmware_rdmsr(s, msr, v, c->tfa);
	case MSR_DEBUGCTL: /* and PERF_METRICS: model_arch_freeze.c */
	case MSR_PERF_METRICS:
		return arch_more_rdmsr(s, msr, v);
	case MSR_PERF_CAPABILITIES:
		if (!c->perf_caps)
			return HW_FAULT_GP;
		*v = c->perf_caps;
		return HW_OK;
	case MSR_FIXED_CTR_CTRL:
	case MSR_PERF_GLOBAL_CTRL:
	case MSR_PERF_GLOBAL_STATUS:
	case MSR_PERF_GLOBAL_OVF_CTRL:
		if (!globals(s))
			return HW_FAULT_GP;
		*v = msr == MSR_FIXED_CTR_CTRL	     ? s->reg[REG_FIXED_CTRL]
		     : msr == MSR_PERF_GLOBAL_CTRL   ? s->reg[REG_GLOBAL_CTRL]
		     : msr == MSR_PERF_GLOBAL_STATUS ? s->reg[REG_GLOBAL_STATUS]
						     : 0; /* OVF_CTRL reads as 0 */
		/* status-not-sticky: the read clears what it returned */
		if (msr == MSR_PERF_GLOBAL_STATUS && sim_has_fault(s, SF_STATUS_NOT_STICKY))
			s->reg[REG_GLOBAL_STATUS] = 0;
		return HW_OK;
	case MSR_PERF_GLOBAL_STATUS_SET:
		if (c->version < 4)
			return HW_FAULT_GP;
		*v = 0;
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

/* The v2+ registers: FIXED_CTR_CTRL and the global control, status and
 * acknowledge registers (facts §4). */
static int wrmsr_global(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	switch (msr) {
	case MSR_FIXED_CTR_CTRL:
		s->reg[REG_FIXED_CTRL] = v & fixed_ctrl_rw(s);
		return HW_OK;
	case MSR_PERF_GLOBAL_CTRL:
		s->reg[REG_GLOBAL_CTRL] = v & (counter_bits(s) | arch_td_ctrl_bits(s));
		return HW_OK;
	case MSR_PERF_GLOBAL_STATUS:
		return HW_FAULT_GP; /* read-only */
	case MSR_PERF_GLOBAL_OVF_CTRL:
		for (unsigned i = 0; i < s->n_ctr; i++)
			if (sim_flag_stuck(s, i)) /* pmi-storm: this bit stays */
				v &= ~gbit(s, i);
		if (!sim_has_fault(s, SF_ACK_IGNORED))
			s->reg[REG_GLOBAL_STATUS] &= ~v;
		return HW_OK;
	case MSR_PERF_GLOBAL_STATUS_SET:
		if (cfg_of(s)->version < 4)
			return HW_FAULT_GP;
		if (!sim_has_fault(s, SF_NO_OVERFLOW_STATUS))
			s->reg[REG_GLOBAL_STATUS] |= v & status_bits(s);
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	const struct arch_cfg *c = cfg_of(s);
	int k;

	if (faulted(s, msr))
		return HW_FAULT_GP;
	k = ctr_of(s, msr);
	if (k >= 0) {
		uint64_t w = v;
		/* 0xC1+i keeps bits 31:0 and sign-extends bit 31; the 0x4C1+i
		 * alias and the fixed counters take the full width (facts §2,
		 * §10). */
		if (msr < MSR_P6_PERFCTR0 + n_legacy(s))
			w = sim_has_fault(s, SF_NO_SIGN_EXTEND)
				? v & 0xffffffffull
				: (uint64_t)(int64_t)(int32_t)(uint32_t)v;
		/* 0x4C1+i: EDX[63:width-32] are reserved, a bit set there
		 * #GPs (SDM Vol. 3B 20.2.6; kvm-unit-tests x86/pmu.c
		 * check_gp_counters_write_width); full-width-no-gp drops them */
		else if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + n_legacy(s) &&
			 s->width[k] < 64 && (v >> s->width[k]) &&
			 !sim_has_fault(s, SF_FULL_WIDTH_NO_GP))
			return HW_FAULT_GP;
		if (pmc3_taken(s, (unsigned)k))
			w = sim_rand(s, 0, sim_width_mask(s, 3));
		sim_ctr_set(s, (unsigned)k, w);
		return HW_OK;
	}
	if ((k = sel_of(s, msr)) >= 0) {
		s->reg[REG_EVNTSEL(k)] = v & sel_rw(s, (unsigned)k);
		return HW_OK;
	}
	switch (msr) {
	case MSR_IA32_BIOS_SIGN_ID:
		s->reg[REG_UCODE] = (uint64_t)c->ucode << 32;
		return HW_OK;
	case MSR_IA32_MISC_ENABLE:
	case MSR_TSX_FORCE_ABORT:
		return arch_firmware_wrmsr(s, msr, v, c->tfa);
	case MSR_DEBUGCTL: /* and PERF_METRICS: model_arch_freeze.c */
	case MSR_PERF_METRICS:
		return arch_more_wrmsr(s, msr, v);
	default:
		break;
	}
	if (!globals(s))
		return HW_FAULT_GP;
	return wrmsr_global(s, msr, v);
}

static int rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	const struct arch_cfg *c = cfg_of(s);
	bool fast = (ecx >> 31) & 1, fixed = (ecx >> 30) & 1;
	uint32_t idx = ecx & 0x3fffffffu;
	unsigned k;

	/* GP i = i, fixed i = (1<<30)|i; ECX[31], the non-architectural PMUs'
	 * fast read, is reserved here and #GPs (SDM Vol. 2B RDPMC; Linux
	 * 5728a4a0ea79 "Disallow fast RDPMC for architectural Intel PMUs":
	 * "confirmed on bare metal") */
	if (fast)
		return HW_FAULT_GP;
	if (fixed) {
		if (!globals(s) || idx >= c->n_fixed)
			return HW_FAULT_GP;
		k = c->n_gp + idx;
	} else {
		if (idx >= c->n_gp)
			return HW_FAULT_GP;
		k = idx;
	}
	*v = sim_ctr_read(s, k);
	return HW_OK;
}

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	/* v4+: CTR_FRZ gates every counter as well (model_arch_freeze.c) */
	bool global = (!globals(s) || (s->reg[REG_GLOBAL_CTRL] & gbit(s, i))) && !arch_frozen(s);

	if (is_gp(s, i)) {
		uint64_t sel = s->reg[REG_EVNTSEL(i)];
		if (pmc3_taken(s, i))
			return 0;
		if (!sim_ctr_counting(s, i, true, (sel & EVTSEL_EN) != 0, global))
			return 0;
		/* ring 0: USR-only counts nothing */
		if (!sim_priv_counts(s, (sel & EVTSEL_OS) != 0, (sel & EVTSEL_USR) != 0))
			return 0;
		/* CMASK, INV, E (SDM Vol. 3B 18.2.1.1); 3CH is a clock */
		uint64_t n = arch_event_rate(s, (uint16_t)(sel & 0xffff), v);
		return sim_filter(s, v, cfg_of(s)->rtm ? arch_tx_rate(s, sel, n, v) : n,
				  (sel & 0xff) == 0x3c, (unsigned)(sel >> 24) & 0xff,
				  (sel & EVTSEL_INV) != 0, (sel & EVTSEL_EDGE) != 0);
	}
	unsigned f = i - n_gp(s);
	uint64_t field = (s->reg[REG_FIXED_CTRL] >> (4 * f)) & 0xf;
	/* a fixed counter is enabled by its OS/USR bits (facts §4) */
	if (!sim_ctr_counting(s, i, false, (field & 0x3) != 0, global))
		return 0;
	if (!sim_priv_counts(s, (field & 0x1) != 0, (field & 0x2) != 0))
		return 0;
	switch (f) {
	case 0:
		return v->instructions; /* INST_RETIRED.ANY */
	case 1:
		return sim_core_cycles(s, v); /* CPU_CLK_UNHALTED.CORE */
	case 2:
		return arch_ref_cycles(s, v); /* CPU_CLK_UNHALTED.REF (TSC rate) */
	case 3:
		return arch_slots(s, v); /* TOPDOWN.SLOTS (model_arch_topdown.c) */
	default:
		return 0;
	}
}

static bool overflow(struct sim_cpu *s, unsigned i)
{
	bool pmi = is_gp(s, i) ? (s->reg[REG_EVNTSEL(i)] & EVTSEL_INT) != 0
			       : ((s->reg[REG_FIXED_CTRL] >> (4 * (i - n_gp(s)))) & 0x8) != 0;

	if (globals(s) && !sim_has_fault(s, SF_NO_OVERFLOW_STATUS))
		s->reg[REG_GLOBAL_STATUS] |= gbit(s, i);
	if (pmi) /* the PMI's request freezes where DEBUGCTL asks */
		arch_freeze_on_pmi(s);
	return pmi;
}

#define ARCH_COMMON_FAULTS                                                                         \
	(SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |                \
	 SIM_F(SF_NO_SIGN_EXTEND) | SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) |                  \
	 SIM_F(SF_ENABLE_IGNORED) | SIM_F(SF_WRONG_EVENT) | SIM_F(SF_MSR_FAULT) |                  \
	 SIM_F(SF_OVERCOUNT) | SIM_F(SF_LVT_STUCK_MASKED) | SIM_F(SF_ENABLE_IGNORED_ONE) |         \
	 SIM_F(SF_WIDTH_HIGH_BITS) | SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_WRONG_VECTOR) |            \
	 SIM_F(SF_DUPLICATE_PMI) | SIM_FILTER_FAULTS | SIM_APIC_FAULTS | SIM_F(SF_CYCLES_SLOW) |   \
	 SIM_F(SF_WRITE_RESETS) | SIM_F(SF_OVERFLOW_FREEZES))
#define ARCH_V2_FAULTS                                                                             \
	(ARCH_COMMON_FAULTS | SIM_F(SF_NO_OVERFLOW_STATUS) | SIM_F(SF_GLOBAL_CTRL_IGNORED) |       \
	 SIM_F(SF_ACK_IGNORED) | SIM_F(SF_GLOBAL_IGNORED_GP) | SIM_F(SF_STATUS_NOT_STICKY) |       \
	 SIM_F(SF_PMI_STORM) | SIM_F(SF_CYCLES_REF))
/* The decode faults without a memory rule to catch them where the model
 * publishes no caches, and refcyc-core where the core clock is the TSC's. */
#define ARCH_BRANCH_FAULTS                                                                         \
	(SIM_F(SF_EVENT_DEAD) | SIM_F(SF_EVENT_MISWIRED) | SIM_F(SF_DOUBLE_COUNT))
#define NA_NO_CACHES                                                                               \
	"the model publishes no caches (CPUID 04H): the harness skips the memory rules that "      \
	"would catch it"
#define NA_ARCH_MEMORY [SF_UMASK_IGNORED] = NA_NO_CACHES, [SF_MISS_COUNTS_HITS] = NA_NO_CACHES
/* RDPMC's fast read is the non-architectural PMUs' (SDM Vol. 2B RDPMC):
 * here ECX[31] #GPs (rdpmc below), there is no fast read to break. */
#define NA_ARCH_FAST                                                                               \
	[SF_FAST_RDPMC_FULL] = "architectural perfmon reserves RDPMC ECX[31]: it #GPs (SDM Vol. "  \
			       "2B RDPMC; Linux 5728a4a0ea79), no fast read"
/* The full-width alias 0x4C1+i exists with PERF_CAPABILITIES[13] only. */
#define NA_ARCH_NO_FW                                                                              \
	[SF_FULL_WIDTH_NO_GP] = "no PERF_CAPABILITIES[13]: no full-width alias 0x4C1+i (SDM Vol. " \
				"3B 20.2.6) whose bits above the width could fault"

/* TSX: Skylake's alone here. Core Duo and Core 2 predate it (Haswell
 * brought it, SDM Vol. 3B 20.3.6.5); the Alder Lake and Arrow Lake models
 * enumerate no RTM (ours: Intel's product pages list Intel TSX-NI as
 * absent from 12th-generation client parts on; no CPUID dump here). */
#define NA_ARCH_NO_TSX SIM_NA_TSX_FEP(SIM_NA_NO_RTM)

/* Overflow bits still set in GLOBAL_STATUS (late-ack, facts §8). */
static uint64_t pending(struct sim_cpu *s)
{
	return globals(s) ? s->reg[REG_GLOBAL_STATUS] & counter_bits(s) : 0;
}

/* Realism (sim.h), at --realism-scale 1. Harness paths between two seam
 * accesses are 12-60 instructions in the target build (ours: objdump of
 * pmu/intel_arch.o, start 55, stop 32, read 24), the interrupt stubs 40
 * (ours), the CPI of that code ours. The PMI's skid in instructions is ours
 * (no public number per instruction); rr (src/PerfCounters.cc skid_size)
 * has never seen it pass 100 conditional branches from Merom to Rocket
 * Lake, 125 from Alder Lake on, and the drawn skid stops there
 * (skid_cap_br; rr counts conditional branches, the simulator every
 * branch, which stops it no later). Each hardware interrupt counts one
 * instruction more than its handler retires (Weaver and McKee, "Can
 * hardware performance counters be trusted?", IISWC 2008; their P6 and
 * Core 2 counts are high by the interrupts taken). SMM code is counted unless
 * FREEZE_WHILE_SMM is set (SDM Vol. 3B 17.4.7), which the harness does not
 * set; MSR_SMI_COUNT exists from Nehalem on (SDM Vol. 4) and Linux acks
 * late from Haswell on (Linux intel/core.c, late_ack). Turbo: Core Duo has
 * none; Core 2 (Merom) raises one core by a bin with Intel Dynamic
 * Acceleration (T7700: 2.4 to 2.6 GHz, 1.08); Skylake's i7-6700 turbos
 * from 3.4 to 4.0 GHz (1.18; 1.20 ours), and the later models take the
 * same ratio (ours). The reference clock stays at the TSC's rate (SDM Vol.
 * 3B, CPU_CLK_UNHALTED.REF_TSC). */
static const struct sim_silicon si_core = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 10,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 100, /* ours: rr's Merom bound for its predecessor */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
};
static const struct sim_silicon si_core2 = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 10,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 100, /* rr skid_size, Merom */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: Core 2 */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
    .turbo_x100 = 108,	/* T7700 with Intel Dynamic Acceleration */
};
static const struct sim_silicon si_skylake =
    SI_SKYLAKE(.late_ack = true,   /* Linux intel/core.c: Haswell and later */
	       .smi_count = true,  /* MSR_SMI_COUNT, Nehalem and later */
	       .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
	       .turbo_x100 = 120,  /* i7-6700: 1.18; 1.20 ours */
    );
/* Alder Lake and Arrow Lake: Skylake's numbers with rr's larger bound. */
static const struct sim_silicon si_alderlake = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 8,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 125, /* rr skid_size, Alder Lake and later (P-cores) */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: every x86 but NetBurst */
    .late_ack = true,	/* Linux intel/core.c: Haswell and later */
    .smi_count = true,	/* MSR_SMI_COUNT, Nehalem and later */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
    .turbo_x100 = 120,	/* ours: Skylake's */
};

/* What the three models share: the register file above, and the local APIC
 * masks LVTPC on delivery (facts §8). */
#define ARCH_MODEL                                                                                 \
	.driver = PMU_DRV_INTEL_ARCH, .reset = reset, .rdmsr = rdmsr, .wrmsr = wrmsr,              \
	.rdpmc = rdpmc, .rate = rate, .overflow = overflow, .lvt_automask = true,                  \
	.pending = pending, .retired = arch_td_retired
/* freeze-ignored where the freeze on PMI exists (v2+, model_arch_freeze.c),
 * metrics-unscaled where PERF_METRICS does (model_arch_topdown.c) */
#define ARCH_FREEZE_FAULTS SIM_F(SF_FREEZE_IGNORED)
#define ARCH_TD_FAULTS	   (SIM_F(SF_FREEZE_IGNORED) | SIM_F(SF_METRICS_UNSCALED))
#define NA_NO_METRICS                                                                              \
	[SF_METRICS_UNSCALED] = "PERF_CAPABILITIES[15] clear: no IA32_PERF_METRICS (329H) whose "  \
				"fields could be unscaled (the core has no fixed counter 3)"

static const struct sim_model yonah = {
    .name = "yonah",
    .doc = "x86-pmu-facts.md §4 (arch perfmon v1: no fixed, no globals), §9 generic handler",
    .faults = ARCH_COMMON_FAULTS | (SIM_EVENT_FAULTS & ~SIM_F(SF_REFCYC_CORE)),
    .fault_na =
	{
	    SIM_NA_TOPDOWN,
	    NA_ARCH_FAST,
	    NA_ARCH_NO_FW,
	    SIM_NA_FAMILY_REGS,
	    NA_ARCH_NO_TSX,
	    [SF_CYCLES_REF] = SIM_NA_CYCLES_REF,
	    [SF_REFCYC_CORE] = "Core Duo has no turbo: its core clock runs at the TSC's "
			       "rate, reference and core cycles are the same",
	    [SF_NO_OVERFLOW_STATUS] = "arch perfmon v1 has no overflow status "
				      "register (facts §4, §9)",
	    [SF_GLOBAL_CTRL_IGNORED] = "arch perfmon v1 has no global control "
				       "(facts §4 core_pmu)",
	    [SF_ACK_IGNORED] = "arch perfmon v1 has no overflow status to "
			       "acknowledge (facts §9)",
	    [SF_GLOBAL_IGNORED_GP] = "arch perfmon v1 has no global control "
				     "(facts §4 core_pmu)",
	    [SF_STATUS_NOT_STICKY] = "arch perfmon v1 has no overflow status register: "
				     "overflow is the counter's top bit (facts §9)",
	    [SF_PMI_STORM] = "arch perfmon v1 has no overflow flag that could stick: "
			     "overflow is the counter's top bit, rewritten by the re-arm "
			     "(facts §9 generic handler)",
	},
    ARCH_MODEL,
    .si = &si_core,
};
SIM_MODEL(yonah);

static const struct sim_model core2 = {
    .name = "core2",
    .doc = "x86-pmu-facts.md §4 (arch perfmon v2: 3 fixed, globals), §8, §9",
    .faults = ARCH_V2_FAULTS | SIM_EVENT_FAULTS | ARCH_FREEZE_FAULTS,
    .fault_na = {NA_NO_METRICS, NA_ARCH_FAST, NA_ARCH_NO_FW, SIM_NA_FAMILY_REGS, NA_ARCH_NO_TSX},
    ARCH_MODEL,
    .si = &si_core2,
};
SIM_MODEL(core2);

static const struct sim_model skylake = {
    .name = "skylake",
    .doc = "x86-pmu-facts.md §2, §4 (arch perfmon v4, STATUS_SET, full-width writes), §8, §9",
    .faults = ARCH_V2_FAULTS | SIM_EVENT_FAULTS | SIM_F(SF_FULL_WIDTH_NO_GP) |
	      SIM_F(SF_IN_TX_IGNORED) | ARCH_FREEZE_FAULTS,
    .fault_na = {NA_NO_METRICS, NA_ARCH_FAST,
		 SIM_NA_FAMILY_REGS, [SF_EMULATED_UNCOUNTED] = SIM_NA_NO_FEP},
    ARCH_MODEL,
    .si = &si_skylake,
};
SIM_MODEL(skylake);

static const struct sim_model arrowlake = {
    .name = "arrowlake",
    .doc = "SDM Vol. 2A CPUID leaf 23H (perfmon v6 counter bitmaps), Linux msr-index.h "
	   "MSR_IA32_PMC_V6_* (10 GP counters, 8 and 9 at 0x1900+4n only); facts §4, §8, §9",
    .faults = ARCH_V2_FAULTS | ARCH_BRANCH_FAULTS | SIM_F(SF_REFCYC_CORE) |
	      SIM_F(SF_FULL_WIDTH_NO_GP) | ARCH_TD_FAULTS,
    .fault_na = {NA_ARCH_MEMORY, NA_ARCH_FAST, SIM_NA_FAMILY_REGS, NA_ARCH_NO_TSX},
    ARCH_MODEL,
    .si = &si_alderlake,
};
SIM_MODEL(arrowlake);

/* The hybrid machine: its CPUs' configurations are in model_hybrid.c. */
const struct sim_model arch_alderlake = {
    .name = "alderlake",
    .doc = "SDM Vol. 2A CPUID leaf 1AH (core type), 0AH (what both core types share); Linux "
	   "intel/core.c intel_pmu_init (P-core 8 GP + 4 fixed, E-core 6 + 3); facts §4, §8, §9",
    .faults = ARCH_V2_FAULTS | ARCH_BRANCH_FAULTS | SIM_F(SF_REFCYC_CORE) |
	      SIM_F(SF_FULL_WIDTH_NO_GP) | ARCH_TD_FAULTS,
    .fault_na = {NA_ARCH_MEMORY, NA_ARCH_FAST, SIM_NA_FAMILY_REGS, NA_ARCH_NO_TSX},
    ARCH_MODEL,
    .si = &si_alderlake,
    .cpus = HYBRID_CPUS,
};
SIM_MODEL(arch_alderlake);

static const struct arch_cfg cfgs[] = {
    {
	/* Core Duo: CPUID.0AH EAX 0x07280201 */
	.m = &yonah,
	.version = 1,
	.n_gp = 2,
	.gp_width = 40,
	.max_leaf = 0x0a,
	.leaf1_ecx = 0x0000c1a9u & ~CPUID1_ECX_PDCM,
	.leaf1_edx = 0xbfe9fbffu,
	.family = 6,
	.model = 0x0e,
	.stepping = 8,
	.brand = "Simulated Intel Core Duo (Yonah, arch perfmon v1)",
	.ucode = 0x39,
	.ua = &arch_ua_yonah,
    },
    {
	/* Core 2 (Merom): 0AH EAX 0x07280202, EDX 0x503 */
	.m = &core2,
	.version = 2,
	.n_gp = 2,
	.gp_width = 40,
	.n_fixed = 3,
	.fixed_width = 40,
	.max_leaf = 0x0a,
	.leaf1_ecx = 0x0000e39du & ~CPUID1_ECX_PDCM,
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0x0f,
	.stepping = 6,
	.brand = "Simulated Intel Core 2 (Merom, arch perfmon v2)",
	.ucode = 0xd0,
	.ua = &arch_ua_core2,
    },
    {
	/* Skylake client: 0AH EAX 0x07300404, EDX 0x603;
	 * PERF_CAPABILITIES with bit 13 (full-width write) */
	.m = &skylake,
	.version = 4,
	.n_gp = 4,
	.gp_width = 48,
	.n_fixed = 3,
	.fixed_width = 48,
	.max_leaf = 0x16,
	.leaf1_ecx = 0x7ffafbbfu & ~CPUID1_ECX_PDCM & ~CPUID1_ECX_X2APIC & ~(1u << 31),
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0x5e,
	.stepping = 3,
	.brand = "Simulated Intel Core i7-6700 (Skylake, arch perfmon v4)",
	.perf_caps = 0x33c5,
	.ucode = 0xf0,
	.x2apic = true,
	.tfa = true,
	.rtm = true,
	.ua = &arch_ua_skylake,
	.l2_rqsts = true,
    },
    {
	/* Arrow Lake P-core (family 6 model 0xC6) with 10 GP counters as
	 * leaf 23H lists them (EAX 0x3FF); 0AH says 8. Four fixed counters,
	 * the fourth TOPDOWN.SLOTS, 8 a cycle (Lion Cove's Pipeline_Width,
	 * pmu-tools lnl_lnc_ratios.py). PERF_CAPABILITIES as Linux reports a
	 * Core Ultra 7 265K: "PEBS fmt6+-baseline ... full-width counters"
	 * (PEBS trap, format 6, baseline, bit 13), PERF_METRICS (the topdown
	 * metrics of intel_pmu_init_glc on its P-cores); SMM freeze, arch
	 * regs and LBR format 5 as Skylake's (ours). */
	.m = &arrowlake,
	.version = 6,
	.n_gp = 10,
	.gp_width = 48,
	.n_fixed = 4,
	.fixed_width = 48,
	.max_leaf = 0x23,
	.leaf1_ecx = 0x7ffafbbfu & ~CPUID1_ECX_PDCM & ~CPUID1_ECX_X2APIC & ~(1u << 31),
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0xc6,
	.stepping = 2,
	.brand = "Simulated Intel Core Ultra 9 285K (perfmon v6)",
	.perf_caps = 0xf6c5,
	.td_width = 8,
	.ucode = 0x114,
	.x2apic = true,
	.v6 = true,
    },
};

const struct arch_cfg *arch_cfg_of(const struct sim_cpu *s)
{
	return cfg_of(s);
}

static const struct arch_cfg *cfg_of(const struct sim_cpu *s)
{
	if (s->m == &arch_alderlake)
		return arch_hybrid_cfg(s);
	for (unsigned i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		if (cfgs[i].m == s->m)
			return &cfgs[i];
	return &cfgs[0];
}
