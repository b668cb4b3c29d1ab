/* rdpmc.user: RDPMC at CPL 3. With CR4.PCE set it reads every counter as
 * RDMSR does at CPL 0; with CR4.PCE clear it raises #GP (SDM Vol. 2B
 * RDPMC: "If CR4.PCE = 0 and CPL > 0, #GP(0)"; AMD APM Vol. 3 RDPMC; the
 * KNC guide #327357 table 1-1 lists RDPMC for rings 0-3). Linux's
 * rdpmc=1 mode and every self-monitoring profiler rely on both. */
#include "../measure.h"
#include "../hv_policy.h"

/* A value each counter holds: below bit 31 (the preload path may sign-
 * extend from it) and with the counter's index in bits 15:8, so that a
 * read of another counter shows. */
#define PATTERN	    0x2468aceull
#define BELOW_BIT31 0x7fffffffull
#define INDEX_SHIFT 8

/* Counter i read at CPL 3 with PCE set against RDMSR. False when an op
 * failed (FAILed). */
static bool read_one(struct check_ctx *c, unsigned i)
{
	const struct pmu_counter *k = &c->pmu->ctr[i];
	uint64_t pat = (PATTERN & pmu_width_mask(k->width) & BELOW_BIT31) | (uint64_t)i
										<< INDEX_SHIFT;
	uint64_t user = 0, ring0 = 0;

	if (!m_write(c, i, pat, PMU_WRITE_PRELOAD))
		return false;
	int e = hw_user_rdpmc(k->rdpmc, true, &user);
	if (!m_rdmsr(c, k->ctr_msr, &ring0))
		return false;
	if (e != HW_OK)
		check_fail(c, "%s: RDPMC 0x%x at CPL 3 with CR4.PCE set raised %s", k->name,
			   k->rdpmc, hw_err_name(e));
	else if (user != ring0)
		check_fail(c, "%s: RDPMC 0x%x at CPL 3 read 0x%llx, RDMSR 0x%x read 0x%llx",
			   k->name, k->rdpmc, (unsigned long long)user, k->ctr_msr,
			   (unsigned long long)ring0);
	return m_write(c, i, 0, PMU_WRITE_PRELOAD);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned n = 0;
	uint64_t v = 0;

	m_quiesce(c);
	int e = hw_user_rdpmc(p->ctr[0].rdpmc, false, &v);
	if (e == HW_UNSUPPORTED) {
		check_skip(c, "the platform cannot enter ring 3");
		return;
	}
	if (e == HW_OK)
		check_fail(c, "RDPMC 0x%x at CPL 3 with CR4.PCE clear read 0x%llx: expected #GP",
			   p->ctr[0].rdpmc, (unsigned long long)v);
	else if (e != HW_FAULT_GP)
		check_fail(c, "RDPMC 0x%x at CPL 3 with CR4.PCE clear raised %s, expected #GP",
			   p->ctr[0].rdpmc, hw_err_name(e));
	for (unsigned i = 0; i < p->n; i++) {
		if (hv_is_taken(c, i))
			continue; /* the host's (pmu.host) */
		if (!read_one(c, i))
			return;
		n++;
	}
	if (c->v != V_FAIL)
		check_pass(c,
			   "RDPMC at CPL 3 agrees with RDMSR on %u counters with CR4.PCE set, "
			   "raises %s with it clear",
			   n, hw_err_name(e));
}

PMH_CHECK(rdpmc_user, .id = "rdpmc.user", .summary = "RDPMC at CPL 3 under CR4.PCE", .order = 61,
	  .needs_pmu = true, .needs_caps = PMU_CAP_RDPMC, .run = run);
