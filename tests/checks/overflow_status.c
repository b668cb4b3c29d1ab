/* overflow.status: an overflow is flagged for exactly the counter that
 * overflowed (status register, CCCR.OVF or the sign bit, per family), the
 * flag survives reads (sticky), and ack clears it. */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned tested = 0;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const char *n = p->ctr[i].name;
		uint64_t m = 0, m2 = 0;
		if (m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR))
			continue;
		tested++;
		p->ops->ack(p, pmu_all_mask(p));
		p->ops->overflow_status(p, &m);
		if (m & (1ull << i))
			check_fail(c, "%s: overflow status set before any overflow (0x%llx)", n,
				   (unsigned long long)m);
		pmu_preload(p, i, 10);
		m_window(c, 1ull << i, &wl_loop, 100);
		p->ops->overflow_status(p, &m);
		p->ops->overflow_status(p, &m2);
		if (!(m & (1ull << i)))
			check_fail(c, "%s: expected the overflow status bit after an overflow, status 0x%llx",
				   n, (unsigned long long)m);
		else if (m & ~(1ull << i))
			check_fail(c, "%s: overflow status names other counters too: 0x%llx", n,
				   (unsigned long long)m);
		else if (!(m2 & (1ull << i)))
			check_fail(c, "%s: overflow status cleared by reading it (not sticky)", n);
		p->ops->ack(p, 1ull << i);
		p->ops->overflow_status(p, &m);
		if (m & (1ull << i))
			check_fail(c, "%s: expected ack to clear the overflow status, still 0x%llx", n,
				   (unsigned long long)m);
		p->ops->write(p, i, 0, PMU_WRITE_PRELOAD);
	}
	m_quiesce(c);
	if (!tested)
		check_skip(c, "no counter can count instructions");
	else
		check_pass(c, "%u counters flag their overflow; ack clears it", tested);
}

PMH_CHECK(overflow_status, .id = "overflow.status", .summary = "overflow flagged, ack clears",
	  .order = 51, .needs_pmu = true, .run = run);
