/* count.cycles: core cycles over a window are plausible against the TSC:
 * non-zero and within a factor of 16 either way (turbo, power states and
 * virtualisation move the ratio; a broken counter leaves that range). */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int i = m_counter_for(c, GEN_CYCLES, 0);
	uint64_t cyc = 0, t0, t1;

	if (i < 0) {
		check_skip(c, "%s has no cycles event", p->name);
		return;
	}
	m_quiesce(c);
	if (!m_setup_or_fail(c, (unsigned)i, GEN_CYCLES, PMU_F_OS | PMU_F_USR))
		return;
	t0 = hw_rdtsc();
	/* an SMI in the window is let through: the range is 16x wide */
	int st = m_window(c, 1ull << i, &wl_loop, 200000);
	t1 = hw_rdtsc();
	bool ok = st != M_FAULT && m_read(c, (unsigned)i, &cyc);
	m_quiesce(c);
	if (!ok)
		return;
	uint64_t tsc = t1 - t0;
	if (!cyc)
		check_fail(c, "%s: expected cycles, counted 0 over %llu TSC ticks", p->ctr[i].name,
			   (unsigned long long)tsc);
	else if (cyc > tsc * 16 || cyc * 16 < tsc)
		check_fail(c, "%s: expected cycles within 16x of the TSC (%llu ticks), got %llu",
			   p->ctr[i].name, (unsigned long long)tsc, (unsigned long long)cyc);
	else
		check_pass(
		    c,
		    "%s: %llu cycles over %llu TSC ticks (ratio %llu.%02llu; 1/16 to 16 allowed: turbo, "
		    "power states, virtualisation)",
		    p->ctr[i].name, (unsigned long long)cyc, (unsigned long long)tsc,
		    (unsigned long long)(cyc / tsc), (unsigned long long)(cyc * 100 / tsc % 100));
}

PMH_CHECK(count_cycles, .id = "count.cycles", .summary = "cycles plausible against the TSC",
	  .order = 43, .needs_pmu = true, .run = run);
