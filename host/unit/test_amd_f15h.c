/* Family 15h's counter restrictions: the driver refuses an event on a
 * counter its unit does not reach (cycles not in halt, 76h, on counters 0-2
 * only; BKDG #42301, Linux amd_get_event_constraints_f15h) and finds the
 * generic cycles event a counter that takes it; other families are not
 * restricted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../pmu/amd_f15h.h"

static void table(void **st)
{
	(void)st;
	assert_int_equal(amd_f15h_counters(0x076, 0), 0x07);
	assert_int_equal(amd_f15h_counters(0x0c0, 0), 0x3f);
	assert_int_equal(amd_f15h_counters(0x043, 0), 0x07);
	assert_int_equal(amd_f15h_counters(0x02e, 0), 0x0f);
	assert_int_equal(amd_f15h_counters(0x000, 0x11), 0x08);
	assert_int_equal(amd_f15h_counters(0x000, 0x01), 0x38);
	assert_int_equal(amd_f15h_counters(0x031, 0x03), 0);
	assert_int_equal(amd_f15h_counters(0x08f, 0), 0x01);
	assert_int_equal(amd_f15h_counters(0x0e0, 0), 0);
}

/* Whether the driver takes event code on counter ctr of model. */
static int program_on(const char *model, uint16_t code, unsigned ctr)
{
	struct pmu_event ev = {.code = code};
	(void)drv_up(model, SF_NONE);
	return drv_p.ops->program(&drv_p, ctr, &ev, PMU_F_OS | PMU_F_USR);
}

static void driver_refuses(void **st)
{
	(void)st;
	struct pmu_event ev;
	assert_int_equal(program_on("bulldozer", 0x76, 2), HW_OK);
	assert_int_equal(program_on("bulldozer", 0x76, 3), HW_REFUSED);
	assert_int_equal(program_on("bulldozer", 0xc0, 5), HW_OK);
	assert_int_equal(drv_p.ops->generic_event(&drv_p, GEN_CYCLES, 4, &ev), HW_REFUSED);
	assert_int_equal(drv_p.ops->generic_event(&drv_p, GEN_CYCLES, 1, &ev), HW_OK);
	assert_int_equal(program_on("zen4", 0x76, 5), HW_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(table),
	    cmocka_unit_test(driver_refuses),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
