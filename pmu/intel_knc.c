/* PMU driver: Intel Xeon Phi Knights Corner (family 0xB), KNC PMU guide #327357 §1.4.3 and
 * Linux arch/x86/events/intel/knc.c. Two 40-bit counters per thread (PerfCnt0/1 at 0x20/0x21,
 * written in full), P6-style event selects at 0x28/0x29 (32 bits, no PC bit),
 * and the architectural-style globals: GLOBAL_STATUS 0x2D (RO, sticky),
 * GLOBAL_OVF_CTRL 0x2E (WO, write 1 to clear) and GLOBAL_CTRL 0x2F (bit i
 * AND-ed with EVNTSEL.EN, KNC §1.4.1). The EVNTSEL of counter i is 0x28+i:
 * Linux's 0x2A for counter 1 is a Linux bug (Linux knc_pmu_enable_event). */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "msr.h"
#include "pmu.h"

#define KNC_NCTR     2
#define KNC_WIDTH    40
#define KNC_CTR_MASK 0x3ull
/* EVNTSEL: 31:24 CMASK, 23 INV, 22 EN, 21 thread mode, 20 INT, 19 reserved,
 * 18 E, 17 OS, 16 USR, 15:8 UMASK, 7:0 event (KNC table 1-5). */
#define KNC_EVTSEL_RW (EVTSEL_LOW32 & ~EVTSEL_PC)
#define KNC_SPFLT_RW  (KNC_SPFLT_USER_PREF | KNC_CTR_MASK) /* KNC table 1-7 */

static int init(struct pmu *p)
{
	p->n_gp = KNC_NCTR;
	p->n_fixed = 0;
	p->n = KNC_NCTR;
	p->version = 0;
	/* "reads and writes set all 40 bits", unlike the sign-extending IA-32
	 * counters (KNC §1.4.3.2); RDPMC ECX 0/1 (KNC table 1-1) */
	for (unsigned i = 0; i < KNC_NCTR; i++)
		pmu_gp_counter(&p->ctr[i], i, KNC_WIDTH, MSR_KNC_EVNTSEL0 + i,
			       MSR_KNC_PERFCTR0 + i);
	p->global_ctrl_msr = MSR_KNC_GLOBAL_CTRL;
	p->global_status_msr = MSR_KNC_GLOBAL_STATUS;
	p->global_ovf_msr = MSR_KNC_GLOBAL_OVF_CTRL;
	p->global_status_set_msr = 0;
	/* PERF_SPFLT_CONTROL, RW: USER_PREF (63) gates the counters whose
	 * bit (1:0) is set (KNC PMU guide #327357 §1.4.3.4, table 1-7) */
	p->spflt_msr = MSR_KNC_SPFLT_CTRL;
	p->caps = PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG | PMU_CAP_EDGE_INV_CMASK;
	p->cmask_max = 255; /* CMASK 31:24 (KNC table 1-5) */
	p->ctl_enable = EVTSEL_EN;
	/* The document quotes the SDM: the local APIC sets the LVT mask flag
	 * when it delivers the counter interrupt (KNC §1.4.3.9). */
	p->pmi_flags = PMU_PMI_AUTOMASK;
	/* ... and the ISR clears the status to 0 before it unmasks: the 1-bit
	 * line only rises again on a 0->1 change (KNC §1.4.3.9). */
	p->pmi_flags |= PMU_PMI_UNMASK_LATE;
	return HW_OK;
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	(void)path; /* one full 40-bit write path (KNC §1.4.3.2) */
	if (!pmu_has_ctr(p, ctr))
		return HW_REFUSED;
	return hw_wrmsr(p->ctr[ctr].ctr_msr, val & pmu_width_mask(KNC_WIDTH));
}

