/* rdpmc: RDPMC agrees with RDMSR for every counter (GP index i, fixed counters
 * (1 << 30) | i: SDM Vol. 2B RDPMC), and an index the family has no counter for
 * faults. That index comes from the driver: on AMD, RDPMC 6-15 read the
 * northbridge / data fabric and L3 counters where CPUID enumerates them (AMD
 * APM Vol. 3 RDPMC), so only the index past those is invalid. */
#include "../measure.h"

/* A pattern each counter holds: below bit 31, which the preload path may
 * sign-extend from (SDM Vol. 3B P6 section, 20.2.6), with the counter's index
 * in bits 15:8 so that RDPMC of another counter shows. */
#define PATTERN	    0x123456789aull
#define BELOW_BIT31 0x7fffffffull
#define INDEX_SHIFT 8

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const struct pmu_counter *k = &p->ctr[i];
		uint64_t pat = PATTERN & pmu_width_mask(k->width) & BELOW_BIT31;
		uint64_t a = 0, b = 0;
		pat |= (uint64_t)i << INDEX_SHIFT;
		if (!m_write(c, i, pat, PMU_WRITE_PRELOAD))
			return;
		int st = hw_rdpmc(k->rdpmc, &a);
		if (!m_rdmsr(c, k->ctr_msr, &b))
			return;
		if (st != HW_OK)
			check_fail(c, "%s: RDPMC 0x%x raised %s", k->name, k->rdpmc,
				   hw_err_name(st));
		else if (a != b)
			check_fail(c, "%s: RDPMC 0x%x read 0x%llx, RDMSR 0x%x read 0x%llx", k->name,
				   k->rdpmc, (unsigned long long)a, k->ctr_msr,
				   (unsigned long long)b);
		if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
			return;
	}
	/* An index with no counter behind it must fault (#GP). */
	uint64_t v;
	uint32_t bad = p->rdpmc_bad;
	int st = hw_rdpmc(bad, &v);
	if (st == HW_OK)
		check_fail(c, "RDPMC of invalid index 0x%x: expected #GP, read 0x%llx", bad,
			   (unsigned long long)v);
	check_pass(c, "RDPMC agrees with RDMSR on %u counters; index 0x%x faults (%s)", p->n, bad,
		   hw_err_name(st));
}

PMH_CHECK(rdpmc, .id = "rdpmc", .summary = "RDPMC agrees with RDMSR", .order = 60,
	  .needs_pmu = true, .needs_caps = PMU_CAP_RDPMC, .run = run);
