/* PMU driver: Intel P6 (Pentium Pro, II, III, Pentium M), SDM Vol. 3B
 * 'Performance Monitoring (P6 Family Processor)', Linux
 * arch/x86/events/intel/p6.c.
 * Two 40-bit counters whose writes keep only 32 bits and sign-extend bit 31,
 * a single enable bit (EVNTSEL0.EN gates both counters), no global control
 * and no overflow status: an overflow is a preloaded counter whose top bit
 * has gone clear (Linux x86_pmu_handle_irq). */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "msr.h"
#include "pmu.h"

#define P6_NCTR		2   /* SDM Vol. 3B P6 section */
#define P6_CTR_MASK	0x3 /* both counters */
#define P6_WIDTH	40
#define P6_FAMILY	6
#define P6_MODEL_BANIAS 9 /* the Pentium M models (Linux p6_pmu_init) */
#define P6_MODEL_DOTHAN 13
/* L2_RQSTS with an empty MESI umask counts nothing; Linux stops a single
 * counter by programming it, because EN cannot be cleared per counter
 * (Linux p6_pmu_disable_event, P6_NOP_EVENT). */
#define P6_NOP_EVENT 0x2eull
/* EVNTSEL bits that hold written values: 31:0 less reserved bit 21, and
 * less EN in EVNTSEL1 (SDM Vol. 3B P6 'PerfEvtSel0 and PerfEvtSel1 MSRs'). */
#define P6_EVNTSEL0_RW (EVTSEL_LOW32 & ~EVTSEL_ANY)
#define P6_EVNTSEL1_RW (P6_EVNTSEL0_RW & ~EVTSEL_EN)

/* drv[0], drv[1]: the programmed event select of each counter, EN clear. */
#define SHADOW(p, i) ((p)->drv[(i)])

static bool is_pentium_m(const struct pmu *p)
{
	return p->cpu && p->cpu->family == P6_FAMILY &&
	       (p->cpu->model == P6_MODEL_BANIAS || p->cpu->model == P6_MODEL_DOTHAN);
}

static int init(struct pmu *p)
{
	p->n_gp = P6_NCTR;
	p->n_fixed = 0;
	p->version = 0;
	/* Only 32 bits are writable, bits 39:32 follow bit 31 (SDM Vol. 3B P6
	 * 'PerfCtr0 and PerfCtr1 MSRs'). */
	for (unsigned i = 0; i < p->n_gp; i++)
		pmu_p6_counter(&p->ctr[i], i, P6_WIDTH);
	p->n = p->n_gp;
	p->caps = PMU_CAP_SIGN_OVERFLOW | PMU_CAP_SINGLE_ENABLE | PMU_CAP_EDGE_INV_CMASK;
	p->cmask_max = 255; /* CMASK 31:24 (SDM Vol. 3B P6 section) */
	p->ctl_enable = EVTSEL_EN;
	/* Pentium M needs LVTPC re-unmasked after each PMI; other P6 parts do
	 * not mask it (Linux perfctr-watchdog.c p6_rearm). pmi_collect stops counting first, so
	 * the unmask can wait until the overflows are collected: an overflow in
	 * between cannot raise a second PMI for what this one collects. */
	p->pmi_flags = is_pentium_m(p) ? PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE : 0;
	return HW_OK;
}

/* Writes both event selects from the shadow and the active set: an active
 * counter gets its event, an inactive one the NOP event while the other
 * counts (so that the shared EN does not start it), and EVNTSEL0 carries EN
 * whenever any counter is active. EVNTSEL0 is written last when EN is set
 * and first when it is clear, so that counting starts and stops at that one
 * write whatever EVNTSEL1 held before (else the code between the two
 * writes is counted or not depending on it). */
static int sync(struct pmu *p)
{
	bool en = (p->active & P6_CTR_MASK) != 0;
	int st;

	for (unsigned k = 0; k < p->n_gp; k++) {
		unsigned i = en ? p->n_gp - 1 - k : k;
		uint64_t v = SHADOW(p, i);
		if (en && !(p->active & (1ull << i)))
			v = P6_NOP_EVENT;
		if (i == 0 && en)
			v |= EVTSEL_EN;
		st = hw_wrmsr(p->ctr[i].ctl_msr, v);
		if (st != HW_OK)
			return st;
	}
	return HW_OK;
}

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	if (!pmu_event_allowed(p, ctr, ev) || ev->fixed_only || ev->code > EVTSEL_EVENT_MAX)
		return HW_REFUSED;
	SHADOW(p, ctr) = pmu_evtsel(ev, flags);
	p->active &= ~(1ull << ctr);
	if (!(p->active & P6_CTR_MASK)) /* nothing counts: write the event itself, EN clear */
		return hw_wrmsr(p->ctr[ctr].ctl_msr, SHADOW(p, ctr));
	return sync(p);
}

