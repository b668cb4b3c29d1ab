/* freeze.pmi: IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12) stops the
 * counters when an overflow requests its PMI, so that the PMI handler's
 * instructions are not counted (SDM Vol. 3B "Freezing LBR and Performance
 * Counters on PMI", 17.4.7 in the 2016 edition). Perfmon v2 and v3 clear
 * IA32_PERF_GLOBAL_CTRL there, the legacy freeze; v4 and later keep it and
 * set IA32_PERF_GLOBAL_STATUS.CTR_FRZ (bit 59) instead, the counters frozen
 * until software writes bit 59 of GLOBAL_STATUS_RESET (390H) (SDM Vol. 3B
 * 20.2.4.1; Linux's v4 handler that used it, removed by 3daa96d67274, acked
 * "as close as possible to IRET"). Which kind a PMU has is the driver's
 * (PMU_CAP_FREEZE_PMI, PMU_CAP_FREEZE_CTR_FRZ).
 * Counter A counts instructions with INT and overflows after M_PMI_PERIOD;
 * counter B counts them without INT. The check's own PMI handler reads
 * GLOBAL_CTRL, GLOBAL_STATUS, A and B first thing, B again, acks A's
 * overflow, unmasks LVTPC and restarts nothing. With the freeze on:
 *  - A and B read in the handler equal A and B after the window, and B
 *    does not move between the handler's two reads (exact);
 *  - v2/v3: GLOBAL_CTRL reads 0 in the handler; v4+: CTR_FRZ is set there
 *    and after the window, a window started with it set counts nothing,
 *    and B counts again once 390H bit 59 cleared it;
 *  - B is short of the same run with the freeze off by at least what the
 *    window retires after the overflow less the family's skid limit
 *    (pmu_ops.skid_limit: rr skid_size, a freeze taken as late as the PMI).
 * FREEZE_WHILE_SMM (bit 14), where PERF_CAPABILITIES[12] enumerates it,
 * takes a write and reads back; entering SMM is not measured. */
#include "pmi_common.h"
#include "../../pmu/cpuid.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../pmu/percpu.h"

#define FZ_ITERS 2000 /* 6000 instructions of wl_loop, the overflow at 1000 */

/* What one run saw: PMIs, the handler's reads, and A and B after it. */
struct fz_run {
	unsigned pmis;
	uint64_t ctrl, status, a1, b1, b2, ea, eb;
	/* v4+ (ctr_frz_run): GLOBAL_STATUS after the window and after 390H bit
	 * 59 was written; B's counts in a window before and after that */
	uint64_t after, cleared, leak, resumed;
};

/* The handler's view, filled at the first PMI of a run; per CPU
 * (pmu/percpu.h): the handler runs on the CPU whose counters froze. */
struct fz_view {
	struct pmu *p;
	unsigned a, b;
	uint32_t lvt;
	bool nmi;
	volatile unsigned pmis;
	int err;
	uint64_t ctrl, status, a1, b1, b2;
};
static struct fz_view fz_cpu PMH_PERCPU;

static void handler(struct int_frame *f)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	struct pmu *p = fz->p;
	int e = HW_OK;

	(void)f;
	if (fz->pmis++ == 0) { /* the reads first: nothing of the handler before them */
		e = hw_rdmsr(p->global_ctrl_msr, &fz->ctrl);
		e = pmu_first_err(e, hw_rdmsr(p->global_status_msr, &fz->status));
		e = pmu_first_err(e, p->ops->read(p, fz->a, &fz->a1));
		e = pmu_first_err(e, p->ops->read(p, fz->b, &fz->b1));
		e = pmu_first_err(e, p->ops->read(p, fz->b, &fz->b2));
	}
	/* A's overflow acknowledged, CTR_FRZ left as it is, then LVTPC
	 * unmasked (Linux late_ack: not before the flag is clear) */
	fz->err = pmu_first_err(fz->err, pmu_first_err(e, p->ops->ack(p, 1ull << fz->a)));
	apic_lvt_pc_write(fz->lvt);
	if (!fz->nmi)
		apic_eoi();
}

static bool pmi_seen(const void *arg)
{
	struct fz_view *fz = &PCPU(fz_cpu);

	(void)arg;
	return fz->pmis != 0;
}

/* The PMI of a run that has not come by the end of its window. */
static void wait_pmi(void)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	struct pmi_window w;

	if (fz->pmis)
		return;
	pmi_window_open(&w);
	apic_wait_us(pmi_seen, 0, PMI_WAIT_US);
	pmi_window_close(&w);
}

/* A and B set up, A preloaded, DEBUGCTL = dbg, one PMI window; DEBUGCTL
 * back to dbg0 after it. False when an op failed (FAILed). */
