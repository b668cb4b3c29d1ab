/* ibs.sample: AMD instruction-based sampling (AMD APM Vol. 2 13.3) on the
 * sampling kernel (events/sample.h), one sample per interrupt through the
 * extended LVT entry IBS_CTL names (AMD APM Vol. 2 16.4.5; Linux
 * arch/x86/events/amd/ibs.c get_ibs_lvt_offset, setup_APIC_eilvt), each
 * re-armed by clearing IbsOpVal as perf_ibs_handle_irq does. Judged
 * against the kernel's own walk:
 *  - a sampled RIP inside the kernel is one of its instructions (exact);
 *    outside it, the harness's own ops around the kernel, which IBS samples
 *    too: at most a quarter of the samples (ours: tens to a few hundred
 *    ops per sample against a period of 2048);
 *  - IBS_OP_DATA's branch bits are the instruction's (IbsOpBrnRet iff a
 *    branch, IbsOpReturn iff a return, IbsOpBrnTaken where the walk always
 *    or never takes it), IBS_BR_TARGET its one target (OpBrnTrgt); a fused
 *    compare-and-branch (IbsOpBrnFuse) is judged as its branch (ours);
 *  - ops/period samples within [1/2, 2] (ours: Zen counts dispatched ops,
 *    one or two per instruction or one per fused pair, from a count whose
 *    low 7 bits hardware preloads at random: Linux perf_event.h
 *    IBS_OP_CUR_CNT_RAND);
 *  - every sample interrupt had IbsOpVal (IbsFetchVal) set and came on the
 *    extended LVT entry's vector, none on LVTPC's.
 * Fetch sampling likewise: IBS_FETCH_LINADDR inside the kernel is an
 * instruction or a 16-byte fetch block (ours: sequential fetches are
 * aligned), at least 2 samples (ours: what a fetch counts is the
 * family's). Everything found is put back. The samples are judged in
 * ibs_judge.c. */
#include "ibs_judge.h"
#include "../measure.h"
#include "../../apic/pmi.h"
#include "../../events/sample.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../pmu/percpu.h"
#include "../suite.h"

#define VEC_IBS	    VEC_SPURIOUS_TEST /* the extended LVT entry's vector */
#define PERIOD	    2048u	      /* ops (and fetches) between samples */
#define ITERS	    3072u	      /* kernel iterations: about 29 op periods */
#define SAMPLES_MAX 64u		      /* samples kept for judging */
#define IRQ_MAX	    512u	      /* interrupts in one run: a storm */
#define DRAIN_US    1000u	      /* for an interrupt still in flight */
#define FETCH_MIN   2u

/* CPUID 8000_001Bh EAX, IBS_CTL and the controls (Linux perf_event.h,
 * amd-ibs.h); IBS_OP_DATA's bits are ibs_judge.c's */
#define CAPS_OPSAM     (1u << 2)
#define CAPS_FETCHSAM  (1u << 1)
#define CAPS_OPCNT     (1u << 4)
#define CAPS_BRNTRGT   (1u << 5)
#define CTL_LVT_VALID  (1ull << 8)
#define CTL_LVT_OFFSET 0xfull
#define F_EN	       (1ull << 48)
#define F_VAL	       (1ull << 49)
#define F_RAND_EN      (1ull << 57)
#define O_EN	       (1ull << 17)
#define O_VAL	       (1ull << 18)
#define O_CNT_CTL      (1ull << 19)
#define O_CUR_RAND     (0x7full << 32)
/* AMD's extended APIC registers (AMD APM Vol. 2 16.4.5) */
#define APIC_EXT_FEATURE 0x400
#define APIC_EILVT(n)	 (0x500 + 0x10 * (n))
#define LVT_FIELDS	 (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED)

/* One run's interrupts, as the handler saw them (per CPU, pmu/percpu.h:
 * the handler runs on the CPU that samples). */
struct ibs_run {
	struct ibs_rec rec[SAMPLES_MAX];
	unsigned n;	 /* interrupts with Val set: samples */
	unsigned lvtpc;	 /* of them, on LVTPC's vector */
	unsigned no_val; /* on the IBS vector with Val clear, while running */
	unsigned irqs;	 /* every interrupt on either vector */
	bool running, fetch, target, storm;
	bool in_service; /* the vector still in service after the run */
	uint64_t arm;	 /* the control value a re-arm writes */
};
static struct ibs_run seen PMH_PERCPU; /* reached as volatile (g) */

/* What the check found and must put back. */
struct saved {
	uint64_t ctl, op, fetch;
	unsigned off;
	uint32_t eilvt, lvtpc;
};

