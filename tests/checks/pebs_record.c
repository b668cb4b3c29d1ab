/* pebs.record: PEBS writes one record per sampled instruction, for that
 * instruction, and reloads its counter (Intel SDM Vol. 3B 20.6.2.4: "When
 * the counter IA32_PMCx overflows from maximum count to zero, the PEBS
 * hardware is armed. Upon occurrence of the next PEBS event, the PEBS
 * hardware triggers an assist and causes a PEBS record to be written";
 * 18.6.3.4 the DS area's reset value; Linux arch/x86/events/intel/ds.c).
 * The family's PEBS event on its counter (pmu/ds.c: Skylake's precise
 * distribution INST_RETIRED.PREC_DIST on gp1, else INST_RETIRED.ANY_P on
 * gp0), preloaded with -R and reset to -R, over the sampling kernel at
 * CPL 0, interrupts off: a record every R + 1 = 509 instructions (prime,
 * coprime with the kernel's iterations of 19 and 20). Judged exactly
 * against the kernel's walk (events/sample.h), never the simulator: some
 * o in [0, R] makes record j's EventingIP (format 2 on, adaptive) walk
 * step o + j(R + 1)'s address and its RIP (formats 1-3, adaptive's GPR
 * group) that step's next where PERF_CAPABILITIES[6] says trap-like
 * ("will point to the instruction after (+1)"), else its own; as many
 * records as the walk has such steps up to the buffer's PEBS_RECS (one
 * where more were due: not reloaded); the threshold at the last record
 * raises one PMI that finds GLOBAL_STATUS bit 62 (SDM Vol. 3B 20.2.4;
 * Linux intel/core.c); format 3 and adaptive: applicable counters the
 * counter alone, the TSC never back; adaptive: format_size the size and
 * the PEBS_DATA_CFG groups where Adaptive_Record (EVTSEL bit 34, Linux
 * ICL_EVENTSEL_ADAPTIVE) holds, none otherwise. Tolerance: o absorbs the
 * harness's instructions between the enable and the kernel (at most R);
 * records before the kernel's are the harness's, left out. The DS
 * registers go back to the firmware's values (tests/ds_area.h). The
 * 64-bit DS layout (DTES64, IA-32e mode) only. */
#include "pmi_common.h"
#include "../ds_area.h"
#include "../hv_policy.h"
#include "../../events/sample.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../pmu/percpu.h"

#define PEBS_R		508 /* the reset value -R: a record every R + 1 = 509 instructions */
#define PEBS_STEP	(PEBS_R + 1)
#define PEBS_RECS	12   /* the buffer's records; its threshold at the last */
#define PEBS_ITERS	400  /* ~7800 instructions: more than PEBS_RECS records from any o */
#define PEBS_TRIES	3    /* windows while an SMI lands in each */
#define PEBS_SLOT	0xd0 /* the largest record asked for: basic + memory info + GPRs */
#define EVTSEL_ADAPTIVE (1ull << 34)
#define CFG_GROUPS	0x3ull /* PEBS_DATA_CFG: memory info (bit 0), GPRs (bit 1) */
enum { HAS_EIP = 1, HAS_RIP = 2, HAS_APP = 4, HAS_TSC = 8 }; /* the fields a record has */

#define buf ((uint8_t *)ds_records()) /* tests/ds_area.h: this CPU's */
_Static_assert(PEBS_RECS *PEBS_SLOT <= DS_RECORDS_BYTES, "the records fit the shared buffer");
/* bit j: record j agrees with step o + j(R + 1) in every field (hits), in
 * its EventingIP (its RIP without one) alone (hits_ip); per CPU
 * (pmu/percpu.h) */
static uint16_t hits[PEBS_STEP] PMH_PERCPU, hits_ip[PEBS_STEP] PMH_PERCPU;
_Static_assert(PEBS_RECS <= 16, "a bit per record in hits");

/* What the records must look like on this CPU. */
struct plan {
	unsigned ctr, size, has, rip_off;
	bool adaptive, held; /* adaptive PEBS; Adaptive_Record held in the select */
	uint64_t groups;     /* the groups format_size must list */
};

struct rec {
	uint64_t eip, rip, app, tsc, fmt_size;
};

/* What the window and its PMIs left. */
struct obs {
	unsigned n, lead; /* records, of them the harness's before the kernel's */
	uint64_t index, status, pmis;
	bool smi;
	struct rec r[PEBS_RECS];
};

