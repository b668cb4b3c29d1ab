/* PMU driver: Intel NetBurst (Pentium 4 / Xeon, family 0xF), SDM Vol. 3B
 * 'Performance Monitoring (Processors Based on Intel NetBurst
 * Microarchitecture)', Linux arch/x86/events/intel/p4.c. 18 counters of 40
 * bits at 0x300+i,
 * each with a CCCR at 0x360+i; the event itself lives in an ESCR that the
 * CCCR's ESCR-select field picks among the ESCRs wired to its counter group.
 * There is no global control and no status MSR: overflow is the sticky
 * CCCR.OVF flag, or counter bit 39 clear on a counter armed with a negative
 * preload (the "unflagged overflow" of Linux p4_pmu_clear_cccr_ovf).
 *
 * Driver-private state: p->drv[0] = counters the last overflow_status or
 * pmi_collect found overflowed without CCCR.OVF (unflagged). */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "cpuid.h"
#include "intel_netburst.h"
#include "msr.h"

#define P4_NCTR	 18
#define P4_WIDTH 40

/* Counter groups (SDM NetBurst 'Performance Counters'): 0-3 BPU, 4-7 MS,
 * 8-11 FLAME, 12-17 IQ. */
static const char *const group_name[4] = {"BPU", "MS", "FLAME", "IQ"};

static const uint8_t group_first[4] = {0, 4, 8, 12};

static unsigned ctr_group(unsigned i)
{
	unsigned g = 3;
	while (i < group_first[g])
		g--;
	return g;
}

/* The harness runs on logical processor 1 of a Hyper-Threading package:
 * CPUID.1 EDX[28] HTT, EBX[23:16] > 1 logical processors and bit 0 of the
 * initial APIC ID EBX[31:24] set (SDM Vol. 3A 8.6, one core per package on
 * NetBurst). The PMU is shared (SDM 'Performance Monitoring and Intel
 * Hyper-Threading Technology ...'; Linux p4_pmu_swap_config_ts): this
 * thread's events are
 * counted through the ESCR T1 bits and interrupt it through OVF_PMI_T1, as
 * Linux swaps them for thread 1 (p4_pmu_swap_config_ts). */
static bool thread1(const struct pmu *p)
{
	const struct cpuid_regs *r = &p->cpu->ids.leaf1;
	return (r->edx & CPUID_1_EDX_HTT) && CPUID_1_EBX_LOGICAL(r->ebx) > 1 &&
	       (CPUID_1_EBX_APIC_ID(r->ebx) & 1);
}

/* Erratum N15: a counter write may not take, so Linux writes twice
 * (p4_pmu_set_period; Pentium 4 specification update #249199 N15); every
 * counter write goes through here. */
static int ctr_write(struct pmu *p, unsigned i, uint64_t val)
{
	int st = hw_wrmsr(p->ctr[i].ctr_msr, val);
	return st == HW_OK ? hw_wrmsr(p->ctr[i].ctr_msr, val) : st;
}

