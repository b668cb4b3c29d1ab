/* count.all-at-once: every counter programmed together, each with another
 * generic event where the driver offers one (instructions, branches, core
 * and reference cycles), over the same windows, counts what it counts alone
 * (kvm-unit-tests x86/pmu.c check_counters_many runs every counter at once
 * the same way). Then one counter overflows mid-window: the others count on
 * as before (a freeze at an overflow is DEBUGCTL.FREEZE_PERFMON_ON_PMI's,
 * SDM Vol. 3B "Freezing LBR and Performance Counters on PMI", and only when
 * it is set). Then, where the family has a global enable (Intel arch
 * GLOBAL_CTRL, SDM Vol. 3B 20.2.2; AMD PerfCntGlobalCtl, AMD APM Vol. 2
 * 13.2; KNC GLOBAL_CTRL, KNC §1.4.3.7), it is written for every other
 * counter after start: those count as alone, the rest 0. Counts are N/2N
 * differences (measure.h), in which the harness's own code cancels. */
#include "../measure.h"
#include "../hv_policy.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"
#include "../../pmu/percpu.h"

/* The events tried, each counter taking the least used one it can count:
 * the two whose count on wl_loop is exact on Intel, and the two clocks. */
static const enum pmu_generic events[] = {GEN_INSTRUCTIONS, GEN_BRANCHES, GEN_CYCLES,
					  GEN_REF_CYCLES};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))
/* A clock's N/2N difference may move by 1/CLOCK_DIV of itself between
 * measurements: ours. No document bounds how a loop's cycles vary from one
 * window to the next (frequency changes, the caches' state); count.cycles
 * takes 1/32 against APERF within one window, two measurements get twice
 * that. A counter stopped or counting twice is off by all of it. */
#define CLOCK_DIV 16
#define REP_MAX	  15 /* repeats at most (the repeat option, capped: buf below) */
#define TRIES	  5  /* windows tried when each saw an SMI */

struct set {
	unsigned n;		       /* counters in the set */
	uint8_t ctr[PMU_MAX_COUNTERS]; /* flat counter */
	uint8_t ev[PMU_MAX_COUNTERS];  /* index into events[] */
	uint64_t mask;
	int64_t alone[PMU_MAX_COUNTERS]; /* N/2N difference measured alone */
	int64_t med[PMU_MAX_COUNTERS];	 /* the last measurement together */
};

static int64_t buf[PMU_MAX_COUNTERS][REP_MAX] PMH_PERCPU; /* per CPU (pmu/percpu.h) */

static bool is_clock(const struct set *s, unsigned k)
{
	return events[s->ev[k]] == GEN_CYCLES || events[s->ev[k]] == GEN_REF_CYCLES;
}

/* Programs counter i with the least used event of events[] it can count
 * (uses[] by event). M_OK, M_REFUSED (none), M_FAULT (FAILed). */
static int pick(struct check_ctx *c, struct set *s, unsigned i, unsigned *uses)
{
	unsigned order[N_EVENTS], n = 0;

	for (unsigned u = 0; u <= PMU_MAX_COUNTERS; u++) /* by use, then list order */
		for (unsigned e = 0; e < N_EVENTS; e++)
			if (uses[e] == u)
				order[n++] = e;
	for (unsigned j = 0; j < n; j++) {
		int st = m_setup(c, i, events[order[j]], PMU_F_OS | PMU_F_USR);
		if (st == M_REFUSED)
			continue;
		if (st != M_OK)
			return st;
		s->ctr[s->n] = (uint8_t)i;
		s->ev[s->n++] = (uint8_t)order[j];
		s->mask |= 1ull << i;
		uses[order[j]]++;
		return M_OK;
	}
	return M_REFUSED;
}

/* Each counter's count alone; one that counts nothing alone is left out
 * (count.instructions and the others judge it). False when the check
 * ends (FAILed). */