/* What the CPU's debug store is (pmu/ds.c), detected at the first ask. */
static const struct pmu_ds *dsi(const struct check_ctx *c)
{
	return &pmu_sampling(c->pmu)->ds;
}

/* The record's layout (SDM Vol. 3B 20.6.2.4 formats 1-3; adaptive: Linux
 * intel/ds.c struct pebs_basic, pebs_meminfo, pebs_gprs). */
static void layout(const struct pmu_ds *d, struct plan *pl)
{
	static const unsigned legacy[] = {0, 0xb0, 0xc0, 0xc8};

	pl->adaptive = d->pebs_fmt >= 4;
	if (!pl->adaptive) {
		pl->size = legacy[d->pebs_fmt];
		pl->has = HAS_RIP | (d->pebs_fmt >= 2 ? HAS_EIP : 0) |
			  (d->pebs_fmt >= 3 ? HAS_APP | HAS_TSC : 0);
		pl->rip_off = 0x08;
		return;
	}
	pl->groups = pl->held ? CFG_GROUPS : 0;
	pl->size = 0x20 + (pl->held ? 0x20 + 0x90 : 0);
	pl->has = HAS_EIP | HAS_APP | HAS_TSC | (pl->held ? HAS_RIP : 0);
	pl->rip_off = 0x20 + 0x20 + 0x08; /* the GPR group's RIP */
}

/* Adaptive_Record (EVTSEL bit 34) into the programmed select; whether it
 * held. A #GP or a select that drops it: not held (basic records). */
static bool set_adaptive(const struct pmu_counter *k)
{
	uint64_t sel = 0;

	if (hw_rdmsr(k->ctl_msr, &sel) != HW_OK ||
	    hw_wrmsr(k->ctl_msr, sel | EVTSEL_ADAPTIVE) != HW_OK ||
	    hw_rdmsr(k->ctl_msr, &sel) != HW_OK)
		return false;
	return (sel & EVTSEL_ADAPTIVE) != 0;
}

/* The DS area, the event on its counter preloaded with -R, PEBS on. False
 * when an op failed (FAILed). */
static bool arm(struct check_ctx *c, struct plan *pl)
{
	struct pmu *p = c->pmu;
	const struct pmu_ds *d = dsi(c);
	struct pmu_event ev = {.code = d->pebs_event, .umask = d->pebs_umask};
	uint64_t bit = 1ull << pl->ctr;
	struct ds_save *a = ds_area();

	pmh_strlcpy(ev.name, d->pebs_event_name, sizeof(ev.name));
	if (!m_op(c, p->ops->program(p, pl->ctr, &ev, PMU_F_OS | PMU_F_USR), MO_PROGRAM, bit, 0))
		return false;
	if (d->pebs_baseline)
		pl->held = set_adaptive(&p->ctr[pl->ctr]);
	layout(d, pl);
	pmh_memset(buf, 0, (size_t)PEBS_RECS * PEBS_SLOT);
	ds_area_set(&a->pebs, buf, (uint64_t)PEBS_RECS * pl->size);
	a->reset[pl->ctr] = (0 - (uint64_t)PEBS_R) & pmu_width_mask(p->ctr[pl->ctr].width);
	return m_preload(c, pl->ctr, PEBS_R) &&
	       m_wrmsr(c, MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)a) &&
	       (!d->pebs_baseline || m_wrmsr(c, MSR_PEBS_DATA_CFG, CFG_GROUPS)) &&
	       m_wrmsr(c, MSR_DEBUGCTL, 0) && m_wrmsr(c, MSR_IA32_PEBS_ENABLE, bit);
}

static uint64_t q(unsigned j, const struct plan *pl, unsigned off)
{
	uint64_t v;
	pmh_memcpy(&v, buf + (size_t)j * pl->size + off, sizeof(v));
	return v;
}

/* The records as the index left them; the harness's before the kernel's. */
static void collect(const struct plan *pl, struct obs *o)
{
	const struct ds_buf *b = &ds_area()->pebs;
	uint64_t lo, hi;

	smp_bounds(&lo, &hi);
	o->index = b->index;
	o->n = b->index >= b->base ? (unsigned)((b->index - b->base) / pl->size) : 0;
	if (o->n > PEBS_RECS)
		o->n = PEBS_RECS;
	for (unsigned j = 0; j < o->n; j++) {
		struct rec *r = &o->r[j];
		r->rip = q(j, pl, pl->rip_off);
		r->eip = pl->adaptive	     ? q(j, pl, 0x08)
			 : pl->has & HAS_EIP ? q(j, pl, 0xb0)
					     : r->rip;
		r->app = q(j, pl, pl->adaptive ? 0x10 : 0x90);
		r->tsc = q(j, pl, pl->adaptive ? 0x18 : 0xc0);
		r->fmt_size = q(j, pl, 0);
	}
	while (o->lead < o->n && (o->r[o->lead].eip < lo || o->r[o->lead].eip >= hi))
		o->lead++;
}

