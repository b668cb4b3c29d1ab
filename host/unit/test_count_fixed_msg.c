/* count.fixed's FAIL says what failed: for instructions, the repeats that
 * agreed with the general-purpose count and their spread (a median equal
 * to the expectation FAILs when no majority of repeats holds it, and the
 * message must not read "expected X, got X"); every failed pair is listed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

static void fixed_fail_names_the_repeats(void **st)
{
	(void)st;
	(void)up("skylake", SF_STUCK_COUNTER, SIM_REALISM_ALL, 1);
	const struct result *r = run_check("count.fixed");
	assert_int_equal(r->v, V_FAIL);
	/* gp0 stuck: fixed0 is compared with 0 and fixed1 with 0 */
	assert_non_null(strstr(r->msg, "fixed0 (instructions): expected 0 as gp0 counted, exactly "
				       "in a majority of 11 repeats; got median"));
	assert_non_null(strstr(r->msg, "repeats at it (min"));
	assert_int_equal(r->n_more, 1);
	assert_non_null(strstr(su.more[r->more_first], "fixed1 (cycles): expected 0 as gp0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fixed_fail_names_the_repeats),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