static bool one_run(struct check_ctx *c, uint64_t dbg0, uint64_t dbg, struct fz_run *r)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	uint64_t both = (1ull << fz->a) | (1ull << fz->b);

	if (!m_setup_or_fail(c, fz->a, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT) ||
	    !m_setup_or_fail(c, fz->b, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR) ||
	    !m_ack(c, pmu_all_mask(c->pmu)) || !m_preload(c, fz->a, M_PMI_PERIOD) ||
	    !m_wrmsr(c, MSR_DEBUGCTL, dbg))
		return false;
	fz->pmis = 0;
	fz->err = HW_OK;
	int st = pmi_run(c, both, &wl_loop, FZ_ITERS);
	wait_pmi();
	bool back = m_wrmsr(c, MSR_DEBUGCTL, dbg0);
	if (st == M_FAULT || !back || !m_read(c, fz->a, &r->ea) || !m_read(c, fz->b, &r->eb))
		return false;
	r->pmis = fz->pmis;
	r->ctrl = fz->ctrl;
	r->status = fz->status;
	r->a1 = fz->a1;
	r->b1 = fz->b1;
	r->b2 = fz->b2;
	if (fz->err != HW_OK)
		check_fail(c,
			   "an op in the PMI handler (reading %s, %s, the global registers, or "
			   "the ack) failed: %s",
			   c->pmu->ctr[fz->a].name, c->pmu->ctr[fz->b].name, hw_err_name(fz->err));
	return fz->err == HW_OK;
}

/* v4+: GLOBAL_STATUS_RESET (390H) bit 59 clears CTR_FRZ; the result is
 * not judged here (clean-up), ctr_frz_run measures the same write. */
static void clear_ctr_frz(struct check_ctx *c)
{
	if (!(c->pmu->caps & PMU_CAP_FREEZE_CTR_FRZ))
		return;
	int e = hw_wrmsr(c->pmu->global_ovf_msr, GLOBAL_STATUS_CTR_FRZ);
	(void)e;
}

/* v4+, right after the freeze-on run: GLOBAL_STATUS then (after), B over
 * a window started with CTR_FRZ set (leak), GLOBAL_STATUS after 390H bit
 * 59 was written (cleared) and B over a window then (resumed). Judged by
 * judge_ctr_frz. False when an op failed (FAILed). */
static bool ctr_frz_run(struct check_ctx *c, struct fz_run *r)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	struct pmu *p = c->pmu;
	uint64_t v0 = 0, v1 = 0, v2 = 0;

	if (!m_rdmsr(c, p->global_status_msr, &r->after) || !m_read(c, fz->b, &v0) ||
	    m_window(c, 1ull << fz->b, &wl_loop, M_N_ITERS) == M_FAULT || !m_read(c, fz->b, &v1) ||
	    !m_wrmsr(c, p->global_ovf_msr, GLOBAL_STATUS_CTR_FRZ) ||
	    !m_rdmsr(c, p->global_status_msr, &r->cleared) ||
	    m_window(c, 1ull << fz->b, &wl_loop, M_N_ITERS) == M_FAULT || !m_read(c, fz->b, &v2))
		return false;
	r->leak = v1 - v0;
	r->resumed = v2 - v1;
	return true;
}

/* The streamlined freeze held until 390H bit 59 cleared it, and no longer. */
static void judge_ctr_frz(struct check_ctx *c, const struct fz_run *r)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	const char *n = c->pmu->ctr[fz->b].name;

	if (!(r->after & GLOBAL_STATUS_CTR_FRZ))
		check_fail(c,
			   "CTR_FRZ (GLOBAL_STATUS bit 59) clear after the window (0x%llx): not "
			   "frozen until software clears it (SDM Vol. 3B 20.2.4.1)",
			   (unsigned long long)r->after);
	else if (r->leak)
		check_fail(c,
			   "%s counted %llu in a window started with CTR_FRZ set: not frozen until "
			   "390H bit 59 clears it (SDM Vol. 3B 20.2.4.1)",
			   n, (unsigned long long)r->leak);
	if (r->cleared & GLOBAL_STATUS_CTR_FRZ)
		check_fail(
		    c,
		    "writing bit 59 of GLOBAL_STATUS_RESET (390H) left CTR_FRZ set (0x%llx): "
		    "frozen for good",
		    (unsigned long long)r->cleared);
	else if (!r->resumed)
		check_fail(
		    c, "%s counted nothing once 390H bit 59 cleared CTR_FRZ: frozen for good", n);
}

/* Both runs, freeze on then off, each in its own arming of the PMI with
 * this check's handler; DEBUGCTL back to dbg0 whatever happens. */
