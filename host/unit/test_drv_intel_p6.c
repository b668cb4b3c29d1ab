/* The intel-p6 driver against the simulated Pentium III (SDM Vol. 3B P6
 * section, Linux p6.c): widths, the 32-bit sign-extending write, the single
 * enable bit, sign-bit overflow, PMI collection, and every fault the model
 * can inject changing what the driver reports. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
/* clang-format on */

#include "sim_drv.h"

#define CYC_OS	  PMU_F_OS
#define NOP_EVENT 0x2eull

static void describe_pentium3(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	struct pmu_msr_desc d[8];

	assert_string_equal(p->ops->name, "intel-p6");
	assert_int_equal(p->n_gp, 2);
	assert_int_equal(p->n_fixed, 0);
	assert_int_equal(p->n, 2);
	assert_int_equal(p->version, 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(p->ctr[i].kind, PMU_CTR_GP);
		assert_int_equal(p->ctr[i].width, 40);
		assert_int_equal(p->ctr[i].preload_bits, 32);
		assert_true(p->ctr[i].sign_extends);
		assert_int_equal(p->ctr[i].ctr_msr, 0xc1 + i);
		assert_int_equal(p->ctr[i].ctl_msr, 0x186 + i);
		assert_int_equal(p->ctr[i].full_msr, 0);
		assert_int_equal(p->ctr[i].rdpmc, i);
	}
	assert_string_equal(p->ctr[1].name, "gp1");
	assert_int_equal(p->caps & ~PMU_CAP_RDPMC,
			 PMU_CAP_SIGN_OVERFLOW | PMU_CAP_SINGLE_ENABLE | PMU_CAP_EDGE_INV_CMASK);
	assert_true(p->caps & PMU_CAP_RDPMC);
	assert_int_equal(p->global_ctrl_msr | p->global_status_msr | p->global_ovf_msr, 0);
	assert_int_equal(p->pmi_flags, 0); /* Pentium III: LVTPC not auto-masked */
	assert_int_equal(pmu_max_period(p, 0), 1ull << 31);
	assert_int_equal(p->ops->msrs(p, d, 8), 4);
	assert_int_equal(d[0].addr, 0xc1);
	assert_int_equal(d[1].addr, 0x186);
	assert_int_equal(d[2].addr, 0xc2);
	assert_int_equal(d[3].addr, 0x187);
	assert_int_equal(d[3].rw_mask & EVTSEL_EN, 0); /* EN exists in EVNTSEL0 only */
	assert_int_equal(d[1].rw_mask & EVTSEL_EN, EVTSEL_EN);
	assert_int_equal(p->ops->msrs(p, d, 2), 2);
}

/* Pentium M (models 9 and 13) needs LVTPC re-unmasked (Linux perfctr-watchdog.c p6_rearm). */
static void pentium_m_automask(void **st)
{
	(void)st;
	static const unsigned models[] = {9, 13, 7, 8};
	for (unsigned k = 0; k < 4; k++) {
		assert_int_equal(sim_start("pentium3", SF_NONE), 0);
		sim_set_cpuid(&sim, 1, 0, sim_fms(6, models[k], 1), 0, 0, 0x0383fbffu);
		cpu_identify(&drv_ci);
		assert_int_equal(drv_ci.driver, PMU_DRV_INTEL_P6);
		pmu_attach(&drv_p, &drv_ci);
		assert_int_equal(drv_p.pmi_flags, models[k] == 9 || models[k] == 13
						      ? PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE
						      : 0);
	}
}