/* One window: the kernel with PEBS on and interrupts off, PEBS off, then
 * the PMIs the threshold owes. False when an op failed (FAILed). */
static bool window(struct check_ctx *c, struct plan *pl, struct obs *o)
{
	struct pmu *p = c->pmu;
	uint64_t bit = 1ull << pl->ctr;
	struct ds_window w;

	pmh_memset(o, 0, sizeof(*o));
	if (!arm(c, pl))
		return false;
	ds_window_open(c, &w);
	int on = p->ops->start(p, bit);
	hw_run_workload(&wl_sample, PEBS_ITERS);
	int off = p->ops->stop(p, bit);
	int pe = hw_wrmsr(MSR_IA32_PEBS_ENABLE, 0); /* judged by the write after */
	(void)pe;
	o->smi = ds_window_close(c, &w, &ds_area()->pebs, true);
	collect(pl, o);
	o->pmis = ds_pmi()->pmis;
	o->status = ds_pmi()->status;
	return m_op(c, on, MO_START, bit, 0) && m_op(c, off, MO_STOP, bit, 0) &&
	       m_wrmsr(c, MSR_IA32_PEBS_ENABLE, 0);
}

/* ---- the verdict ----------------------------------------------------- */

static bool agree(const struct rec *r, const struct smp_step *st, const struct plan *pl, bool trap)
{
	if ((pl->has & HAS_EIP) && r->eip != st->ip)
		return false;
	return !(pl->has & HAS_RIP) || r->rip == (trap ? st->next : st->ip);
}

struct walk_ctx {
	const struct obs *o;
	const struct plan *pl;
	bool trap;
	uint64_t t, want; /* the step's index; the one step_at wants */
	struct smp_step at;
	uint16_t *hits, *hits_ip; /* this CPU's */
};

/* Step t is offset t % (R + 1) of record t / (R + 1) (o <= R). */
static void on_step(void *ctx, const struct smp_step *st)
{
	struct walk_ctx *w = ctx;
	uint64_t j = w->t / PEBS_STEP, off = w->t % PEBS_STEP;

	if (j < w->o->n - w->o->lead) {
		const struct rec *r = &w->o->r[w->o->lead + j];
		if (agree(r, st, w->pl, w->trap))
			w->hits[off] |= (uint16_t)(1u << j);
		if (r->eip == ((w->pl->has & HAS_EIP) || !w->trap ? st->ip : st->next))
			w->hits_ip[off] |= (uint16_t)(1u << j);
	}
	w->t++;
}

static void on_step_at(void *ctx, const struct smp_step *st)
{
	struct walk_ctx *w = ctx;

	if (w->t++ == w->want)
		w->at = *st;
}

/* The first record that step off + j(R + 1) of the walk does not explain,
 * named with that step; ip_fits: the EventingIPs all fit off. */
static void mismatch(struct check_ctx *c, struct walk_ctx *w, uint64_t off, unsigned agreed)
{
	unsigned k = w->o->n - w->o->lead, j = 0;
	bool ip_fits = agreed == k;

	while (j + 1 < k && ((w->hits[off] >> j) & 1))
		j++;
	const struct rec *r = &w->o->r[w->o->lead + j];
	w->t = 0;
	w->want = off + (uint64_t)j * PEBS_STEP;
	w->at = (struct smp_step){0};
	smp_walk(PEBS_ITERS, on_step_at, w);
	check_fail(c,
		   "PEBS: %s: record %u EventingIP 0x%llx RIP 0x%llx, kernel step %llu 0x%llx next "
		   "0x%llx (offset %llu of [0, %u]: %u of %u IPs fit)",
		   !ip_fits ? "no offset fits every record's IP"
		   : r->eip == r->rip
		       ? "the EventingIP is the trap-like RIP, the next instruction's"
		       : "every IP fits, a RIP is not the next instruction's",
		   w->o->lead + j, (unsigned long long)r->eip, (unsigned long long)r->rip,
		   (unsigned long long)w->want, (unsigned long long)w->at.ip,
		   (unsigned long long)w->at.next, (unsigned long long)off, PEBS_R, agreed, k);
}