/* L2 and snoop events Linux restricts to counter 0 (Linux knc_event_constraints). */
static bool counter0_only(uint16_t code)
{
	static const uint8_t c0[] = {0xc3, 0xc4, 0xc8, 0xc9, 0xca, 0xcb, 0xcc,
				     0xce, 0xcf, 0xd7, 0xe3, 0xe6, 0xe7, 0xf1,
				     0xf2, 0xf6, 0xf7, 0xfc, 0xfd, 0xfe, 0xff};
	for (unsigned k = 0; k < sizeof(c0); k++)
		if (code == c0[k])
			return true;
	return false;
}

static int program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	if (!pmu_event_allowed(p, ctr, ev) || ev->fixed_only || ev->code > EVTSEL_EVENT_MAX)
		return HW_REFUSED;
	if (ctr != 0 && counter0_only(ev->code))
		return HW_REFUSED;
	if (flags & ~PMU_F_ALL)
		return HW_REFUSED;
	/* Written stopped: EN clear; start() sets EN and the global bit. */
	return hw_wrmsr(p->ctr[ctr].ctl_msr, pmu_evtsel(ev, flags));
}

static int start(struct pmu *p, uint64_t mask)
{
	uint64_t sel, g;
	int st, rc = HW_OK;

	mask &= KNC_CTR_MASK;
	for (unsigned i = 0; i < KNC_NCTR; i++) {
		if (!(mask >> i & 1))
			continue;
		st = hw_rdmsr(p->ctr[i].ctl_msr, &sel);
		if (st == HW_OK)
			st = hw_wrmsr(p->ctr[i].ctl_msr, (sel | EVTSEL_EN) & KNC_EVTSEL_RW);
		if (st != HW_OK) {
			rc = st;
			mask &= ~(1ull << i);
		}
	}
	/* Counting needs EVNTSEL.EN AND GLOBAL_CTRL bit i (KNC §1.4.1). */
	st = hw_rdmsr(MSR_KNC_GLOBAL_CTRL, &g);
	if (st == HW_OK)
		st = hw_wrmsr(MSR_KNC_GLOBAL_CTRL, (g | mask) & KNC_CTR_MASK);
	if (st != HW_OK)
		return st;
	p->active |= mask;
	return rc;
}

static int stop(struct pmu *p, uint64_t mask)
{
	uint64_t sel, g;
	int st, rc = HW_OK;

	mask &= KNC_CTR_MASK;
	/* Not active before the first write: a PMI (an NMI) taken inside
	 * stop() must not start again what is being stopped. */
	p->active &= ~mask;
	st = hw_rdmsr(MSR_KNC_GLOBAL_CTRL, &g);
	if (st == HW_OK)
		st = hw_wrmsr(MSR_KNC_GLOBAL_CTRL, g & ~mask & KNC_CTR_MASK);
	if (st != HW_OK)
		rc = st;
	for (unsigned i = 0; i < KNC_NCTR; i++) {
		if (!(mask >> i & 1))
			continue;
		st = hw_rdmsr(p->ctr[i].ctl_msr, &sel);
		if (st == HW_OK)
			st = hw_wrmsr(p->ctr[i].ctl_msr, sel & ~EVTSEL_EN & KNC_EVTSEL_RW);
		if (st != HW_OK)
			rc = st;
	}
	return rc;
}

static int overflow_status(struct pmu *p, uint64_t *mask)
{
	uint64_t s = 0;
	(void)p;
	int st = hw_rdmsr(MSR_KNC_GLOBAL_STATUS, &s);
	*mask = s & KNC_CTR_MASK;
	return st;
}

static int ack(struct pmu *p, uint64_t mask)
{
	(void)p;
	/* GLOBAL_OVF_CTRL: each set bit clears that status bit (KNC §1.4.3.6). */
	return hw_wrmsr(MSR_KNC_GLOBAL_OVF_CTRL, mask & KNC_CTR_MASK);
}

/* KNC §1.4.3.9 and Linux knc_pmu_handle_irq: the PMU has a 1-bit line to the APIC that
 * raises a PMI only on a 0->1 change, so the handler stops the counters (no
 * new overflow can keep the line high), then clears the status register
 * until it reads 0; only then may LVTPC be unmasked. GLOBAL_CTRL stays 0:
 * p->active names the counters to restart. HW_STUCK when the status did
 * not clear within the bound. */
