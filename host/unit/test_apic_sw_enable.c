/* The BIOS kernel software-enables the boot CPU's local APIC that the BIOS
 * left disabled (SVR reset value 0xFF, SDM Vol. 3A 11.4.7) and puts the
 * SVR back after the run; an enabled one is left as it is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../apic/apic.h"

static void enables_and_restores(void **st)
{
	(void)st;
	struct apic_info ai;
	uint32_t saved = 0;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_int_equal(apic_detect(&ai), 0);
	apic_write(APIC_SVR, 0xff); /* as at reset */
	assert_true(apic_sw_enable(&saved));
	assert_int_equal(saved, 0xff);
	assert_int_equal(apic_read(APIC_SVR), 0x1ff);
	apic_sw_restore(saved);
	assert_int_equal(apic_read(APIC_SVR), 0xff);
	/* enabled by the firmware, its own vector: untouched */
	apic_write(APIC_SVR, 0x10f);
	assert_false(apic_sw_enable(&saved));
	assert_int_equal(apic_read(APIC_SVR), 0x10f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(enables_and_restores),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
