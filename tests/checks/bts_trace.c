/* bts.trace: the branch trace store records every taken branch, in order
 * (Intel SDM Vol. 3B 18.4.8 "Branch Trace Store (BTS)", 18.6.3.4 "Debug
 * Store (DS) Mechanism"): with IA32_DEBUGCTL.TR and .BTS set each taken
 * branch stores a record {from, to, flags} of 24 bytes (64-bit layout,
 * DTES64) at the BTS index. The sampling kernel (x86/sample.S) runs at
 * CPL 0 with interrupts off, twice:
 *  - trace: TR and BTS, a circular buffer (BTINT clear) of BTS_RECS
 *    records, more than the window takes. From the first record whose
 *    `from` is inside the kernel to its final RET, the records must be
 *    exactly the taken branches of the kernel's walk (events/sample.h),
 *    `from` and `to` (the RET's `to` is the caller: any), in order; the
 *    harness's branches before and after (outside the kernel) are left
 *    out, and no record after the RET comes from inside the kernel;
 *  - interrupt: TR, BTS and BTINT, a buffer of BTS_INT_RECS records whose
 *    interrupt threshold is its absolute maximum: the kernel's branches fill
 *    it, the records stop there (the index at the absolute maximum, not
 *    back at the base: BTINT makes the buffer linear) and exactly one PMI
 *    comes (Linux intel_bts_interrupt; no GLOBAL_STATUS bit is judged).
 *    The records up to there agree with the walk too.
 * The flags' predicted bit (4) is not judged. Exact: no tolerance but the
 * harness's own branches outside the kernel. The DS area and DEBUGCTL go
 * back to the firmware's values. The 64-bit DS layout (DTES64, IA-32e
 * mode) only. */
#include "pmi_common.h"
#include "../ds_area.h"
#include "../../events/sample.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../pmu/percpu.h"

#define BTS_ITERS     12  /* about 90 taken branches */
#define BTS_RECS      160 /* the trace window's buffer: 3.75 KiB */
#define BTS_INT_RECS  48  /* the interrupt window's: full before the kernel ends */
#define BTS_EXPECT    (BTS_ITERS * 8 + 4)
#define BTS_TRIES     3 /* trace windows while an SMI lands in each */
#define BTS_REC_BYTES 24
#define BTS_ON	      (DEBUGCTL_TR | DEBUGCTL_BTS)

struct bts_rec {
	uint64_t from, to, flags;
};
struct br {
	uint64_t from, to;
};
#define recs ((struct bts_rec *)ds_records()) /* tests/ds_area.h: this CPU's */
_Static_assert(BTS_RECS * sizeof(struct bts_rec) <= DS_RECORDS_BYTES, "the shared buffer");
/* The walk's taken branches, per CPU (pmu/percpu.h) as the trace is. */
static struct br expect[BTS_EXPECT] PMH_PERCPU;

/* What a window left: its records in the order they were written
 * (rec(k)), the walk's taken branches. */
struct trace {
	unsigned n, ne, first, cap; /* records; the walk's; the oldest's slot; slots */
	uint64_t index;
	bool wrapped, smi;
	uint64_t pmis;
};
static struct trace trace PMH_PERCPU;

static const struct bts_rec *rec(const struct trace *tr, unsigned k)
{
	return &recs[(tr->first + k) % tr->cap];
}

static void on_step(void *ctx, const struct smp_step *st)
{
	unsigned *n = ctx;

	if (st->kind != SMP_NONE && st->taken && *n < BTS_EXPECT)
		PCPU(expect)[(*n)++] = (struct br){st->ip, st->next};
}

static bool in_kernel(uint64_t ip)
{
	uint64_t lo, hi;

	smp_bounds(&lo, &hi);
	return ip >= lo && ip < hi;
}

/* The records as the index left them: oldest first, the circular buffer
 * unrolled where it wrapped (the slot at the index was written). */
