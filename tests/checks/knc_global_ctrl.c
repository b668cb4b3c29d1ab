/* knc.global-ctrl: on Knights Corner a counter counts only when both its
 * EVNTSEL.EN and its IA32_PERF_GLOBAL_CTRL (0x2F) bit are set, each bit
 * independently (KNC §1.4.1, §1.4.3.3 bit 22, §1.4.3.7). */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;

	if (p->ops->id != PMU_DRV_INTEL_KNC) {
		check_skip(c, "not a Knights Corner PMU (%s)", p->name);
		return;
	}
	m_quiesce(c);
	for (unsigned g = 0; g < 4; g++) { /* GLOBAL_CTRL = 0, 1, 2, 3 */
		uint64_t v[2] = { 0, 0 };
		m_setup(c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		m_setup(c, 1, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		m_window_write(c, 3, p->global_ctrl_msr, g, &wl_loop, 1000);
		p->ops->read(p, 0, &v[0]);
		p->ops->read(p, 1, &v[1]);
		for (unsigned i = 0; i < 2; i++) {
			bool on = (g >> i) & 1;
			if (on && !v[i])
				check_fail(c, "GLOBAL_CTRL=0x%x: gp%u did not count with its bit set", g, i);
			if (!on && v[i])
				check_fail(c, "GLOBAL_CTRL=0x%x: gp%u counted %llu with its global bit clear",
					   g, i, (unsigned long long)v[i]);
		}
		m_quiesce(c);
	}
	check_pass(c, "GLOBAL_CTRL bits 0 and 1 gate gp0 and gp1 independently");
}

PMH_CHECK(knc_global_ctrl, .id = "knc.global-ctrl", .summary = "KNC global control gating",
	  .order = 72, .needs_pmu = true, .needs_caps = PMU_CAP_GLOBAL_CTRL, .run = run);
