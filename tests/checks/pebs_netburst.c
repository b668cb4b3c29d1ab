/* pebs.netburst: the Pentium 4's PEBS writes one record per sampled event,
 * for the instruction after it, and reloads its counter (Intel SDM Vol. 3B
 * 18.15.7: "After the counter overflows, the processor copies the current
 * state of the general-purpose and EFLAGS registers and instruction pointer
 * into a record ... then resets the count in the performance counter";
 * 17.4.9 the DS save area; 18.16.3 with Hyper-Threading; Linux
 * arch/x86/events/intel/p4.c). What pmu/ds_netburst.c found: front_end_event
 * .NBOGUS (08H on CRU_ESCR2/3, select 05H), an at-retirement event PEBS
 * takes, on IQ_COUNTER4 (IQ_COUNTER5 on logical processor 1) through the
 * driver, the ESCR its table binds to the counter; the μops it counts are
 * those front-end tagging marks (18.15.6.2): uop_type (02H) with TAGLOADS |
 * TAGSTORES in the RAT ESCR of the counter's half, this thread's OS bit.
 * MSR_PEBS_ENABLE gets ENABLE_PEBS_MY_THR (bit 25: 18.16.3, Vol. 4, Linux
 * P4_PEBS_ENABLE) and bit 24 (UOP_TAG, which some editions' 18.15.7.1 call
 * the enable; with MATRIX_VERT 0 and no metric bit it tags nothing). Preload
 * and reset -R over the sampling kernel at CPL 0, interrupts off: its memory
 * μops are its near calls (the return address stored) and returns (loaded),
 * four an iteration (ours: one tagged μop each); R + 1 = 63 between records
 * cycles through all four. Judged exactly against the kernel's walk
 * (events/sample.h): some o in [0, R] makes record j's IP the next
 * instruction of the walk's call or return o + j(R + 1) ("the instruction
 * executed after the instruction that caused the event", 18.4.4: no
 * EventingIP on NetBurst), its EFLAGS bit 1 set and IF clear; as many
 * records as the walk has such steps up to NB_RECS (one where more were
 * due: not reloaded); the threshold at the last raises exactly one PMI (no
 * status register). The layout: 64-bit with DTES64 or in IA-32e mode (the
 * x86-64 build), else 32-bit (17.4.9.1). Tolerance: o absorbs the harness's
 * memory μops between the enable and the kernel (at most R) and the i386
 * kernel's pushes and load before its first branch; records before the
 * kernel's are left out. DS_AREA, MSR_PEBS_ENABLE, MATRIX_VERT and the RAT
 * ESCR go back to the firmware's values. */
#include "pmi_common.h"
#include "../ds_area.h"
#include "../../events/sample.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../pmu/percpu.h"
#include "../../pmu/intel_netburst.h"
#include "../../pmu/sampling.h"

#define NB_R	     62 /* the reset value -R: a record every R + 1 = 63 tagged μops */
#define NB_STEP	     (NB_R + 1)
#define NB_RECS	     12	  /* the buffer's records; its threshold at the last */
#define NB_ITERS     250  /* 1001 calls and returns: NB_RECS records from any o */
#define NB_REC64     0x90 /* RFLAGS, RIP, RAX-R15 */
#define NB_REC32     40	  /* EFLAGS, linear IP, EAX-ESP */
#define PMI_STORM    16	  /* PMIs after which the handler leaves LVTPC masked */
#define MATRIX_VERT  0x3f2
#define PEBS_UOP_TAG (1ull << 24)
#define PEBS_MY_THR  (1ull << 25)
#define CRU_ESCR2    0x3cc
#define RAT_ESCR0    0x3bc
#define IQ_COUNTER5  17
#define UOP_TYPE     0x02
#define TAG_LDST     0x6    /* TAGLOADS (bit 1) | TAGSTORES (bit 2) */
#define DBGA_TR_BTS  0xcull /* MSR_DEBUGCTLA TR (2), BTS (3): SDM Vol. 3B 18.5.1 */
#define EFLAGS_FIXED 0x2ull
#define EFLAGS_IF    0x200ull
#define NB_NEXT	     0 /* nb_walk.hits: by the next instruction's IP, R + 1 apart */
#define NB_OWN	     1 /* by the sampled instruction's own IP */
#define NB_EARLY     2 /* by the next's, R apart */
_Static_assert(4 * NB_ITERS > NB_R + NB_RECS * NB_STEP && NB_RECS <= 16,
	       "the walk's calls and returns hold NB_RECS records from any o; a bit each");

