/* count.enable: nothing counts while a counter is only programmed, counting
 * starts with start() (enable bit, and the global enable where there is
 * one) and stops with stop(); with its own enable bit or the global enable
 * cleared nothing counts (SDM Vol. 3B 20.2.2, APM Vol. 2 §13.2, KNC #327357 §1.4.3.7).
 * A closed gate is written right after start(), so the harness's own code
 * between the two counts on real cores: the gate is measured by the N/2N
 * difference, in which that code cancels, against the open one. */
#include "../measure.h"
#include "../../pmu/msr.h"
#include "../../lib/fmt.h"

/* The windows judged exactly (nothing before start, nothing after stop):
 * 3000 instructions of wl_loop, any of which would show. */
#define EXACT_ITERS 1000

/* One window from zero, started or not: what ctr counted in *v. False
 * when an op failed (FAILed). */
static bool window_count(struct check_ctx *c, unsigned ctr, bool start, uint64_t *v)
{
	*v = 0;
	/* an SMI is not told apart: a counter that is not enabled counts
	 * nothing in SMM either, and the stopped part reads the counter only */
	return m_write(c, ctr, 0, PMU_WRITE_PRELOAD) &&
	       m_window(c, start ? 1ull << ctr : 0, &wl_loop, EXACT_ITERS) != M_FAULT &&
	       m_read(c, ctr, v);
}

/* One closed gate: msr = val written after start, `closed` naming it; FAILs
 * when it leaks, or when it could not be measured (a refused write leaves
 * the gate open: not a leak, and not a pass either). */
static void gate(struct check_ctx *c, unsigned i, uint32_t msr, uint64_t val, int64_t open,
		 const char *closed)
{
	const char *n = c->pmu->ctr[i].name;
	char what[80];
	int64_t v;
	int st = m_per_n(c, i, msr, val, &v);

	if (st != M_OK) {
		pmh_fmt(what, sizeof(what), "%s with %s", n, closed);
		m_fail_status(c, st, msr, what);
	} else if (m_leaks(v, open)) {
		check_fail(c,
			   "%s: expected ~0 with %s, counted %lld per %u iterations (%lld with it "
			   "set)",
			   n, closed, (long long)v, M_N_ITERS, (long long)open);
	}
}

/* The closed gates: EN clear with the global enable on (GP counters), and
 * the global enable clear with EN on. */
static void gates(struct check_ctx *c, unsigned i, int64_t open)
{
	struct pmu *p = c->pmu;
	uint64_t ctl = 0;
	char global[48];

	if (!(p->caps & PMU_CAP_GLOBAL_CTRL))
		return;
	if (p->ctr[i].kind == PMU_CTR_GP) {
		/* programmed, stopped: EN clear */
		if (!m_rdmsr(c, p->ctr[i].ctl_msr, &ctl))
			return;
		gate(c, i, p->ctr[i].ctl_msr, ctl & ~EVTSEL_EN, open,
		     "its enable bit clear (global enable on)");
	}
	pmh_fmt(global, sizeof(global), "the global enable (MSR 0x%x) clear", p->global_ctrl_msr);
	gate(c, i, p->global_ctrl_msr, 0, open, global);
}

/* Counter i (programmed): nothing before start, counting once started,
 * nothing after stop, and the closed gates. False when an op failed
 * (FAILed). */
static bool one(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	const char *n = p->ctr[i].name;
	uint64_t off, before = 0, after = 0;
	int64_t on;

	/* never started: nothing can count, not even the harness's code */
	if (!window_count(c, i, false, &off))
		return false;
	if (off)
		check_fail(c, "%s: expected 0 while not enabled, counted %llu", n,
			   (unsigned long long)off);
	int st = m_per_n(c, i, 0, 0, &on);
	if (st != M_OK) {
		m_fail_status(c, st, 0, n);
		return st != M_FAULT;
	}
	if (on <= 0) {
		check_fail(c,
			   "%s: expected counting once enabled, counted %lld per %u iterations "
			   "(did not count)",
			   n, (long long)on, M_N_ITERS);
		return true;
	}
	/* stopped: a further workload must not move the counter */
	if (!window_count(c, i, true, &before) || !m_read(c, i, &before))
		return false;
	hw_run_workload(&wl_loop, EXACT_ITERS);
	if (!m_read(c, i, &after))
		return false;
	if (after != before)
		check_fail(c,
			   "%s: expected no counting after stop, counted %llu while stopped (%s "
			   "should gate it)",
			   n, (unsigned long long)(after - before),
			   (p->caps & PMU_CAP_GLOBAL_CTRL) ? "enable bit and global enable"
							   : "its enable bit");
	gates(c, i, on);
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned tested = 0;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		int st = m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		if (st == M_REFUSED)
			st = m_setup(c, i, GEN_CYCLES, PMU_F_OS | PMU_F_USR);
		if (st == M_REFUSED)
			continue;
		tested++;
		if (st != M_OK || !one(c, i))
			break;
	}
	m_quiesce(c);
	if (!tested)
		check_skip(c, "no counter can count instructions or cycles");
	else
		check_pass(c,
			   "%u counters start and stop with their enables%s (closed gate: N/2N "
			   "difference under 1/%u of the open one: cycle jitter, K8 BKDG §10.1)",
			   tested, (p->caps & PMU_CAP_GLOBAL_CTRL) ? " and the global enable" : "",
			   M_GATE_DIV);
}

PMH_CHECK(count_enable, .id = "count.enable", .summary = "counting follows the enable bits",
	  .order = 40, .needs_pmu = true, .run = run);
