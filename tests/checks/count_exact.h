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
#include "../hv_policy.h"
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
	/* counters that counted exactly 0 in every repeat, and those judged:
	 * under a hypervisor all of them at 0 may be its filter */
	uint64_t zero, judged;
};

/* The failure of counter i, once it is known not to be the hypervisor's
 * filter. */
static inline void count_one_fail(struct check_ctx *c, unsigned i, const struct exact *x,
				  const struct mdiff *d)
{
	check_fail(c,
		   "%s counting %s over %u iterations of %s: expected %lld %s, got %lld "
		   "(%u of %u repeats; min %lld max %lld)",
		   c->pmu->ctr[i].name, m_gen_name(x->g), M_N_ITERS, x->w->name, (long long)x->e,
		   x->how, (long long)d->med, d->agree, d->rep, (long long)d->min,
		   (long long)d->max);
}

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
	x->judged |= 1ull << i;
	if (x->d.max == 0 && x->d.min == 0 && x->e > 0 && c->cpu->hypervisor)
		x->zero |= 1ull << i; /* judged once every counter has run */
	else if (!count_matches(&x->d, x->e, x->tol))
		count_one_fail(c, i, x, &x->d);
	return true;
}

/* Counters that counted 0 under a hypervisor: its filter when every
 * counter did and instructions count on the first (SKIPped, recorded),
 * else each a failure. False when the check ends here. */
static inline bool count_zero(struct check_ctx *c, struct exact *x)
{
	char why[RESULT_MSG];
	struct mdiff z = {0, 0, 0, 0, 0};

	if (!x->zero)
		return true;
	unsigned first = (unsigned)__builtin_ctzll(x->zero);
	if (x->zero == x->judged && c->v != V_FAIL &&
	    hv_zero_withheld(c, first, m_gen_name(x->g), why, sizeof(why))) {
		check_skip(c, "%s", why);
		return false;
	}
	z.agree = z.rep = x->d.rep; /* every repeat of each read 0 */
	for (unsigned i = 0; i < c->pmu->n; i++)
		if ((x->zero >> i) & 1)
			count_one_fail(c, i, x, &z);
	return true;
}

static inline void count_exact(struct check_ctx *c, enum pmu_generic g, uint64_t per_iter,
			       const struct workload *w)
{
	struct exact x = {g, w, (int64_t)(M_N_ITERS * per_iter), m_diff_slack(c), 0, {0}, 0, 0};
	char how[64];

	if (x.tol)
		pmh_fmt(how, sizeof(how), "within +-%lld (AMD: K8 BKDG §10.1)", (long long)x.tol);
	else
		pmh_fmt(how, sizeof(how), "exact in a majority of repeats");
	x.how = how;
	m_quiesce(c);
	unsigned tested = m_each_counter(c, g, PMU_F_OS | PMU_F_USR, count_one, &x);
	c->fig.tolerance = m_slack_text(c); /* for the results JSON */
	bool go_on = count_zero(c, &x);
	m_quiesce(c);
	if (!go_on)
		return;
	if (!tested)
		check_skip(c, "%s has no %s event", c->pmu->name, m_gen_name(g));
	else
		check_pass(c, "%u counters: %lld %s per %u iterations, %s (N/2N difference)",
			   tested, (long long)x.d.med, m_gen_name(g), M_N_ITERS, how);
}

#endif