static bool alone(struct check_ctx *c, struct set *s)
{
	unsigned kept = 0;
	struct mdiff d;

	for (unsigned k = 0; k < s->n; k++) {
		int st = m_diff(c, s->ctr[k], 1ull << s->ctr[k], 0, 0, &wl_loop, M_N_ITERS, &d);
		if (st != M_OK) {
			m_fail_status(c, st, 0, c->pmu->ctr[s->ctr[k]].name);
			return false;
		}
		if (d.med <= 0) {
			s->mask &= ~(1ull << s->ctr[k]);
			continue;
		}
		s->ctr[kept] = s->ctr[k];
		s->ev[kept] = s->ev[k];
		s->alone[kept++] = d.med;
	}
	s->n = kept;
	return true;
}

/* One window of iters with every counter of s from 0 (ovf, if it is one of
 * them: preloaded to overflow after period events), msr = val written after
 * start; what each counted in v[]. M_OK, M_SMI (in every try), M_FAULT,
 * M_WRITE_GP. */
static int window(struct check_ctx *c, const struct set *s, int ovf, uint64_t period, uint32_t msr,
		  uint64_t val, uint64_t iters, uint64_t *v)
{
	int st = M_SMI;

	for (unsigned t = 0; t < TRIES && st == M_SMI; t++) {
		for (unsigned k = 0; k < s->n; k++) {
			bool ok = (int)s->ctr[k] == ovf
				      ? m_preload(c, s->ctr[k], period)
				      : m_write(c, s->ctr[k], 0, PMU_WRITE_PRELOAD);
			if (!ok)
				return M_FAULT;
		}
		st = m_window_write(c, s->mask, msr, val, &wl_loop, iters);
	}
	for (unsigned k = 0; k < s->n && st == M_OK; k++)
		if (!m_read(c, s->ctr[k], &v[k]))
			return M_FAULT;
	return st;
}

/* Every counter of s at once (window()'s arguments): the median N/2N
 * difference of each into s->med. M_OK or window()'s status. */
static int together(struct check_ctx *c, struct set *s, int ovf, uint64_t period, uint32_t msr,
		    uint64_t val)
{
	unsigned rep =
	    c->opt->repeat < 1 ? 1 : (c->opt->repeat > REP_MAX ? REP_MAX : c->opt->repeat);
	uint64_t a[PMU_MAX_COUNTERS], b[PMU_MAX_COUNTERS];
	int64_t(*d)[REP_MAX] = PCPU(buf);

	for (unsigned r = 0; r < rep; r++) {
		int st = window(c, s, ovf, period, msr, val, M_N_ITERS, a);
		if (st == M_OK)
			st = window(c, s, ovf, period, msr, val, 2 * M_N_ITERS, b);
		if (st != M_OK)
			return st;
		for (unsigned k = 0; k < s->n; k++) {
			unsigned sh = 64 - c->pmu->ctr[s->ctr[k]].width;
			d[k][r] = (int64_t)((b[k] - a[k]) << sh) >> sh;
		}
	}
	for (unsigned k = 0; k < s->n; k++)
		s->med[k] = m_median(d[k], rep, 0);
	return M_OK;
}

/* The allowance of counter k against its count alone: the family's slack
 * on both differences (0 on Intel, K8 BKDG §10.1 on AMD), a clock's
 * CLOCK_DIV on top. */
static int64_t tolerance(const struct check_ctx *c, const struct set *s, unsigned k)
{
	return 2 * m_diff_slack(c) + (is_clock(s, k) ? s->alone[k] / CLOCK_DIV : 0);
}

/* Counter k counted as alone in the last measurement; FAILs naming `how`
 * it ran otherwise. */
static void as_alone(struct check_ctx *c, const struct set *s, unsigned k, const char *how)
{
	int64_t tol = tolerance(c, s, k), d = s->med[k] - s->alone[k];

	if (d >= -tol && d <= tol)
		return;
	check_fail(c,
		   "%s counting %s %s: expected %lld per %u iterations as alone (+-%lld), got "
		   "%lld%s",
		   c->pmu->ctr[s->ctr[k]].name, m_gen_name(events[s->ev[k]]), how,
		   (long long)s->alone[k], M_N_ITERS, (long long)tol, (long long)s->med[k],
		   s->med[k] < s->alone[k] / 2 ? " (stopped early)" : "");
}