static void collect(struct trace *tr, unsigned cap)
{
	const struct bts_rec *r = recs;
	uint64_t base = (uint64_t)(uintptr_t)r, index = ds_area()->bts.index;
	unsigned at = index >= base ? (unsigned)((index - base) / BTS_REC_BYTES) : 0;

	tr->index = index;
	tr->cap = cap;
	if (at > cap)
		at = cap;
	tr->wrapped = at < cap && (r[at].from || r[at].to || r[at].flags);
	tr->first = tr->wrapped ? at : 0;
	tr->n = tr->wrapped ? cap : at;
}

/* One window of the kernel with DEBUGCTL = dbg over a buffer of cap
 * records, threshold at its end. False when an op failed (FAILed). */
static bool window(struct check_ctx *c, unsigned cap, uint64_t dbg)
{
	struct trace *tr = &PCPU(trace);
	struct ds_save *a = ds_area();
	struct ds_window w;

	pmh_memset(recs, 0, BTS_RECS * sizeof(struct bts_rec));
	ds_area_set(&a->bts, recs, (uint64_t)cap * BTS_REC_BYTES);
	if (!m_wrmsr(c, MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)a))
		return false;
	ds_window_open(c, &w);
	int on = hw_wrmsr(MSR_DEBUGCTL, dbg);
	hw_run_workload(&wl_sample, BTS_ITERS);
	int off = hw_wrmsr(MSR_DEBUGCTL, 0);
	tr->smi = ds_window_close(c, &w, &a->bts, (dbg & DEBUGCTL_BTINT) != 0);
	collect(tr, cap);
	tr->pmis = ds_pmi()->pmis;
	if (on != HW_OK || off != HW_OK)
		check_fail(c, "BTS: writing DEBUGCTL (1D9H) 0x%llx raised %s",
			   (unsigned long long)(on != HW_OK ? dbg : 0),
			   hw_err_name(on != HW_OK ? on : off));
	return on == HW_OK && off == HW_OK;
}

/* No record after the kernel's final RET (record k on) from inside it. */
static bool none_after(struct check_ctx *c, const struct trace *tr, const char *what, unsigned k)
{
	for (; k < tr->n; k++)
		if (in_kernel(rec(tr, k)->from)) {
			check_fail(
			    c,
			    "BTS %s: record %u, a branch from 0x%llx inside the kernel, after "
			    "its final RET",
			    what, k, (unsigned long long)rec(tr, k)->from);
			return false;
		}
	return true;
}

/* The records from the first inside the kernel against the walk's taken
 * branches; whole: up to its final RET and nothing of the kernel after,
 * else as far as the records go. */
static bool agree(struct check_ctx *c, const char *what, bool whole)
{
	const struct trace *tr = &PCPU(trace);
	const struct br *expect_cpu = PCPU(expect);
	unsigned k0 = 0, i = 0;

	while (k0 < tr->n && !in_kernel(rec(tr, k0)->from))
		k0++;
	for (; i < tr->ne && k0 + i < tr->n; i++) {
		const struct bts_rec *r = rec(tr, k0 + i);
		if (r->from != expect_cpu[i].from || (i + 1 < tr->ne && r->to != expect_cpu[i].to))
			break;
	}
	if (i == tr->ne)
		return !whole || none_after(c, tr, what, k0 + i);
	if (k0 + i == tr->n) {
		if (!whole)
			return true;
		check_fail(c, "BTS %s: %u of the kernel's %u taken branches recorded, the %s", what,
			   i, tr->ne, tr->n ? "trace ends there" : "buffer holds no record");
		return false;
	}
	check_fail(c,
		   "BTS %s: record %u from 0x%llx to 0x%llx where the kernel's taken branch %u "
		   "is from 0x%llx to 0x%llx%s",
		   what, k0 + i, (unsigned long long)rec(tr, k0 + i)->from,
		   (unsigned long long)rec(tr, k0 + i)->to, i,
		   (unsigned long long)expect_cpu[i].from, (unsigned long long)expect_cpu[i].to,
		   tr->wrapped ? " (the circular buffer wrapped)" : "");
	return false;
}