static uint64_t sext32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	const struct pmu_counter *c;
	uint64_t held;
	int st;

	if (!pmu_has_ctr(p, ctr))
		return HW_REFUSED;
	c = &p->ctr[ctr];
	/* P6 has no full-width path: only the low 32 bits are written, with
	 * the high word 0 as Linux writes it (perfctr-watchdog.c). */
	if (path == PMU_WRITE_FULL)
		return HW_UNSUPPORTED;
	st = hw_wrmsr(c->ctr_msr, val & pmu_width_mask(PMC_WRITE_BITS));
	if (st != HW_OK)
		return st;
	held = sext32(val) & pmu_width_mask(c->width);
	pmu_track_armed(p, ctr, held);
	return HW_OK;
}

static int start(struct pmu *p, uint64_t mask)
{
	p->active |= mask & pmu_all_mask(p);
	return sync(p);
}

static int stop(struct pmu *p, uint64_t mask)
{
	int st;

	p->active &= ~mask;
	if (p->active & P6_CTR_MASK)
		return sync(p); /* the stopped counter gets the NOP event */
	/* Nothing left: clear EN (disable_all) and park the stopped ones on
	 * the NOP event as the per-counter disable does (Linux p6_pmu_disable_event). */
	for (unsigned i = 0; i < p->n_gp; i++) {
		st =
		    hw_wrmsr(p->ctr[i].ctl_msr, (mask & (1ull << i)) ? P6_NOP_EVENT : SHADOW(p, i));
		if (st != HW_OK)
			return st;
	}
	return HW_OK;
}

/* Armed counters whose top implemented bit is clear (Linux x86_pmu_handle_irq). */
static int overflow_status(struct pmu *p, uint64_t *mask)
{
	*mask = 0;
	return pmu_sign_overflow(p, mask);
}

/* No status register: collecting an overflow disarms the counter until the
 * next preload sets its top bit again. */
static int ack(struct pmu *p, uint64_t mask)
{
	p->armed &= ~mask;
	return HW_OK;
}

static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	int st;

	*mask = 0;
	/* Stop counting: EN lives in EVNTSEL0 only (Linux p6_pmu_disable_all).
	 * p->active is
	 * kept so that start(p->active) resumes. */
	/* counter 1 alone active: counter 0 stays on the NOP event */
	bool park0 = (p->active & P6_CTR_MASK) && !(p->active & 1);
	st = hw_wrmsr(p->ctr[0].ctl_msr, park0 ? P6_NOP_EVENT : SHADOW(p, 0));
	if (st != HW_OK)
		return st;
	st = overflow_status(p, mask);
	if (st != HW_OK)
		return st;
	return ack(p, *mask);
}

static int reset(struct pmu *p)
{
	p->active = 0;
	p->armed = 0;
	for (unsigned i = 0; i < p->n_gp; i++)
		SHADOW(p, i) = 0;
	return pmu_zero_gp(p);
}

static size_t msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < p->n_gp && n + 2 <= max; i++) {
		char name[24];
		/* Counters: 32 written bits, the rest is bit 31's extension. */
		pmh_fmt(name, sizeof(name), "PERFCTR%u", i);
		pmu_msr_desc(&out[n++], p->ctr[i].ctr_msr, name, PMU_MSR_RW,
			     pmu_width_mask(PMC_WRITE_BITS));
		/* Event selects: bit 21 reserved; EN exists in EVNTSEL0 only. */
		pmh_fmt(name, sizeof(name), "EVNTSEL%u", i);
		pmu_msr_desc(&out[n++], p->ctr[i].ctl_msr, name, PMU_MSR_RW,
			     i == 0 ? P6_EVNTSEL0_RW : P6_EVNTSEL1_RW);
	}
	return n;
}

/* Linux p6_perfmon_event_map; no reference-cycles event on P6. */
static int generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	static const struct pmu_gen_map map[GEN_COUNT] = {
	    [GEN_CYCLES] = {0x0079, "CPU_CLK_UNHALTED"},
	    [GEN_INSTRUCTIONS] = {0x00c0, "INST_RETIRED"},
	    [GEN_BRANCHES] = {0x00c4, "BR_INST_RETIRED"},
	    [GEN_BRANCH_MISSES] = {0x00c5, "BR_MISS_PRED_RETIRED"},
	    [GEN_CACHE_REFS] = {0x0f2e, "L2_RQSTS.MESI"},
	    [GEN_CACHE_MISSES] = {0x012e, "L2_RQSTS.I"},
	};
	return pmu_generic_from_map(p, map, g, ctr, out);
}

const struct pmu_ops pmu_intel_p6_ops = {
    PMU_DRIVER_OPS("intel-p6", PMU_DRV_INTEL_P6),
    /* rr does not run on P6; on its successor Merom rr (src/PerfCounters.cc
     * skid_size) has not seen a PMI come more than 100 conditional branches
     * after its overflow, 300 instructions of the skid check's loop. P6 is
     * held to intel-arch's 1000 (ours: ten times rr's 100). */
    .skid_limit = 1000,
    .msrs = msrs,
    .generic_event = generic_event,
};
