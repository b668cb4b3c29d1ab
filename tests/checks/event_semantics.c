/* event.semantics: does each documented event count what its document
 * says on this CPU? Every rule of the CPU's catalogues (events/semantics.h)
 * is measured on its workload and judged (exact, or within the bounds the
 * rule states with its source); one row per rule goes to the log, the
 * JSON's `events` table, the report and LAVA, and one coverage line per
 * catalogue says how many of its events are validated. The events option
 * selects rules: default the family's validated set, all (the long walks
 * too), none, or globs of event names. */
#include "event_semantics.h"
#include "../platform.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"

/* Whether the events option selects rule r. */
static bool selected(const struct check_ctx *c, const struct sem_rule *r)
{
	const char *o = c->opt->events;

	if (!*o)
		return !r->extended;
	return !pmh_strcasecmp(o, "all") || pmh_glob_list(o, r->event, true);
}

/* The memory of the walks: the largest footprint a selected rule needs
 * (up to the cap), 4 KiB aligned, from the platform. */
static void alloc_walks(struct check_ctx *c, struct sem_run *st, const struct event_table **t,
			size_t nt)
{
	const struct platform *p = c->s->platform;
	uint64_t need = 128;

	for (size_t i = 0; i < nt; i++) {
		const struct sem_rule *r;
		size_t n = sem_rules(t[i], &r);
		for (size_t k = 0; k < n; k++) {
			uint64_t b = sem_memory_bytes(st, r[k].fp);
			if (r[k].kind != SEM_NONE && selected(c, &r[k]) && b <= st->cap && b > need)
				need = b;
		}
	}
	if (!p || !p->alloc)
		return;
	st->raw = p->alloc(p->ctx, (size_t)need + 4096);
	if (!st->raw)
		return;
	st->buf = (uint8_t *)(((uintptr_t)st->raw + 4095) & ~(uintptr_t)4095);
	st->buf_size = need;
}

static void free_walks(struct check_ctx *c, struct sem_run *st)
{
	const struct platform *p = c->s->platform;
	if (st->raw && p && p->free)
		p->free(p->ctx, st->raw);
	st->raw = 0;
	st->buf = 0;
}

/* Keeps the row (counted as dropped when the table is full) and prints it. */
static void keep_row(struct check_ctx *c, const struct event_row *row)
{
	struct suite *s = c->s;
	char exp[48];

	suite_lock(s); /* the CPUs of a parallel run share the table */
	if (s->n_ev_rows < SUITE_MAX_EVENT_ROWS)
		s->ev_rows[s->n_ev_rows++] = *row;
	else
		s->ev_dropped++;
	suite_unlock(s);
	if (row->v == V_SKIP) {
		suite_emit(s, "  event: SKIP %s %s: %s", row->table, row->name, row->note);
		return;
	}
	if (row->expected_hi == INT64_MAX)
		pmh_fmt(exp, sizeof(exp), ">= %lld", (long long)row->expected_lo);
	else
		pmh_fmt(exp, sizeof(exp), "%lld..%lld", (long long)row->expected_lo,
			(long long)row->expected_hi);
	suite_emit(s, "  event: %s %s %s (%s) %s %s%s%s x%llu: %s, expected %s, got %lld%s%s [%s]",
		   verdict_name(row->v), row->table, row->name, row->enc, row->ctr, row->workload,
		   row->footprint[0] ? " " : "", row->footprint,
		   (unsigned long long)row->iterations, row->rule, exp, (long long)row->measured,
		   row->note[0] ? ": " : "", row->note, row->source);
}

/* The failing rows' names for the verdict: "A, B (and 3 more in the log)". */
struct tally {
	unsigned pass, fail, skip;
	char failed[160];
	const char *skip_why;
};

static void tally_row(struct tally *t, const struct event_row *row)
{
	if (row->v == V_PASS) {
		t->pass++;
		return;
	}
	if (row->v == V_SKIP) {
		t->skip++;
		t->skip_why = t->skip_why ? t->skip_why : row->note;
		return;
	}
	size_t l = pmh_strlen(t->failed);
	if (l + pmh_strlen(row->name) + 48 < sizeof(t->failed))
		pmh_fmt(t->failed + l, sizeof(t->failed) - l,
			"%s%s (expected %lld..%lld, got %lld)", l ? ", " : "", row->name,
			(long long)row->expected_lo, (long long)row->expected_hi,
			(long long)row->measured);
	t->fail++;
}