static int init(struct pmu *p)
{
	uint64_t misc = 0;
	int st;

	/* Performance monitoring exists only with IA32_MISC_ENABLE.EMON set
	 * (SDM Vol. 4 Table 2-2; Linux's p4_pmu_init requires it). */
	st = hw_rdmsr(MSR_IA32_MISC_ENABLE, &misc);
	if (st != HW_OK) {
		pmh_fmt(p->reason, sizeof(p->reason), "reading IA32_MISC_ENABLE (0x1a0) raised %s",
			hw_err_name(st));
		return st;
	}
	if (!(misc & MISC_ENABLE_EMON)) {
		pmh_fmt(p->reason, sizeof(p->reason),
			"IA32_MISC_ENABLE (0x1a0) = 0x%llx: bit 7 (EMON, performance monitoring "
			"available) is clear",
			(unsigned long long)misc);
		return HW_UNSUPPORTED;
	}
	p->n_gp = P4_NCTR;
	p->n_fixed = 0;
	p->n = P4_NCTR;
	p->version = 0;
	/* Counter writes set all 40 bits (SDM NetBurst 'Performance
	 * Counters'); named by group. */
	for (unsigned i = 0; i < P4_NCTR; i++) {
		struct pmu_counter *c = &p->ctr[i];
		unsigned g = ctr_group(i);
		pmu_gp_counter(c, i, P4_WIDTH, MSR_P4_CCCR0 + i, MSR_P4_COUNTER0 + i);
		pmh_fmt(c->name, sizeof(c->name), "%s_COUNTER%u", group_name[g],
			i - group_first[g]);
	}
	/* RDPMC ECX[31] reads the low 32 bits, EDX 0: "fast" reads (SDM Vol.
	 * 2B RDPMC, Pentium 4 and Intel Xeon) */
	p->caps = PMU_CAP_STICKY_OVF | PMU_CAP_EDGE_INV_CMASK | PMU_CAP_FAST_RDPMC;
	p->cmask_max = CCCR_THRESHOLD_MAX; /* the CCCR threshold (SDM NetBurst 'CCCR MSRs') */
	p->ctl_enable = CCCR_ENABLE;
	/* LVTPC is masked on delivery and the line stays asserted while OVF is
	 * set: unmask only after OVF is cleared (Linux perfctr-watchdog.c p4_rearm,
	 * p4_pmu_handle_irq). */
	p->pmi_flags = PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE;
	p->global_ctrl_msr = p->global_status_msr = p->global_ovf_msr = 0;
	p->global_status_set_msr = 0;
	/* With Hyper-Threading both logical processors share the ESCRs and
	 * CCCRs, told apart only by their T0/T1 bits (SDM Vol. 3B 18.16,
	 * "Performance Monitoring and Intel Hyper-Threading Technology in
	 * Processors Based on Intel NetBurst Microarchitecture"; Linux
	 * arch/x86/include/asm/perf_event_p4.h) */
	p->smt_shared = (p->cpu->ids.leaf1.edx & CPUID_1_EDX_HTT) &&
			CPUID_1_EBX_LOGICAL(p->cpu->ids.leaf1.ebx) > 1;
	return HW_OK;
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	(void)path; /* every path is the same full 40-bit write */
	if (!pmu_has_ctr(p, ctr))
		return HW_REFUSED;
	val &= pmu_width_mask(P4_WIDTH);
	int st = ctr_write(p, ctr, val);
	if (st != HW_OK)
		return st;
	/* A value with bit 39 set is armed: bit 39 clearing later is an
	 * overflow even when OVF stays clear (Linux p4_pmu_clear_cccr_ovf). */
	pmu_track_armed(p, ctr, val);
	return HW_OK;
}

/* The ESCR value of an event for this thread's OS/USR flags. */
static uint64_t escr_value(const struct pmu *p, const struct pmu_event *ev, uint32_t flags)
{
	uint64_t escr = (uint64_t)ev->code << ESCR_EVENT_SHIFT;

	escr |= (uint64_t)ev->escr_mask << ESCR_MASK_SHIFT;
	if (flags & PMU_F_OS)
		escr |= thread1(p) ? ESCR_T1_OS : ESCR_T0_OS;
	if (flags & PMU_F_USR)
		escr |= thread1(p) ? ESCR_T1_USR : ESCR_T0_USR;
	return escr;
}

/* The CCCR value (ENABLE clear) that selects ESCR e with the flags' filters:
 * threshold and complement through COMPARE, edge, and this thread's PMI. */
static uint64_t cccr_value(const struct pmu *p, const struct escr *e, uint32_t flags)
{
	unsigned thr = PMU_F_CMASK_OF(flags);
	uint64_t cccr = (uint64_t)e->select << CCCR_ESCR_SEL_SHIFT | CCCR_ACTIVE_THREAD_ANY;

	if (thr || (flags & PMU_F_INV))
		cccr |= CCCR_COMPARE | (uint64_t)thr << CCCR_THRESHOLD_SHIFT;
	if (flags & PMU_F_INV)
		cccr |= CCCR_COMPLEMENT;
	if (flags & PMU_F_EDGE)
		cccr |= CCCR_EDGE;
	if (flags & PMU_F_INT)
		cccr |= thread1(p) ? CCCR_OVF_PMI_T1 : CCCR_OVF_PMI_T0;
	return cccr;
}

