/* CPU selection for per-CPU runs and the per-CPU verdict line. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/cpu_select.h"

static char warnings[8][200];
static int n_warn;

static void warn(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_warn < 8)
		snprintf(warnings[n_warn], sizeof(warnings[0]), "%s", msg);
	n_warn++;
}

#define OK (CPUSEL_ENABLED | CPUSEL_HEALTHY)
/* BSP at 0, CPU 2 disabled */
static const uint32_t four[4] = {OK | CPUSEL_BSP, OK, CPUSEL_HEALTHY, OK};

static unsigned sel(const char *cfg, const uint32_t *flags, unsigned n, uint16_t *out, unsigned max)
{
	struct options o;
	options_default(&o);
	n_warn = 0;
	assert_int_equal(options_parse_config(&o, cfg, strlen(cfg), NULL, NULL), 0);
	return cpu_select(&o, flags, n, out, max, warn, NULL);
}

static void requested(void **st)
{
	(void)st;
	struct options o;
	options_default(&o);
	assert_false(cpu_select_requested(&o)); /* the boot CPU only by default */
	o.all_cpus = true;
	assert_true(cpu_select_requested(&o));
	options_default(&o);
	o.n_cpus = 1;
	assert_true(cpu_select_requested(&o));
}

static void default_is_bsp(void **st)
{
	(void)st;
	uint16_t out[8];
	/* the BSP need not be processor 0 */
	static const uint32_t f[3] = {OK, OK | CPUSEL_BSP, OK};
	assert_int_equal(sel("", f, 3, out, 8), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(n_warn, 0);
}

static void all_enabled(void **st)
{
	(void)st;
	uint16_t out[8];
	assert_int_equal(sel("cpus = all", four, 4, out, 8), 3);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 3);
	assert_int_equal(n_warn, 1);
	assert_non_null(strstr(warnings[0], "CPU 2 is disabled"));
}

static void list_unknown_and_disabled(void **st)
{
	(void)st;
	uint16_t out[8];
	assert_int_equal(sel("cpus = 7,3,2,3,7,0", four, 4, out, 8), 2);
	assert_int_equal(out[0], 0); /* ascending and distinct */
	assert_int_equal(out[1], 3);
	assert_int_equal(n_warn, 2); /* 7 once, 2 once */
	assert_non_null(strstr(warnings[0], "CPU 7 does not exist"));
	assert_non_null(strstr(warnings[0], "4 processors"));
	assert_non_null(strstr(warnings[1], "CPU 2 is disabled"));
}

static void list_zero_seven(void **st)
{
	(void)st;
	uint16_t out[8];
	assert_int_equal(sel("cpus = 0,7", four, 4, out, 8), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(n_warn, 1);
	assert_non_null(strstr(warnings[0], "CPU 7 does not exist"));
}

static void nothing_available(void **st)
{
	(void)st;
	uint16_t out[8];
	assert_int_equal(sel("cpus = 2", four, 4, out, 8), 0);
	assert_int_equal(n_warn, 1);
}

/* Nothing selected is an error naming the option and its value. */
static void none_selected_message(void **st)
{
	(void)st;
	struct options o;
	uint16_t out[8];
	char b[160];
	options_default(&o);
	assert_int_equal(options_parse_config(&o, "cpus = 999", 10, NULL, NULL), 0);
	n_warn = 0;
	assert_int_equal(cpu_select(&o, four, 4, out, 8, warn, NULL), 0);
	cpu_select_none(&o, b, sizeof(b));
	assert_string_equal(b, "cpus = 999: matches no CPU that can run (see the warnings above); "
			       "no check ran");
	assert_int_equal(options_parse_config(&o, "cpus = 2,7", 10, NULL, NULL), 0);
	cpu_select_none(&o, b, sizeof(b));
	assert_non_null(strstr(b, "cpus = 2,7: matches no CPU"));
	o.all_cpus = true;
	cpu_select_none(&o, b, sizeof(b));
	assert_non_null(strstr(b, "cpus = all: matches no CPU"));
}

static void capped(void **st)
{
	(void)st;
	uint16_t out[2];
	assert_int_equal(sel("cpus = all", four, 4, out, 2), 2);
	assert_int_equal(out[1], 1);
	assert_int_equal(n_warn, 2); /* CPU 2 disabled, then the cap at CPU 3 */
	assert_non_null(strstr(warnings[1], "more than 2 CPUs"));
}

static void verdict_lines(void **st)
{
	(void)st;
	char b[120];
	struct cpu_run r = {.cpu = 3,
			    .n = {.passed = 4, .skipped = 20, .pmu_passed = 2, .pmu_usable = true}};
	cpu_verdict_line(&r, b, sizeof(b));
	assert_string_equal(b, "cpu.3.verdict: PASS (4 passed, 0 failed, 20 skipped)");
	r.n.failed = 1;
	cpu_verdict_line(&r, b, sizeof(b));
	assert_string_equal(b, "cpu.3.verdict: FAIL (4 passed, 1 failed, 20 skipped)");
	/* APIC checks passed, the PMU was not measured: never PASS */
	r.n.failed = 0;
	r.n.pmu_passed = 0;
	cpu_verdict_line(&r, b, sizeof(b));
	assert_string_equal(b, "cpu.3.verdict: NO VERDICT (4 passed, 0 failed, 20 skipped)");
	r.n.pmu_usable = false;
	cpu_verdict_line(&r, b, sizeof(b));
	assert_string_equal(b, "cpu.3.verdict: NO PMU (4 passed, 0 failed, 20 skipped)");
	r = (struct cpu_run){.cpu = 0, .n = {.skipped = 5, .pmu_usable = true}};
	cpu_verdict_line(&r, b, sizeof(b));
	assert_string_equal(b, "cpu.0.verdict: NO VERDICT (0 passed, 0 failed, 5 skipped)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(requested),
	    cmocka_unit_test(default_is_bsp),
	    cmocka_unit_test(all_enabled),
	    cmocka_unit_test(list_unknown_and_disabled),
	    cmocka_unit_test(list_zero_seven),
	    cmocka_unit_test(nothing_available),
	    cmocka_unit_test(capped),
	    cmocka_unit_test(verdict_lines),
	    cmocka_unit_test(none_selected_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
