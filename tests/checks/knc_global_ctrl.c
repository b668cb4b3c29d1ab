/* knc.global-ctrl: on Knights Corner a counter counts only when both its
 * EVNTSEL.EN and its IA32_PERF_GLOBAL_CTRL (0x2F) bit are set, each bit
 * independently (KNC §1.4.1, §1.4.3.3 bit 22, §1.4.3.7). */
#include "../measure.h"
#include "../../lib/fmt.h"

/* GLOBAL_CTRL bits 0 and 1: gp0 and gp1 (KNC §1.4.3.7). */
#define BOTH 3u

/* gp<i> with GLOBAL_CTRL = g written right after start() set both bits:
 * the harness's code between the two counts, and cancels in the N/2N
 * difference, compared with the count with both bits set (open, from
 * g = BOTH). False when an op failed (FAILed). */
static bool gate(struct check_ctx *c, unsigned g, unsigned i, int64_t *open)
{
	struct pmu *p = c->pmu;
	struct mdiff d = {0, 0, 0, 0, 0};
	bool on = (g >> i) & 1;
	char what[32];

	if (!m_setup_or_fail(c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR) ||
	    !m_setup_or_fail(c, 1, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR))
		return false;
	int st = m_diff(c, i, BOTH, p->global_ctrl_msr, g, &wl_loop, M_N_ITERS, &d);
	if (st != M_OK) {
		pmh_fmt(what, sizeof(what), "GLOBAL_CTRL=0x%x: gp%u", g, i);
		m_fail_status(c, st, p->global_ctrl_msr, what);
		return st != M_FAULT;
	}
	if (g == BOTH)
		*open = d.med;
	if (on && d.med <= 0)
		check_fail(c, "GLOBAL_CTRL=0x%x: gp%u did not count with its bit set", g, i);
	if (!on && *open > 0 && m_leaks(d.med, *open))
		check_fail(c,
			   "GLOBAL_CTRL=0x%x: gp%u counted %lld per %u iterations with its "
			   "global bit clear (%lld with it set)",
			   g, i, (long long)d.med, M_N_ITERS, (long long)*open);
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int64_t open[2] = {0, 0};
	bool ok = true;

	if (p->ops->id != PMU_DRV_INTEL_KNC) {
		check_skip(c, "not a Knights Corner PMU (%s)", p->name);
		return;
	}
	m_quiesce(c);
	for (unsigned g = BOTH + 1; ok && g-- > 0;) { /* GLOBAL_CTRL = 3, 2, 1, 0 */
		for (unsigned i = 0; ok && i < 2; i++)
			ok = gate(c, g, i, &open[i]);
		m_quiesce(c);
	}
	check_pass(c,
		   "GLOBAL_CTRL bits 0 and 1 gate gp0 and gp1 independently (N/2N difference with "
		   "a bit clear under 1/%u of the set one)",
		   M_GATE_DIV);
}

PMH_CHECK(knc_global_ctrl, .id = "knc.global-ctrl", .summary = "KNC global control gating",
	  .order = 72, .needs_pmu = true, .needs_caps = PMU_CAP_GLOBAL_CTRL, .run = run);