static void record(unsigned vec)
{
	volatile struct ibs_run *g = &PCPU(seen);
	unsigned i = g->n++;

	if (vec != VEC_IBS)
		g->lvtpc++;
	if (i >= SAMPLES_MAX)
		return;
	volatile struct ibs_rec *r = &g->rec[i];
	uint64_t a = 0, d = 0, t = 0;
	if (g->fetch) {
		(void)hw_rdmsr(MSR_AMD_IBS_FETCH_LINADDR, &a);
	} else {
		(void)hw_rdmsr(MSR_AMD_IBS_OP_RIP, &a);
		(void)hw_rdmsr(MSR_AMD_IBS_OP_DATA, &d);
		if (g->target)
			(void)hw_rdmsr(MSR_AMD_IBS_BR_TARGET, &t);
	}
	r->addr = a;
	r->data = d;
	r->target = t;
	r->vec = vec;
}

/* Both vectors' handler: a sample where Val is set, then the re-arm with
 * Val clear and the random count bits the hardware preloaded kept (Linux
 * perf_ibs_handle_irq); disabled once the run is over or in a storm. */
static void on_irq(struct int_frame *f)
{
	volatile struct ibs_run *g = &PCPU(seen);
	uint32_t msr = g->fetch ? MSR_AMD_IBS_FETCH_CTL : MSR_AMD_IBS_OP_CTL;
	uint64_t ctl = 0;

	g->irqs++;
	if (hw_rdmsr(msr, &ctl) != HW_OK || !(ctl & (g->fetch ? F_VAL : O_VAL))) {
		if (f->vector == VEC_IBS && g->running)
			g->no_val++;
		apic_eoi();
		return;
	}
	record((unsigned)f->vector);
	if (g->irqs >= IRQ_MAX)
		g->storm = true;
	uint64_t again = g->fetch ? g->arm : g->arm | (ctl & O_CUR_RAND);
	bool on = g->running && !g->storm;
	/* some families keep IbsFetchCnt on a write with IbsFetchEn set: a
	 * write without it first (Linux ibs.c fetch_count_reset_broken) */
	if (on && g->fetch)
		(void)hw_wrmsr(msr, again & ~F_EN);
	(void)hw_wrmsr(msr, on ? again : 0);
	apic_eoi();
}

/* A register IBS needs: read, or SKIPped under a hypervisor (its policy)
 * and FAILed on bare metal. */
static bool ibs_rdmsr(struct check_ctx *c, uint32_t msr, uint64_t *v)
{
	int e = hw_rdmsr(msr, v);

	if (e == HW_OK)
		return true;
	if (c->cpu->hypervisor)
		check_skip(c, "the hypervisor (%s) refuses IBS MSR 0x%x: %s",
			   c->cpu->hv.name[0] ? c->cpu->hv.name : "unnamed", msr, hw_err_name(e));
	else
		check_fail(c, "IBS MSR 0x%x raised %s where CPUID enumerates IBS", msr,
			   hw_err_name(e));
	return false;
}

/* IBS with op sampling and the extended LVT entry the firmware gave it:
 * what to put back in *sv; false: SKIPped or FAILed. */
static bool usable(struct check_ctx *c, struct saved *sv)
{
	const struct pmu_ibs *b = &pmu_sampling(c->pmu)->ibs;

	if (!b->caps) {
		check_skip(c, "%s", b->why);
		return false;
	}
	if (!(b->caps & CAPS_OPSAM)) {
		check_skip(c, "IBS without op sampling (CPUID 8000_001Bh EAX 0x%x, bit 2 clear)",
			   b->caps);
		return false;
	}
	if (!c->apic || c->apic->mode == APIC_MODE_DISABLED) {
		check_skip(c, "the local APIC is disabled: no extended LVT entry to deliver IBS");
		return false;
	}
	if (!ibs_rdmsr(c, MSR_AMD_IBS_CTL, &sv->ctl) ||
	    !ibs_rdmsr(c, MSR_AMD_IBS_OP_CTL, &sv->op) ||
	    !ibs_rdmsr(c, MSR_AMD_IBS_FETCH_CTL, &sv->fetch))
		return false;
	sv->off = (unsigned)(sv->ctl & CTL_LVT_OFFSET);
	unsigned n = (apic_read(APIC_EXT_FEATURE) >> 16) & 0xff;
	if (!(sv->ctl & CTL_LVT_VALID)) {
		check_skip(c,
			   "the firmware gave IBS no extended LVT entry: IBS_CTL 0x%llx, "
			   "LvtOffsetVal (bit 8) clear (Linux ibs.c get_ibs_lvt_offset)",
			   (unsigned long long)sv->ctl);
		return false;
	}
	if (sv->off >= 4 || (n && sv->off >= n)) {
		check_skip(c, "IBS_CTL names extended LVT entry %u, the APIC has %u (firmware bug)",
			   sv->off, n ? n : 4);
		return false;
	}
	return true;
}

