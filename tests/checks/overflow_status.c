/* overflow.status: an overflow is flagged for exactly the counter that
 * overflowed, the flag survives reads (sticky), and ack clears it. What is
 * measured depends on the family:
 *  - a status register (arch v2+, KNC, AMD PerfMonV2) or CCCR.OVF
 *    (NetBurst): all three, on the hardware's flag;
 *  - no status (P6, arch v1, AMD before PerfMonV2): the overflow is only the
 *    counter's top bit going clear (Linux x86_pmu_handle_irq). That is measured; a
 *    counter value cannot clear itself by being read and "ack" is the
 *    driver's own bookkeeping, so the sticky and ack parts are not claimed. */
#include "../measure.h"

/* Counter i (programmed) overflows once: the flag before, after, read
 * again, and after ack. False when an op failed (FAILed). */
static bool one(struct check_ctx *c, unsigned i, void *arg)
{
	struct pmu *p = c->pmu;
	bool flag = *(const bool *)arg;
	const char *n = p->ctr[i].name;
	uint64_t m = 0, m2 = 0;

	if (!m_ack(c, pmu_all_mask(p)) || !m_ovf(c, &m))
		return false;
	if (m & (1ull << i))
		check_fail(c, "%s: overflow status set before any overflow (0x%llx)", n,
			   (unsigned long long)m);
	if (!m_overflow(c, i) || !m_ovf(c, &m) || !m_ovf(c, &m2))
		return false;
	if (!(m & (1ull << i)))
		check_fail(c,
			   "%s: expected the overflow status bit after an overflow, status 0x%llx",
			   n, (unsigned long long)m);
	else if (m & ~(1ull << i))
		check_fail(c, "%s: overflow status names other counters too: 0x%llx", n,
			   (unsigned long long)m);
	else if (flag && !(m2 & (1ull << i)))
		check_fail(c, "%s: overflow status cleared by reading it (not sticky)", n);
	if (!m_ack(c, 1ull << i) || !m_ovf(c, &m))
		return false;
	if (flag && (m & (1ull << i)))
		check_fail(c, "%s: expected ack to clear the overflow status, still 0x%llx", n,
			   (unsigned long long)m);
	return m_write(c, i, 0, PMU_WRITE_PRELOAD);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	bool flag = !(p->caps & PMU_CAP_SIGN_OVERFLOW);

	m_quiesce(c);
	unsigned tested = m_each_counter(c, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR, one, &flag);
	m_quiesce(c);
	if (!tested)
		check_skip(c, "no counter can count instructions");
	else if (flag)
		check_pass(c, "%u counters flag their overflow; the flag is sticky; ack clears it",
			   tested);
	else
		check_pass(c,
			   "%u counters: overflow seen as the top bit going clear (no status "
			   "register: sticky and ack not applicable)",
			   tested);
}

PMH_CHECK(overflow_status, .id = "overflow.status", .summary = "overflow flagged, ack clears",
	  .order = 51, .needs_pmu = true, .run = run);
