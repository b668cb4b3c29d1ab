/* count.enable: nothing counts while a counter is only programmed, counting
 * starts with start() (enable bit, and the global enable where there is
 * one) and stops with stop(); with the global enable cleared nothing counts
 * (facts §4 GLOBAL_CTRL, §7 GlobalCtl, KNC §1.4.3.7). */
#include "../measure.h"
#include "../../pmu/msr.h"

static uint64_t window_count(struct check_ctx *c, unsigned ctr, bool start, bool global_off)
{
	struct pmu *p = c->pmu;
	uint64_t v = 0;

	p->ops->write(p, ctr, 0, PMU_WRITE_PRELOAD);
	m_window_write(c, start ? 1ull << ctr : 0, global_off ? p->global_ctrl_msr : 0, 0, &wl_loop,
		       1000);
	p->ops->read(p, ctr, &v);
	return v;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned tested = 0;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const char *n = p->ctr[i].name;
		if (m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR) &&
		    m_setup(c, i, GEN_CYCLES, PMU_F_OS | PMU_F_USR))
			continue;
		tested++;
		uint64_t off = window_count(c, i, false, false);
		if (off)
			check_fail(c, "%s: expected 0 while not enabled, counted %llu", n,
				   (unsigned long long)off);
		uint64_t on = window_count(c, i, true, false);
		if (!on)
			check_fail(c, "%s: expected counting once enabled, counted 0 (did not count)", n);
		/* stopped: a further workload must not move the counter */
		uint64_t before = 0, after = 0;
		p->ops->read(p, i, &before);
		hw_run_workload(&wl_loop, 1000);
		p->ops->read(p, i, &after);
		if (after != before && (p->caps & PMU_CAP_GLOBAL_CTRL))
			check_fail(c, "%s: expected no counting after stop, counted %llu while stopped "
				      "(enable bit and global enable MSR 0x%x should gate it)",
				   n, (unsigned long long)(after - before), p->global_ctrl_msr);
		else if (after != before)
			check_fail(c, "%s: expected no counting after stop, counted %llu while stopped "
				      "(its enable bit should gate it)",
				   n, (unsigned long long)(after - before));
		if ((p->caps & PMU_CAP_GLOBAL_CTRL) && p->ctr[i].kind == PMU_CTR_GP) {
			/* global enable on, the counter's own EN bit cleared */
			uint64_t ctl = 0, v = 0;
			p->ops->write(p, i, 0, PMU_WRITE_PRELOAD);
			hw_rdmsr(p->ctr[i].ctl_msr, &ctl); /* start() sets only EN here */
			m_window_write(c, 1ull << i, p->ctr[i].ctl_msr, ctl & ~EVTSEL_EN, &wl_loop, 1000);
			p->ops->read(p, i, &v);
			if (v)
				check_fail(c, "%s: expected 0 with its enable bit clear (global enable on), "
					      "counted %llu",
					   n, (unsigned long long)v);
		}
		if (p->caps & PMU_CAP_GLOBAL_CTRL) {
			uint64_t g = window_count(c, i, true, true);
			if (g)
				check_fail(c, "%s: expected 0 with the global enable (MSR 0x%x) clear, counted %llu",
					   n, p->global_ctrl_msr, (unsigned long long)g);
		}
	}
	m_quiesce(c);
	if (!tested)
		check_skip(c, "no counter can count instructions or cycles");
	else
		check_pass(c, "%u counters start and stop with their enables%s", tested,
			   (p->caps & PMU_CAP_GLOBAL_CTRL) ? " and the global enable" : "");
}

PMH_CHECK(count_enable, .id = "count.enable", .summary = "counting follows the enable bits",
	  .order = 40, .needs_pmu = true, .run = run);