/* Set bits of v (no libgcc on the target for __builtin_popcount). */
static unsigned bits(unsigned v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The offset o that explains every kernel record, or -1 (FAILed). */
static int64_t match(struct check_ctx *c, const struct plan *pl, const struct obs *o)
{
	struct walk_ctx w = {.o = o,
			     .pl = pl,
			     .trap = dsi(c)->pebs_trap,
			     .hits = PCPU(hits),
			     .hits_ip = PCPU(hits_ip)};
	unsigned k = o->n - o->lead, best = 0;
	uint64_t best_off = 0;

	pmh_memset(w.hits, 0, sizeof(hits));
	pmh_memset(w.hits_ip, 0, sizeof(hits_ip));
	smp_walk(PEBS_ITERS, on_step, &w);
	for (uint64_t off = 0; off < PEBS_STEP; off++) {
		unsigned fit = bits(w.hits_ip[off]);
		if (w.hits[off] == (1u << k) - 1)
			return (int64_t)off;
		if (fit > best) {
			best = fit;
			best_off = off;
		}
	}
	mismatch(c, &w, best_off, best);
	return -1;
}

/* Each record on its own: format_size, the applicable counters, the TSC;
 * the first that differs named. */
static void fields(struct check_ctx *c, const struct plan *pl, const struct obs *o)
{
	uint64_t want = (uint64_t)pl->size << 48 | pl->groups;

	for (unsigned j = 0; j < o->n && c->v != V_FAIL; j++) {
		const struct rec *r = &o->r[j];
		if (pl->adaptive && r->fmt_size != want)
			check_fail(
			    c,
			    "PEBS record %u: format_size 0x%llx, expected 0x%llx (size 0x%x, "
			    "PEBS_DATA_CFG 0x%llx, Adaptive_Record %s)",
			    j, (unsigned long long)r->fmt_size, (unsigned long long)want, pl->size,
			    (unsigned long long)CFG_GROUPS, pl->held ? "held" : "not held");
		else if ((pl->has & HAS_APP) && r->app != 1ull << pl->ctr)
			check_fail(c, "PEBS record %u: applicable counters 0x%llx, expected 0x%llx",
				   j, (unsigned long long)r->app, 1ull << pl->ctr);
		else if ((pl->has & HAS_TSC) && j && r->tsc < o->r[j - 1].tsc)
			check_fail(c, "PEBS record %u: TSC 0x%llx before the record's before it", j,
				   (unsigned long long)r->tsc);
	}
}

/* As many records as the walk has steps for them, up to the buffer. */
static void count(struct check_ctx *c, const struct obs *o, uint64_t off)
{
	uint64_t total = smp_walk(PEBS_ITERS, 0, 0);
	uint64_t pred = off < total ? (total - 1 - off) / PEBS_STEP + 1 : 0;
	uint64_t want = o->lead + pred < PEBS_RECS ? o->lead + pred : PEBS_RECS;

	if (o->n == want)
		return;
	if (o->n - o->lead == 1 && pred > 1)
		check_fail(c,
			   "PEBS: 1 record where the walk has %llu more every %u instructions: the "
			   "counter was not reloaded from the DS area's reset value -%u",
			   (unsigned long long)(want - o->lead - 1), PEBS_STEP, PEBS_R);
	else
		check_fail(c,
			   "PEBS: %u records, expected %llu (%llu the walk has from step %llu, "
			   "up to the buffer's %u)",
			   o->n, (unsigned long long)want, (unsigned long long)pred,
			   (unsigned long long)off, PEBS_RECS);
}

/* The threshold: one PMI with bit 62 where the index reached it, none
 * where it did not. */
static void threshold(struct check_ctx *c, const struct obs *o)
{
	bool reached = o->index >= ds_area()->pebs.threshold;

	if (reached && !o->pmis)
		check_fail(c,
			   "PEBS interrupt threshold reached (record %u): no PMI in %u ms (the DS "
			   "buffer's threshold PMI lost)",
			   PEBS_RECS, PMI_WAIT_US / 1000);
	else if (o->pmis != (reached ? 1u : 0u))
		check_fail(c, "PEBS interrupt threshold %s: %llu PMIs, expected %u%s",
			   reached ? "reached" : "not reached", (unsigned long long)o->pmis,
			   reached ? 1 : 0,
			   o->pmis >= DS_PMI_STORM ? " (a PMI storm: the status will not clear)"
						   : "");
	if (reached && o->pmis && !(o->status & GLOBAL_STATUS_DS_BUFFER))
		check_fail(c,
			   "PEBS interrupt threshold: the PMI found GLOBAL_STATUS 0x%llx, bit 62 "
			   "(OvfDSBuffer) clear (SDM Vol. 3B 20.2.4)",
			   (unsigned long long)o->status);
}

static void judge(struct check_ctx *c, const struct plan *pl, const struct obs *o)
{
	const struct pmu_ds *d = dsi(c);
	const struct ds_buf *b = &ds_area()->pebs;
	int64_t off = -1;

	if (o->index < b->base || o->index > b->max || (o->index - b->base) % pl->size)
		check_fail(c,
			   "PEBS index 0x%llx: not base 0x%llx + whole records of 0x%x bytes up "
			   "to the absolute maximum 0x%llx",
			   (unsigned long long)o->index, (unsigned long long)b->base, pl->size,
			   (unsigned long long)b->max);
	else if (o->n == o->lead)
		check_fail(c,
			   "PEBS: no record of the kernel (%u records, none inside it): %s on %s "
			   "from -%u over %u iterations",
			   o->n, d->pebs_event_name, c->pmu->ctr[pl->ctr].name, PEBS_R, PEBS_ITERS);
	if (c->v == V_FAIL) {
		threshold(c, o);
		return;
	}
	fields(c, pl, o);
	if ((off = match(c, pl, o)) >= 0)
		count(c, o, (uint64_t)off);
	threshold(c, o);
	c->fig.tolerance = "exact; the first record's offset in [0, R] and records before the "
			   "kernel's are the harness's code";
	if (c->v != V_FAIL)
		check_pass(
		    c,
		    "format %u%s%s: %u records of %s on %s, every %u instructions from "
		    "kernel step %lld, %s exact; reloaded; threshold: 1 PMI, status bit "
		    "62%s%s",
		    d->pebs_fmt, pl->adaptive ? " adaptive" : "", d->pebs_trap ? " trap-like" : "",
		    o->n, d->pebs_event_name, c->pmu->ctr[pl->ctr].name, PEBS_STEP, (long long)off,
		    (pl->has & (HAS_EIP | HAS_RIP)) == (HAS_EIP | HAS_RIP) ? "EventingIP, RIP"
		    : pl->has & HAS_EIP					   ? "EventingIP"
									   : "RIP",
		    !pl->adaptive ? ""
		    : pl->held	  ? "; format_size: memory info, GPRs"
				  : "; format_size: basic (Adaptive_Record not held)",
		    o->lead ? "; harness records left out" : "");
}

/* Why this build or CPU cannot run the check, or NULL. */
static const char *cannot(const struct check_ctx *c)
{
	const struct pmu_ds *d = dsi(c);
	static char why[112] PMH_PERCPU;

	if (!d->pebs) {
		pmh_fmt(PCPU(why), sizeof(why), "no PEBS: %s", d->why_pebs);
		return PCPU(why);
	}
	if (c->pmu->ops->id == PMU_DRV_INTEL_NETBURST)
		return "NetBurst PEBS (IQ_COUNTER4, no record format): pebs.netburst checks it";
#ifdef __i386__
	return "the 32-bit build runs outside IA-32e mode: the DS area's 32-bit layout (SDM Vol. "
	       "3B 18.6.3.4) is not written here";
#else
	return !d->ds64			     ? "no DTES64 (CPUID.1:ECX[2]): no 64-bit DS save area"
	       : hv_is_taken(c, d->pebs_ctr) ? "the PEBS event's counter is the host's (pmu.host)"
					     : 0;
#endif
}

static void run(struct check_ctx *c)
{
	const char *why = cannot(c);
	struct ds_fw fw;
	struct plan pl = {.ctr = dsi(c)->pebs_ctr};
	struct obs o;

	if (why) {
		check_skip(c, "%s", why);
		return;
	}
	if (!ds_fw_save(c, &fw, true, dsi(c)->pebs_baseline))
		return;
	bool ok = ds_pmi_begin(c);
	if (ok) {
		for (unsigned t = 0; t < PEBS_TRIES; t++)
			if (!(ok = window(c, &pl, &o)) || !o.smi)
				break;
		pmi_end(c);
	}
	bool back = ds_fw_restore(c, &fw);
	if (ok && back)
		judge(c, &pl, &o);
}

PMH_CHECK(pebs_record, .id = "pebs.record",
	  .summary = "PEBS records the sampled instruction and reloads its counter", .order = 140,
	  .needs_pmu = true, .run = run);
