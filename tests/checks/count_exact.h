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

static inline void count_exact(struct check_ctx *c, enum pmu_generic g, uint64_t per_iter,
			       const struct workload *w)
{
	struct pmu *p = c->pmu;
	const uint64_t n = M_N_ITERS;
	const int64_t e = (int64_t)(n * per_iter), tol = m_diff_slack(c);
	unsigned tested = 0;
	struct mdiff d = {0, 0, 0, 0, 0};
	char how[64];

	if (tol)
		pmh_fmt(how, sizeof(how), "within +-%lld (AMD: K8 BKDG §10.1)", (long long)tol);
	else
		pmh_fmt(how, sizeof(how), "exact in a majority of repeats");
	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		int st = m_setup(c, i, g, PMU_F_OS | PMU_F_USR);
		if (st == M_REFUSED)
			continue;
		tested++;
		if (st == M_OK)
			st = m_diff(c, i, 1ull << i, 0, 0, w, n, &d);
		if (st != M_OK) {
			m_fail_status(c, st, 0, p->ctr[i].name);
			if (st == M_FAULT)
				break;
			continue;
		}
		if (!count_matches(&d, e, tol))
			check_fail(
			    c,
			    "%s counting %s over %llu iterations of %s: expected %lld %s, got %lld "
			    "(%u of %u repeats; min %lld max %lld)",
			    p->ctr[i].name, m_gen_name(g), (unsigned long long)n, w->name,
			    (long long)e, how, (long long)d.med, d.agree, d.rep, (long long)d.min,
			    (long long)d.max);
	}
	m_quiesce(c);
	if (!tested)
		check_skip(c, "%s has no %s event", p->name, m_gen_name(g));
	else
		check_pass(c, "%u counters: %lld %s per %llu iterations, %s (N/2N difference)",
			   tested, (long long)d.med, m_gen_name(g), (unsigned long long)n, how);
}

#endif