static bool runs(struct check_ctx *c, uint64_t dbg0, struct fz_run *on, struct fz_run *off)
{
	struct fz_view *fz = &PCPU(fz_cpu);

	fz->p = c->pmu;
	fz->nmi = c->opt->pmi == PMI_NMI;
	if (!pmi_begin(c))
		return false;
	fz->lvt = apic_lvt_pc_read(); /* armed, unmasked */
	isr_set_handler(fz->nmi ? VEC_NMI : VEC_PMI, handler);
	bool ok = one_run(c, dbg0, dbg0 | DEBUGCTL_FREEZE_PERFMON_ON_PMI, on);
	if (ok && (c->pmu->caps & PMU_CAP_FREEZE_CTR_FRZ))
		ok = ctr_frz_run(c, on);
	clear_ctr_frz(c);
	ok = ok && one_run(c, dbg0 & ~DEBUGCTL_FREEZE_PERFMON_ON_PMI,
			   dbg0 & ~DEBUGCTL_FREEZE_PERFMON_ON_PMI, off);
	int e = hw_wrmsr(MSR_DEBUGCTL, dbg0); /* judged by the runs' own restore */
	(void)e;
	clear_ctr_frz(c);
	pmi_end(c);
	return ok;
}

/* A and B: the first two counters that count instructions. */
static bool pick(struct check_ctx *c)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	int a = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	int b = a < 0 ? -1 : m_counter_for(c, GEN_INSTRUCTIONS, (unsigned)a + 1);

	if (b < 0) {
		check_skip(c, "two counters that count instructions are needed, %s has %s",
			   c->pmu->name, a < 0 ? "none" : "one");
		return false;
	}
	fz->a = (unsigned)a;
	fz->b = (unsigned)b;
	return true;
}

/* A DEBUGCTL access that failed with e: a hypervisor's policy under one
 * (SKIP), else a FAIL. */
static void debugctl_refused(struct check_ctx *c, const char *what, int e)
{
	if (c->cpu->hypervisor)
		check_skip(c,
			   "the hypervisor (%s) refuses %s: %s (KVM, for one, lets a guest set "
			   "LBR, FREEZE_LBRS_ON_PMI and BUS_LOCK_DETECT alone: Linux vmx.c "
			   "vmx_get_supported_debugctl)",
			   c->cpu->hv.name[0] ? c->cpu->hv.name : "unnamed", what, hw_err_name(e));
	else
		check_fail(c, "%s raised %s", what, hw_err_name(e));
}

/* DEBUGCTL bit takes a write and reads back, DEBUGCTL then back to dbg0. */
static bool probe_bit(struct check_ctx *c, uint64_t dbg0, uint64_t bit, const char *name)
{
	char what[64];
	uint64_t back = 0;
	int e = hw_wrmsr(MSR_DEBUGCTL, dbg0 | bit);

	if (e == HW_OK)
		e = hw_rdmsr(MSR_DEBUGCTL, &back);
	int r = hw_wrmsr(MSR_DEBUGCTL, dbg0);
	pmh_fmt(what, sizeof(what), "setting DEBUGCTL.%s (1D9H bit %u)", name,
		(unsigned)__builtin_ctzll(bit));
	if (e == HW_OK)
		e = r;
	if (e != HW_OK) {
		debugctl_refused(c, what, e);
		return false;
	}
	if (!(back & bit))
		check_fail(c, "%s: DEBUGCTL read back 0x%llx without it", what,
			   (unsigned long long)back);
	return (back & bit) != 0;
}

/* DEBUGCTL as found into *dbg0; FREEZE_PERFMON_ON_PMI, and
 * FREEZE_WHILE_SMM where PERF_CAPABILITIES[12] enumerates it, take a write
 * and read back (what was found said in smm). False: SKIPped or FAILed. */
static bool probe_debugctl(struct check_ctx *c, uint64_t *dbg0, char *smm, size_t n)
{
	uint64_t caps = 0;
	int e = hw_rdmsr(MSR_DEBUGCTL, dbg0);

	if (e != HW_OK) {
		debugctl_refused(c, "reading DEBUGCTL (1D9H)", e);
		return false;
	}
	if (!probe_bit(c, *dbg0, DEBUGCTL_FREEZE_PERFMON_ON_PMI, "FREEZE_PERFMON_ON_PMI"))
		return false;
	if (!(c->cpu->ids.leaf1.ecx & CPUID_1_ECX_PDCM) ||
	    hw_rdmsr(MSR_PERF_CAPABILITIES, &caps) != HW_OK || !(caps & PERF_CAP_SMM_FRZ)) {
		pmh_strlcpy(smm, "no SMM freeze bit (PERF_CAPABILITIES[12])", n);
		return true;
	}
	if (!probe_bit(c, *dbg0, DEBUGCTL_FREEZE_WHILE_SMM, "FREEZE_WHILE_SMM"))
		return false;
	pmh_strlcpy(smm, "SMM freeze bit reads back, SMM not entered", n);
	return true;
}

