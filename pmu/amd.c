/* PMU driver: AMD, K7 and later (AMD APM Vol. 2 #24593 §13.2; Linux
 * arch/x86/events/amd/core.c; K8 BKDG #26094 §10.1-10.2; AMD #22007
 * Athlon x86 Code Optimization guide, PerfEvtSel). One driver serves both
 * register layouts by base and stride, as Linux's amd_pmu_addr_offset():
 *  - "amd-legacy", K7 to Fam16h without the core extension: four counters,
 *    PERF_CTL i at C001_0000+i and PERF_CTR i at C001_0004+i;
 *  - "amd-core", the core performance counter extension (CPUID 8000_0001h
 *    ECX[23], Fam15h on): six, PERF_CTL i at C001_0200+2i and PERF_CTR i at
 *    C001_0201+2i. With PerfMonV2 (8000_0022h EAX[0]) the count comes from
 *    8000_0022h EBX[3:0] and the global MSRs exist: GlobalStatus
 *    (read-only), GlobalCtl and GlobalStatusClr (write 1 to clear).
 * Counters are 48 bits with a per-counter EN bit. Without PerfMonV2 there
 * is no global control and no overflow status: software sees an overflow as
 * bit 47 clear on a counter it preloaded with bit 47 set (p->armed). */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "cpuid.h"
#include "msr.h"
#include "pmu.h"
#include "amd_f15h.h"

#define AMD_WIDTH	48    /* every AMD counter (APM Vol. 2 §13.2) */
#define AMD_EVENT_MAX	0xfff /* 12-bit event select: bits 7:0 and 35:32 (APM Vol. 2 §13.2) */
#define AMD_WIDE_FAMILY 0x10  /* event[11:8] exists from Fam10h (BKDG Fam10h #31116) */
#define AMD_ZEN_FAMILY	0x17  /* the Fam17h+ event map (Linux amd_zen1_perfmon_event_map) */
/* PERF_CTL bits that hold written values: 31:0 less reserved bit 21 (K8 BKDG
 * §10.2), event[11:8] at 35:32 and GuestOnly/HostOnly at 41:40 (APM Vol. 2 §13.2). */
#define CTL_RW_LOW     (EVTSEL_LOW32 & ~EVTSEL_ANY)
#define CTL_EVENT_HI   0xf00000000ull
#define CTL_GUEST_HOST 0x30000000000ull
/* GlobalStatus bit 58: LBR stack frozen (Linux amd/core.c amd_pmu_v2_handle_irq). */
#define V2_LBR_FROZEN (1ull << 58)
/* RDPMC 6-9 read the northbridge / data fabric counters, 10-15 the L3
 * counters, where CPUID reports them (AMD APM Vol. 3 RDPMC). */
#define RDPMC_PAST_NB  10
#define RDPMC_PAST_LLC 16

/* What differs between the two register layouts. */
struct amd_layout {
	uint32_t ctl0, ctr0; /* PERF_CTL0, PERF_CTR0 */
	uint8_t stride;	     /* MSR distance from counter i to counter i+1 */
	uint8_t n;	     /* counters (PerfMonV2 may report another count) */
	uint8_t cmask_max;   /* largest CNT_MASK the documents allow */
	bool pin_control;    /* PERF_CTL bit 19 is the PC field */
};

/* K8 BKDG §10.2: CNT_MASK 1-3 (at most 3 events a cycle), 4-255 reserved;
 * the K7 guide gives no range, and K8's fits it. PC is a field on K7 and
 * K8 (K7 guide, K8 BKDG §10.2). */
static const struct amd_layout layout_legacy = {
    .ctl0 = MSR_K7_EVNTSEL0,
    .ctr0 = MSR_K7_PERFCTR0,
    .stride = 1,
    .n = 4,
    .cmask_max = 3,
    .pin_control = true,
};
/* CntMask is 8 bits (APM Vol. 2 §13.2); the reserved range after K8 is not in our
 * documents: 15 is above any core's events per cycle. Bit 19 has no field
 * on the extension's cores (APM Vol. 2 §13.2). */
