/* PMU driver: AMD K7 to Fam16h without the core extension (facts §2, §7, §9;
 * K8 BKDG §10.1-10.2; Athlon x86 Code Optimization guide, PerfEvtSel).
 * Four 48-bit counters, a per-counter EN bit, no global control and no
 * overflow status register: software sees an overflow as bit 47 clear on a
 * counter it preloaded with bit 47 set (p->armed). */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "msr.h"
#include "pmu.h"

#define LEG_N 4
#define LEG_WIDTH 48
/* Flags the event select accepts: USR, OS, E, INT, INV, CNT_MASK (K8 BKDG
 * §10.2). PC (bit 19) toggles an external pin and is never set here. */
#define LEG_FLAGS (PMU_F_USR | PMU_F_OS | PMU_F_EDGE | PMU_F_INT | PMU_F_INV | PMU_F_CMASK(0xff))

static uint64_t ctr_mask(void) { return pmu_width_mask(LEG_WIDTH); }

static int init(struct pmu *p)
{
	p->n_gp = LEG_N;
	p->n_fixed = 0;
	for (unsigned i = 0; i < p->n_gp; i++) {
		struct pmu_counter *c = &p->ctr[i];
		c->kind = PMU_CTR_GP;
		c->index = (uint8_t)i;
		c->width = LEG_WIDTH;
		/* Writes keep all 48 bits: Linux writes (-left) & cntval_mask
		 * (facts §2), so a preload can use the full width. */
		c->preload_bits = LEG_WIDTH;
		c->sign_extends = false;
		c->ctr_msr = MSR_K7_PERFCTR0 + i;
		c->ctl_msr = MSR_K7_EVNTSEL0 + i;
		c->full_msr = 0;
		c->rdpmc = i;
		pmh_fmt(c->name, sizeof(c->name), "gp%u", i);
	}
	p->n = p->n_gp;
	p->version = 0;
	p->caps = PMU_CAP_SIGN_OVERFLOW | PMU_CAP_EDGE_INV_CMASK;
	/* K8 BKDG §10.2 CNT_MASK: 1-3 (at most 3 events a cycle), 4-255
	 * reserved; the K7 guide gives no range, and K8's fits it. */
	p->cmask_max = 3;
	/* The AMD local APIC does not mask LVTPC on delivery (facts §8); a
	 * late PMI for an overflow already handled is documented (facts §9). */
	p->pmi_flags = PMU_PMI_LATE_ECHO;
	return 0;
}

static bool valid(const struct pmu *p, unsigned ctr) { return ctr < p->n; }

/* Event select bits 35:32 hold event[11:8] from Fam10h on (facts §1); the K7
 * and K8 select is 8 bits wide (K8 BKDG §10.2 EVENT_SELECT bits 7-0). */
static bool wide_events(const struct pmu *p) { return p->cpu && p->cpu->family >= 0x10; }

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	uint64_t sel;

	if (!valid(p, ctr) || !ev || ev->fixed_only || ev->code > 0xfff)
		return -1;
	if (ev->counters && !(ev->counters & (1ull << ctr)))
		return -1;
	if (ev->code > 0xff && !wide_events(p))
		return -1;
	sel = (uint64_t)(ev->code & 0xff) | ((uint64_t)(ev->code >> 8) << 32) |
	      ((uint64_t)ev->umask << 8) | (flags & LEG_FLAGS);
	/* Written with EN clear: K8 BKDG §10.2 asks to change the event with
	 * the counter disabled and enable it with a second write (start). */
	p->active &= ~(1ull << ctr);
	return hw_wrmsr(p->ctr[ctr].ctl_msr, sel);
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	int st;

	(void)path; /* one MSR, full width, for every path (facts §2) */
	if (!valid(p, ctr))
		return -1;
	val &= ctr_mask();
	st = hw_wrmsr(p->ctr[ctr].ctr_msr, val);
	if (st != HW_OK)
		return st;
	/* Only a counter written with bit 47 set can later show an overflow
	 * as bit 47 clear (facts §7). */
	pmu_track_armed(p, ctr, val);
	return HW_OK;
}

static int read(struct pmu *p, unsigned ctr, uint64_t *val)
{
	*val = 0;
	if (!valid(p, ctr))
		return -1;
	return hw_rdmsr(p->ctr[ctr].ctr_msr, val);
}

static int set_enable(struct pmu *p, uint64_t mask, bool on)
{
	int ret = HW_OK;

	for (unsigned i = 0; i < p->n; i++) {
		uint64_t sel;
		int st;
		if (!(mask & (1ull << i)))
			continue;
		st = hw_rdmsr(p->ctr[i].ctl_msr, &sel);
		if (st == HW_OK)
			st = hw_wrmsr(p->ctr[i].ctl_msr, on ? sel | EVTSEL_EN : sel & ~EVTSEL_EN);
		if (st != HW_OK && ret == HW_OK)
			ret = st;
	}
	return ret;
}