static void write_sign_extends(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	static const struct {
		uint64_t w, r;
	} cases[] = {
	    {0x12345678, 0x12345678},	   {0x7fffffff, 0x7fffffff}, /* below the 2^31 boundary */
	    {0x80000000, 0xff80000000ull},			     /* at it: bit 31 extends */
	    {0xffffffff, 0xffffffffffull}, {0xff80000001ull, 0xff80000001ull},
	    {0x123456789ull, 0x23456789}, /* only 32 bits are written */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (unsigned c = 0; c < 2; c++) {
			assert_int_equal(p->ops->write(p, c, cases[i].w, PMU_WRITE_LEGACY), 0);
			assert_int_equal(drv_read(p, c), cases[i].r);
			assert_int_equal(drv_msr(0xc1 + c), cases[i].r);
			uint64_t pmc = 0;
			assert_int_equal(hw_rdpmc(c, &pmc), HW_OK);
			assert_int_equal(pmc, cases[i].r);
		}
	}
	/* no full-width path on P6 */
	assert_int_not_equal(p->ops->write(p, 0, 1ull << 35, PMU_WRITE_FULL), 0);
	/* armed follows the top bit of what the counter holds */
	assert_int_equal(p->ops->write(p, 0, 0x80000000, PMU_WRITE_PRELOAD), 0);
	assert_int_equal(p->armed & 1, 1);
	assert_int_equal(p->ops->write(p, 0, 0x7fffffff, PMU_WRITE_PRELOAD), 0);
	assert_int_equal(p->armed & 1, 0);
	assert_int_not_equal(p->ops->read(p, 2, &(uint64_t){0}), 0);
}

static void program_writes_evntsel(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	struct pmu_event ev;

	assert_int_equal(p->ops->generic_event(p, GEN_INSTRUCTIONS, 0, &ev), 0);
	assert_int_equal(p->ops->program(p, 0, &ev, PMU_F_OS | PMU_F_INT | PMU_F_CMASK(2)), 0);
	assert_int_equal(drv_msr(0x186), 0x021200c0ull); /* no EN: stopped */
	assert_int_equal(p->ops->generic_event(p, GEN_CACHE_REFS, 1, &ev), 0);
	assert_int_equal(p->ops->program(p, 1, &ev, PMU_F_USR | PMU_F_EDGE | PMU_F_INV), 0);
	assert_int_equal(drv_msr(0x187), 0x00850f2eull);
	ev.fixed_only = true;
	assert_int_not_equal(p->ops->program(p, 1, &ev, PMU_F_OS), 0);
}

static void generic_events(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	struct pmu_event ev;
	static const struct drv_gen_enc map[] = {
	    {GEN_CYCLES, 0x0079},	 {GEN_INSTRUCTIONS, 0x00c0}, {GEN_BRANCHES, 0x00c4},
	    {GEN_BRANCH_MISSES, 0x00c5}, {GEN_CACHE_REFS, 0x0f2e},   {GEN_CACHE_MISSES, 0x012e}};
	for (unsigned c = 0; c < 2; c++)
		drv_check_gen_map(p, map, sizeof(map) / sizeof(map[0]), c);
	assert_int_equal(p->ops->generic_event(p, GEN_REF_CYCLES, 0, &ev), HW_UNSUPPORTED);
	assert_int_equal(p->ops->generic_event(p, GEN_CYCLES, 2, &ev), HW_REFUSED);
}

/* EVNTSEL0.EN gates both counters; a single counter is stopped with the NOP
 * event (Linux p6_pmu_disable_event). */
static void single_enable(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);

	drv_program(p, 0, GEN_CYCLES, CYC_OS);
	drv_program(p, 1, GEN_CYCLES, CYC_OS);
	hw_run_workload(&wl_loop, 50); /* programmed, not started */
	assert_int_equal(drv_read(p, 0), 0);
	assert_int_equal(drv_read(p, 1), 0);

	assert_int_equal(p->ops->start(p, 2), 0); /* counter 1 alone */
	assert_int_equal(drv_msr(0x186), EVTSEL_EN | NOP_EVENT);
	assert_int_equal(drv_msr(0x187), 0x20079);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(drv_read(p, 0), 0);
	assert_int_equal(drv_read(p, 1), 100);

	assert_int_equal(p->ops->start(p, 1), 0);
	assert_int_equal(drv_msr(0x186), EVTSEL_EN | 0x20079);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 10);
	assert_int_equal(drv_read(p, 1), 110);

	assert_int_equal(p->ops->stop(p, 1), 0); /* counter 0 stops, EN stays */
	assert_int_equal(drv_msr(0x186), EVTSEL_EN | NOP_EVENT);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(drv_read(p, 0), 10);
	assert_int_equal(drv_read(p, 1), 115);

	assert_int_equal(p->ops->stop(p, 2), 0); /* last one: EN clears */
	assert_int_equal(drv_msr(0x186) & EVTSEL_EN, 0);
	assert_int_equal(drv_msr(0x187), NOP_EVENT);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(drv_read(p, 0), 10);
	assert_int_equal(drv_read(p, 1), 115);
	assert_int_equal(p->active, 0);

	/* USR-only counts nothing in ring 0 */
	drv_program(p, 0, GEN_CYCLES, PMU_F_USR);
	assert_int_equal(p->ops->write(p, 0, 0, PMU_WRITE_LEGACY), 0);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(drv_read(p, 0), 0);
}