static const struct amd_layout layout_core = {
    .ctl0 = MSR_F15H_PERF_CTL0,
    .ctr0 = MSR_F15H_PERF_CTR0,
    .stride = 2,
    .n = 6,
    .cmask_max = 15,
    .pin_control = false,
};

/* The layout of the ops table the harness chose (cpu_select_driver). */
static const struct amd_layout *layout(const struct pmu *p)
{
	return p->ops == &pmu_amd_core_ops ? &layout_core : &layout_legacy;
}

static bool v2(const struct pmu *p)
{
	return (p->caps & PMU_CAP_PERFMON_V2) != 0;
}

/* Event select bits 35:32 hold event[11:8] from Fam10h on (APM Vol. 2 §13.2); the K7
 * and K8 select is 8 bits wide (K8 BKDG §10.2 EVENT_SELECT bits 7-0). Every
 * core-extension part is Fam15h or later. */
static bool wide_events(const struct pmu *p)
{
	return layout(p) == &layout_core || (p->cpu && p->cpu->family >= AMD_WIDE_FAMILY);
}

/* PerfMonV2: the counter count of 8000_0022h EBX[3:0] and the globals. */
static void init_v2(struct pmu *p, const struct cpu_ids *ids)
{
	unsigned n = CPUID_AMD_PERFMON_EBX_CORE_PMCS(ids->ext22.ebx);

	/* A zero count would leave no counters: keep the extension's six. */
	if (n)
		p->n_gp = n;
	p->version = 2;
	p->caps |= PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG | PMU_CAP_PERFMON_V2;
	p->global_status_msr = MSR_AMD_GLOBAL_STATUS;
	p->global_ctrl_msr = MSR_AMD_GLOBAL_CTL;
	p->global_ovf_msr = MSR_AMD_GLOBAL_STATUS_CLR;
}

/* With the core extension the legacy PerfEvtSel0-3 (C001_0000h-3h) and
 * PerfCtr0-3 (C001_0004h-7h) stay, as aliases of PERF_CTL0-3 / PERF_CTR0-3:
 * one register behind both addresses (AMD APM Vol. 2 §13.2, "Performance
 * Counters"; BKDG for Fam15h #42301 §2.7, MSRC001_00[07:00]). KVM keeps it
 * for its guests: get_gp_pmc_amd maps C001_0000h+i and C001_0200h+2i to
 * one counter (Linux arch/x86/kvm/svm/pmu.c). */
static void legacy_view(struct pmu *p)
{
	p->legacy_ctl_msr = MSR_K7_EVNTSEL0;
	p->legacy_ctr_msr = MSR_K7_PERFCTR0;
	p->n_legacy = layout_legacy.n < p->n_gp ? layout_legacy.n : p->n_gp;
}

static int init(struct pmu *p)
{
	const struct amd_layout *l = layout(p);
	const struct cpu_ids *ids = p->cpu ? &p->cpu->ids : 0;

	p->n_gp = l->n;
	p->n_fixed = 0;
	p->version = 0;
	p->caps = PMU_CAP_EDGE_INV_CMASK;
	p->cmask_max = l->cmask_max;
	p->ctl_enable = EVTSEL_EN;
	if (l == &layout_core && ids && ids->max_ext_leaf >= CPUID_LEAF_AMD_PERFMON &&
	    (ids->ext22.eax & CPUID_AMD_PERFMON_EAX_V2))
		init_v2(p, ids);
	else
		p->caps |= PMU_CAP_SIGN_OVERFLOW;
	/* Writes keep all 48 bits: Linux writes (-left) & cntval_mask (facts
	 * §2), so a preload can use the full width. */
	for (unsigned i = 0; i < p->n_gp; i++)
		pmu_gp_counter(&p->ctr[i], i, AMD_WIDTH, l->ctl0 + l->stride * i,
			       l->ctr0 + l->stride * i);
	p->n = p->n_gp;
	if (l == &layout_core)
		legacy_view(p);
	/* The first RDPMC index with no counter behind it is past the
	 * northbridge and L3 counters where CPUID reports them. */
	if (ids && (ids->ext1.ecx & CPUID_AMD_ECX_PERFCTR_NB))
		p->rdpmc_bad = RDPMC_PAST_NB;
	if (ids && (ids->ext1.ecx & CPUID_AMD_ECX_PERFCTR_LLC))
		p->rdpmc_bad = RDPMC_PAST_LLC;
	/* The AMD local APIC does not mask LVTPC on delivery (Linux amd_pmu_v2_handle_irq); a
	 * late PMI for an overflow already handled is documented (NMI
	 * latency, Linux amd_pmu_adjust_nmi_window). */
	p->pmi_flags = PMU_PMI_LATE_ECHO;
	return HW_OK;
}