static int start(struct pmu *p, uint64_t mask)
{
	mask &= pmu_all_mask(p);
	p->active |= mask;
	return set_enable(p, mask, true);
}

static int stop(struct pmu *p, uint64_t mask)
{
	mask &= pmu_all_mask(p);
	p->active &= ~mask;
	return set_enable(p, mask, false);
}

static int overflow_status(struct pmu *p, uint64_t *mask)
{
	*mask = 0;
	return pmu_sign_overflow(p, mask);
}

/* Nothing to clear in hardware: acknowledging disarms the counter until the
 * next preload with bit 47 set. */
static int ack(struct pmu *p, uint64_t mask)
{
	p->armed &= ~mask;
	return HW_OK;
}

/* Generic handler order (facts §9): the counters are stopped (EN clear, the
 * set to restart stays in p->active), each armed counter whose bit 47 is
 * clear is collected and disarmed. */
static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	int st = set_enable(p, (p->armed | p->active) & pmu_all_mask(p), false);
	int st2 = overflow_status(p, mask);

	p->armed &= ~*mask;
	return st != HW_OK ? st : st2;
}

static int reset(struct pmu *p)
{
	int ret = HW_OK;

	for (unsigned i = 0; i < p->n; i++) {
		int st = hw_wrmsr(p->ctr[i].ctl_msr, 0);
		int st2 = hw_wrmsr(p->ctr[i].ctr_msr, 0);
		if (ret == HW_OK)
			ret = st != HW_OK ? st : st2;
	}
	p->active = 0;
	p->armed = 0;
	return ret;
}

static size_t msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	/* PerfEvtSel: bit 21 is reserved on K7 and K8 (BKDG §10.2); Fam10h adds
	 * event[11:8] at 35:32 and Guest/HostOnly at 41:40 (facts §1). */
	uint64_t sel_mask = wide_events(p) ? 0x30fffdfffffull : 0xffdfffffull;
	size_t n = 0;

	for (unsigned i = 0; i < p->n && n < max; i++) {
		out[n] = (struct pmu_msr_desc){
		    .addr = p->ctr[i].ctl_msr, .access = PMU_MSR_RW, .rw_mask = sel_mask};
		pmh_fmt(out[n].name, sizeof(out[n].name), "PERF_CTL%u", i);
		n++;
	}
	for (unsigned i = 0; i < p->n && n < max; i++) {
		out[n] = (struct pmu_msr_desc){
		    .addr = p->ctr[i].ctr_msr, .access = PMU_MSR_RW, .rw_mask = ctr_mask()};
		pmh_fmt(out[n].name, sizeof(out[n].name), "PERF_CTR%u", i);
		n++;
	}
	return n;
}

/* K7-Fam16h event map (facts §7); a code above 0xff carries its unit mask
 * in bits 15:8 the way Linux writes it (0x077d = umask 0x07, event 0x7d). */
static int generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	static const struct {
		uint16_t cfg;
		const char *name;
	} map[GEN_COUNT] = {
	    [GEN_CYCLES] = {0x0076, "cpu-clocks-not-halted"},
	    [GEN_INSTRUCTIONS] = {0x00c0, "retired-instructions"},
	    [GEN_BRANCHES] = {0x00c2, "retired-branches"},
	    [GEN_BRANCH_MISSES] = {0x00c3, "retired-mispredicted-branches"},
	    [GEN_CACHE_REFS] = {0x077d, "l2-requests"},
	    [GEN_CACHE_MISSES] = {0x077e, "l2-misses"},
	};

	if (g >= GEN_COUNT || !map[g].name)
		return HW_UNSUPPORTED; /* ref-cycles: no AMD encoding */
	if (!valid(p, ctr))
		return HW_REFUSED;
	pmh_memset(out, 0, sizeof(*out));
	out->code = map[g].cfg & 0xff;
	out->umask = (uint8_t)(map[g].cfg >> 8);
	pmh_strlcpy(out->name, map[g].name, sizeof(out->name));
	return HW_OK;
}

const struct pmu_ops pmu_amd_legacy_ops = {
    .name = "amd-legacy",
    .id = PMU_DRV_AMD_LEGACY,
    .init = init,
    .program = program,
    .write = write,
    .read = read,
    .start = start,
    .stop = stop,
    .overflow_status = overflow_status,
    .ack = ack,
    .pmi_collect = pmi_collect,
    .reset = reset,
    .msrs = msrs,
    .generic_event = generic_event,
};