/* The DS save area (SDM Vol. 3B 17.4.9 Figure "DS Save Area", 17.4.9.1 the
 * 64-bit one), pointer-sized fields: the BTS buffer's base, index, absolute
 * maximum and interrupt threshold (0-3), the PEBS buffer's (4-7), then the
 * one counter reset, "a 40-bit value" (field 8: 40H, or 20H in the 32-bit
 * layout, where it takes 8 bytes too: ours). */
#define DS_PEBS_BASE  4
#define DS_PEBS_INDEX 5
#define DS_PEBS_MAX   6
#define DS_PEBS_THR   7
#define DS_RESET      8
/* Per CPU (pmu/percpu.h), as every piece of state below. */
static uint8_t nb_area[0x50] PMH_PERCPU __attribute__((aligned(64)));
#define buf ((uint8_t *)ds_records()) /* tests/ds_area.h: this CPU's DS checks' records */
_Static_assert(NB_RECS *NB_REC64 <= DS_RECORDS_BYTES, "the records fit the shared buffer");

struct plan {
	const struct pmu_ds *d;
	unsigned ctr, size, word;
	uint32_t cru, rat; /* front_end_event's ESCR, uop_type's */
	bool l64, t1;	   /* the 64-bit layout; logical processor 1 */
};

struct obs {
	unsigned n, lead; /* records, of them the harness's before the kernel's */
	uint64_t index, pmis;
	uint64_t ip[NB_RECS], flags[NB_RECS];
};

struct nb_fw {
	uint64_t area, enable, vert, rat;
};

/* The PMI handler: NetBurst has no status to read or ack; LVTPC, masked on
 * delivery (Linux perfctr-watchdog.c p4_rearm), unmasked again; EOI. */
struct nb_handler {
	uint32_t lvt;
	bool nmi;
	volatile uint64_t pmis;
};
static struct nb_handler nb_h PMH_PERCPU;

static void handler(struct int_frame *f)
{
	struct nb_handler *h = &PCPU(nb_h); /* the CPU that took the PMI */

	(void)f;
	if (++h->pmis < PMI_STORM)
		apic_lvt_pc_write(h->lvt);
	if (!h->nmi)
		apic_eoi();
}

static bool pmis_reach(const void *arg)
{
	return PCPU(nb_h).pmis >= *(const uint64_t *)arg;
}

/* PMIs up to want within PMI_WAIT_US, then a quiet PMI_QUIET_US for one
 * more (interrupts on at PMI_TPR meanwhile). */
static void wait_pmis(uint64_t want)
{
	struct pmi_window pw;
	uint64_t more = want + 1;

	pmi_window_open(&pw);
	if (want)
		apic_wait_us(pmis_reach, &want, PMI_WAIT_US);
	apic_wait_us(pmis_reach, &more, PMI_QUIET_US);
	pmi_window_close(&pw);
}

/* The walk's calls and returns (the kernel's memory μops): how many (n),
 * the first branch's address (before it the i386 kernel's prologue); per
 * offset o and bit j, whether the kernel's record j is explained by the
 * call or return o + j(R + 1) (hits[NB_NEXT], [NB_OWN]) or o + jR
 * ([NB_EARLY]); the one numbered want (its addresses for a message). */
struct nb_walk {
	const struct obs *o;
	uint64_t t, n, first_br, want;
	uint16_t hits[3][NB_STEP];
	struct smp_step at;
};
static struct nb_walk walk PMH_PERCPU;

static bool memory_step(const struct smp_step *st)
{
	return st->kind == SMP_CALL || st->kind == SMP_CALL_IND || st->kind == SMP_RET;
}

static void on_count(void *ctx, const struct smp_step *st)
{
	struct nb_walk *wk = ctx;

	if (!wk->first_br && st->kind != SMP_NONE)
		wk->first_br = st->ip;
	wk->n += memory_step(st);
}

