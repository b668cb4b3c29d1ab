/* LAVA's test signals (tests/report_lava.c): nothing unless output = lava,
 * the test set around the cases, pass/fail/skip, the median as the
 * measurement, the id mapping and per-CPU ids, and event.semantics' rows
 * as cases after its own. With PMH_LAVA_LINES set
 * every line printed goes to that file too: host/lava/lava_check.py runs
 * them through lava-dispatcher's own regular expressions. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/report_lava.h"

#define MAX_LINES 64

static struct suite s;
static struct options o;
static struct cpu_info ci;
static struct pmu pmu;
static struct apic_info ai;
static char lines[MAX_LINES][160];
static unsigned n_lines;

static void take(void *ctx, const char *l)
{
	const char *dump = getenv("PMH_LAVA_LINES");

	(void)ctx;
	assert_true(n_lines < MAX_LINES);
	snprintf(lines[n_lines++], sizeof(lines[0]), "%s", l);
	if (dump) {
		FILE *f = fopen(dump, "a");
		assert_non_null(f);
		fprintf(f, "%s\n", l);
		fclose(f);
	}
}

static void make(enum output out)
{
	options_default(&o);
	o.output = out;
	suite_init(&s, &o, &ci, &pmu, &ai, (struct sink){take, 0, 0});
	n_lines = 0;
}

static struct result *add(const char *id, unsigned cpu, enum verdict v)
{
	struct result *r = &s.results[s.n_results++];
	snprintf(r->id, sizeof(r->id), "%s", id);
	r->cpu = cpu;
	r->v = v;
	return r;
}

/* The signals of the results so far as a run gives them: the set around
 * the cases, each case started and ended. */
static void report_lava(struct suite *su)
{
	lava_set(su, true);
	for (unsigned i = 0; i < su->n_results; i++) {
		lava_case_start(su, su->results[i].id, su->results[i].cpu);
		lava_case_end(su, &su->results[i]);
	}
	lava_set(su, false);
}

/* output = text: no signal at all. */
static void text_prints_nothing(void **state)
{
	(void)state;
	make(OUTPUT_TEXT);
	add("rdpmc", 0, V_PASS);
	report_lava(&s);
	assert_int_equal(n_lines, 0);
}

static void verdicts_and_measurement(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	struct result *r = add("skid", 0, V_PASS);
	r->fig = (struct figures){.set = true, .min = 1, .med = 3, .max = 9, .unit = "events"};
	add("overflow.pmi", 0, V_FAIL);
	add("apic.lvt-pc", 0, V_SKIP);
	report_lava(&s);
	const char *want[] = {
	    "<LAVA_SIGNAL_TESTSET START pmuharness>",
	    "<LAVA_SIGNAL_STARTTC skid>",
	    "<LAVA_SIGNAL_ENDTC skid>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=skid RESULT=pass MEASUREMENT=3 UNITS=events>",
	    "<LAVA_SIGNAL_STARTTC overflow.pmi>",
	    "<LAVA_SIGNAL_ENDTC overflow.pmi>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=overflow.pmi RESULT=fail>",
	    "<LAVA_SIGNAL_STARTTC apic.lvt-pc>",
	    "<LAVA_SIGNAL_ENDTC apic.lvt-pc>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=apic.lvt-pc RESULT=skip>",
	    "<LAVA_SIGNAL_TESTSET STOP>",
	};
	assert_int_equal(n_lines, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < n_lines; i++)
		assert_string_equal(lines[i], want[i]);
}

/* A negative median and a unit with a blank: one word, a number. */
static void negative_and_odd_unit(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	struct result *r = add("count.cycles", 0, V_FAIL);
	r->fig = (struct figures){.set = true, .med = -12, .unit = "TSC ticks"};
	r = add("count.fixed", 0, V_PASS);
	r->fig = (struct figures){.set = true, .med = 5}; /* no unit: events, as the JSON */
	report_lava(&s);
	assert_string_equal(lines[3], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=count.cycles "
				      "RESULT=fail MEASUREMENT=-12 UNITS=TSC_ticks>");
	assert_string_equal(lines[6], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=count.fixed "
				      "RESULT=pass MEASUREMENT=5 UNITS=events>");
}

