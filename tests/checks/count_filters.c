/* count.filters: privilege and threshold filters change counts the
 * documented way (facts §1; K7 PerfEvtSel fields; K8 BKDG §10.2; KNC table
 * 1-5; NetBurst CCCR compare/complement/threshold/edge, facts §5). The
 * harness runs in ring 0, so:
 *   OS only        = OS|USR count          USR only = 0
 *   cmask max      = 0 where the largest documented mask is 15 or more (no
 *                    core retires that many instructions a cycle; NetBurst's
 *                    4-bit threshold counts "more than"); on K7/K8, whose
 *                    masks stop at 3 (4-255 reserved), at most the cmask 1
 *                    count (cycles with >= 3 are cycles with >= 1)
 *   cmask max inv  = cycles with fewer: > 0
 *   cmask 1 edge   <= cmask 1 (edges are a subset of asserted cycles)
 * Counts compared across programmings are N/2N differences, in which the
 * harness's own code cancels; within 2 x m_slack() (AMD, K8 BKDG §10.1). */
#include "../measure.h"

/* The single windows from zero (USR-only, inverted, edge): 60000
 * instructions of wl_loop, so that a count that must not be 0 is far from
 * it. */
#define WINDOW_ITERS 20000
/* The largest counter mask there is where the driver names none: the
 * 8-bit CMASK field, bits 31:24 (facts §1). */
#define CMASK_FIELD_MAX 255
/* A counter mask from which nothing counts: no core retires 15
 * instructions a cycle, and NetBurst's 4-bit threshold (at most 15) counts
 * "more than" (facts §5 CCCR THRESHOLD). */
#define CMASK_NONE 15

/* One window of WINDOW_ITERS from zero: ~0 when refused or when an op
 * failed (FAILed first). */
static uint64_t count(struct check_ctx *c, unsigned i, uint32_t flags)
{
	uint64_t v = 0;
	/* a window an SMI landed in is used as it is (not retried) */
	if (m_setup(c, i, GEN_INSTRUCTIONS, flags) ||
	    m_window(c, 1ull << i, &wl_loop, WINDOW_ITERS) == M_FAULT || !m_read(c, i, &v))
		return ~0ull;
	return v;
}

#define REFUSED INT64_MIN

/* Events per M_N_ITERS iterations (N/2N difference); REFUSED when the
 * programming is refused or the measurement failed (which FAILs first,
 * naming why). */
static int64_t per_n(struct check_ctx *c, unsigned i, uint32_t flags)
{
	int64_t v;
	if (m_setup(c, i, GEN_INSTRUCTIONS, flags) != M_OK)
		return REFUSED;
	int st = m_per_n(c, i, 0, 0, &v);
	if (st != M_OK) {
		m_fail_status(c, st, 0, c->pmu->ctr[i].name);
		return REFUSED;
	}
	return v;
}

static void thresholds(struct check_ctx *c, unsigned i, int64_t tol)
{
	struct pmu *p = c->pmu;
	const char *n = p->ctr[i].name;
	const uint32_t all = PMU_F_OS | PMU_F_USR;
	unsigned cm = p->cmask_max ? p->cmask_max : CMASK_FIELD_MAX;

	if (cm >= CMASK_NONE) {
		int64_t hi = per_n(c, i, all | PMU_F_CMASK(cm));
		if (hi == REFUSED || hi < -tol || hi > tol)
			check_fail(
			    c,
			    "%s: counter mask %u: expected 0 (+-%lld) per %u iterations, got %lld",
			    n, cm, (long long)tol, M_N_ITERS, (long long)hi);
	} else {
		int64_t hi = per_n(c, i, all | PMU_F_CMASK(cm)),
			c1 = per_n(c, i, all | PMU_F_CMASK(1));
		if (hi == REFUSED || c1 == REFUSED || hi > c1 + tol)
			check_fail(
			    c,
			    "%s: counter mask %u: expected at most the cmask 1 count %lld (+-%lld) "
			    "per %u iterations, got %lld",
			    n, cm, (long long)c1, (long long)tol, M_N_ITERS, (long long)hi);
	}
	uint64_t hinv = count(c, i, all | PMU_F_CMASK(cm) | PMU_F_INV);
	uint64_t c1 = count(c, i, all | PMU_F_CMASK(1));
	uint64_t e1 = count(c, i, all | PMU_F_CMASK(1) | PMU_F_EDGE);
	if (hinv == 0 || hinv == ~0ull)
		check_fail(c, "%s: counter mask %u inverted: expected every cycle, got %s", n, cm,
			   hinv ? "nothing (programming refused)" : "0");
	if (e1 > c1)
		check_fail(c,
			   "%s: edge detect: expected at most the %llu asserted cycles, got %llu",
			   n, (unsigned long long)c1, (unsigned long long)e1);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int i = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	const int64_t tol = m_diff_slack(c);

	if (i < 0 || (unsigned)i >= p->n_gp) {
		check_skip(c, "%s has no general-purpose instructions event", p->name);
		return;
	}
	m_quiesce(c);
	const char *n = p->ctr[i].name;
	int64_t both = per_n(c, (unsigned)i, PMU_F_OS | PMU_F_USR);
	int64_t os = per_n(c, (unsigned)i, PMU_F_OS);
	uint64_t usr = count(c, (unsigned)i, PMU_F_USR);

	if (both <= 0)
		check_fail(c, "%s: expected instructions with OS|USR, counted %s", n,
			   both == REFUSED ? "nothing (programming refused)" : "0");
	else if (os < both - tol || os > both + tol)
		check_fail(c,
			   "%s: OS-only filter in ring 0: expected %lld (OS|USR) +-%lld per %u "
			   "iterations, got %lld",
			   n, (long long)both, (long long)tol, M_N_ITERS, (long long)os);
	/* nothing the harness runs is at CPL > 0, its own code included */
	if (usr != 0)
		check_fail(c, "%s: USR-only filter in ring 0: expected 0, got %llu", n,
			   (unsigned long long)usr);
	if (p->caps & PMU_CAP_EDGE_INV_CMASK)
		thresholds(c, (unsigned)i, tol);
	m_quiesce(c);
	check_pass(c, "%s: OS %lld = OS|USR %lld (+-%lld) per %u iterations, USR 0%s", n,
		   (long long)os, (long long)both, (long long)tol, M_N_ITERS,
		   (p->caps & PMU_CAP_EDGE_INV_CMASK) ? "; counter mask, invert, edge as documented"
						      : "");
}

PMH_CHECK(count_filters, .id = "count.filters", .summary = "OS/USR, edge, invert, counter mask",
	  .order = 45, .needs_pmu = true, .run = run);
