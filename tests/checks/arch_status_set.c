/* arch.status-set: on perfmon v4, writing 1 to a GLOBAL_STATUS_SET (0x391)
 * bit sets that GLOBAL_STATUS bit, the driver sees it as that counter's
 * overflow, and GLOBAL_OVF_CTRL clears it (SDM Vol. 3B 20.2.4.2). */
#include "../measure.h"
#include "../../pmu/intel_arch.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		unsigned bit = pmu_global_bit(p, i);
		uint64_t st = 0, m = 0;
		int e = hw_wrmsr(p->global_status_set_msr, 1ull << bit);
		if (e != HW_OK) {
			check_fail(c, "%s: writing STATUS_SET bit %u raised %s", p->ctr[i].name,
				   bit, hw_err_name(e));
			continue;
		}
		/* one read, the driver's: whether a second read still sees the
		 * bit is overflow.status's question (sticky) */
		if (!m_ovf(c, &m))
			return;
		if (m != (1ull << i))
			check_fail(c,
				   "%s: STATUS_SET bit %u: expected GLOBAL_STATUS to flag the "
				   "overflow of %s only, driver read 0x%llx",
				   p->ctr[i].name, bit, p->ctr[i].name, (unsigned long long)m);
		if (!m_ack(c, 1ull << i))
			return;
		if (!m_rdmsr(c, p->global_status_msr, &st))
			return;
		if ((st >> bit) & 1)
			check_fail(c, "%s: expected OVF_CTRL to clear status bit %u, still 0x%llx",
				   p->ctr[i].name, bit, (unsigned long long)st);
	}
	check_pass(c, "STATUS_SET sets and OVF_CTRL clears each of %u status bits", p->n);
}

PMH_CHECK(arch_status_set, .id = "arch.status-set", .summary = "v4 GLOBAL_STATUS_SET", .order = 71,
	  .needs_pmu = true, .needs_caps = PMU_CAP_STATUS_SET, .run = run);
