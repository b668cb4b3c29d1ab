/* event.semantics: one rule measured (events/semantics.h). The event is
 * resolved from the catalogue, programmed on the first counter it may run
 * on, and counted over N and 2N iterations of the rule's workload; the
 * N/2N difference (the harness's own code cancels) is compared with the
 * workload's construction times N. */
#include "event_semantics.h"
#include "../hv_policy.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"

uint64_t sem_footprint_bytes(const struct sem_run *st, enum sem_footprint fp)
{
	const struct cpu_caches *k = &st->caches;
	const struct cache_level *llc = cpu_caches_llc(k);
	uint64_t b;

	switch (fp) {
	case FP_LINE:
		return 128; /* one line, and the FNSAVE area of wl_x87 */
	case FP_L1:
		return k->l1d.size / 2;
	case FP_L2:
		/* misses L1 (four times it) but fits half the L2 */
		if (!k->l1d.size || !k->l2.size)
			return 0;
		b = 4ull * k->l1d.size;
		return b < k->l2.size / 2 ? b : k->l2.size / 2;
	case FP_L2_OVER:
		return 4ull * k->l2.size;
	case FP_MEM:
		return llc ? 4ull * llc->size : 0;
	default: /* a window's: its virtual span */
		return sem_window_pages(st, fp) * PW_PAGE;
	}
}

static uint64_t line_of(const struct sem_run *st)
{
	return st->caches.l1d.line ? st->caches.l1d.line : 64;
}

/* Sets the workload's arguments for footprint fp: a chain for the chase
 * kernels (built once per size), a strided range for the rest, or a page
 * window (loaded until sem_measure's end). false (why says) when the
 * window cannot be built. */
static bool prepare(struct sem_run *st, struct workload *w, enum sem_footprint fp, char *why,
		    size_t n)
{
	uint64_t line = line_of(st);
	uint64_t bytes = sem_footprint_bytes(st, fp);

	if (sem_windowed(fp)) {
		if (!sem_window_on(st, w, fp, why, n))
			return false;
		bytes = st->win.nframes * PW_PAGE; /* the frames, not the span */
	} else {
		st->args.buf = st->buf;
		st->args.stride = line;
		st->args.lines = fp == FP_NONE ? 0 : (fp == FP_LINE ? 1 : bytes / line);
	}
	if (w->mem == WL_MEM_CHASE || w->mem == WL_MEM_CHASE_DIRTY) {
		if (st->chain_lines != st->args.lines)
			workload_chain(st->buf, st->args.lines, line, 1);
		st->chain_lines = st->args.lines;
	} else if (!sem_windowed(fp)) {
		if (w->mem == WL_MEM_PAGES)
			st->args.stride = 4096;
		if (fp != FP_NONE)
			st->chain_lines = 0; /* the kernel writes over the chain */
	}
	if (fp < FP_L1)
		return true;
	/* The lines' state must be the workload's doing: building the chain
	 * or an earlier walk that stored to them left them Modified, which a
	 * read-only walk would then meet (an E/S hit counted as an M one).
	 * Written back and invalidated, then one pass to reach the state the
	 * measured passes see (the N/2N windows then start alike). */
	hw_cache_flush(st->buf, bytes);
	w->args = &st->args;
	hw_run_workload(w, 1);
	return true;
}

/* The first counter the event may run on (event.raw's choice). */
static int pick_counter(struct check_ctx *c, const struct ev_result *r)
{
	struct pmu *p = c->pmu;
	char why[96];

	if (r->ev.fixed_only) { /* a fixed-counter event: that fixed counter */
		int f = events_fixed_index(&r->ev);
		for (unsigned i = 0; i < p->n; i++)
			if (p->ctr[i].kind == PMU_CTR_FIXED && (int)p->ctr[i].index == f)
				return (int)i;
		return -1;
	}
	for (unsigned i = 0; i < p->n; i++) {
		if (!r->ev.counters && p->ctr[i].kind != PMU_CTR_GP)
			continue;
		if (events_check_counter(&r->ev, i, why, sizeof(why)) != EV_REFUSED)
			return (int)i;
	}
	return -1;
}