static int pmi_collect(struct pmu *p, uint64_t *mask)
{
	return pmu_status_collect(p, KNC_CTR_MASK, mask);
}

static int reset(struct pmu *p)
{
	/* Global off first, then each counter, then all status (KNC §1.4.4:
	 * a reset leaves everything zero). */
	int rc = hw_wrmsr(MSR_KNC_GLOBAL_CTRL, 0), st = pmu_zero_gp(p);

	if (rc == HW_OK)
		rc = st;
	st = hw_wrmsr(MSR_KNC_GLOBAL_OVF_CTRL, KNC_CTR_MASK);
	if (rc == HW_OK)
		rc = st;
	p->active = 0;
	p->armed = 0;
	return rc;
}

static size_t msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	static const struct {
		uint32_t addr;
		const char *name;
		uint8_t access;
		uint64_t rw;
	} t[] = {
	    /* KNC table 1-2 */
	    {MSR_KNC_PERFCTR0, "IA32_PerfCnt0", PMU_MSR_RW, (1ull << KNC_WIDTH) - 1},
	    {MSR_KNC_PERFCTR0 + 1, "IA32_PerfCnt1", PMU_MSR_RW, (1ull << KNC_WIDTH) - 1},
	    {MSR_KNC_EVNTSEL0, "IA32_PerfEvtSel0", PMU_MSR_RW, KNC_EVTSEL_RW},
	    {MSR_KNC_EVNTSEL0 + 1, "IA32_PerfEvtSel1", PMU_MSR_RW, KNC_EVTSEL_RW},
	    {MSR_KNC_SPFLT_CTRL, "PERF_SPFLT_CONTROL", PMU_MSR_RW, KNC_SPFLT_RW},
	    {MSR_KNC_GLOBAL_STATUS, "IA32_PERF_GLOBAL_STATUS", PMU_MSR_RO, 0},
	    {MSR_KNC_GLOBAL_OVF_CTRL, "IA32_PERF_GLOBAL_OVF_CTRL", PMU_MSR_WO, 0},
	    {MSR_KNC_GLOBAL_CTRL, "IA32_PERF_GLOBAL_CTRL", PMU_MSR_RW, KNC_CTR_MASK},
	};
	size_t n = 0;
	(void)p;
	for (unsigned k = 0; k < sizeof(t) / sizeof(t[0]) && n < max; k++, n++)
		pmu_msr_desc(&out[n], t[k].addr, t[k].name, t[k].access, t[k].rw);
	return n;
}

/* Linux's KNC event map (Linux knc_perfmon_event_map), codes from KNC table 1-6 (UMASK 0). */
static int generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	static const struct pmu_gen_map map[GEN_COUNT] = {
	    [GEN_CYCLES] = {0x2a, "CPU_CLK_UNHALTED"},
	    [GEN_INSTRUCTIONS] = {0x16, "INSTRUCTIONS_EXECUTED"},
	    [GEN_BRANCHES] = {0x12, "BRANCHES"},
	    [GEN_BRANCH_MISSES] = {0x2b, "BRANCHES_MISPREDICTED"},
	    [GEN_CACHE_REFS] = {0x28, "DATA_READ_OR_WRITE"},
	    [GEN_CACHE_MISSES] = {0x29, "DATA_READ_MISS_OR_WRITE_MISS"},
	};
	int st = pmu_generic_from_map(p, map, g, ctr, out);

	if (st == HW_OK)
		out->counters = (uint32_t)KNC_CTR_MASK;
	return st;
}

const struct pmu_ops pmu_intel_knc_ops = {
    PMU_DRIVER_OPS("intel-knc", PMU_DRV_INTEL_KNC),
    /* no public number: an in-order core whose PMI goes through the local
     * APIC as P6's does (KNC PMU guide #327357 §1.4.3.9), held to P6's and
     * intel-arch's 1000 (ours: ten times rr's 100 branches there) */
    .skid_limit = 1000,
    .msrs = msrs,
    .generic_event = generic_event,
};