/* The extended LVT entry on VEC_IBS and LVTPC on VEC_PMI, both fixed and
 * unmasked, both to on_irq: an IBS interrupt on LVTPC is seen, not lost. */
static bool program(struct check_ctx *c, struct saved *sv)
{
	uint32_t want = LVT_DM_FIXED | VEC_IBS;

	sv->eilvt = apic_read(APIC_EILVT(sv->off));
	sv->lvtpc = apic_lvt_pc_read();
	m_quiesce(c); /* no counter overflow comes in */
	isr_set_handler(VEC_IBS, on_irq);
	isr_set_handler(VEC_PMI, on_irq);
	apic_lvt_pc_write(LVT_DM_FIXED | VEC_PMI);
	apic_write(APIC_EILVT(sv->off), want);
	uint32_t back = apic_read(APIC_EILVT(sv->off)) & LVT_FIELDS;
	if (back != want)
		check_fail(c, "IBS: extended LVT entry %u (APIC 0x%x) read 0x%x after writing 0x%x",
			   sv->off, APIC_EILVT(sv->off), back, want);
	return back == want;
}

static void put_back(struct check_ctx *c, const struct saved *sv)
{
	(void)hw_wrmsr(MSR_AMD_IBS_OP_CTL, sv->op);
	(void)hw_wrmsr(MSR_AMD_IBS_FETCH_CTL, sv->fetch);
	apic_write(APIC_EILVT(sv->off), sv->eilvt);
	apic_lvt_pc_write(sv->lvtpc);
	isr_set_handler(VEC_IBS, 0);
	isr_set_handler(VEC_PMI, 0);
	uint32_t e = apic_read(APIC_EILVT(sv->off)), l = apic_lvt_pc_read();
	if ((e & LVT_FIELDS) != (sv->eilvt & LVT_FIELDS))
		check_fail(c, "extended LVT entry %u 0x%x after the check, expected 0x%x back",
			   sv->off, e, sv->eilvt);
	if ((l & LVT_FIELDS) != (sv->lvtpc & LVT_FIELDS))
		check_fail(c, "LVTPC 0x%x after the check, expected 0x%x back", l, sv->lvtpc);
}

/* One sampling run of the kernel in a PMI window (interrupts on, TPR at
 * PMI_TPR: the vectors 0xE0-0xEF come in, the firmware's timer not). */
static bool sample_run(struct check_ctx *c, bool fetch, uint64_t iters)
{
	uint32_t msr = fetch ? MSR_AMD_IBS_FETCH_CTL : MSR_AMD_IBS_OP_CTL;
	uint32_t caps = pmu_sampling(c->pmu)->ibs.caps;
	volatile struct ibs_run *g = &PCPU(seen);
	struct pmi_window w;

	g->n = g->lvtpc = g->no_val = g->irqs = 0;
	g->storm = false;
	g->fetch = fetch;
	g->target = (caps & CAPS_BRNTRGT) != 0;
	g->arm = fetch ? F_EN | F_RAND_EN | PERIOD >> 4
		       : O_EN | ((caps & CAPS_OPCNT) ? O_CNT_CTL : 0) | PERIOD >> 4;
	pmi_window_open(&w);
	g->running = true;
	int e = hw_wrmsr(msr, g->arm);
	hw_run_workload(&wl_sample, iters);
	g->running = false;
	int off = hw_wrmsr(msr, 0);
	apic_wait_us(0, 0, DRAIN_US);
	g->in_service = apic_in_service(VEC_IBS);
	pmi_window_close(&w);
	if (e == HW_OK)
		e = off;
	if (e != HW_OK)
		check_fail(c, "IBS: writing %s raised %s", fetch ? "IBS_FETCH_CTL" : "IBS_OP_CTL",
			   hw_err_name(e));
	return e == HW_OK;
}