/* One ESCR serves every counter that selects it: refuse to change the event
 * under another running counter; a stopped one loses its binding. */
static int escr_claim(struct pmu *p, unsigned ctr, const struct escr *e, uint64_t escr)
{
	for (unsigned i = 0; i < p->n; i++) {
		uint64_t cur;
		int st;
		if (i == ctr || p->ctr[i].aux_msr != e->addr)
			continue;
		if (!(p->active >> i & 1)) {
			p->ctr[i].aux_msr = 0;
			continue;
		}
		st = hw_rdmsr(e->addr, &cur);
		if (st != HW_OK)
			return st;
		if (cur != escr)
			return HW_REFUSED;
	}
	return HW_OK;
}

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	const struct escr *e;
	uint64_t escr;
	int st;

	if (!pmu_event_allowed(p, ctr, ev) || ev->fixed_only)
		return HW_REFUSED;
	/* The binding must exist in hardware: the ESCR feeds this counter and
	 * the select value is the one that picks it (SDM NetBurst 'Selecting
	 * Events to Count' and its event tables). */
	e = netburst_escr_find(ev->escr_msr);
	if (!e || !(netburst_escr_counters(e) & (1u << ctr)) || e->select != ev->escr_select)
		return HW_REFUSED;
	if (ev->code > ESCR_EVENT_MAX || ev->escr_mask > ESCR_EMASK_MAX ||
	    PMU_F_CMASK_OF(flags) > CCCR_THRESHOLD_MAX)
		return HW_REFUSED;
	escr = escr_value(p, ev, flags);
	st = escr_claim(p, ctr, e, escr);
	if (st != HW_OK)
		return st;
	/* Stop the counter first, then ESCR before CCCR (Linux p4_pmu_enable_event). */
	st = hw_wrmsr(p->ctr[ctr].ctl_msr, 0);
	if (st == HW_OK)
		st = hw_wrmsr(e->addr, escr);
	if (st == HW_OK)
		st = hw_wrmsr(p->ctr[ctr].ctl_msr, cccr_value(p, e, flags));
	if (st != HW_OK)
		return st;
	p->ctr[ctr].aux_msr = e->addr;
	p->active &= ~(1ull << ctr);
	return HW_OK;
}

/* Rewrites CCCR i with ENABLE set or clear, reserved bits clear and OVF as
 * it is (OVF is cleared only by ack and pmi_collect). */
static int set_enable(struct pmu *p, unsigned i, bool on)
{
	uint64_t cccr;
	int st = hw_rdmsr(p->ctr[i].ctl_msr, &cccr);
	if (st != HW_OK)
		return st;
	cccr &= ~(CCCR_RESERVED | CCCR_ENABLE);
	if (on)
		cccr |= CCCR_ENABLE;
	return hw_wrmsr(p->ctr[i].ctl_msr, cccr);
}

static int start(struct pmu *p, uint64_t mask)
{
	int rc = HW_OK;
	mask &= pmu_all_mask(p);
	for (unsigned i = 0; i < p->n; i++) {
		if (!(mask >> i & 1))
			continue;
		int st = set_enable(p, i, true);
		if (st != HW_OK)
			rc = st;
		else
			p->active |= 1ull << i;
	}
	return rc;
}

static int stop(struct pmu *p, uint64_t mask)
{
	int rc = HW_OK;
	mask &= pmu_all_mask(p);
	/* Not active before the first write: a PMI (an NMI) taken inside
	 * stop() must not start again what is being stopped. */
	p->active &= ~mask;
	for (unsigned i = 0; i < p->n; i++) {
		if (!(mask >> i & 1))
			continue;
		int st = set_enable(p, i, false);
		if (st != HW_OK)
			rc = st;
	}
	return rc;
}

/* Overflow of counter i: CCCR.OVF, or bit 39 clear on an armed counter
 * (unflagged, Linux p4_pmu_clear_cccr_ovf). Sets *flagged to whether OVF
 * was the source. */