/* N: enough iterations for SEM_MIN_EVENTS of the quantity measured. */
static uint64_t iterations_for(const struct workload *w, const struct wl_args *a)
{
	uint64_t per = a->lines ? a->lines : 1;
	uint64_t n = (SEM_MIN_EVENTS + per - 1) / per;
	if (w->call_depth || w->per_iter.cpuid)
		n = n / 16 ? n / 16 : 1; /* deep or serialising: 1024 iterations */
	else if (w->pattern == WL_BR_RANDOM || w->pattern == WL_BR_IND_RANDOM)
		n = n / 4; /* 4096 random directions: the bounds are 0.25 wide */
	return n;
}

/* Programs spec on a counter and counts it over w: the median N/2N
 * difference into *out. Returns M_OK, M_REFUSED (row skipped with why), or
 * a measurement status. rep: repeats. */
static int count_event(struct check_ctx *c, const char *spec, const struct workload *w, uint64_t n,
		       unsigned rep, bool smi_ok, int64_t *out, char *ctr, char *why, size_t wn)
{
	struct ev_result r;
	struct mdiff d;

	if (events_resolve(c->cpu->driver, c->cpu->family, c->cpu->model, spec, &r) == EV_REFUSED) {
		pmh_fmt(why, wn, "%s refused on this CPU: %s", spec, r.msg);
		return M_REFUSED;
	}
	int i = pick_counter(c, &r);
	if (i < 0) {
		pmh_fmt(why, wn, "no counter of %s accepts %s", c->pmu->name, spec);
		return M_REFUSED;
	}
	if (ctr)
		pmh_strlcpy(ctr, c->pmu->ctr[i].name, 16);
	m_quiesce(c);
	int e = c->pmu->ops->program(c->pmu, (unsigned)i, &r.ev, PMU_F_OS | PMU_F_USR);
	if (e == HW_REFUSED) {
		pmh_fmt(why, wn, "the driver refused %s on %s", spec, c->pmu->ctr[i].name);
		return M_REFUSED;
	}
	if (hv_gp_withheld(c, (unsigned)i, spec, e, why, wn))
		return M_REFUSED; /* the hypervisor's list: the row is skipped */
	if (!m_op(c, e, MO_PROGRAM, 1ull << i, 0))
		return M_FAULT;
	int st = m_diff_rep(c, (unsigned)i, 1ull << i, w, n, rep, smi_ok, &d);
	*out = d.med;
	return st;
}

/* TSC ticks of one window of w over n iterations: the least of three, as
 * an SMI or other interruption only ever adds time (and not every CPU can
 * count SMIs); counters stopped: only the workload's time is wanted. */
static int64_t tsc_window(struct check_ctx *c, const struct workload *w, uint64_t n)
{
	int64_t best = INT64_MAX;

	for (unsigned k = 0; k < 3; k++) {
		uint64_t t0 = hw_rdtsc();
		int st = m_window(c, 0, w, n);
		int64_t d = (int64_t)(hw_rdtsc() - t0);
		if (st != M_FAULT && d < best)
			best = d;
	}
	return best == INT64_MAX ? 0 : best;
}

/* TSC ticks of n iterations of w: the 2N window less the N window. */
static int64_t tsc_of(struct check_ctx *c, const struct workload *w, uint64_t n)
{
	return tsc_window(c, w, 2 * n) - tsc_window(c, w, n);
}

/* The quantity the rule compares with, times n: from the construction, or
 * measured (partner events, the TSC). */
static int expected_of(struct check_ctx *c, const struct sem_rule *r, const struct workload *w,
		       uint64_t n, unsigned rep, int64_t *e, char *why, size_t wn)
{
	struct workload_vector v;

	workload_iteration(w, &v);
	if (r->q == SQ_ELEMENTS) {
		*e = (int64_t)(w->args->lines * n);
	} else if (r->q == SQ_ITERATIONS) {
		*e = (int64_t)n;
	} else if (r->q == SQ_TSC) {
		*e = tsc_of(c, w, n);
	} else if (r->q == SQ_EVENTS) {
		*e = 0;
		for (unsigned k = 0; k < 3 && r->partner[k]; k++) {
			int64_t m;
			int st = count_event(c, r->partner[k], w, n, rep, r->kind != SEM_EXACT, &m,
					     0, why, wn);
			if (st != M_OK)
				return st;
			*e += m;
		}
	} else {
		*e = (int64_t)(sem_quantity(r->q, &v) * n);
	}
	return M_OK;
}

