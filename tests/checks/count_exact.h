/* Shared body of count.instructions and count.branches: a calibrated
 * workload's per-iteration count is known from its assembly, so the count
 * difference between windows of N and 2N iterations is N x per-iteration:
 * the harness's own instructions around the workload are the same path in
 * both windows and cancel. Intel: exact, in a majority of the repeats (the
 * windows run with interrupts off; an SMI is seen by MSR_SMI_COUNT where
 * the CPU has one and the window is run again, elsewhere it can land in one
 * window and the majority keeps it out). AMD: within m_slack() per window,
 * as its counts are not repeatable (K8 BKDG §10.1). */
#ifndef PMH_CHECKS_COUNT_EXACT_H
#define PMH_CHECKS_COUNT_EXACT_H

#include "../measure.h"
#include "../../lib/fmt.h"

/* Whether an N/2N difference d matches the expected count e: exactly in a
 * majority of the repeats where the CPU counts exactly, else within tol. */
static inline bool count_matches(const struct mdiff *d, int64_t e, int64_t tol)
{
	if (!tol)
		return m_exact(d, e);
	return d->med >= e - tol && d->med <= e + tol;
}

/* What every counter is judged against, and the last one's difference. */
struct exact {
	enum pmu_generic g;
	const struct workload *w;
	int64_t e, tol; /* the expected count per M_N_ITERS, its tolerance */
	const char *how;
	struct mdiff d;
};

/* Counter i (set up): its N/2N difference against x->e. False when an op
 * failed (FAILed). */
static inline bool count_one(struct check_ctx *c, unsigned i, void *arg)
{
	struct exact *x = arg;
	const char *name = c->pmu->ctr[i].name;
	int st = m_diff(c, i, 1ull << i, 0, 0, x->w, M_N_ITERS, &x->d);

	if (st != M_OK) {
		m_fail_status(c, st, 0, name);
		return st != M_FAULT;
	}
	if (!count_matches(&x->d, x->e, x->tol))
		check_fail(c,
			   "%s counting %s over %u iterations of %s: expected %lld %s, got %lld "
			   "(%u of %u repeats; min %lld max %lld)",
			   name, m_gen_name(x->g), M_N_ITERS, x->w->name, (long long)x->e, x->how,
			   (long long)x->d.med, x->d.agree, x->d.rep, (long long)x->d.min,
			   (long long)x->d.max);
	return true;
}

static inline void count_exact(struct check_ctx *c, enum pmu_generic g, uint64_t per_iter,
			       const struct workload *w)
{
	struct exact x = {g, w, (int64_t)(M_N_ITERS * per_iter), m_diff_slack(c), 0, {0}};
	char how[64];

	if (x.tol)
		pmh_fmt(how, sizeof(how), "within +-%lld (AMD: K8 BKDG §10.1)", (long long)x.tol);
	else
		pmh_fmt(how, sizeof(how), "exact in a majority of repeats");
	x.how = how;
	m_quiesce(c);
	unsigned tested = m_each_counter(c, g, PMU_F_OS | PMU_F_USR, count_one, &x);
	c->fig.tolerance = m_slack_text(c); /* for the results JSON */
	m_quiesce(c);
	if (!tested)
		check_skip(c, "%s has no %s event", c->pmu->name, m_gen_name(g));
	else
		check_pass(c, "%u counters: %lld %s per %u iterations, %s (N/2N difference)",
			   tested, (long long)x.d.med, m_gen_name(g), M_N_ITERS, how);
}

#endif