static void hit(struct nb_walk *wk, unsigned which, unsigned step, const struct smp_step *st,
		bool own)
{
	uint64_t j = wk->t / step;

	if (j < wk->o->n - wk->o->lead && wk->o->ip[wk->o->lead + j] == (own ? st->ip : st->next))
		wk->hits[which][wk->t % step] |= (uint16_t)(1u << j);
}

static void on_judge(void *ctx, const struct smp_step *st)
{
	struct nb_walk *wk = ctx;

	if (!memory_step(st))
		return;
	hit(wk, NB_NEXT, NB_STEP, st, false);
	hit(wk, NB_OWN, NB_STEP, st, true);
	hit(wk, NB_EARLY, NB_R, st, false);
	if (wk->t++ == wk->want)
		wk->at = *st;
}

static void walk_judge(const struct obs *o, uint64_t want)
{
	struct nb_walk *wk = &PCPU(walk);

	wk->o = o;
	wk->t = 0;
	wk->want = want;
	smp_walk(NB_ITERS, on_judge, wk);
}

/* The ESCR of the pair at addr0 that feeds counter ctr (the driver's
 * table), or 0. */
static uint32_t escr_for(uint32_t addr0, unsigned ctr)
{
	for (uint32_t a = addr0; a <= addr0 + 1; a++) {
		const struct escr *e = netburst_escr_find(a);
		if (e && ctr < 32 && ((netburst_escr_counters(e) >> ctr) & 1))
			return a;
	}
	return 0;
}

static void plan(const struct pmu_ds *d, struct plan *pl)
{
	*pl = (struct plan){.d = d, .ctr = d->pebs_ctr};
	pl->cru = escr_for(CRU_ESCR2, pl->ctr);
	pl->rat = escr_for(RAT_ESCR0, pl->ctr);
	pl->t1 = pl->ctr == IQ_COUNTER5; /* IQ_CCCR5 "for logical processor 1" */
	/* the x86-64 build runs in IA-32e mode, the i386 one outside it */
	pl->l64 = d->ds64 || sizeof(void *) == 8;
	pl->size = pl->l64 ? NB_REC64 : NB_REC32;
	pl->word = pl->l64 ? 8 : 4;
}

static void area_put(const struct plan *pl, unsigned k, uint64_t v, unsigned n)
{
	pmh_memcpy(PCPU(nb_area) + k * pl->word, &v, n);
}

static bool save(struct check_ctx *c, const struct plan *pl, struct nb_fw *fw)
{
	*fw = (struct nb_fw){0};
	return m_rdmsr(c, MSR_IA32_DS_AREA, &fw->area) &&
	       m_rdmsr(c, MSR_IA32_PEBS_ENABLE, &fw->enable) &&
	       m_rdmsr(c, MATRIX_VERT, &fw->vert) && m_rdmsr(c, pl->rat, &fw->rat);
}

/* PEBS first (its records off before the area moves). */
static bool restore(struct check_ctx *c, const struct plan *pl, const struct nb_fw *fw)
{
	return m_wrmsr(c, MSR_IA32_PEBS_ENABLE, fw->enable) && m_wrmsr(c, MATRIX_VERT, fw->vert) &&
	       m_wrmsr(c, MSR_IA32_DS_AREA, fw->area) && m_wrmsr(c, pl->rat, fw->rat);
}

/* The event on its counter preloaded with -R, the tagging, the DS area,
 * PEBS on. False when an op failed (FAILed). */