/* What every run must show: samples, each with Val, on the right vector. */
static bool judge_irqs(struct check_ctx *c, const struct saved *sv, const char *what,
		       uint64_t iters)
{
	volatile struct ibs_run *g = &PCPU(seen);

	if (g->in_service)
		check_fail(c,
			   "IBS %s: vector 0x%x still in service after the run: an EOI did not "
			   "retire it, so later sample interrupts were held off (%u taken)",
			   what, VEC_IBS, g->n);
	if (g->storm)
		check_fail(c, "IBS %s: %u interrupts in one run, a storm (re-arming stopped)", what,
			   g->irqs);
	if (g->lvtpc)
		check_fail(c,
			   "IBS %s: %u of %u sample interrupts arrived on LVTPC's vector 0x%x, not "
			   "on extended LVT entry %u's vector 0x%x (IBS_CTL 0x%llx)",
			   what, g->lvtpc, g->n, VEC_PMI, sv->off, VEC_IBS,
			   (unsigned long long)sv->ctl);
	if (g->no_val)
		check_fail(c,
			   "IBS %s: %u interrupts on vector 0x%x with the sample's Val bit clear",
			   what, g->no_val, VEC_IBS);
	if (!g->n)
		check_fail(
		    c,
		    "IBS %s: no sample interrupt in %llu kernel iterations at a period of %u "
		    "(extended LVT entry %u, vector 0x%x)",
		    what, (unsigned long long)iters, PERIOD, sv->off, VEC_IBS);
	return g->n != 0;
}

/* Op sampling: the samples, their count against ops/period where the
 * counter counts ops (IbsOpCntCtl, 8000_001Bh EAX[4] OpCnt); counting
 * cycles, the count depends on the IPC and is not judged. */
static bool op_judged(struct check_ctx *c, const struct saved *sv, struct ibs_tab *t, uint64_t ops,
		      char *range, size_t n)
{
	uint64_t expect = ops / PERIOD, lo = expect / 2, hi = 2 * expect + 2;
	bool counted = (pmu_sampling(c->pmu)->ibs.caps & CAPS_OPCNT) != 0;
	volatile struct ibs_run *g = &PCPU(seen);

	if (counted)
		pmh_fmt(range, n, "%llu..%llu", (unsigned long long)lo, (unsigned long long)hi);
	else
		pmh_fmt(range, n, "cycles counted: any");
	if (!sample_run(c, false, ITERS) || !judge_irqs(c, sv, "op", ITERS))
		return false;
	ibs_judge_addrs(c, t, g->rec, g->n < SAMPLES_MAX ? g->n : SAMPLES_MAX, false, g->target,
			"IBS_OP_RIP");
	if (counted && (g->n < lo || g->n > hi))
		check_fail(c,
			   "IBS op: %u samples in %llu kernel ops at a period of %u, expected "
			   "%llu..%llu (ops/period x [1/2, 2])",
			   g->n, (unsigned long long)ops, PERIOD, (unsigned long long)lo,
			   (unsigned long long)hi);
	return true;
}

/* Fetch sampling on half the iterations: addresses and at least a few. */
static unsigned fetch_judged(struct check_ctx *c, const struct saved *sv, struct ibs_tab *t)
{
	volatile struct ibs_run *g = &PCPU(seen);

	if (!sample_run(c, true, ITERS / 2) || !judge_irqs(c, sv, "fetch", ITERS / 2))
		return 0;
	ibs_judge_addrs(c, t, g->rec, g->n < SAMPLES_MAX ? g->n : SAMPLES_MAX, true, g->target,
			"IBS_FETCH_LINADDR");
	if (g->n < FETCH_MIN)
		check_fail(c,
			   "IBS fetch: %u samples in %u kernel iterations at a period of %u, at "
			   "least %u expected",
			   g->n, ITERS / 2, PERIOD, FETCH_MIN);
	return g->n;
}

static void run(struct check_ctx *c)
{
	static struct ibs_tab tab PMH_PERCPU;
	struct ibs_tab *t = &PCPU(tab);
	volatile struct ibs_run *g = &PCPU(seen);
	struct saved sv;
	unsigned op_n = 0, fetch_n = 0;
	bool fetch = (pmu_sampling(c->pmu)->ibs.caps & CAPS_FETCHSAM) != 0;
	char range[32];

	if (!usable(c, &sv))
		return;
	t->n = 0;
	uint64_t ops = smp_walk(ITERS, ibs_tab_add, t);
	if (program(c, &sv) && op_judged(c, &sv, t, ops, range, sizeof(range))) {
		op_n = g->n;
		if (fetch)
			fetch_n = fetch_judged(c, &sv, t);
	}
	put_back(c, &sv);
	check_pass(c,
		   "%u op samples in %llu ops at period %u (%s), RIPs and branch bits as the "
		   "kernel's; %u fetch samples%s; on extended LVT entry %u (vector 0x%x)",
		   op_n, (unsigned long long)ops, PERIOD, range, fetch_n,
		   fetch ? "" : " (no fetch sampling)", sv.off, VEC_IBS);
}

PMH_CHECK(ibs_sample, .id = "ibs.sample",
	  .summary = "IBS op and fetch samples: kernel RIPs, branch bits, count, extended LVT",
	  .order = 138, .needs_pmu = true, .run = run);