static int ctr_overflowed(struct pmu *p, unsigned i, bool *ovf, bool *flagged, uint64_t *cccr)
{
	uint64_t v;
	int st = hw_rdmsr(p->ctr[i].ctl_msr, cccr);
	if (st != HW_OK)
		return st;
	*flagged = (*cccr & CCCR_OVF) != 0;
	*ovf = *flagged;
	if (!*ovf && (p->armed >> i & 1)) {
		st = hw_rdmsr(p->ctr[i].ctr_msr, &v);
		if (st != HW_OK)
			return st;
		*ovf = !(v >> (P4_WIDTH - 1) & 1);
	}
	return HW_OK;
}

static int overflow_status(struct pmu *p, uint64_t *mask)
{
	uint64_t m = 0, unflagged = 0, cccr;
	int rc = HW_OK;

	for (unsigned i = 0; i < p->n; i++) {
		bool ovf, flagged;
		int st = ctr_overflowed(p, i, &ovf, &flagged, &cccr);
		if (st != HW_OK) {
			rc = st;
			continue;
		}
		if (ovf)
			m |= 1ull << i;
		if (ovf && !flagged)
			unflagged |= 1ull << i;
	}
	p->drv[0] = unflagged;
	*mask = m;
	return rc;
}

/* Clears OVF of counter i (write the CCCR back with OVF clear,
 * Linux p4_pmu_clear_cccr_ovf) and
 * disarms it when its bit 39 already went clear, so that the unflagged
 * detection does not report the same overflow again. */
static int ack_one(struct pmu *p, unsigned i, uint64_t cccr)
{
	uint64_t v;
	int st = HW_OK;

	if (cccr & CCCR_OVF)
		st = hw_wrmsr(p->ctr[i].ctl_msr, cccr & ~(CCCR_OVF | CCCR_RESERVED));
	if (st != HW_OK)
		return st;
	if ((p->armed >> i & 1) && hw_rdmsr(p->ctr[i].ctr_msr, &v) == HW_OK &&
	    !(v >> (P4_WIDTH - 1) & 1))
		p->armed &= ~(1ull << i);
	return HW_OK;
}

static int ack(struct pmu *p, uint64_t mask)
{
	int rc = HW_OK;
	mask &= pmu_all_mask(p);
	for (unsigned i = 0; i < p->n; i++) {
		uint64_t cccr;
		int st;
		if (!(mask >> i & 1))
			continue;
		st = hw_rdmsr(p->ctr[i].ctl_msr, &cccr);
		if (st == HW_OK)
			st = ack_one(p, i, cccr);
		if (st != HW_OK)
			rc = st;
	}
	return rc;
}

/* Facts §9 P4: with no global control, stop the running counters, then per
 * counter clear OVF or detect an unflagged overflow, until a pass finds
 * none. p->active still names the counters to restart. The caller unmasks
 * LVTPC only afterwards (PMU_PMI_UNMASK_LATE). */
static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	uint64_t m = 0, unflagged = 0;
	int rc = HW_OK;

	for (unsigned i = 0; i < p->n; i++)
		if (p->active >> i & 1)
			set_enable(p, i, false);
	for (unsigned pass = 0; pass < PMU_PMI_MAX_ROUNDS; pass++) {
		uint64_t found = 0;
		for (unsigned i = 0; i < p->n; i++) {
			uint64_t cccr;
			bool ovf, flagged;
			int st = ctr_overflowed(p, i, &ovf, &flagged, &cccr);
			if (st == HW_OK && ovf)
				st = ack_one(p, i, cccr);
			if (st != HW_OK) {
				rc = st;
				continue;
			}
			if (!ovf)
				continue;
			/* An OVF that survives its clear would be found on
			 * every pass; count it once and give up below. */
			if (!(m >> i & 1))
				found |= 1ull << i;
			else if (flagged)
				rc = HW_STUCK;
			m |= 1ull << i;
			if (!flagged)
				unflagged |= 1ull << i;
		}
		if (!found || rc != HW_OK)
			break;
	}
	p->drv[0] = unflagged;
	*mask = m;
	return rc;
}

