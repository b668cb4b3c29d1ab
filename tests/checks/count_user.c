/* count.user: the privilege filters meet user code. The workload runs at
 * CPL 3 (hw_user_run) while one counter counts retired instructions with
 * USR alone, OS alone and both: USR-only counts exactly the user workload,
 * OS-only none of it, both the same as USR-only (N/2N differences, where
 * the excursion's own code cancels); and in single windows OS-only plus
 * USR-only add up to both, so that neither bit counts the other ring (SDM
 * Vol. 3B 20.2.1.1: USR counts at CPL 1-3, OS at CPL 0; AMD APM Vol. 2
 * 13.2.1 PerfEvtSel; NetBurst ESCR T0_USR/T0_OS, SDM Vol. 3B 21.6.3.1). */
#include "count_exact.h"

/* The three filters, in the order they are measured. */
enum { F_USR, F_OS, F_BOTH, F_N };
static const uint32_t filter_flags[F_N] = {PMU_F_USR, PMU_F_OS, PMU_F_USR | PMU_F_OS};
static const char *const filter_name[F_N] = {"USR-only", "OS-only", "OS|USR"};

#define ONE_TRIES 7 /* single windows tried, ONE_KEPT of them without an SMI kept */
#define ONE_KEPT  3

struct user_counts {
	struct mdiff d[F_N]; /* N/2N differences of the user workload */
	uint64_t one[F_N];   /* one window of N iterations, the excursion included */
};

/* Counter i with filter f: its N/2N difference and one window. Returns
 * M_OK or the measurement's status (FAILed by the caller). */
static int measure(struct check_ctx *c, unsigned i, unsigned f, struct user_counts *u)
{
	if (!m_setup_or_fail(c, i, GEN_INSTRUCTIONS, filter_flags[f]))
		return M_FAULT;
	int st = m_diff(c, i, 1ull << i, 0, 0, &wl_loop, M_N_ITERS, &u->d[f]);
	if (st != M_OK)
		return st;
	/* SMM code adds to a window where counters run in SMM (SDM Vol. 3B
	 * 20.6.7): a window the CPU counted an SMI in is not used, and of the
	 * rest the smallest count is kept, so that an SMI the CPU cannot count
	 * makes no outlier */
	unsigned kept = 0;
	u->one[f] = ~0ull;
	for (unsigned t = 0; t < ONE_TRIES && kept < ONE_KEPT; t++) {
		uint64_t v;
		if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
			return M_FAULT;
		st = m_window(c, 1ull << i, &wl_loop, M_N_ITERS);
		if (st == M_SMI)
			continue;
		if (st != M_OK || !m_read(c, i, &v))
			return st == M_OK ? M_FAULT : st;
		u->one[f] = v < u->one[f] ? v : u->one[f];
		kept++;
	}
	return kept ? M_OK : M_SMI;
}

/* The verdict from the three filters' counts; e: the user workload's
 * instructions per N, tol the family's slack. */
static void judge(struct check_ctx *c, unsigned i, const struct user_counts *u, int64_t e,
		  int64_t tol)
{
	const char *n = c->pmu->ctr[i].name;
	int64_t sum = (int64_t)(u->one[F_USR] + u->one[F_OS]), both = (int64_t)u->one[F_BOTH];

	if (!count_matches(&u->d[F_USR], e, tol))
		check_fail(c,
			   "%s USR-only counted %lld of the %lld instructions the workload retired "
			   "at CPL 3 (N/2N difference, %s)",
			   n, (long long)u->d[F_USR].med, (long long)e, m_slack_text(c));
	if (!count_matches(&u->d[F_OS], 0, tol))
		check_fail(c,
			   "%s OS-only counted %lld instructions of a workload at CPL 3, expected "
			   "0 (%s): user code counted in the OS bucket",
			   n, (long long)u->d[F_OS].med, m_slack_text(c));
	if (!count_matches(&u->d[F_BOTH], e, tol))
		check_fail(c, "%s OS|USR counted %lld of the %lld instructions retired at CPL 3", n,
			   (long long)u->d[F_BOTH].med, (long long)e);
	/* three separate windows: each within the slack */
	if (sum < both - 3 * tol || sum > both + 3 * tol)
		check_fail(c,
			   "%s: USR-only (%llu) plus OS-only (%llu) counted %lld in a window of %u "
			   "iterations at CPL 3, OS|USR %lld: a bit counts the other ring",
			   n, (unsigned long long)u->one[F_USR], (unsigned long long)u->one[F_OS],
			   (long long)sum, M_N_ITERS, (long long)both);
	if (c->v != V_FAIL)
		check_pass(c,
			   "%s: %lld instructions at CPL 3 per %u iterations counted by USR-only "
			   "and OS|USR, %lld by OS-only; one window: %llu USR + %llu OS = %llu "
			   "OS|USR (%s)",
			   n, (long long)u->d[F_USR].med, M_N_ITERS, (long long)u->d[F_OS].med,
			   (unsigned long long)u->one[F_USR], (unsigned long long)u->one[F_OS],
			   (unsigned long long)both, m_slack_text(c));
}

static void run(struct check_ctx *c)
{
	int i = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	struct user_counts u;
	struct workload_vector v;

	int e = hw_user_run(&wl_loop, 1);
	if (e == HW_UNSUPPORTED) {
		check_skip(c, "the platform cannot enter ring 3");
		return;
	}
	if (e != HW_OK) {
		check_fail(c, "a workload at CPL 3 came back with %s", hw_err_name(e));
		return;
	}
	if (i < 0) {
		check_skip(c, "no counter counts instructions");
		return;
	}
	workload_iteration(&wl_loop, &v);
	int64_t expect = (int64_t)(v.instructions * M_N_ITERS);
	int st = M_OK;
	c->user = true;
	for (unsigned f = 0; f < F_N && st == M_OK; f++) {
		st = measure(c, (unsigned)i, f, &u);
		if (st != M_OK)
			m_fail_status(c, st, 0, filter_name[f]);
	}
	c->user = false;
	m_quiesce(c);
	if (st == M_OK)
		judge(c, (unsigned)i, &u, expect, m_diff_slack(c));
}

PMH_CHECK(count_user, .id = "count.user", .summary = "USR and OS filters on code at CPL 3",
	  .order = 46, .needs_pmu = true, .run = run);