/* Whether counter ctr may count ev: Family 15h restricts most events to
 * some of its six counters (amd_f15h.c); elsewhere any. */
static bool unit_allows(const struct pmu *p, unsigned ctr, uint16_t code, uint8_t umask)
{
	if (!p->cpu || p->cpu->family != AMD_F15H_FAMILY || p->ops->id != PMU_DRV_AMD_CORE)
		return true;
	return (amd_f15h_counters(code, umask) >> ctr & 1) != 0;
}

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	if (!pmu_event_allowed(p, ctr, ev) || ev->fixed_only || ev->code > AMD_EVENT_MAX ||
	    !unit_allows(p, ctr, ev->code, ev->umask))
		return HW_REFUSED;
	if (ev->code > EVTSEL_EVENT_MAX && !wide_events(p))
		return HW_REFUSED;
	/* Written with EN clear: K8 BKDG §10.2 asks to change the event with
	 * the counter disabled and enable it with a second write (start). PC
	 * (bit 19) toggles an external pin: never set. */
	p->active &= ~(1ull << ctr);
	return hw_wrmsr(p->ctr[ctr].ctl_msr, pmu_evtsel(ev, flags));
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	int st;

	(void)path; /* one full-width counter MSR for every path (APM Vol. 2 §13.2) */
	if (!pmu_has_ctr(p, ctr))
		return HW_REFUSED;
	val &= pmu_width_mask(AMD_WIDTH);
	st = hw_wrmsr(p->ctr[ctr].ctr_msr, val);
	if (st != HW_OK)
		return st;
	/* Only a counter written with bit 47 set can later show an overflow
	 * as bit 47 clear (Linux x86_pmu_handle_irq). */
	pmu_track_armed(p, ctr, val);
	return HW_OK;
}

/* PerfMonV2 GlobalCtl bits of the counters in mask on or off. */
static int set_global(struct pmu *p, uint64_t mask, bool on)
{
	uint64_t g;
	int st;

	if (!v2(p))
		return HW_OK;
	st = hw_rdmsr(MSR_AMD_GLOBAL_CTL, &g);
	if (st != HW_OK)
		return st;
	g = on ? g | mask : g & ~mask;
	return hw_wrmsr(MSR_AMD_GLOBAL_CTL, g & pmu_all_mask(p));
}

/* Linux sets both the counter's EN and, with PerfMonV2, its GlobalCtl bit
 * (Linux amd_pmu_enable_event, amd_pmu_v2_enable_all). */
static int start(struct pmu *p, uint64_t mask)
{
	int st, st2;

	mask &= pmu_all_mask(p);
	p->active |= mask;
	st = pmu_evtsel_enable(p, mask, true);
	st2 = set_global(p, mask, true);
	return st != HW_OK ? st : st2;
}

static int stop(struct pmu *p, uint64_t mask)
{
	int st, st2;

	mask &= pmu_all_mask(p);
	p->active &= ~mask;
	st2 = set_global(p, mask, false);
	st = pmu_evtsel_enable(p, mask, false);
	return st2 != HW_OK ? st2 : st;
}