static void events_count(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);

	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS);
	drv_program(p, 1, GEN_BRANCHES, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 3), 0);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(p->ops->stop(p, 3), 0);
	assert_int_equal(drv_read(p, 0), 3 + 3 * 1000);
	assert_int_equal(drv_read(p, 1), 2 + 1000);
}

static void overflow_exact(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	static const uint64_t ns[] = {1, 2, 1000, 1ull << 31};

	for (unsigned c = 0; c < 2; c++) {
		drv_program(p, c, GEN_CYCLES, CYC_OS);
		for (unsigned i = 0; i < 4; i++)
			drv_overflow_at(p, c, ns[i]);
	}
	assert_int_not_equal(pmu_preload(p, 0, (1ull << 31) + 1), 0);
	/* a counter not armed by a preload is never reported */
	assert_int_equal(p->ops->write(p, 0, 5, PMU_WRITE_LEGACY), 0);
	assert_int_equal(drv_ovf(p), 0);
}

static void pmi_collect_stops_and_collects(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	uint64_t m = 0;

	drv_cycles_pair(p, 10, 20);
	hw_run_workload(&wl_loop, 15);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 1);
	assert_int_equal(drv_msr(0x186) & EVTSEL_EN, 0); /* counting stopped */
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(drv_read(p, 0), 5);
	assert_int_equal(p->armed, 2); /* collected: disarmed; counter 1 still armed */
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 0);
	assert_int_equal(p->ops->start(p, p->active), 0); /* resume */
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 2);
	assert_int_equal(drv_read(p, 0), 10);
}

static void pmi_delivery(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);

	drv_pmi_arm();
	drv_program(p, 0, GEN_CYCLES, CYC_OS | PMU_F_INT);
	drv_program(p, 1, GEN_CYCLES, CYC_OS); /* no INT: no PMI of its own */
	assert_int_equal(pmu_preload(p, 0, 100), 0);
	assert_int_equal(pmu_preload(p, 1, 50), 0);
	assert_int_equal(p->ops->start(p, 3), 0);
	hw_run_workload(&wl_loop, 60);
	assert_int_equal(drv_pmi.taken, 0);
	hw_run_workload(&wl_loop, 40);
	assert_int_equal(drv_pmi.taken, 1);
	assert_int_equal(drv_pmi.collected, 3);	      /* the sign-bit scan finds both */
	assert_int_equal(drv_pmi.masked_on_entry, 0); /* P6 does not auto-mask */
}

static void reset_clears(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);

	drv_cycles_at(p, 0, 3, CYC_OS);
	assert_int_equal(p->ops->reset(p), 0);
	assert_int_equal(drv_msr(0x186), 0);
	assert_int_equal(drv_msr(0x187), 0);
	assert_int_equal(drv_read(p, 0), 0);
	assert_int_equal(p->active | p->armed, 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 0);
}

/* The QEMU-like model: PMU MSRs read 0 and drop writes. */
static void nopmu_not_functional(void **st)
{
	(void)st;
	struct pmu *p = drv_attach("nopmu", SF_NONE);
	assert_int_equal(p->status, PMU_NOT_FUNCTIONAL);
	assert_non_null(strstr(p->reason, "read back"));
	assert_non_null(strstr(p->reason, "hypervisor"));
	assert_int_equal(p->caps & PMU_CAP_RDPMC, 0);
}

/* ---- injected faults: each one changes a driver result ------------------- */

static void fault_no_sign_extend(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NO_SIGN_EXTEND);
	assert_int_equal(p->ops->write(p, 0, 0x80000000, PMU_WRITE_LEGACY), 0);
	assert_int_equal(drv_read(p, 0), 0x80000000); /* healthy: 0xff80000000 */
	/* a preload of -N is no longer -N: it looks overflowed at once */
	drv_program(p, 0, GEN_CYCLES, CYC_OS);
	assert_int_equal(pmu_preload(p, 0, 100), 0);
	assert_int_equal(drv_ovf(p), 1);
}

