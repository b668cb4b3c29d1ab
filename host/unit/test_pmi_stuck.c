/* A stuck overflow bit and a PMI storm, as the PMI checks report them: the
 * service keeps what it collected, names the flag that stayed, resets the
 * PMU through the driver and leaves the run able to go on. Before, the
 * collected overflows were thrown away and the checks read "PMIs lost" or
 * "spurious" (issue "bad input", item 7). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../apic/pmi.h"
#include "../../tests/checks/pmi_common.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define STUCK_WORDS "did not clear in 100 rounds), PMU reset"

static int teardown(void **st)
{
	(void)st;
	pmi_disarm();
	return 0;
}

/* A FAIL that names the stuck flag and nothing that reads as lost PMIs. */
static void names_stuck(const char *model, const char *fault, const char *id,
			const struct result *r, const char *words)
{
	if (r->v != V_FAIL || !strstr(r->msg, words) || !strstr(r->msg, "overflow bit stuck") ||
	    strstr(r->msg, "lost") || strstr(r->msg, "spurious"))
		fail_msg("%s %s %s: %s: %s", model, fault, id, r->v == V_FAIL ? "FAIL" : "not FAIL",
			 r->msg);
}

/* Every PMI check, alone on a fresh model, meets the flag first in its
 * own PMI handler: the verdict names the counter and its status bit. */
static void every_pmi_check_names_the_bit(void **st)
{
	(void)st;
	static const char *const models[] = {"core2", "skylake", "knc", "pentium4", "zen4"};
	static const enum sim_fault faults[] = {SF_PMI_STORM, SF_ACK_IGNORED};
	static const char *const ids[] = {"overflow.pmi", "overflow.simultaneous", "overflow.rearm",
					  "skid"};
	for (unsigned m = 0; m < 5; m++)
		for (unsigned f = 0; f < 2; f++)
			for (unsigned k = 0; k < 4; k++) {
				up(models[m], faults[f], SIM_REALISM_ALL, 1);
				names_stuck(models[m], sim_fault_name(faults[f]), ids[k],
					    run_check(ids[k]), STUCK_WORDS);
				pmi_disarm();
			}
}

/* The exact message, the PMU reset and disarmed, and the run going on:
 * a counting check after it passes, a PMI check after it names the flag
 * again (it is still stuck) rather than a lost PMI. */
static void next_check_runs(void **st)
{
	(void)st;
	up("core2", SF_PMI_STORM, SIM_REALISM_ALL, 1);
	uint32_t lvt = apic_lvt_pc_read();
	const struct result *r = run_check("overflow.pmi");
	static const char want[] = "counter gp0: overflow bit stuck (status bit 0 did not clear "
				   "in 100 rounds), PMU reset";
	assert_int_equal(strncmp(r->msg, want, sizeof(want) - 1), 0);
	assert_int_equal(apic_lvt_pc_read(), lvt); /* disarmed */
	assert_int_equal(drv_p.active, 0);

	r = run_check("count.instructions");
	assert_int_equal(r->v, V_PASS);
	r = run_check("overflow.rearm");
	assert_int_equal(r->v, V_FAIL);
	assert_string_equal(r->msg, "counter gp0: overflow bit stuck (status bit 0 still set after "
				    "the PMU reset acked it)");
}

/* A fixed counter's flag is named by its GLOBAL_STATUS bit (32 + index). */
static void fixed_counter_bit(void **st)
{
	(void)st;
	struct check_ctx c = up("skylake", SF_ACK_IGNORED, 0, 1);
	unsigned f0 = drv_p.n_gp;
	assert_int_equal(drv_p.ctr[f0].kind, PMU_CTR_FIXED);
	assert_int_equal(m_setup(&c, f0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
	assert_int_equal(pmu_preload(&drv_p, f0, 10), HW_OK);
	assert_int_equal(drv_p.ops->start(&drv_p, 1ull << f0), HW_OK);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(drv_p.ops->stop(&drv_p, 1ull << f0), HW_OK);
	assert_false(pmi_begin(&c));
	assert_non_null(
	    strstr(c.msg, "counter fixed0: overflow bit stuck (status bit 32 still set"));
}

/* A storm of real overflows (reload 1: one on every event): the guard
 * trips after PMI_STORM_LIMIT, resets the PMU and the message counts the
 * PMIs of the window. */
static void storm_named(void **st)
{
	(void)st;
	struct check_ctx c = up("core2", SF_NONE, 0, 1);
	assert_int_equal(m_setup(&c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT), M_OK);
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	pmi_set_reload(0, 1);
	assert_int_equal(pmu_preload(&drv_p, 0, 1), HW_OK);
	drv_p.active = 1;
	assert_int_equal(drv_p.ops->start(&drv_p, 1), HW_OK);
	hw_run_workload(&wl_loop, 2 * PMI_STORM_LIMIT);
	const volatile struct pmi_stats *s = pmi_stats();
	assert_true(s->storm);
	assert_int_equal(s->stuck, 0);
	assert_int_equal(s->total, PMI_STORM_LIMIT + 1);
	uint64_t v = 1;
	assert_int_equal(drv_p.ops->read(&drv_p, 0, &v), HW_OK);
	assert_int_equal(v, 0); /* reset: zeroed and stopped */
	pmi_reset_stats();	/* a check's next run still sees the storm */
	assert_true(pmi_trouble(&c, "gp0"));
	assert_string_equal(c.msg, "PMI storm: 10001 PMIs in one window, PMU reset");
	pmi_disarm();
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	assert_false(pmi_stats()->storm); /* a new window starts clean */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(every_pmi_check_names_the_bit, teardown),
	    cmocka_unit_test_teardown(next_check_runs, teardown),
	    cmocka_unit_test_teardown(fixed_counter_bit, teardown),
	    cmocka_unit_test_teardown(storm_named, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
