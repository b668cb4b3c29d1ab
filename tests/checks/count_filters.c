/* count.filters: privilege and threshold filters change counts the
 * documented way (facts §1; K7 PerfEvtSel fields; KNC table 1-5; NetBurst
 * CCCR compare/complement/threshold/edge, facts §5). The harness runs in
 * ring 0, so:
 *   OS only        = OS|USR count          USR only = 0
 *   cmask 255      = 0 (no loop retires 255 instructions in a cycle;
 *                    NetBurst's 4-bit threshold: 15)
 *   cmask 255 inv  = cycles with fewer: every cycle, > 0
 *   cmask 1 edge   <= cmask 1 (edges are a subset of asserted cycles) */
#include "../measure.h"

static uint64_t count(struct check_ctx *c, unsigned i, uint32_t flags)
{
	uint64_t v = 0;
	if (m_setup(c, i, GEN_INSTRUCTIONS, flags))
		return ~0ull;
	m_window(c, 1ull << i, &wl_loop, 20000);
	c->pmu->ops->read(c->pmu, i, &v);
	return v;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int i = m_counter_for(c, GEN_INSTRUCTIONS, 0);

	if (i < 0 || (unsigned)i >= p->n_gp) {
		check_skip(c, "%s has no general-purpose instructions event", p->name);
		return;
	}
	m_quiesce(c);
	const char *n = p->ctr[i].name;
	uint64_t both = count(c, (unsigned)i, PMU_F_OS | PMU_F_USR);
	uint64_t os = count(c, (unsigned)i, PMU_F_OS);
	uint64_t usr = count(c, (unsigned)i, PMU_F_USR);
	/* the largest threshold the family can express: 8 bits, or the 4-bit
	 * CCCR threshold on NetBurst (which counts "more than" it) */
	unsigned cm = 255;
	uint64_t hi = count(c, (unsigned)i, PMU_F_OS | PMU_F_USR | PMU_F_CMASK(cm));
	if (hi == ~0ull) {
		cm = 15;
		hi = count(c, (unsigned)i, PMU_F_OS | PMU_F_USR | PMU_F_CMASK(cm));
	}
	uint64_t hinv = count(c, (unsigned)i, PMU_F_OS | PMU_F_USR | PMU_F_CMASK(cm) | PMU_F_INV);
	uint64_t c1 = count(c, (unsigned)i, PMU_F_OS | PMU_F_USR | PMU_F_CMASK(1));
	uint64_t e1 = count(c, (unsigned)i, PMU_F_OS | PMU_F_USR | PMU_F_CMASK(1) | PMU_F_EDGE);
	m_quiesce(c);

	if (!both || both == ~0ull)
		check_fail(c, "%s: expected instructions with OS|USR, counted %s", n,
			   both ? "nothing (programming refused)" : "0");
	if (os != both)
		check_fail(c, "%s: OS-only filter in ring 0: expected %llu (OS|USR), got %llu", n,
			   (unsigned long long)both, (unsigned long long)os);
	if (usr != 0)
		check_fail(c, "%s: USR-only filter in ring 0: expected 0, got %llu", n,
			   (unsigned long long)usr);
	if (hi != 0)
		check_fail(c, "%s: counter mask %u: expected 0, got %llu", n, cm, (unsigned long long)hi);
	if (!(p->caps & PMU_CAP_EDGE_INV_CMASK)) {
		check_pass(c, "%s: OS/USR filters as documented (%llu / 0)", n, (unsigned long long)os);
		return;
	}
	if (hinv == 0 || hinv == ~0ull)
		check_fail(c, "%s: counter mask %u inverted: expected every cycle, got %s", n, cm,
			   hinv ? "nothing (programming refused)" : "0");
	if (e1 > c1)
		check_fail(c, "%s: edge detect: expected at most the %llu asserted cycles, got %llu", n,
			   (unsigned long long)c1, (unsigned long long)e1);
	check_pass(c, "%s: OS %llu, USR 0, cmask%u 0, cmask%u+inv %llu, cmask1 %llu, cmask1+edge %llu",
		   n, (unsigned long long)os, cm, cm, (unsigned long long)hinv,
		   (unsigned long long)c1, (unsigned long long)e1);
}

PMH_CHECK(count_filters, .id = "count.filters", .summary = "OS/USR, edge, invert, counter mask",
	  .order = 45, .needs_pmu = true, .run = run);