/* GlobalStatus with PerfMonV2, else the sign rule on armed counters. */
static int overflow_status(struct pmu *p, uint64_t *mask)
{
	uint64_t s;
	int st;

	*mask = 0;
	if (!v2(p))
		return pmu_sign_overflow(p, mask);
	st = hw_rdmsr(MSR_AMD_GLOBAL_STATUS, &s);
	*mask = s & pmu_all_mask(p);
	return st;
}

/* Disarms the counters; with PerfMonV2 also clears their status bits. */
static int ack(struct pmu *p, uint64_t mask)
{
	mask &= pmu_all_mask(p);
	p->armed &= ~mask;
	if (!v2(p))
		return HW_OK;
	return hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, mask);
}

/* PerfMonV2 handler order (Linux amd_pmu_v2_handle_irq): GlobalCtl = 0, read GlobalStatus,
 * clear what was read through GlobalStatusClr, re-read until it reads 0.
 * The set to restart stays in p->active. */
static int collect_v2(struct pmu *p, uint64_t *mask)
{
	uint64_t s;
	int st = pmu_status_collect(p, ~0ull, &s);

	*mask = s & pmu_all_mask(p);
	p->armed &= ~s;
	return st;
}

/* Without PerfMonV2 the generic handler (Linux x86_pmu_handle_irq): the counters are
 * stopped (EN clear, the set to restart stays in p->active), each armed
 * counter whose bit 47 is clear is collected and disarmed. */
static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	int st, st2;

	*mask = 0;
	if (v2(p))
		return collect_v2(p, mask);
	st = pmu_evtsel_enable(p, (p->armed | p->active) & pmu_all_mask(p), false);
	st2 = pmu_sign_overflow(p, mask);
	p->armed &= ~*mask;
	return st != HW_OK ? st : st2;
}

static int reset(struct pmu *p)
{
	int ret = HW_OK, st;

	if (v2(p)) {
		/* What Linux writes on CPU online (Linux amd_pmu_cpu_reset). */
		ret = hw_wrmsr(MSR_AMD_GLOBAL_CTL, 0);
		st = hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, pmu_all_mask(p) | V2_LBR_FROZEN);
		if (ret == HW_OK)
			ret = st;
	}
	st = pmu_zero_gp(p);
	p->active = 0;
	p->armed = 0;
	return ret != HW_OK ? ret : st;
}

/* PERF_CTL bits that hold what is written. A KVM guest has 63:36 reserved
 * and no GuestOnly/HostOnly, through the extension's MSRs and the legacy
 * ones alike (L:arch/x86/kvm/svm/pmu.c amd_pmu_refresh: one reserved_bits
 * for every counter). */
static uint64_t ctl_rw(const struct pmu *p)
{
	uint64_t m = CTL_RW_LOW & ~(layout(p)->pin_control ? 0 : EVTSEL_PC);

	if (!wide_events(p))
		return m;
	m |= CTL_EVENT_HI;
	if (!(p->cpu && p->cpu->hypervisor))
		m |= CTL_GUEST_HOST;
	return m;
}

/* The counters' PERF_CTL and PERF_CTR registers in address order, then the
 * PerfMonV2 globals. */
