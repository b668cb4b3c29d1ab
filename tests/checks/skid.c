/* skid: how far execution runs past an overflow before the PMI stops the
 * counters: instructions counted past the wrap (skid), and cycles counted
 * past the wrap of a cycles counter (PMI latency), as min/median/max over
 * the configured repeats. A report more than a verdict: it fails only when
 * PMIs do not arrive or the skid is absurd (over 100000 events). */
#include "pmi_common.h"

#define SKID_LIMIT 100000

static int sample(struct check_ctx *c, enum pmu_generic g, uint64_t n, struct stat3 *out)
{
	static uint64_t v[64];
	const volatile struct pmi_stats *s = pmi_stats();
	unsigned rep = c->opt->repeat < 64 ? c->opt->repeat : 64, got = 0;
	int i = m_counter_for(c, g, 0);

	if (i < 0)
		return -1;
	for (unsigned r = 0; r < rep; r++) {
		m_setup(c, (unsigned)i, g, PMU_F_OS | PMU_F_USR | PMU_F_INT);
		pmi_reset_stats();
		pmu_preload(c->pmu, (unsigned)i, n);
		pmi_run(c, 1ull << i, &wl_loop, 2000);
		if (pmi_wait(1, PMI_WAIT_US))
			v[got++] = s->skid[0];
		c->pmu->ops->ack(c->pmu, pmu_all_mask(c->pmu));
	}
	m_stat(v, got, out);
	return got == rep ? 0 : -2;
}

static void run(struct check_ctx *c)
{
	struct stat3 ins = { 0, 0, 0 }, cyc = { 0, 0, 0 };

	if (!pmi_begin(c))
		return;
	int a = sample(c, GEN_INSTRUCTIONS, 1000, &ins);
	int b = sample(c, GEN_CYCLES, 1000, &cyc);
	pmi_end(c);
	if (a == -1) {
		check_skip(c, "no counter can count instructions");
	} else if (a == -2 || b == -2) {
		check_fail(c, "expected a PMI for every sample, some were lost");
	} else if (ins.max > SKID_LIMIT || (b == 0 && cyc.max > SKID_LIMIT)) {
		check_fail(c, "skid of %llu instructions / %llu cycles exceeds %u",
			   (unsigned long long)ins.max, (unsigned long long)cyc.max, SKID_LIMIT);
	} else if (b == 0) {
		check_pass(c, "skid %llu/%llu/%llu instructions, PMI latency %llu/%llu/%llu cycles "
			      "(min/median/max)",
			   (unsigned long long)ins.min, (unsigned long long)ins.med,
			   (unsigned long long)ins.max, (unsigned long long)cyc.min,
			   (unsigned long long)cyc.med, (unsigned long long)cyc.max);
	} else {
		check_pass(c, "skid %llu/%llu/%llu instructions (min/median/max); no cycles event",
			   (unsigned long long)ins.min, (unsigned long long)ins.med,
			   (unsigned long long)ins.max);
	}
}

PMH_CHECK(skid, .id = "skid", .summary = "overflow-to-PMI skid and latency", .order = 80,
	  .needs_pmu = true, .run = run);
