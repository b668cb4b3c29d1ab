/* overflow.pmi: each overflow of a counter with INT set raises exactly one
 * PMI through LVTPC, and an overflow with INT clear raises none (SDM Vol. 3B 20.2.1.1
 * INT bit; Vol. 3A 11.5.1 delivery). Every counter that can count instructions. A PMI
 * that finds nothing pending right after the real one is reported, not
 * failed, where the family documents it (AMD NMI latency, Linux amd_pmu_adjust_nmi_window); any
 * other extra PMI fails. */
#include "pmi_common.h"

#define US_PER_MS 1000

/* One overflow of counter i, programmed by the caller: preload, run the
 * workload past it in a PMI window. False when an op failed (FAILed). */
static bool overflow_once(struct check_ctx *c, unsigned i)
{
	pmi_reset_stats();
	return m_preload(c, i, M_PMI_PERIOD) &&
	       pmi_run(c, 1ull << i, &wl_loop, M_PMI_ITERS) != M_FAULT;
}

/* One counter, INT set: one PMI collecting one overflow. False when an op
 * failed (FAILed). */
static bool with_int(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	const char *n = p->ctr[i].name;

	if (!overflow_once(c, i))
		return false;
	bool got = pmi_wait(1, PMI_WAIT_US);
	pmi_wait(2, PMI_QUIET_US); /* give a second one time to show */
	if (pmi_trouble(c, n))
		return true;
	if (!got)
		check_fail(
		    c, "%s overflowed with INT set: expected 1 PMI, got none in %u ms (PMI lost)",
		    n, PMI_WAIT_US / US_PER_MS);
	else if (s->total - s->echo != 1 || s->overflows[i] != 1)
		check_fail(
		    c,
		    "%s: expected 1 PMI collecting 1 overflow, got %llu PMIs, %llu overflows "
		    "(%s PMI)",
		    n, (unsigned long long)s->total, (unsigned long long)s->overflows[i],
		    s->overflows[i] > 1 ? "overflow counted twice by one" : "extra");
	return true;
}

/* The same counter with INT clear: the same overflow must stay silent.
 * False when an op failed (FAILed). */
static bool without_int(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	const char *n = p->ctr[i].name;

	if (!m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR) ||
	    !m_ack(c, pmu_all_mask(p)) || !overflow_once(c, i))
		return false;
	if (pmi_wait(1, PMI_QUIET_US))
		check_fail(c,
			   "%s overflowed with INT clear: expected no PMI, got %llu (spurious PMI)",
			   n, (unsigned long long)s->total);
	else if (s->wrong_vector)
		pmi_trouble(c, n);
	return m_ack(c, pmu_all_mask(p));
}

/* Counter i with INT set, then clear; the echoes seen add to *arg. */
static bool one(struct check_ctx *c, unsigned i, void *arg)
{
	if (!with_int(c, i))
		return false;
	*(uint64_t *)arg += pmi_stats()->echo;
	return without_int(c, i);
}

static void run(struct check_ctx *c)
{
	uint64_t echoes = 0;

	uint32_t lvt0 = apic_lvt_pc_read();
	if (!pmi_begin(c))
		return;
	unsigned tested =
	    m_each_counter(c, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT, one, &echoes);
	pmi_end(c);
	if (apic_lvt_pc_read() != lvt0)
		check_fail(c, "LVTPC 0x%x after the check, expected the original 0x%x back",
			   apic_lvt_pc_read(), lvt0);
	if (!tested)
		check_skip(c, "no counter can count instructions");
	else
		check_pass(
		    c, "%u counters: one PMI per overflow with INT, none without (%s delivery)%s",
		    tested, c->opt->pmi == PMI_NMI ? "NMI" : "fixed",
		    echoes ? "; late PMIs with nothing pending (documented NMI latency, "
			     "Linux amd_pmu_adjust_nmi_window) "
			     "seen"
			   : "");
}

PMH_CHECK(overflow_pmi, .id = "overflow.pmi", .summary = "one PMI per overflow, none without INT",
	  .order = 52, .needs_pmu = true, .run = run);