/* All at once, then with s->ctr[0] overflowing mid-window. False when
 * the check ends (FAILed). */
static bool all_and_overflow(struct check_ctx *c, struct set *s)
{
	char how[96];
	int st = together(c, s, -1, 0, 0, 0);

	if (st != M_OK) {
		m_fail_status(c, st, 0, "every counter at once");
		return false;
	}
	pmh_fmt(how, sizeof(how), "with %u counters at once", s->n);
	for (unsigned k = 0; k < s->n; k++)
		as_alone(c, s, k, how);
	/* the first overflows halfway through the N window, and early in 2N */
	uint64_t period = (uint64_t)s->alone[0] / 2;
	st = together(c, s, s->ctr[0], period < 2 ? 2 : period, 0, 0);
	if (st != M_OK) {
		m_fail_status(c, st, 0, "the counters with one overflowing");
		return false;
	}
	pmh_fmt(how, sizeof(how), "while %s overflowed mid-window (INT clear)",
		c->pmu->ctr[s->ctr[0]].name);
	for (unsigned k = 1; k < s->n; k++)
		as_alone(c, s, k, how);
	return true;
}

/* The global enable written for every other counter after start: those
 * count as alone, the rest (nothing but the harness's jitter) leak not.
 * False when the check ends (FAILed). */
static bool global_subset(struct check_ctx *c, struct set *s)
{
	struct pmu *p = c->pmu;
	uint64_t bits = 0;
	char how[96];

	for (unsigned k = 0; k < s->n; k += 2)
		bits |= 1ull << pmu_global_bit(p, s->ctr[k]);
	int st = together(c, s, -1, 0, p->global_ctrl_msr, bits);
	if (st != M_OK) {
		m_fail_status(c, st, p->global_ctrl_msr, "the global enable for some counters");
		return false;
	}
	pmh_fmt(how, sizeof(how), "with the global enable (MSR 0x%x) = 0x%llx", p->global_ctrl_msr,
		(unsigned long long)bits);
	for (unsigned k = 0; k < s->n; k++) {
		if (!(k & 1))
			as_alone(c, s, k, how);
		else if (m_leaks(s->med[k], s->alone[k]))
			check_fail(
			    c,
			    "%s: expected ~0 %s leaving it out, counted %lld per %u iterations "
			    "(%lld alone)",
			    p->ctr[s->ctr[k]].name, how, (long long)s->med[k], M_N_ITERS,
			    (long long)s->alone[k]);
	}
	return true;
}

/* The set: every counter the harness may use, each with an event. False
 * when the check ends (FAILed). */
static bool build(struct check_ctx *c, struct set *s)
{
	unsigned uses[N_EVENTS] = {0};

	pmh_memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < c->pmu->n; i++) {
		if (hv_is_taken(c, i))
			continue; /* the host's (pmu.host) */
		if (pick(c, s, i, uses) == M_FAULT)
			return false;
	}
	return alone(c, s);
}

static void run(struct check_ctx *c)
{
	static struct set set PMH_PERCPU;
	struct set *s = &PCPU(set);
	bool global = (c->pmu->caps & PMU_CAP_GLOBAL_CTRL) && c->pmu->global_ctrl_msr;

	m_quiesce(c);
	bool ok = build(c, s);
	if (ok && s->n < 2) {
		m_quiesce(c);
		check_skip(c, "needs two counters that count one of the generic events, has %u",
			   s->n);
		return;
	}
	ok = ok && (!global || global_subset(c, s)) && all_and_overflow(c, s);
	m_quiesce(c);
	c->fig.tolerance = m_slack_text(c);
	if (!ok)
		return;
	check_pass(c,
		   "%u counters at once count as alone (%s, 4 windows; clocks +-1/%u, ours); %s "
		   "overflowing stops none; %s",
		   s->n, m_slack_text(c), CLOCK_DIV, c->pmu->ctr[s->ctr[0]].name,
		   global ? "global enable for half: only those count" : "no global enable");
}

PMH_CHECK(count_all_at_once, .id = "count.all-at-once",
	  .summary = "every counter at once counts as alone", .order = 42, .needs_pmu = true,
	  .run = run);
