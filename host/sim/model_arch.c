/* Models "yonah", "core2", "skylake", "arrowlake": Intel architectural
 * perfmon v1, v2, v4 and v6, written from SDM Vol. 3B 20.2 and Linux
 * arch/x86/events/intel/core.c, and for v6 the SDM's CPUID leaf 23H and Linux's msr-index.h.
 *  - GP counter i: 0xC1+i (writes keep bits 31:0, sign-extend bit 31 to the
 *    width), event select 0x186+i with its own EN bit; full-width alias
 *    0x4C1+i where PERF_CAPABILITIES[13] is set (skylake).
 *  - Fixed counter i (v2+): 0x309+i, full-width writes (kvm-unit-tests x86/pmu.c), enabled
 *    by its FIXED_CTR_CTRL 0x38D field (OS bit0, USR bit1, PMI bit3).
 *  - v2+: GLOBAL_CTRL 0x38F gates every counter, GLOBAL_STATUS 0x38E
 *    (read-only) records overflows, GLOBAL_OVF_CTRL 0x390 clears them
 *    (write 1 to clear); v4: GLOBAL_STATUS_SET 0x391 sets them.
 *  - v6: leaf 23H lists the counters as bitmaps; counter n also sits at
 *    0x1900+4n (counter, full width) and 0x1901+4n (event select), fixed n
 *    at 0x1980+4n; GP counters past the eighth only there.
 *  - The local APIC masks LVTPC on delivery (Linux's i386 watchdog, arch/i386/kernel/nmi.c).
 * Counters in the simulator's numbering: GP first, then fixed. What
 * firmware and microcode add (realism "firmware") is model_arch_firmware.c;
 * the models themselves, their faults and configurations are
 * model_arch_models.c. */
#include "../../pmu/msr.h"
#include "../../pmu/cpuid.h"
#include "model_arch.h"
#include "uarch.h"

static unsigned n_gp(const struct sim_cpu *s)
{
	return arch_cfg_of(s)->n_gp;
}

/* GP counters at the legacy addresses 0xC1+i, 0x186+i, 0x4C1+i */
static unsigned n_legacy(const struct sim_cpu *s)
{
	return n_gp(s) < V6_LEGACY_GP ? n_gp(s) : V6_LEGACY_GP;
}

