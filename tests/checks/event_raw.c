/* event.raw: the event named by the `event` option (a catalogue name or a
 * raw encoding, events/events.h syntax) is validated on this CPU: the
 * catalogue's rules, programming on an allowed counter, counting over the
 * calibrated workload, then an overflow from a preload with its PMI. */
#include "pmi_common.h"
#include "../hv_policy.h"
#include "../../events/events.h"
#include "../../lib/str.h"

/* The event under test: what the option resolved to, and where. */
struct raw {
	struct ev_result r;
	enum ev_verdict v;
	char enc[96];
	unsigned ctr;
	uint32_t flags;
};

/* The catalogue's warning, for the verdict's message ("" without one). */
static const char *warn_sep(const struct raw *x)
{
	return x->v == EV_WARN ? "; warning: " : "";
}
static const char *warn_msg(const struct raw *x)
{
	return x->v == EV_WARN ? x->r.msg : "";
}

/* Resolves the option and picks the first counter the catalogue allows.
 * False when refused: skipped, naming where the option was set, since a
 * name or counter this CPU lacks is the user's mistake (docs/user-guide.md "Options"),
 * not something measured. */
static bool resolve(struct check_ctx *c, struct raw *x)
{
	struct pmu *p = c->pmu;
	int ctr = -1;

	x->v = events_resolve(c->cpu->driver, c->cpu->family, c->cpu->model, c->opt->event, &x->r);
	if (x->v == EV_REFUSED) {
		check_skip(c, "event (%s) refused: %s", c->opt->event_at, x->r.msg);
		return false;
	}
	events_format(&x->r.ev, p->ops->id == PMU_DRV_INTEL_NETBURST, x->enc, sizeof(x->enc));
	for (unsigned i = 0; i < p->n && ctr < 0; i++) {
		char why[96];
		if (x->r.counter >= 0 && (unsigned)x->r.counter != i)
			continue;
		/* no counter list: any general-purpose counter, not a fixed
		 * one that has its number here (a hybrid E-core's gp7) */
		if (!x->r.ev.counters && p->ctr[i].kind != PMU_CTR_GP)
			continue;
		if (events_check_counter(&x->r.ev, i, why, sizeof(why)) != EV_REFUSED)
			ctr = (int)i;
	}
	if (ctr < 0) {
		char ev[sizeof(c->opt->event) * 4];
		check_skip(c, "event (%s) refused: %s (%s): no counter of %s's %u accepts it",
			   c->opt->event_at,
			   pmh_escape(ev, sizeof(ev), c->opt->event, pmh_strlen(c->opt->event)),
			   x->enc, p->name, p->n);
		return false;
	}
	x->ctr = (unsigned)ctr;
	x->flags = PMU_F_OS | PMU_F_USR | x->r.flags;
	return true;
}

/* Programs the event and counts it per M_N_ITERS. False when it cannot go
 * on to the overflow: the verdict is given. */
static bool count(struct check_ctx *c, const struct raw *x, struct mdiff *d)
{
	struct pmu *p = c->pmu;
	const char *name = p->ctr[x->ctr].name;

	m_quiesce(c);
	int e = p->ops->program(p, x->ctr, &x->r.ev, x->flags);
	if (e == HW_REFUSED) {
		check_fail(c, "event %s (%s): the driver refused it on %s", c->opt->event, x->enc,
			   name);
		return false;
	}
	char why[RESULT_MSG];
	if (hv_gp_withheld(c, x->ctr, c->opt->event, e, why, sizeof(why))) {
		check_skip(c, "event %s: %s", c->opt->event, why);
		return false;
	}
	if (!m_op(c, e, MO_PROGRAM, 1ull << x->ctr, 0))
		return false;
	/* signed N/2N differences: one that an SMI or the harness's jitter
	 * made negative must not read as ~2^48 */
	int mst = m_diff(c, x->ctr, 1ull << x->ctr, 0, 0, &wl_loop, M_N_ITERS, d);
	if (mst == M_OK && d->max > 0)
		return true;
	m_quiesce(c);
	if (mst == M_SMI)
		check_skip(c, "event %s on %s: an SMI was counted in every window", c->opt->event,
			   name);
	else if (mst)
		m_fail_status(c, mst, 0, name);
	else if (hv_zero_withheld(c, x->ctr, c->opt->event, why, sizeof(why)))
		check_skip(c, "event %s: %s", c->opt->event, why);
	else
		check_skip(
		    c, "event %s (%s) on %s counted 0 over the workload: overflow not testable%s%s",
		    c->opt->event, x->enc, name, warn_sep(x), warn_msg(x));
	return false;
}

/* A preload of half the fewest events counted overflows within one run of
 * M_N_ITERS (and never past the longest period a preload can take), with
 * its PMI. */
static void overflow(struct check_ctx *c, const struct raw *x, const struct mdiff *d)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	const char *name = p->ctr[x->ctr].name;
	uint64_t n = d->min < 2 ? 1 : (uint64_t)d->min / 2;

	if (n > pmu_max_period(p, x->ctr))
		n = pmu_max_period(p, x->ctr);
	pmi_reset_stats();
	if (!m_op(c, p->ops->program(p, x->ctr, &x->r.ev, x->flags | PMU_F_INT), MO_PROGRAM,
		  1ull << x->ctr, 0) ||
	    !m_preload(c, x->ctr, n) || pmi_run(c, 1ull << x->ctr, &wl_loop, M_N_ITERS) == M_FAULT)
		return;
	bool got = pmi_wait(1, PMI_WAIT_US);
	if (pmi_trouble(c, name))
		return;
	if (!got || !s->overflows[x->ctr])
		check_fail(c, "event %s on %s: preload -%llu did not raise an overflow PMI",
			   c->opt->event, name, (unsigned long long)n);
	else
		check_pass(
		    c, "event %s (%s) on %s: %lld/%lld/%lld per %u iterations, overflow PMI ok%s%s",
		    c->opt->event, x->enc, name, (long long)d->min, (long long)d->med,
		    (long long)d->max, M_N_ITERS, warn_sep(x), warn_msg(x));
}

static void run(struct check_ctx *c)
{
	struct raw x;
	struct mdiff d;

	if (!c->opt->event[0]) {
		check_skip(c, "no event given (option event = NAME or event=0x..,umask=0x..)");
		return;
	}
	if (!resolve(c, &x) || !count(c, &x, &d) || !pmi_begin(c))
		return;
	overflow(c, &x, &d);
	pmi_end(c);
}

PMH_CHECK(event_raw, .id = "event.raw", .summary = "a configured event counts and overflows",
	  .order = 90, .needs_pmu = true, .run = run);