/* Several CPUs: the CPU in the id, '@' mapped like any character LAVA's
 * ids do not take; one CPU named alone keeps the bare id. */
static void per_cpu_ids(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	o.all_cpus = true;
	add("rdpmc", 0, V_PASS);
	add("rdpmc", 3, V_SKIP);
	report_lava(&s);
	assert_string_equal(lines[1], "<LAVA_SIGNAL_STARTTC rdpmc_cpu0>");
	assert_string_equal(lines[6], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=rdpmc_cpu3 RESULT=skip>");
	make(OUTPUT_LAVA);
	o.n_cpus = 1;
	o.cpus[0] = 2;
	add("rdpmc", 2, V_PASS);
	report_lava(&s);
	assert_string_equal(lines[1], "<LAVA_SIGNAL_STARTTC rdpmc>");
}

/* In a run each case is signalled as it happens: STARTTC before the check,
 * its verdict line, then ENDTC and TESTCASE (a run that hangs later has
 * its finished cases reported). */
static void signalled_as_the_suite_runs(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	snprintf(o.checks, sizeof(o.checks), "msr.access");
	pmu.status = PMU_NOT_FUNCTIONAL; /* the check SKIPs without touching the CPU */
	snprintf(pmu.reason, sizeof(pmu.reason), "test");
	suite_run(&s, 0);
	assert_int_equal(n_lines, 4);
	assert_string_equal(lines[0], "<LAVA_SIGNAL_STARTTC msr.access>");
	assert_string_equal(lines[1], "SKIP msr.access: pmu.status not-functional: test");
	assert_string_equal(lines[2], "<LAVA_SIGNAL_ENDTC msr.access>");
	assert_string_equal(lines[3], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=msr.access RESULT=skip>");
	make(OUTPUT_TEXT);
	snprintf(o.checks, sizeof(o.checks), "msr.access");
	suite_run(&s, 0);
	assert_int_equal(n_lines, 1);
}

/* The identification set from the CPU records (the JSON's "cpus"): names
 * as cases, numbers as measurements, an unidentified CPU left out, the
 * CPU in the id when several run; nothing for output = text. */
static void identity_set(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	o.all_cpus = true;
	s.n_cpus = 2;
	s.cpus[0] = (struct cpu_record){
	    .cpu = 0, .identified = true, .status = PMU_NOT_FUNCTIONAL, .n_gp = 4, .gp_width = 48};
	snprintf(s.cpus[0].ci.ids.vendor, sizeof(s.cpus[0].ci.ids.vendor), "AuthenticAMD");
	s.cpus[0].ci.family = 0x19;
	s.cpus[0].ci.hypervisor = true;
	s.cpus[0].ci.hv.id = HV_HYPERV;
	snprintf(s.cpus[0].ci.hv.name, sizeof(s.cpus[0].ci.hv.name), "Hyper-V");
	s.cpus[0].ci.driver = PMU_DRV_AMD_CORE;
	s.cpus[1] = (struct cpu_record){.cpu = 1, .identified = false};
	s.n_hv = 2; /* the hypervisor's findings after the CPUs */
	s.hv[0] = (struct hv_finding){.kind = HV_POLICY, .group = HVG_FIXED, .what = "fixed2"};
	s.hv[1] = (struct hv_finding){.kind = HV_BUG, .what = "LVTPC masked on PMI"};
	lava_identity(&s);
	assert_int_equal(n_lines, 17);
	assert_string_equal(lines[0], "<LAVA_SIGNAL_TESTSET START pmuharness-identity>");
	assert_string_equal(
	    lines[1],
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=cpu.vendor.AuthenticAMD_cpu0 RESULT=pass>");
	assert_string_equal(lines[2], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=cpu.family_cpu0 "
				      "RESULT=pass MEASUREMENT=25 UNITS=number>");
	assert_string_equal(lines[5], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=cpu.hypervisor."
				      "Hyper-V_cpu0 RESULT=pass>");
	assert_string_equal(
	    lines[6], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmu.driver.amd-core_cpu0 RESULT=pass>");
	assert_string_equal(lines[7],
			    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmu.status_cpu0 RESULT=skip>");
	assert_string_equal(lines[10], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmu.gp_width_cpu0 "
				       "RESULT=pass MEASUREMENT=48 UNITS=bits>");
	assert_string_equal(lines[13], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmu.restricted "
				       "RESULT=skip MEASUREMENT=1 UNITS=restrictions>");
	assert_string_equal(lines[14],
			    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmu.restricted.fixed2_cpu0 "
			    "RESULT=skip>");
	assert_string_equal(lines[15], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=pmu.hypervisor_bug."
				       "LVTPC_masked_on_PMI_cpu0 RESULT=skip>");
	assert_string_equal(lines[16], "<LAVA_SIGNAL_TESTSET STOP>");
	s.n_hv = 0;
	make(OUTPUT_TEXT);
	s.n_cpus = 1;
	lava_identity(&s);
	assert_int_equal(n_lines, 0);
}

/* A row of event.semantics as the check keeps it (tests/suite.h). */
static void ev_row(unsigned cpu, enum verdict v, const char *name, int64_t measured)
{
	struct event_row *e = &s.ev_rows[s.n_ev_rows++];
	*e = (struct event_row){.cpu = cpu, .v = v, .measured = measured, .table = "amd-k8"};
	snprintf(e->name, sizeof(e->name), "%s", name);
}

/* After event.semantics' case, one case per row of its CPU, in order: the
 * row's result and what it measured in events; a SKIP measured nothing; an
 * event's second rule is NAME.2; another check's case has none. */
static void event_rows_as_cases(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	ev_row(0, V_PASS, "RETIRED_INSTRUCTIONS", 3000);
	ev_row(0, V_FAIL, "DATA_CACHE_MISSES", -3);
	ev_row(0, V_SKIP, "SEGMENT_REGISTER_LOADS", 0);
	ev_row(1, V_PASS, "DATA_CACHE_MISSES", 9); /* another CPU's: not here */
	ev_row(0, V_PASS, "DATA_CACHE_MISSES", 1); /* its second rule */
	add("count.fixed", 0, V_PASS);
	add("event.semantics", 0, V_FAIL);
	report_lava(&s);
	const char *want[] = {
	    "<LAVA_SIGNAL_TESTSET START pmuharness>",
	    "<LAVA_SIGNAL_STARTTC count.fixed>",
	    "<LAVA_SIGNAL_ENDTC count.fixed>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=count.fixed RESULT=pass>",
	    "<LAVA_SIGNAL_STARTTC event.semantics>",
	    "<LAVA_SIGNAL_ENDTC event.semantics>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.semantics RESULT=fail>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.RETIRED_INSTRUCTIONS RESULT=pass "
	    "MEASUREMENT=3000 UNITS=events>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.DATA_CACHE_MISSES RESULT=fail "
	    "MEASUREMENT=-3 UNITS=events>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.SEGMENT_REGISTER_LOADS RESULT=skip>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.DATA_CACHE_MISSES.2 RESULT=pass "
	    "MEASUREMENT=1 UNITS=events>",
	    "<LAVA_SIGNAL_TESTSET STOP>",
	};
	assert_int_equal(n_lines, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < n_lines; i++)
		assert_string_equal(lines[i], want[i]);
}

/* Several CPUs: each CPU's rows after its own event.semantics case, with
 * "@cpuN" mapped as the checks' ids; a name with a blank is one word. */
static void event_rows_per_cpu(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	o.all_cpus = true;
	ev_row(0, V_PASS, "A", 1);
	ev_row(1, V_FAIL, "B:x y", 2);
	ev_row(0, V_FAIL, "C", 3);
	add("event.semantics", 1, V_FAIL);
	add("event.semantics", 0, V_FAIL);
	report_lava(&s);
	assert_int_equal(n_lines, 2 + 2 * 3 + 3);
	assert_string_equal(lines[3], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.semantics_cpu1 "
				      "RESULT=fail>");
	assert_string_equal(lines[4], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.B_x_y_cpu1 "
				      "RESULT=fail MEASUREMENT=2 UNITS=events>");
	assert_string_equal(lines[8], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.A_cpu0 "
				      "RESULT=pass MEASUREMENT=1 UNITS=events>");
	assert_string_equal(lines[9], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=event.C_cpu0 "
				      "RESULT=fail MEASUREMENT=3 UNITS=events>");
	make(OUTPUT_TEXT); /* output = text: none */
	ev_row(0, V_PASS, "A", 1);
	add("event.semantics", 0, V_PASS);
	report_lava(&s);
	assert_int_equal(n_lines, 0);
}

static void id_mapping(void **state)
{
	char buf[64];
	(void)state;
	assert_string_equal(lava_case_id(buf, sizeof(buf), "a.b-c_D9", 0, false), "a.b-c_D9");
	assert_string_equal(lava_case_id(buf, sizeof(buf), "x y>z=w/\x01", 0, false), "x_y_z_w__");
	assert_string_equal(lava_case_id(buf, sizeof(buf), "cpu.run", 17, true), "cpu.run_cpu17");
	/* cut to the buffer, still terminated */
	assert_string_equal(lava_case_id(buf, 5, "overflow", 0, false), "over");
}

/* The end of a run: the verdict a case of the checks' set before its STOP
 * (pass only for PASS: NO PMU fails), the crash a failed case, then the
 * identity set; a run that stopped before its first check (a selection
 * that matches nothing) still gives a whole set, START first. */
static void end_verdict_in_set(void **state)
{
	(void)state;
	make(OUTPUT_LAVA);
	s.skipped = 1; /* NO PMU: skipped only, no usable PMU */
	lava_set(&s, true);
	lava_end(&s);
	const char *want[] = {
	    "<LAVA_SIGNAL_TESTSET START pmuharness>",
	    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict RESULT=fail>",
	    "<LAVA_SIGNAL_TESTSET STOP>",
	    "<LAVA_SIGNAL_TESTSET START pmuharness-identity>",
	    "<LAVA_SIGNAL_TESTSET STOP>",
	};
	assert_int_equal(n_lines, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < n_lines; i++)
		assert_string_equal(lines[i], want[i]);

	make(OUTPUT_LAVA); /* nothing selected, never started */
	s.crash.set = true;
	lava_end(&s);
	assert_string_equal(lines[0], "<LAVA_SIGNAL_TESTSET START pmuharness>");
	assert_string_equal(lines[1], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict RESULT=fail>");
	assert_string_equal(lines[2],
			    "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=harness.crash RESULT=fail>");
	assert_string_equal(lines[3], "<LAVA_SIGNAL_TESTSET STOP>");

	make(OUTPUT_LAVA); /* PASS: a PMU check measured and passed */
	pmu.status = PMU_FUNCTIONAL;
	s.passed = s.pmu_passed = 1;
	lava_end(&s);
	assert_string_equal(lines[1], "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict RESULT=pass>");
	pmu.status = PMU_ABSENT;
	make(OUTPUT_LAVA); /* STOP only of a set that started, START once */
	lava_set(&s, false);
	lava_set(&s, true);
	lava_set(&s, true);
	assert_int_equal(n_lines, 1);
	make(OUTPUT_TEXT);
	lava_end(&s);
	assert_int_equal(n_lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(text_prints_nothing),
	    cmocka_unit_test(end_verdict_in_set),
	    cmocka_unit_test(verdicts_and_measurement),
	    cmocka_unit_test(negative_and_odd_unit),
	    cmocka_unit_test(per_cpu_ids),
	    cmocka_unit_test(signalled_as_the_suite_runs),
	    cmocka_unit_test(identity_set),
	    cmocka_unit_test(id_mapping),
	    cmocka_unit_test(event_rows_as_cases),
	    cmocka_unit_test(event_rows_per_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