/* The walk a rule runs, for grouping: footprint, then workload. */
static uint64_t walk_key(const struct sem_rule *r)
{
	return (uint64_t)r->fp << 56 | (uint64_t)(uintptr_t)r->wl % (1ull << 56);
}

/* One catalogue: every selected rule measured, then its coverage line. */
static void run_table(struct check_ctx *c, struct sem_run *st, const struct event_table *t,
		      struct tally *all)
{
	const struct sem_rule *r;
	size_t n = sem_rules(t, &r);
	struct event_coverage cov = {.cpu = st->cpu};
	struct sem_coverage sc;
	struct tally tt = {0};

	/* Rules of one walk run together: its buffer is prepared once per
	 * rule, but its lines and the TLB meet the same pattern in turn. */
	uint16_t order[SEM_RULES_MAX];
	size_t m = 0;
	for (size_t k = 0; k < n && m < SEM_RULES_MAX; k++) {
		if (r[k].kind == SEM_NONE || !selected(c, &r[k]))
			continue;
		size_t j = m++;
		while (j && walk_key(&r[order[j - 1]]) > walk_key(&r[k])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = (uint16_t)k;
	}
	for (size_t i = 0; i < m; i++) {
		struct event_row row;
		size_t k = order[i];
		sem_measure(c, st, t, &r[k], &row);
		keep_row(c, &row);
		tally_row(&tt, &row);
		tally_row(all, &row);
	}
	sem_coverage(t, &sc);
	pmh_strlcpy(cov.table, t->id, sizeof(cov.table));
	cov.events = sc.events;
	cov.validated = sc.validated;
	cov.not_validatable = sc.not_validatable;
	cov.passed = tt.pass;
	cov.failed = tt.fail;
	cov.skipped = tt.skip;
	suite_lock(c->s);
	if (c->s->n_ev_cov < SUITE_MAX_EVENT_COVERAGE)
		c->s->ev_cov[c->s->n_ev_cov++] = cov;
	suite_unlock(c->s);
	suite_emit(c->s,
		   "  event.coverage: %s: %u of %u events validated, %u not validatable; rules "
		   "%u pass, %u fail, %u skip",
		   t->id, sc.validated, sc.events, sc.not_validatable, tt.pass, tt.fail, tt.skip);
}

static void run(struct check_ctx *c)
{
	const struct event_table *t[EVENTS_MAX_TABLES], *with[EVENTS_MAX_TABLES];
	struct sem_run st = {.cpu = c->cpu_index};
	struct tally all = {0};
	size_t nw = 0;

	if (!pmh_strcasecmp(c->opt->events, "none")) {
		check_skip(c, "events = none");
		return;
	}
	size_t nt =
	    events_tables_for(c->cpu->driver, c->cpu->family, c->cpu->model, t, EVENTS_MAX_TABLES);
	for (size_t i = 0; i < nt; i++)
		if (t[i]->sem)
			with[nw++] = t[i];
	if (!nw) {
		check_skip(c, "no event rules for %s yet (catalogues: %s)", c->pmu->name,
			   nt ? t[0]->id : "none");
		return;
	}
	st.have_caches = cpu_caches_read(c->cpu, &st.caches);
	hw_paging_get(&st.paging);
	st.pse_cpu = (c->cpu->ids.leaf1.edx >> 3) & 1; /* CPUID.1:EDX[3] PSE */
	st.cap = !pmh_strcasecmp(c->opt->events, "all") ? SEM_MEM_CAP_ALL : SEM_MEM_CAP_DEFAULT;
	alloc_walks(c, &st, with, nw);
	uint64_t t0 = hw_rdtsc();
	for (size_t i = 0; i < nw; i++)
		run_table(c, &st, with[i], &all);
	uint64_t ms = (hw_rdtsc() - t0) / hw_wait_ticks_per_us() / 1000;
	free_walks(c, &st);
	if (all.fail)
		check_fail(c, "%u of %u events counted wrong: %s", all.fail, all.fail + all.pass,
			   all.failed);
	else if (all.pass)
		check_pass(c, "%u rules passed on %s%s%s, %u skipped, in %llu ms", all.pass,
			   with[0]->id, nw > 1 ? " and " : "", nw > 1 ? with[1]->id : "", all.skip,
			   (unsigned long long)ms);
	else
		check_skip(c, "no rule could run: %s",
			   all.skip_why ? all.skip_why : "none selected");
}

PMH_CHECK(event_semantics, .id = "event.semantics",
	  .summary = "documented events count what their documents say", .order = 92,
	  .needs_pmu = true, .run = run);