/* Index n of a v6 register base + 4n + off below base + 4 * count, or -1. */
static int v6_index(const struct sim_cpu *s, uint32_t msr, uint32_t base, unsigned count)
{
	if (!arch_cfg_of(s)->v6 || msr < base || msr >= base + MSR_V6_STEP * count ||
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
	return arch_cfg_of(s)->version >= 2;
}

static bool full_width(const struct sim_cpu *s)
{
	return (arch_cfg_of(s)->perf_caps & PERF_CAP_FW_WRITE) != 0;
}

/* GLOBAL_STATUS / GLOBAL_CTRL bit of simulator counter i (SDM Vol. 3B 20.2.2). */
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
 * 62 (buffer overflow) and 63 (CondChgd), SDM Vol. 3B 20.2.4.1. */
static uint64_t status_bits(const struct sim_cpu *s)
{
	return counter_bits(s) | (1ull << 62) | (1ull << 63) | arch_freeze_status_bits(s);
}

/* AnyThread (EVNTSEL bit 21, the fixed counters' bit 2): from v3 until v5,
 * whose cores set CPUID.0AH:EDX[15] (SDM Vol. 3B §20.2.3, §20.2.5). */
static bool any_thread(const struct sim_cpu *s)
{
	return arch_cfg_of(s)->version >= 3 && arch_cfg_of(s)->version < 5;
}

/* Adaptive PEBS (PERF_CAPABILITIES[14] PEBS_BASELINE, Ice Lake on): event
 * select bit 34 and FIXED_CTR_CTRL bit 32 + 4i ask for a counter's records
 * in the adaptive format (Linux perf_event.h ICL_EVENTSEL_ADAPTIVE
 * (1ULL << 34), ICL_FIXED_0_ADAPTIVE (1ULL << 32), shifted 4i by
 * intel_pmu_enable_fixed); reserved without the capability. */
#define EVTSEL_ADAPTIVE	 (1ull << 34)
#define FIXED_ADAPTIVE	 (1ull << 32)
#define FIXED_FIELD_BITS 4

static bool adaptive(const struct sim_cpu *s)
{
	return (arch_cfg_of(s)->perf_caps & PERF_CAP_PEBS_BASE) != 0;
}

/* The select bits of GP counter k that hold what is written; the TSX
 * qualifiers where the model has RTM, IN_TXCP on counter 2 only (SDM Vol.
 * 3B 20.3.6.5: "may only be set for IA32_PERFEVTSEL2"); adaptive PEBS's. */
static uint64_t sel_rw(const struct sim_cpu *s, unsigned k)
{
	uint64_t tx = arch_cfg_of(s)->rtm ? EVTSEL_IN_TX | (k == 2 ? EVTSEL_IN_TXCP : 0) : 0;
	uint64_t pebs = adaptive(s) ? EVTSEL_ADAPTIVE : 0;
	uint64_t rw = (0xffffffffull | tx | pebs) & ~(any_thread(s) ? 0 : EVTSEL_ANY);
	/* PC (bit 19) reserved from Sandy Bridge on (SDM Vol. 3B §20.2.1.1):
	 * the v3+ models here are all Sandy Bridge or later */
	return arch_cfg_of(s)->version >= 3 ? rw & ~EVTSEL_PC : rw;
}

static uint64_t fixed_ctrl_rw(const struct sim_cpu *s)
{
	uint64_t f = any_thread(s) ? 0xfull : 0xbull;
	uint64_t rw = 0;
	for (unsigned i = 0; i < arch_cfg_of(s)->n_fixed; i++)
		rw |= (f | (adaptive(s) ? FIXED_ADAPTIVE : 0)) << (FIXED_FIELD_BITS * i);
	return rw;
}

static bool pmc3_taken(const struct sim_cpu *s, unsigned k)
{
	return arch_pmc3_taken(s, k, arch_cfg_of(s)->tfa);
}

/* What CPUID.0AH lists: on a hybrid part what both core types share. */
static unsigned leaf0a_gp(const struct sim_cpu *s)
{
	return arch_cfg_of(s)->shared_gp ? arch_cfg_of(s)->shared_gp : n_legacy(s);
}

static unsigned leaf0a_fixed(const struct sim_cpu *s)
{
	return arch_cfg_of(s)->shared_fixed ? arch_cfg_of(s)->shared_fixed
					    : arch_cfg_of(s)->n_fixed;
}

void arch_sim_reset(struct sim_cpu *s)
{
	const struct arch_cfg *c = arch_cfg_of(s);
	uint32_t ecx1 = c->leaf1_ecx;

	sim_vendor(s, c->max_leaf, "GenuineIntel");
	if (c->perf_caps)
		ecx1 |= CPUID1_ECX_PDCM;
	if (c->x2apic)
		ecx1 |= CPUID1_ECX_X2APIC;
	sim_set_cpuid(s, 1, 0, sim_fms(c->family, c->model, c->stepping),
		      0x00010800u | s->apic_id << 24, ecx1, c->leaf1_edx);
	/* CPUID.0AH (SDM Vol. 3B 20.2.1): EAX version | GP count | GP width | mask
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
	const struct arch_cfg *c = arch_cfg_of(s);
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

int arch_sim_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	const struct arch_cfg *c = arch_cfg_of(s);
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
 * acknowledge registers (SDM Vol. 3B 20.2.2). */
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
		if (arch_cfg_of(s)->version < 4)
			return HW_FAULT_GP;
		if (!sim_has_fault(s, SF_NO_OVERFLOW_STATUS))
			s->reg[REG_GLOBAL_STATUS] |= v & status_bits(s);
		return HW_OK;
	default:
		return HW_FAULT_GP;
	}
}

int arch_sim_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	const struct arch_cfg *c = arch_cfg_of(s);
	int k;

	if (faulted(s, msr))
		return HW_FAULT_GP;
	k = ctr_of(s, msr);
	if (k >= 0) {
		uint64_t w = v;
		/* 0xC1+i keeps bits 31:0 and sign-extends bit 31; the 0x4C1+i
		 * alias and the fixed counters take the full width (SDM Vol. 3B 20.2.6;
		 * kvm-unit-tests x86/pmu.c). */
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

int arch_sim_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	const struct arch_cfg *c = arch_cfg_of(s);
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

uint64_t arch_sim_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
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
		return sim_filter(s, v, arch_cfg_of(s)->rtm ? arch_tx_rate(s, sel, n, v) : n,
				  (sel & 0xff) == 0x3c, (unsigned)(sel >> 24) & 0xff,
				  (sel & EVTSEL_INV) != 0, (sel & EVTSEL_EDGE) != 0);
	}
	unsigned f = i - n_gp(s);
	uint64_t field = (s->reg[REG_FIXED_CTRL] >> (4 * f)) & 0xf;
	/* a fixed counter is enabled by its OS/USR bits (SDM Vol. 3B 20.2.2) */
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

bool arch_sim_overflow(struct sim_cpu *s, unsigned i)
{
	bool pmi = is_gp(s, i) ? (s->reg[REG_EVNTSEL(i)] & EVTSEL_INT) != 0
			       : ((s->reg[REG_FIXED_CTRL] >> (4 * (i - n_gp(s)))) & 0x8) != 0;

	if (globals(s) && !sim_has_fault(s, SF_NO_OVERFLOW_STATUS))
		s->reg[REG_GLOBAL_STATUS] |= gbit(s, i);
	if (pmi) /* the PMI's request freezes where DEBUGCTL asks */
		arch_freeze_on_pmi(s);
	return pmi;
}

/* Overflow bits still set in GLOBAL_STATUS (Linux late_ack, intel_pmu_handle_irq). */
uint64_t arch_sim_pending(struct sim_cpu *s)
{
	return globals(s) ? s->reg[REG_GLOBAL_STATUS] & counter_bits(s) : 0;
}