/* The accepted range of a rule for expected e (slack: the family's). */
static void range_of(struct check_ctx *c, const struct sem_rule *r, int64_t e, int64_t *lo,
		     int64_t *hi)
{
	int64_t slack = m_diff_slack(c);

	if (r->kind == SEM_EXACT) {
		*lo = e - slack;
		*hi = e + slack;
		return;
	}
	*lo = e * (int64_t)r->lo_pm / 1000 - slack;
	*hi = r->hi_pm == SEM_NO_MAX ? INT64_MAX : (e * (int64_t)r->hi_pm + 999) / 1000 + slack;
}

static const char *rule_text(const struct sem_rule *r, char *buf, size_t n)
{
	if (r->kind == SEM_EXACT)
		pmh_fmt(buf, n, "exact: %s", sem_quantity_name(r->q));
	else if (r->hi_pm == SEM_NO_MAX)
		pmh_fmt(buf, n, ">= %u.%03u x %s", r->lo_pm / 1000, r->lo_pm % 1000,
			sem_quantity_name(r->q));
	else
		pmh_fmt(buf, n, "%u.%03u-%u.%03u x %s", r->lo_pm / 1000, r->lo_pm % 1000,
			r->hi_pm / 1000, r->hi_pm % 1000, sem_quantity_name(r->q));
	return buf;
}

/* The row's static part: names, encoding, workload and footprint. */
static void row_start(struct check_ctx *c, const struct sem_run *st, const struct event_table *t,
		      const struct sem_rule *r, struct event_row *row)
{
	struct ev_result er;

	pmh_memset(row, 0, sizeof(*row));
	row->cpu = st->cpu;
	row->v = V_SKIP;
	row->source = r->source;
	pmh_strlcpy(row->name, r->event, sizeof(row->name));
	pmh_strlcpy(row->table, t->id, sizeof(row->table));
	pmh_strlcpy(row->workload, r->wl->name, sizeof(row->workload));
	rule_text(r, row->rule, sizeof(row->rule));
	if (events_resolve(c->cpu->driver, c->cpu->family, c->cpu->model, r->event, &er) !=
	    EV_REFUSED)
		events_format(&er.ev, t->netburst, row->enc, sizeof(row->enc));
	uint64_t b = sem_footprint_bytes(st, r->fp);
	if (r->fp >= FP_DTLB_L1 && r->fp <= FP_ITLB_L2 && b)
		pmh_fmt(row->footprint, sizeof(row->footprint), "%llu pages",
			(unsigned long long)(b / PW_PAGE));
	else if (r->fp > FP_LINE && b)
		pmh_fmt(row->footprint, sizeof(row->footprint), "%llu KiB",
			(unsigned long long)(b >> 10));
}

/* Whether the CPU has what the workload needs (CPUID.1 EDX/ECX,
 * 8000_0001h ECX/EDX); why names what is missing. */
static bool has_needs(const struct check_ctx *c, uint32_t needs, char *why, size_t n)
{
	const struct cpu_ids *id = &c->cpu->ids;
	uint32_t edx = id->leaf1.edx;
	struct {
		uint32_t bit;
		bool ok;
		const char *name;
	} t[] = {
	    {WL_NEEDS_SSE, (edx >> 25) & 1, "SSE (CPUID.1:EDX[25])"},
	    {WL_NEEDS_SSE2, (edx >> 26) & 1, "SSE2 (CPUID.1:EDX[26])"},
	    {WL_NEEDS_CLFSH, (edx >> 19) & 1, "CLFLUSH (CPUID.1:EDX[19])"},
	    {WL_NEEDS_PFW, ((id->ext1.ecx >> 8) & 1) || ((id->ext1.edx >> 31) & 1),
	     "PREFETCHW (CPUID 8000_0001h ECX[8] or EDX[31])"},
	    {WL_NEEDS_FCOMI, (edx & 1) && ((edx >> 15) & 1), "FCOMI (CPUID.1:EDX FPU and CMOV)"},
	};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if ((needs & t[i].bit) && !t[i].ok) {
			pmh_fmt(why, n, "the CPU has no %s", t[i].name);
			return false;
		}
	return true;
}