static int reset(struct pmu *p)
{
	int rc = HW_OK;

	/* Disable: CCCR with ENABLE, OVF and reserved bits clear, so that no
	 * interrupt stays asserted (Linux p4_pmu_disable_event); init on kdump
	 * kernels zeroes all
	 * 18 CCCRs for the same reason (Linux p4_pmu_init). */
	for (unsigned i = 0; i < p->n; i++) {
		rc = pmu_first_err(rc, hw_wrmsr(p->ctr[i].ctl_msr, 0));
		rc = pmu_first_err(rc, ctr_write(p, i, 0));
		if (p->ctr[i].aux_msr)
			rc = pmu_first_err(rc, hw_wrmsr(p->ctr[i].aux_msr, 0));
		p->ctr[i].aux_msr = 0;
	}
	p->active = 0;
	p->armed = 0;
	p->drv[0] = 0;
	return rc;
}

/* The ESCRs this driver binds events to (the thread-0 and thread-1 pair of
 * each event it knows). */
static const uint32_t used_escrs[] = {
    MSR_P4_BSU_ESCR0, MSR_P4_BSU_ESCR0 + 1, MSR_P4_FSB_ESCR0,  MSR_P4_FSB_ESCR0 + 1,
    MSR_P4_CRU_ESCR0, MSR_P4_CRU_ESCR0 + 1, MSR_P4_TBPU_ESCR0, MSR_P4_TBPU_ESCR0 + 1,
    MSR_P4_CRU_ESCR2, MSR_P4_CRU_ESCR2 + 1};

static size_t msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	char name[24];
	size_t n = 0;

	for (unsigned i = 0; i < p->n && n < max; i++, n++)
		pmu_msr_desc(&out[n], p->ctr[i].ctr_msr, p->ctr[i].name, PMU_MSR_RW,
			     pmu_width_mask(P4_WIDTH));
	for (unsigned i = 0; i < p->n && n < max; i++, n++) {
		unsigned g = ctr_group(i);
		pmh_fmt(name, sizeof(name), "%s_CCCR%u", group_name[g], i - group_first[g]);
		pmu_msr_desc(&out[n], p->ctr[i].ctl_msr, name, PMU_MSR_RW, CCCR_RW_MASK);
	}
	for (unsigned k = 0; k < sizeof(used_escrs) / sizeof(used_escrs[0]) && n < max; k++, n++) {
		const struct escr *e = netburst_escr_find(used_escrs[k]);
		pmu_msr_desc(&out[n], e->addr, e->name, PMU_MSR_RW, ESCR_RW_MASK);
	}
	return n;
}

/* Linux's generic map for P4 (p4.c p4_general_events). Branches use
 * BRANCH_RETIRED with
 * all four predicted/mispredicted x taken/not-taken bits, which counts every
 * retired branch; RETIRED_BRANCH_TYPE would miss unconditional direct
 * jumps. The cache events have no generic P4 mapping here. */
static int generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	switch (g) {
	case GEN_CYCLES:
		netburst_make_event(out, EV_GLOBAL_POWER_EVENTS, 0x1); /* RUNNING */
		break;
	case GEN_INSTRUCTIONS:
		netburst_make_event(out, EV_INSTR_RETIRED, 0x1 | 0x4); /* NBOGUSNTAG | BOGUSNTAG */
		break;
	case GEN_BRANCHES:
		netburst_make_event(out, EV_BRANCH_RETIRED, 0xf); /* MMNP|MMNM|MMTP|MMTM */
		break;
	case GEN_BRANCH_MISSES:
		netburst_make_event(out, EV_MISPRED_BRANCH_RETIRED, 0x1); /* NBOGUS */
		break;
	default:
		return HW_UNSUPPORTED;
	}
	if (!pmu_has_ctr(p, ctr) || !(out->counters & (1u << ctr)))
		return HW_REFUSED; /* the ESCR does not feed this counter */
	return HW_OK;
}

const struct pmu_ops pmu_intel_netburst_ops = {
    PMU_DRIVER_OPS("intel-netburst", PMU_DRV_INTEL_NETBURST),
    /* no public number (rr does not run on NetBurst): thousands (ours), the
     * long pipeline and PMIs still in flight after the counter stopped
     * (Linux arch/x86/events/intel/p4.c p4_pmu_handle_irq); AMD's 30000 */
    .skid_limit = 30000,
    .msrs = msrs,
    .generic_event = generic_event,
};