static bool arm(struct check_ctx *c, const struct plan *pl)
{
	struct pmu *p = c->pmu;
	const struct escr *e = netburst_escr_find(pl->cru);
	struct pmu_event ev = {.code = pl->d->pebs_event,
			       .escr_mask = pl->d->pebs_umask,
			       .escr_select = e->select,
			       .escr_msr = e->addr,
			       .counters = netburst_escr_counters(e)};
	uint64_t tag = (uint64_t)UOP_TYPE << ESCR_EVENT_SHIFT |
		       (uint64_t)TAG_LDST << ESCR_MASK_SHIFT | (pl->t1 ? ESCR_T1_OS : ESCR_T0_OS);
	uint64_t base = (uint64_t)(uintptr_t)buf;
	uint8_t *area = PCPU(nb_area);

	pmh_strlcpy(ev.name, pl->d->pebs_event_name, sizeof(ev.name));
	if (!m_op(c, p->ops->program(p, pl->ctr, &ev, PMU_F_OS), MO_PROGRAM, 1ull << pl->ctr, 0))
		return false;
	pmh_memset(buf, 0, NB_RECS * NB_REC64);
	pmh_memset(area, 0, sizeof(nb_area));
	for (unsigned k = DS_PEBS_BASE; k <= DS_PEBS_THR; k++)
		area_put(pl, k, k < DS_PEBS_MAX ? base : base + NB_RECS * pl->size, pl->word);
	area_put(pl, DS_RESET, (0 - (uint64_t)NB_R) & pmu_width_mask(p->ctr[pl->ctr].width), 8);
	return m_wrmsr(c, pl->rat, tag) && m_preload(c, pl->ctr, NB_R) &&
	       m_wrmsr(c, MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)area) &&
	       m_wrmsr(c, MATRIX_VERT, 0) &&
	       m_wrmsr(c, MSR_IA32_PEBS_ENABLE, PEBS_MY_THR | PEBS_UOP_TAG);
}

/* The pointer-sized field at: the layout's. */
static uint64_t word(const struct plan *pl, const uint8_t *at)
{
	uint64_t v = 0;
	pmh_memcpy(&v, at, pl->word);
	return v;
}

/* The records as the index left them; the harness's before the kernel's
 * (and the i386 prologue's) counted in lead. */
static void collect(const struct plan *pl, struct obs *o)
{
	uint64_t lo, hi, base = (uint64_t)(uintptr_t)buf;
	const struct nb_walk *wk = &PCPU(walk);

	smp_bounds(&lo, &hi);
	o->index = word(pl, PCPU(nb_area) + DS_PEBS_INDEX * pl->word);
	o->n = o->index >= base ? (unsigned)((o->index - base) / pl->size) : 0;
	if (o->n > NB_RECS)
		o->n = NB_RECS;
	for (unsigned j = 0; j < o->n; j++) {
		o->flags[j] = word(pl, buf + j * pl->size);
		o->ip[j] = word(pl, buf + j * pl->size + pl->word);
	}
	while (o->lead < o->n &&
	       (o->ip[o->lead] < lo || o->ip[o->lead] >= hi || o->ip[o->lead] <= wk->first_br))
		o->lead++;
}

/* One window: the kernel with PEBS on and interrupts off, PEBS off, then
 * the PMI the threshold owes. False when an op failed (FAILed). */
static bool window(struct check_ctx *c, const struct plan *pl, struct obs *o)
{
	struct pmu *p = c->pmu;
	uint64_t bit = 1ull << pl->ctr, thr = (uint64_t)(uintptr_t)buf + NB_RECS * pl->size;
	bool irq = hw_irq_enabled();
	struct nb_handler *h = &PCPU(nb_h);

	pmh_memset(o, 0, sizeof(*o));
	h->pmis = 0;
	if (!arm(c, pl))
		return false;
	hw_irq_disable();
	int on = p->ops->start(p, bit);
	hw_run_workload(&wl_sample, NB_ITERS);
	int off = p->ops->stop(p, bit);
	int pe = hw_wrmsr(MSR_IA32_PEBS_ENABLE, 0); /* judged by the write after */
	(void)pe;
	wait_pmis(word(pl, PCPU(nb_area) + DS_PEBS_INDEX * pl->word) >= thr ? 1 : 0);
	if (irq)
		hw_irq_enable();
	collect(pl, o);
	o->pmis = h->pmis;
	return m_op(c, on, MO_START, bit, 0) && m_op(c, off, MO_STOP, bit, 0) &&
	       m_wrmsr(c, MSR_IA32_PEBS_ENABLE, 0);
}

/* ---- the verdict ----------------------------------------------------- */

