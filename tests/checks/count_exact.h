/* Shared body of count.instructions and count.branches: a calibrated
 * workload's per-iteration count is known from its assembly, so the count
 * difference between windows of N and 2N iterations must be exactly
 * N x per-iteration on every counter that can count the event. */
#ifndef PMH_CHECKS_COUNT_EXACT_H
#define PMH_CHECKS_COUNT_EXACT_H

#include "../measure.h"

static inline void count_exact(struct check_ctx *c, enum pmu_generic g, uint64_t per_iter,
			       const struct workload *w)
{
	struct pmu *p = c->pmu;
	const uint64_t n = 10000;
	unsigned tested = 0;
	struct stat3 s = { 0, 0, 0 };

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		if (m_setup(c, i, g, PMU_F_OS | PMU_F_USR))
			continue;
		tested++;
		if (m_events(c, i, w, n, &s)) {
			check_fail(c, "%s: the measurement faulted or kept being disturbed", p->ctr[i].name);
			continue;
		}
		if (s.med != n * per_iter)
			check_fail(c, "%s counting %s over %llu iterations of %s: expected %llu, got %llu "
				   "(min %llu max %llu)",
				   p->ctr[i].name, m_gen_name(g), (unsigned long long)n, w->name,
				   (unsigned long long)(n * per_iter), (unsigned long long)s.med,
				   (unsigned long long)s.min, (unsigned long long)s.max);
		else
			check_note(c, "%s: %llu %s (min %llu max %llu)", p->ctr[i].name,
				   (unsigned long long)s.med, m_gen_name(g), (unsigned long long)s.min,
				   (unsigned long long)s.max);
	}
	m_quiesce(c);
	if (!tested)
		check_skip(c, "%s has no %s event", p->name, m_gen_name(g));
	else
		check_pass(c, "%u counters: %llu %s per %llu iterations, exact (min %llu max %llu)", tested,
			   (unsigned long long)s.med, m_gen_name(g), (unsigned long long)n,
			   (unsigned long long)s.min, (unsigned long long)s.max);
}

#endif
