/* count.cycles: core cycles over a window are plausible against the TSC:
 * non-zero and within a factor of 16 either way (turbo, power states and
 * virtualisation move the ratio; a broken counter leaves that range). */
#include "../measure.h"

/* Cycles within RATIO_MAX times the TSC ticks either way: the harness's own
 * bound (no document gives one for core cycles against the TSC), wide
 * enough for turbo, power states and virtualisation. */
#define RATIO_MAX 16
/* The window: 600000 instructions of wl_loop, so that the TSC ticks of the
 * window dwarf those of the harness's own code around it. */
#define WINDOW_ITERS 200000
#define CENTI	     100 /* the ratio is printed with two decimals */

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
	/* an SMI in the window is let through: the range is wide */
	int st = m_window(c, 1ull << i, &wl_loop, WINDOW_ITERS);
	t1 = hw_rdtsc();
	bool ok = st != M_FAULT && m_read(c, (unsigned)i, &cyc);
	m_quiesce(c);
	if (!ok)
		return;
	uint64_t tsc = t1 - t0;
	if (!cyc)
		check_fail(c, "%s: expected cycles, counted 0 over %llu TSC ticks", p->ctr[i].name,
			   (unsigned long long)tsc);
	else if (cyc > tsc * RATIO_MAX || cyc * RATIO_MAX < tsc)
		check_fail(c, "%s: expected cycles within %ux of the TSC (%llu ticks), got %llu",
			   p->ctr[i].name, RATIO_MAX, (unsigned long long)tsc,
			   (unsigned long long)cyc);
	else
		check_pass(c,
			   "%s: %llu cycles over %llu TSC ticks (ratio %llu.%02llu; 1/%u to %u "
			   "allowed: turbo, "
			   "power states, virtualisation)",
			   p->ctr[i].name, (unsigned long long)cyc, (unsigned long long)tsc,
			   (unsigned long long)(cyc / tsc),
			   (unsigned long long)(cyc * CENTI / tsc % CENTI), RATIO_MAX, RATIO_MAX);
}

PMH_CHECK(count_cycles, .id = "count.cycles", .summary = "cycles plausible against the TSC",
	  .order = 43, .needs_pmu = true, .run = run);