/* The freeze-on run against the freeze-off one. */
static void judge(struct check_ctx *c, const struct fz_run *on, const struct fz_run *off,
		  const char *smm)
{
	struct fz_view *fz = &PCPU(fz_cpu);
	struct pmu *p = c->pmu;
	const char *an = p->ctr[fz->a].name, *bn = p->ctr[fz->b].name;
	bool frz = (p->caps & PMU_CAP_FREEZE_CTR_FRZ) != 0;
	int64_t after = (int64_t)(wl_loop.per_iter.instructions * FZ_ITERS) - M_PMI_PERIOD;
	int64_t need = after - (int64_t)p->ops->skid_limit, by = (int64_t)(off->eb - on->eb);

	if (!on->pmis || !off->pmis) {
		check_fail(c, "%s overflowed with INT set, freeze %s: no PMI in %u ms (PMI lost)",
			   an, on->pmis ? "off" : "on", PMI_WAIT_US / 1000);
		return;
	}
	check_note(
	    c, "%s freeze off: %llu and %llu in the handler, %llu after; on: %llu, %llu, %llu", bn,
	    (unsigned long long)off->b1, (unsigned long long)off->b2, (unsigned long long)off->eb,
	    (unsigned long long)on->b1, (unsigned long long)on->b2, (unsigned long long)on->eb);
	if (!frz && on->ctrl)
		check_fail(c,
			   "GLOBAL_CTRL 0x%llx in the PMI handler, expected 0: the legacy freeze "
			   "(DEBUGCTL.FREEZE_PERFMON_ON_PMI) did not clear it, not frozen",
			   (unsigned long long)on->ctrl);
	if (frz && !(on->status & GLOBAL_STATUS_CTR_FRZ))
		check_fail(c,
			   "CTR_FRZ (GLOBAL_STATUS bit 59) clear in the PMI handler (0x%llx): not "
			   "frozen (SDM Vol. 3B 20.2.4.1)",
			   (unsigned long long)on->status);
	if (on->b2 != on->b1 || on->eb != on->b1 || on->ea != on->a1)
		check_fail(c,
			   "with DEBUGCTL.FREEZE_PERFMON_ON_PMI set %s counted on after the PMI: "
			   "%llu, %llu in the handler, %llu after the window; %s %llu, %llu (not "
			   "frozen)",
			   bn, (unsigned long long)on->b1, (unsigned long long)on->b2,
			   (unsigned long long)on->eb, an, (unsigned long long)on->a1,
			   (unsigned long long)on->ea);
	if (frz)
		judge_ctr_frz(c, on);
	check_figures(c, by, by, by);
	c->fig.tolerance = "frozen: exact; short of freeze off by at least the window after the "
			   "overflow less pmu_ops.skid_limit (rr skid_size)";
	if (by < need)
		check_fail(c,
			   "%s with the freeze only %lld short of the freeze-off run, expected >= "
			   "%lld: the %lld instructions after the overflow less the skid limit %u "
			   "(rr skid_size); not frozen",
			   bn, (long long)by, (long long)need, (long long)after,
			   p->ops->skid_limit);
	if (c->v != V_FAIL)
		check_pass(
		    c,
		    "%s: %s, %s frozen at the PMI (%s %llu in handler and after); %lld short of "
		    "freeze off (min %lld: rest of window less skid limit); %s",
		    frz ? "CTR_FRZ held until 390H bit 59" : "GLOBAL_CTRL 0", an, bn, bn,
		    (unsigned long long)on->eb, (long long)by, (long long)need, smm);
}

static void run(struct check_ctx *c)
{
	struct fz_run on = {0}, off = {0};
	uint64_t dbg0;
	char smm[96];

	if (!(c->pmu->caps & PMU_CAP_FREEZE_PMI)) {
		check_skip(
		    c,
		    "%s (version %u) has no freeze on PMI: DEBUGCTL.FREEZE_PERFMON_ON_PMI is "
		    "Intel architectural perfmon v2's and later's (SDM Vol. 3B \"Freezing "
		    "LBR and Performance Counters on PMI\")",
		    c->pmu->name, c->pmu->version);
		return;
	}
	if (!pick(c) || !probe_debugctl(c, &dbg0, smm, sizeof(smm)))
		return;
	if (!runs(c, dbg0, &on, &off) || c->v == V_FAIL)
		return;
	judge(c, &on, &off, smm);
}

PMH_CHECK(freeze_on_pmi, .id = "freeze.pmi", .summary = "DEBUGCTL freeze on PMI stops the counters",
	  .order = 55, .needs_pmu = true, .run = run);