static void fault_stuck_counter(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_STUCK_COUNTER);
	drv_program(p, 0, GEN_CYCLES, CYC_OS);
	drv_program(p, 1, GEN_CYCLES, CYC_OS);
	assert_int_equal(p->ops->start(p, 3), 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(drv_read(p, 0), 0);
	assert_int_equal(drv_read(p, 1), 100);
}

static void fault_narrow_counter(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NARROW_COUNTER);
	assert_int_equal(p->ops->write(p, 0, 0x80000000, PMU_WRITE_LEGACY), 0);
	assert_int_equal(drv_read(p, 0), 0x80000000); /* bits 39:32 missing */
	assert_int_equal(drv_ovf(p), 1);
}

static void fault_enable_ignored(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_ENABLE_IGNORED);
	drv_program(p, 0, GEN_CYCLES, CYC_OS);
	hw_run_workload(&wl_loop, 100); /* never started */
	assert_int_equal(drv_read(p, 0), 100);
}

static void fault_wrong_event(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_WRONG_EVENT);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(drv_read(p, 0), 2 + 1000); /* branches, not 3003 */
}

static void fault_msr_fault(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_MSR_FAULT);
	struct pmu_event ev;
	uint64_t v;
	assert_int_equal(p->ops->write(p, 1, 5, PMU_WRITE_LEGACY), HW_FAULT_GP);
	assert_int_equal(p->ops->read(p, 1, &v), HW_FAULT_GP);
	assert_int_equal(p->ops->generic_event(p, GEN_CYCLES, 1, &ev), 0);
	assert_int_equal(p->ops->program(p, 1, &ev, PMU_F_OS), HW_FAULT_GP);
	assert_int_equal(p->ops->write(p, 0, 5, PMU_WRITE_LEGACY), HW_OK);
}

static void fault_overcount(void **st)
{
	(void)st;
	drv_check_overcount("pentium3");
}

static void fault_lost_pmi(void **st)
{
	(void)st;
	drv_check_lost_pmi("pentium3");
}

static void fault_lvt_stuck_masked(void **st)
{
	(void)st;
	drv_check_lvt_stuck_masked("pentium3");
}

static void fault_spurious_pmi(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_SPURIOUS_PMI);
	drv_pmi_arm();
	drv_program(p, 0, GEN_CYCLES, CYC_OS | PMU_F_INT);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_pmi.taken, 1);
	assert_int_equal(drv_pmi.collected, 0); /* nothing had overflowed */
}

static void faults_not_applicable(void **st)
{
	(void)st;
	const struct sim_model *m = sim_model_find("pentium3");
	assert_non_null(m);
	assert_int_equal(sim_start("pentium3", SF_NO_OVERFLOW_STATUS), -1);
	assert_int_equal(sim_start("pentium3", SF_ACK_IGNORED), -1);
	assert_int_equal(sim_start("pentium3", SF_GLOBAL_CTRL_IGNORED), -1);
	for (unsigned f = 1; f < SF_COUNT; f++)
		assert_true((m->faults & SIM_F(f)) || m->fault_na[f]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(describe_pentium3),
	    cmocka_unit_test(pentium_m_automask),
	    cmocka_unit_test(write_sign_extends),
	    cmocka_unit_test(program_writes_evntsel),
	    cmocka_unit_test(generic_events),
	    cmocka_unit_test(single_enable),
	    cmocka_unit_test(events_count),
	    cmocka_unit_test(overflow_exact),
	    cmocka_unit_test(pmi_collect_stops_and_collects),
	    cmocka_unit_test(pmi_delivery),
	    cmocka_unit_test(reset_clears),
	    cmocka_unit_test(nopmu_not_functional),
	    cmocka_unit_test(fault_no_sign_extend),
	    cmocka_unit_test(fault_stuck_counter),
	    cmocka_unit_test(fault_narrow_counter),
	    cmocka_unit_test(fault_enable_ignored),
	    cmocka_unit_test(fault_wrong_event),
	    cmocka_unit_test(fault_msr_fault),
	    cmocka_unit_test(fault_overcount),
	    cmocka_unit_test(fault_lost_pmi),
	    cmocka_unit_test(fault_lvt_stuck_masked),
	    cmocka_unit_test(fault_spurious_pmi),
	    cmocka_unit_test(faults_not_applicable),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
