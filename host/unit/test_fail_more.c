/* A check that fails more than once: every failure reaches the log (one
 * line each under the FAIL line, so inside its LAVA test case) and the
 * results JSON's detail (which the report, JUnit and TAP show); failures
 * past the run's table are counted in both, never dropped silently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/suite.h"

static unsigned n_fails;

static void fails(struct check_ctx *c)
{
	for (unsigned k = 0; k < n_fails; k++)
		check_fail(c, "gp%u: expected 0, got \"%u\"", k, k + 1);
}

PMH_CHECK(selftest_fails, .id = "selftest.fails", .summary = "fails n_fails times", .order = 999,
	  .run = fails, .only_when_named = true);

static struct suite s;
static struct options o;
static struct cpu_info ci;
static struct pmu pmu;
static struct apic_info ai;
static char log_text[1 << 16];
static char json[1 << 18];

static void line(void *ctx, const char *l)
{
	(void)ctx;
	strncat(log_text, l, sizeof(log_text) - strlen(log_text) - 2);
	strcat(log_text, "\n");
}

static void run_fails(unsigned n)
{
	n_fails = n;
	log_text[0] = 0;
	options_default(&o);
	strcpy(o.checks, "selftest.fails");
	suite_init(&s, &o, &ci, &pmu, &ai, (struct sink){line, 0});
	suite_run(&s, 0);
	assert_true(report_json(&s, json, sizeof(json)) < sizeof(json));
}

static void every_failure_listed(void **st)
{
	(void)st;
	run_fails(3);
	assert_non_null(strstr(log_text, "FAIL selftest.fails gp0: expected 0, got \"1\" (1 of 3 "
					 "failures; the others follow)\n"));
	assert_non_null(strstr(log_text, "  selftest.fails failure 2 of 3: gp1: expected 0, got "
					 "\"2\"\n  selftest.fails failure 3 of 3: gp2"));
	assert_null(strstr(log_text, "more)"));
	assert_non_null(strstr(json, "\"detail\": \"gp0: expected 0, got \\\"1\\\"; gp1: expected "
				     "0, got \\\"2\\\"; gp2: expected 0, got \\\"3\\\"\""));
}

static void one_failure_as_before(void **st)
{
	(void)st;
	run_fails(1);
	assert_non_null(strstr(log_text, "FAIL selftest.fails gp0: expected 0, got \"1\"\n"));
	assert_null(strstr(log_text, "failure"));
}

static void table_full_is_counted(void **st)
{
	(void)st;
	run_fails(SUITE_OWN_MORE + 11);
	char want[128];
	snprintf(want, sizeof(want), "failure %u of %u: gp%u:", SUITE_OWN_MORE + 1,
		 SUITE_OWN_MORE + 11, SUITE_OWN_MORE);
	assert_non_null(strstr(log_text, want));
	assert_non_null(strstr(log_text, "10 more failures not kept (the run's table of 256 "
					 "is full)"));
	assert_non_null(strstr(json, "; 10 more failures not kept"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_failure_listed),
	    cmocka_unit_test(one_failure_as_before),
	    cmocka_unit_test(table_full_is_counted),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