static size_t msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	const struct amd_layout *l = layout(p);
	char name[24];
	size_t n = 0;

	/* One block of 2n MSRs from PERF_CTL0: the legacy block holds the four
	 * controls, then the four counters; the extension alternates them. */
	for (unsigned k = 0; k < 2 * p->n && n < max; k++) {
		bool ctl = l->stride == 1 ? k < p->n : k % 2 == 0;
		unsigned i = l->stride == 1 ? k % p->n : k / 2;
		if (ctl) {
			pmh_fmt(name, sizeof(name), "PERF_CTL%u", i);
			pmu_msr_desc(&out[n++], p->ctr[i].ctl_msr, name, PMU_MSR_RW, ctl_rw(p));
		} else {
			pmh_fmt(name, sizeof(name), "PERF_CTR%u", i);
			pmu_msr_desc(&out[n++], p->ctr[i].ctr_msr, name, PMU_MSR_RW,
				     pmu_width_mask(AMD_WIDTH));
		}
	}
	if (v2(p) && n + 3 <= max) {
		pmu_msr_desc(&out[n++], MSR_AMD_GLOBAL_STATUS, "GlobalStatus", PMU_MSR_RO, 0);
		pmu_msr_desc(&out[n++], MSR_AMD_GLOBAL_CTL, "GlobalCtl", PMU_MSR_RW,
			     pmu_all_mask(p));
		pmu_msr_desc(&out[n++], MSR_AMD_GLOBAL_STATUS_CLR, "GlobalStatusClr", PMU_MSR_WO,
			     0);
	}
	return n;
}

/* Linux arch/x86/events/amd/core.c amd_perfmon_event_map and
 * amd_zen1_perfmon_event_map, by family whatever the layout (Linux's config:
 * umask << 8 | event); ref-cycles has no AMD encoding. */
static const struct pmu_gen_map map_k7[GEN_COUNT] = {
    [GEN_CYCLES] = {0x0076, "cpu-clocks-not-halted"},
    [GEN_INSTRUCTIONS] = {0x00c0, "retired-instructions"},
    [GEN_BRANCHES] = {0x00c2, "retired-branches"},
    [GEN_BRANCH_MISSES] = {0x00c3, "retired-mispredicted-branches"},
    [GEN_CACHE_REFS] = {0x077d, "l2-requests"},
    [GEN_CACHE_MISSES] = {0x077e, "l2-misses"},
};

static const struct pmu_gen_map map_f17[GEN_COUNT] = {
    [GEN_CYCLES] = {0x0076, "cycles-not-in-halt"},
    [GEN_INSTRUCTIONS] = {0x00c0, "ex_ret_instr"},
    [GEN_BRANCHES] = {0x00c2, "ex_ret_brn"},
    [GEN_BRANCH_MISSES] = {0x00c3, "ex_ret_brn_misp"},
    [GEN_CACHE_REFS] = {0xff60, "l2-cache-accesses"},
    [GEN_CACHE_MISSES] = {0x0964, "l2-cache-misses"},
};

static int generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	bool zen = p->cpu && p->cpu->family >= AMD_ZEN_FAMILY;
	int st = pmu_generic_from_map(p, zen ? map_f17 : map_k7, g, ctr, out);
	if (st == HW_OK && !unit_allows(p, ctr, out->code, out->umask))
		return HW_REFUSED; /* Family 15h: another counter takes it */
	return st;
}

/* Hundreds to thousands: the counter runs on until the late NMI (Linux
 * arch/x86/events/amd/core.c amd_pmu_wait_on_overflow waits up to 50 us).
 * rr (src/PerfCounters.cc skid_size) allows 10,000 conditional branches on
 * Zen, and marks even that as exceeded in rare cases; 30,000 instructions
 * of the skid check's loop (a branch in three). Family 15h's 250 taken
 * branches are far below; rr does not run on K7 or K8 (ours: the same). */
#define AMD_SKID_LIMIT 30000

const struct pmu_ops pmu_amd_legacy_ops = {
    PMU_DRIVER_OPS("amd-legacy", PMU_DRV_AMD_LEGACY),
    .skid_limit = AMD_SKID_LIMIT,
    .msrs = msrs,
    .generic_event = generic_event,
};

const struct pmu_ops pmu_amd_core_ops = {
    PMU_DRIVER_OPS("amd-core", PMU_DRV_AMD_CORE),
    .skid_limit = AMD_SKID_LIMIT,
    .msrs = msrs,
    .generic_event = generic_event,
};
