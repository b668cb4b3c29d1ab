/* tests/hv_policy.c: the hypervisor's restrictions are recorded once,
 * summed up for the verdict line and printed; their rules apply under a
 * hypervisor only (the same observation on bare metal stays a FAIL). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"
#include "../../tests/hv_policy.h"

static char lines[8][320];
static unsigned n_lines;

static void keep(void *ctx, const char *s)
{
	(void)ctx;
	if (n_lines < 8)
		strcpy(lines[n_lines], s);
	n_lines++;
}

static void record_once_and_summary(void **st)
{
	(void)st;
	static struct suite s;
	char buf[120];

	memset(&s, 0, sizeof(s));
	n_lines = 0;
	suite_bind_cpu(&s, &(struct suite_cpu){.out = {.line = keep}});
	assert_false(hv_restricted_summary(&s, buf, sizeof(buf)));
	hv_record(&s, 0, HV_POLICY, HVG_EVENT_ZERO, "BR_MISP_RETIRED", "counted 0");
	hv_record(&s, 0, HV_POLICY, HVG_EVENT_ZERO, "BR_MISP_RETIRED", "counted 0 again");
	hv_record(&s, 0, HV_POLICY, HVG_EVENT_ZERO, "LLC_MISSES", "counted 0");
	hv_record(&s, 0, HV_POLICY, HVG_FIXED, "fixed2", "counted 0");
	hv_record(&s, 0, HV_POLICY, HVG_EVENT_GP, "event=0xd1,umask=0x01", "#GP");
	hv_record(&s, 0, HV_BUG, HVG_OTHER, "LVTPC masked on PMI", "masked");
	assert_int_equal(s.n_hv, 5); /* the repeat is not recorded twice */
	assert_int_equal(n_lines, 5);
	assert_string_equal(lines[0], "pmu.restricted: BR_MISP_RETIRED: counted 0");
	assert_string_equal(lines[4], "pmu.hypervisor_bug: LVTPC masked on PMI: masked");
	assert_true(hv_restricted_summary(&s, buf, sizeof(buf)));
	/* bugs are not restrictions */
	assert_string_equal(buf, "2 events not counted, 1 event refused with #GP, fixed counter 2");
}

static void table_full_is_counted(void **st)
{
	(void)st;
	static struct suite s;
	char what[16];

	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < SUITE_MAX_HV + 3; i++) {
		snprintf(what, sizeof(what), "ev%u", i);
		hv_record(&s, 0, HV_POLICY, HVG_EVENT_ZERO, what, "0");
	}
	assert_int_equal(s.n_hv, SUITE_MAX_HV);
	assert_int_equal(s.hv_lost, 3);
}

/* The reference of every rule: instructions on the same counter. On bare
 * metal nothing is withheld, whatever the counter does. */
static void bare_metal_withholds_nothing(void **st)
{
	(void)st;
	char why[RESULT_MSG];
	struct check_ctx c = up("skylake", SF_NONE, 0, 1);

	assert_false(hv_zero_withheld(&c, 0, "BR_MISP_RETIRED", why, sizeof(why)));
	assert_false(hv_gp_withheld(&c, 0, "event=0xd1", HW_FAULT_GP, why, sizeof(why)));
	assert_false(hv_fixed_withheld(&c, 4, "instructions", 0, 1000, why, sizeof(why)));
	assert_null(hv_bug_text(&c, HVB_LVTPC_MASKED));

	c = up("skylake-kvm", SF_NONE, 0, 1);
	int64_t n;
	assert_true(hv_counter_counts(&c, 0, &n));
	assert_true(n > 0);
	assert_true(hv_gp_withheld(&c, 0, "event=0xd1", HW_FAULT_GP, why, sizeof(why)));
	assert_non_null(strstr(why, "#GP"));
	assert_false(hv_gp_withheld(&c, 0, "event=0xd1", HW_REFUSED, why, sizeof(why)));
	assert_non_null(hv_bug_text(&c, HVB_DOUBLE_PMI));
}

/* Under a hypervisor a counter that counts nothing at all is no filter:
 * instructions do not count on it either, and the check stays a FAIL. */
static void dead_counter_is_not_policy(void **st)
{
	(void)st;
	char why[RESULT_MSG];
	struct check_ctx c = up("skylake-kvm", SF_STUCK_COUNTER, 0, 1);

	for (unsigned i = 0; i < drv_p.n_gp; i++) {
		int64_t n;
		if (!hv_counter_counts(&c, i, &n)) {
			assert_false(hv_zero_withheld(&c, i, "instructions", why, sizeof(why)));
			return;
		}
	}
	fail_msg("stuck-counter left every counter counting");
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(record_once_and_summary),
	    cmocka_unit_test(table_full_is_counted),
	    cmocka_unit_test(bare_metal_withholds_nothing),
	    cmocka_unit_test(dead_counter_is_not_policy),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