/* Why a rule cannot run here ("" when it can). */
static bool runnable(struct check_ctx *c, const struct sem_run *st, const struct sem_rule *r,
		     char *why, size_t n)
{
	uint64_t b = sem_memory_bytes(st, r->fp);

	if (!has_needs(c, r->wl->needs, why, n))
		return false;
	if (r->fp == FP_NONE || r->fp == FP_LINE) {
		if (r->fp == FP_LINE && !st->buf) {
			pmh_fmt(why, n, "no memory for the workload's line");
			return false;
		}
		return true;
	}
	if (!b && sem_windowed(r->fp) && sem_window_pages(st, r->fp)) {
		pmh_fmt(why, n, "no page window in this paging mode (%s)",
			st->paging.mode == HW_PG_PAE ? "PAE" : "too many pages");
		return false;
	}
	if (!b) {
		pmh_fmt(why, n, "the cache and TLB geometry (%s) does not give this walk's size",
			st->caches.source);
		return false;
	}
	if (b > st->cap) {
		pmh_fmt(why, n,
			"the walk needs %llu MiB, over the %llu MiB of the default set "
			"(events = all runs it)",
			(unsigned long long)(b >> 20), (unsigned long long)(st->cap >> 20));
		return false;
	}
	if (b > st->buf_size) {
		pmh_fmt(why, n, "no memory for a walk of %llu KiB", (unsigned long long)(b >> 10));
		return false;
	}
	return true;
}

/* Tries of a rule whose count falls outside its range: an SMI the CPU
 * cannot count lands in one try and not the next, a fault in every one. */
#define SEM_TRIES 3

/* One measurement of rule r: the event's count into *m, what it is
 * compared with into *e. M_REFUSED when the rule cannot run here (why in
 * the row's note), else a measurement status. */
static int measure_once(struct check_ctx *c, struct sem_run *st, const struct sem_rule *r,
			struct event_row *row, int64_t *m, int64_t *e)
{
	struct workload w = *r->wl;

	if (!prepare(st, &w, r->fp, row->note, sizeof(row->note))) {
		sem_window_off(st);
		return M_REFUSED;
	}
	w.args = &st->args;
	uint64_t n = iterations_for(&w, &st->args);
	/* walks past the L2 are long: one N/2N pair; the rest the median of
	 * up to three. An SMI in a bounded rule's window is kept: its SMM
	 * code's few thousand events are nothing to bounds over
	 * SEM_MIN_EVENTS, and where its cycles (20-200 us) move a clocks
	 * partner out of a rule's range, the rule is measured again
	 * (SEM_TRIES). */
	unsigned rep = r->fp == FP_MEM || r->fp == FP_L2_OVER || r->fp == FP_CODE_MEM
			   ? 1
			   : (c->opt->repeat < 3 ? c->opt->repeat : 3);
	row->iterations = n;
	int s = count_event(c, r->event, &w, n, rep, r->kind != SEM_EXACT, m, row->ctr, row->note,
			    sizeof(row->note));
	if (s == M_OK)
		s = expected_of(c, r, &w, n, rep, e, row->note, sizeof(row->note));
	m_quiesce(c);
	sem_window_off(st);
	return s;
}

/* A row that counted 0 where its rule wants events: under a hypervisor
 * whose filter withholds the event (instructions count on the same
 * counter), a SKIP that says so instead of a FAIL. */
static bool sem_withheld(struct check_ctx *c, struct event_row *row)
{
	for (unsigned i = 0; i < c->pmu->n; i++)
		if (!pmh_strcmp(c->pmu->ctr[i].name, row->ctr) &&
		    hv_zero_withheld(c, i, row->name, row->note, sizeof(row->note))) {
			row->v = V_SKIP;
			return true;
		}
	return false;
}

void sem_measure(struct check_ctx *c, struct sem_run *st, const struct event_table *t,
		 const struct sem_rule *r, struct event_row *row)
{
	int64_t m = 0, e = 0;
	int s = M_OK;

	row_start(c, st, t, r, row);
	if (!runnable(c, st, r, row->note, sizeof(row->note)))
		return;
	for (unsigned k = 0; k < SEM_TRIES; k++) {
		s = measure_once(c, st, r, row, &m, &e);
		if (s != M_OK && k)
			return; /* the try judged before stands */
		if (s != M_OK)
			break;
		range_of(c, r, e, &row->expected_lo, &row->expected_hi);
		row->measured = m;
		row->v = m >= row->expected_lo && m <= row->expected_hi ? V_PASS : V_FAIL;
		if (row->v == V_PASS)
			return;
		if (m == 0 && row->expected_lo > 0 && sem_withheld(c, row))
			return;
	}
	if (s == M_REFUSED || s == M_OK)
		return;
	row->v = V_FAIL;
	pmh_fmt(row->note, sizeof(row->note), "measurement failed (%s)",
		s == M_SMI ? "an SMI in every window" : "a driver operation failed");
}