/* The interrupt window: records stopped at the absolute maximum, one PMI. */
static void judge_int(struct check_ctx *c)
{
	const struct trace *tr = &PCPU(trace);
	const struct ds_buf *b = &ds_area()->bts;
	bool full = tr->index == b->max;

	if (!full)
		check_fail(c,
			   "BTS with BTINT: index 0x%llx after %u records, expected the absolute "
			   "maximum 0x%llx (records stop there; base 0x%llx)",
			   (unsigned long long)tr->index, tr->n, (unsigned long long)b->max,
			   (unsigned long long)b->base);
	else if (!tr->pmis)
		check_fail(
		    c,
		    "BTS interrupt threshold reached (record %u, BTINT set): no PMI in %u ms "
		    "(the DS buffer's threshold PMI lost)",
		    BTS_INT_RECS, PMI_WAIT_US / 1000);
	else if (tr->pmis != 1)
		check_fail(c, "BTS interrupt threshold: %llu PMIs, expected 1%s",
			   (unsigned long long)tr->pmis,
			   tr->pmis >= DS_PMI_STORM ? " (a PMI storm: the status will not clear)"
						    : "");
	(void)agree(c, "with BTINT", false);
}

/* Both windows; DEBUGCTL and the DS area back to fw's values after. False
 * when an op failed (FAILed). */
static bool windows(struct check_ctx *c, const char *no_pmi, unsigned *kernel, unsigned *outside)
{
	const struct trace *tr = &PCPU(trace);
	bool ok = true;

	for (unsigned t = 0; t < BTS_TRIES; t++)
		if (!(ok = window(c, BTS_RECS, BTS_ON)) || !tr->smi)
			break;
	if (!ok || !agree(c, "trace", true))
		return ok;
	*kernel = tr->ne;
	*outside = tr->n - tr->ne;
	if (no_pmi)
		return true;
	if (!ds_pmi_begin(c))
		return false;
	ok = window(c, BTS_INT_RECS, BTS_ON | DEBUGCTL_BTINT);
	pmi_end(c);
	if (ok)
		judge_int(c);
	return ok;
}

/* Why this build or CPU cannot run the check, or NULL. */
static const char *cannot(const struct pmu_ds *d)
{
	static char why[112] PMH_PERCPU;

	if (!d->bts) {
		pmh_fmt(PCPU(why), sizeof(why), "no BTS: %s", d->why_bts);
		return PCPU(why);
	}
#ifdef __i386__
	return "the 32-bit build runs outside IA-32e mode: the DS area's 32-bit layout (SDM Vol. "
	       "3B 18.6.3.4) is not read here";
#else
	return d->ds64 ? 0 : "no DTES64 (CPUID.1:ECX[2]): the 64-bit DS save area is not there";
#endif
}

static void run(struct check_ctx *c)
{
	const char *why = cannot(&pmu_sampling(c->pmu)->ds);
	const char *no_pmi = apic_lvt_pc_unusable(c->apic);
	struct trace *tr = &PCPU(trace);
	struct ds_fw fw;
	unsigned kernel = 0, outside = 0;

	if (why) {
		check_skip(c, "%s", why);
		return;
	}
	tr->ne = 0;
	smp_walk(BTS_ITERS, on_step, &tr->ne);
	if (!ds_fw_save(c, &fw, false, false))
		return;
	bool ok = windows(c, no_pmi, &kernel, &outside);
	bool back = ds_fw_restore(c, &fw);
	if (!ok || !back || c->v == V_FAIL)
		return;
	c->fig.tolerance = "exact; the harness's branches outside the kernel left out";
	check_pass(c,
		   "BTS: the kernel's %u taken branches in order, from and to exact (%u of the "
		   "harness's around them); %s%s",
		   kernel, outside,
		   no_pmi ? "BTINT not measured: "
			  : "BTINT: records stop at the absolute maximum, "
			    "1 PMI at the threshold",
		   no_pmi ? no_pmi : "");
}

PMH_CHECK(bts_trace, .id = "bts.trace",
	  .summary = "BTS records every taken branch in order; BTINT's threshold PMI", .order = 141,
	  .needs_pmu = true, .run = run);
