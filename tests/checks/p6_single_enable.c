/* p6.single-enable: on P6 only EVNTSEL0.EN enables counting, for both counters;
 * EVNTSEL1's EN bit does nothing on its own (SDM Vol. 3B P6 section; Linux
 * p6.c). With only EVNTSEL1.EN set nothing counts, the harness's own code
 * included: exactly 0. With EVNTSEL0.EN set gp1 counts the workload, measured
 * as the N/2N difference so that the harness's code around it does not
 * decide. */
#include "../measure.h"
#include "../../pmu/msr.h"

/* gp1 with only EVNTSEL1.EN set counts nothing: one window of 3000
 * instructions of wl_loop, any of which would show. */
#define EXACT_ITERS 1000

/* gp1 programmed (instructions) and gp0 (cycles), both stopped; *s is
 * EVNTSEL<i> as programmed (EN clear). False when an op failed (FAILed). */
static bool setup(struct check_ctx *c, unsigned i, uint64_t *s)
{
	*s = 0;
	if (!m_setup_or_fail(c, 0, GEN_CYCLES, PMU_F_OS | PMU_F_USR) ||
	    !m_setup_or_fail(c, 1, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR))
		return false;
	return m_rdmsr(c, c->pmu->ctr[i].ctl_msr, s);
}

/* gp1 with only EVNTSEL1.EN set (one window from zero: *only1) and with
 * only EVNTSEL0.EN set (N/2N: *only0), the windows' statuses in *st1 and
 * *st0. False when an op failed (FAILed). */
static bool measure(struct check_ctx *c, int *st1, uint64_t *only1, int *st0, struct mdiff *only0)
{
	struct pmu *p = c->pmu;
	uint64_t s1, s0;

	if (!setup(c, 1, &s1))
		return false;
	*st1 = m_window_write(c, 0, p->ctr[1].ctl_msr, s1 | EVTSEL_EN, &wl_loop, EXACT_ITERS);
	if (*st1 == M_FAULT || !m_read(c, 1, only1) || !setup(c, 0, &s0))
		return false;
	*st0 = m_diff(c, 1, 0, p->ctr[0].ctl_msr, s0 | EVTSEL_EN, &wl_loop, M_N_ITERS, only0);
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	uint64_t only1 = 0;
	struct mdiff only0 = {0, 0, 0, 0, 0};

	if (p->n_gp < 2) {
		check_skip(c, "needs two counters");
		return;
	}
	m_quiesce(c);
	/* start(0) leaves both EN clear; the window then sets one of them. A
	 * write that faulted set nothing, and its 0 would prove nothing. An
	 * SMI does not matter here: a counter that is not enabled counts
	 * nothing in SMM either. */
	int st1 = M_OK, st0 = M_OK;
	bool ok = measure(c, &st1, &only1, &st0, &only0);
	m_quiesce(c);
	if (!ok)
		return;
	if (st1 == M_WRITE_GP)
		m_fail_status(c, st1, p->ctr[1].ctl_msr, "gp1 with only EVNTSEL1.EN set");
	else if (only1)
		check_fail(
		    c,
		    "gp1 counted %llu with only EVNTSEL1.EN set: expected 0 (EN only in EVNTSEL0)",
		    (unsigned long long)only1);
	if (st0 != M_OK)
		m_fail_status(c, st0, p->ctr[0].ctl_msr, "gp1 with only EVNTSEL0.EN set");
	else if (only0.med <= 0)
		check_fail(
		    c,
		    "gp1 did not count with EVNTSEL0.EN set: expected EVNTSEL0.EN to enable both");
	check_pass(c,
		   "EVNTSEL0.EN alone enables gp1 (%lld events per %u iterations, N/2N "
		   "difference); EVNTSEL1.EN alone: 0",
		   (long long)only0.med, M_N_ITERS);
}

PMH_CHECK(p6_single_enable, .id = "p6.single-enable", .summary = "EN only in EVNTSEL0", .order = 70,
	  .needs_pmu = true, .needs_caps = PMU_CAP_SINGLE_ENABLE, .run = run);