/* Set bits of v (no libgcc on the target for __builtin_popcount). */
static unsigned bits(unsigned v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The first offset that explains every kernel record in hits[which], or -1. */
static int64_t offset(const struct obs *o, unsigned which, unsigned step)
{
	const struct nb_walk *wk = &PCPU(walk);

	for (unsigned off = 0; off < step; off++)
		if (wk->hits[which][off] == (1u << (o->n - o->lead)) - 1)
			return off;
	return -1;
}

/* No offset fits: what the records are instead, named. */
static void mismatch(struct check_ctx *c, const struct obs *o)
{
	const struct nb_walk *wk = &PCPU(walk);
	unsigned k = o->n - o->lead, best = 0, at = 0, j = 0;

	if (offset(o, NB_OWN, NB_STEP) >= 0) {
		check_fail(c, "PEBS: each record's IP is the sampled call's or return's own, not "
			      "the next instruction's (SDM Vol. 3B 18.4.4; no EventingIP)");
		return;
	}
	if (offset(o, NB_EARLY, NB_R) >= 0) {
		check_fail(c,
			   "PEBS: records every %u tagged uops, not %u: at the event that wrapped "
			   "the counter, not the next (ours: SDM 18.15.7 reads either way)",
			   NB_R, NB_STEP);
		return;
	}
	for (unsigned off = 0; off < NB_STEP; off++)
		if (bits(wk->hits[NB_NEXT][off]) > best) {
			best = bits(wk->hits[NB_NEXT][off]);
			at = off;
		}
	while (j + 1 < k && ((wk->hits[NB_NEXT][at] >> j) & 1))
		j++;
	walk_judge(o, at + (uint64_t)j * NB_STEP);
	check_fail(c,
		   "PEBS: no offset fits every record's IP: record %u IP 0x%llx, call/return %llu "
		   "at 0x%llx next 0x%llx (offset %u: %u of %u fit)",
		   o->lead + j, (unsigned long long)o->ip[o->lead + j],
		   (unsigned long long)wk->want, (unsigned long long)wk->at.ip,
		   (unsigned long long)wk->at.next, at, best, k);
}

/* As many records as the walk has calls and returns for, up to the buffer. */
static void count(struct check_ctx *c, const struct obs *o, uint64_t off)
{
	const struct nb_walk *wk = &PCPU(walk);
	uint64_t pred = off < wk->n ? (wk->n - 1 - off) / NB_STEP + 1 : 0;
	uint64_t want = o->lead + pred < NB_RECS ? o->lead + pred : NB_RECS;

	if (o->n == want)
		return;
	if (o->n - o->lead == 1 && pred > 1)
		check_fail(c,
			   "PEBS: 1 record where the walk has %llu more every %u tagged uops: the "
			   "counter was not reloaded from the DS area's reset value -%u",
			   (unsigned long long)(want - o->lead - 1), NB_STEP, NB_R);
	else
		check_fail(
		    c,
		    "PEBS: %u records, expected %llu (%llu the walk has from call/return %llu, "
		    "up to the buffer's %u)",
		    o->n, (unsigned long long)want, (unsigned long long)pred,
		    (unsigned long long)off, NB_RECS);
}

/* The threshold: one PMI where the index reached it, none where not. */
static void threshold(struct check_ctx *c, const struct plan *pl, const struct obs *o)
{
	bool reached = o->index >= (uint64_t)(uintptr_t)buf + NB_RECS * pl->size;

	if (reached && !o->pmis)
		check_fail(c,
			   "PEBS interrupt threshold reached (record %u): no PMI in %u ms (the DS "
			   "buffer's threshold PMI lost)",
			   NB_RECS, PMI_WAIT_US / 1000);
	else if (o->pmis != (reached ? 1u : 0u))
		check_fail(c, "PEBS interrupt threshold %s: %llu PMIs, expected %u%s",
			   reached ? "reached" : "not reached", (unsigned long long)o->pmis,
			   reached ? 1 : 0, o->pmis >= PMI_STORM ? " (a PMI storm)" : "");
}

/* The index, the kernel's records, their EFLAGS; false when FAILed. */
static bool sane(struct check_ctx *c, const struct plan *pl, const struct obs *o)
{
	uint64_t base = (uint64_t)(uintptr_t)buf, max = base + NB_RECS * pl->size;

	if (o->index < base || o->index > max || (o->index - base) % pl->size)
		check_fail(c,
			   "PEBS index 0x%llx: not base 0x%llx + records of %u bytes up to 0x%llx",
			   (unsigned long long)o->index, (unsigned long long)base, pl->size,
			   (unsigned long long)max);
	else if (o->n == o->lead)
		check_fail(c,
			   "PEBS: no record of the kernel (%u records, none inside it): %s on %s "
			   "from -%u over %u iterations",
			   o->n, pl->d->pebs_event_name, c->pmu->ctr[pl->ctr].name, NB_R, NB_ITERS);
	for (unsigned j = o->lead; j < o->n && c->v != V_FAIL; j++)
		if ((o->flags[j] & (EFLAGS_FIXED | EFLAGS_IF)) != EFLAGS_FIXED)
			check_fail(c, "PEBS record %u: EFLAGS 0x%llx: bit 1 clear or IF set", j,
				   (unsigned long long)o->flags[j]);
	return c->v != V_FAIL;
}

static void judge(struct check_ctx *c, const struct plan *pl, const struct obs *o)
{
	int64_t off = -2;

	if (sane(c, pl, o)) {
		walk_judge(o, ~0ull);
		off = offset(o, NB_NEXT, NB_STEP);
	}
	if (off == -1)
		mismatch(c, o);
	else if (off >= 0)
		count(c, o, (uint64_t)off);
	threshold(c, pl, o);
	c->fig.tolerance = "exact; the first record's offset in [0, R] and records before the "
			   "kernel's are the harness's code";
	if (c->v != V_FAIL)
		check_pass(
		    c,
		    "%u records of %s (uop_type loads, stores) on %s, every %u calls and "
		    "returns from call/return %lld, IP the next instruction's, exact; reloaded; "
		    "threshold: 1 PMI; %u-bit DS area%s",
		    o->n, pl->d->pebs_event_name, c->pmu->ctr[pl->ctr].name, NB_STEP,
		    (long long)off, pl->l64 ? 64 : 32, o->lead ? "; harness records out" : "");
}

/* Why this CPU cannot run the check, or NULL. */
static const char *cannot(const struct check_ctx *c, const struct plan *pl)
{
	static char why[112] PMH_PERCPU;
	uint64_t dbg = 0;

	if (!pl->d->pebs) {
		pmh_fmt(PCPU(why), sizeof(why), "no NetBurst PEBS: %s", pl->d->why_pebs);
		return PCPU(why);
	}
	if (!pl->cru || !pl->rat || pl->ctr >= c->pmu->n)
		return "the PEBS counter has no CRU_ESCR2/3 and RAT_ESCR0/1 in the driver's table";
	/* a branch trace the firmware left on would follow the DS area */
	if (hw_rdmsr(MSR_DEBUGCTL, &dbg) == HW_OK && (dbg & DBGA_TR_BTS))
		return "the firmware left branch trace on (MSR_DEBUGCTLA TR/BTS, bits 2-3)";
	return 0;
}

static void run(struct check_ctx *c)
{
	struct pmu_ds d;
	struct plan pl;
	struct nb_fw fw;
	struct obs o;
	const char *why;

	pmu_ds_detect_netburst(c->pmu, &d);
	plan(&d, &pl);
	if ((why = cannot(c, &pl))) {
		check_skip(c, "%s", why);
		return;
	}
	struct nb_walk *wk = &PCPU(walk);
	struct nb_handler *h = &PCPU(nb_h);

	pmh_memset(wk, 0, sizeof(*wk));
	smp_walk(NB_ITERS, on_count, wk);
	if (!save(c, &pl, &fw))
		return;
	h->nmi = c->opt->pmi == PMI_NMI;
	bool ok = pmi_begin(c);
	if (ok) {
		h->lvt = apic_lvt_pc_read(); /* armed, unmasked */
		isr_set_handler(h->nmi ? VEC_NMI : VEC_PMI, handler);
		ok = window(c, &pl, &o);
		pmi_end(c);
	}
	bool back = restore(c, &pl, &fw);
	if (ok && back)
		judge(c, &pl, &o);
}

PMH_CHECK(pebs_netburst, .id = "pebs.netburst",
	  .summary = "NetBurst PEBS records the instruction after the sampled one, reloads",
	  .order = 141, .needs_pmu = true, .run = run);
