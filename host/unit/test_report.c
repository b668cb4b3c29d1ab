/* The results JSON (schema pmuharness-results/2) from what the platform
 * tells: firmware, SMBIOS, clock; a CPU that failed before its run, a
 * result's figures, a crash record and event.semantics' rows and coverage.
 * The schema itself is checked by host/report/test_schema.py on real
 * output. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/platform.h"
#include "../../tests/suite.h"
#include "../../tests/report_events.h"

static const uint8_t smbios[] = {
    1, 8, 0, 0, 1, 2, 0, 0, 'A', 'c', 'm', 'e', 0,   'X', '"', '1', 0, 0,
    2, 8, 1, 0, 0, 1, 0, 0, 'M', 'B', 0,   0,	127, 4,	  2,   0,   0, 0,
};

static uint64_t now = 1000;
static uint64_t f_now(void *ctx)
{
	(void)ctx;
	return now;
}

static bool f_clock(void *ctx, char *buf, size_t n)
{
	(void)ctx;
	snprintf(buf, n, "2026-11-23T14:05:09Z");
	return true;
}

static struct suite s;
static struct options o;
static struct cpu_info ci;
static struct pmu pmu;
static struct apic_info ai;
static char json[1 << 16];

static void make(const struct platform *p)
{
	options_default(&o);
	suite_init(&s, &o, &ci, &pmu, &ai, (struct sink){0, 0});
	report_start(&s, p, now);
}

static void platform_identity(void **state)
{
	const struct platform p = {.now_us = f_now,
				   .clock = f_clock,
				   .fw_vendor = "EDK II",
				   .fw_revision = "0x10000",
				   .smbios = smbios,
				   .smbios_len = sizeof(smbios)};
	(void)state;
	make(&p);
	now += 250;
	size_t n = report_json(&s, json, sizeof(json));
	assert_true(n < sizeof(json));
	assert_non_null(strstr(json, "\"schema\": \"pmuharness-results/2\""));
	assert_non_null(strstr(json, "\"started\": \"2026-11-23T14:05:09Z\""));
	assert_non_null(strstr(json, "\"elapsed_us\": 250"));
	assert_non_null(strstr(json, "\"firmware\": {\"vendor\": \"EDK II\", \"revision\": "
				     "\"0x10000\"}"));
	assert_non_null(strstr(json, "\"system\": {\"manufacturer\": \"Acme\", \"product\": "
				     "\"X\\\"1\", \"version\": null, \"board\": {\"manufacturer\": "
				     "null, \"product\": \"MB\", \"version\": null}}"));
	assert_non_null(strstr(json, "\"crash\": null"));
}

/* No services at all: every platform field null, never left out. */
static void nothing_known(void **state)
{
	const struct platform p = {0};
	(void)state;
	make(&p);
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(json, "\"started\": null,\n  \"elapsed_us\": null,\n  "
				     "\"firmware\": null,\n  \"system\": null"));
	assert_non_null(strstr(json, "\"cpus\": [\n  ]"));
}

/* A CPU that failed before it ran a check: its identity null, its
 * failure counted in its own verdict; a result's figures and counters. */
static void cpu_and_figures(void **state)
{
	const struct platform p = {0};
	(void)state;
	make(&p);
	suite_fail_cpu(&s, 3, "StartupThisAP timed out");
	struct result *r = &s.results[s.n_results++];
	snprintf(r->id, sizeof(r->id), "count.instructions");
	r->v = V_PASS;
	r->fig = (struct figures){true, -2, 30000, 30001, "events", "exact (Intel)", 0x3};
	snprintf(r->ctr_names, sizeof(r->ctr_names), "gp0,fixed1");
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(json, "{\"cpu\": 3, \"apic_id\": null, \"vendor\": null,"));
	assert_non_null(strstr(json, "\"pmu\": null,\n      \"verdict\": \"FAIL\", \"passed\": 0, "
				     "\"failed\": 1, \"skipped\": 0}"));
	assert_non_null(
	    strstr(json, "\"figures\": {\"min\": -2, \"median\": 30000, \"max\": "
			 "30001, \"unit\": \"events\", \"tolerance\": \"exact (Intel)\", "
			 "\"counters\": [\"gp0\", \"fixed1\"], \"name\": null, \"samples\": [], "
			 "\"samples_taken\": 0,\n      \"series\": []}"));
	assert_non_null(strstr(json, "\"detail\": \"StartupThisAP timed out\", \"figures\": null"));
}

/* A named figure keeps its samples (each less the median in the table, the
 * value in the JSON) and a second series with its own unit. */
static void figure_samples(void **state)
{
	const struct platform p = {0};
	(void)state;
	make(&p);
	struct result *r = &s.results[s.n_results++];
	snprintf(r->id, sizeof(r->id), "skid");
	r->v = V_PASS;
	r->fig = (struct figures){.set = true,
				  .min = 90,
				  .med = 100,
				  .max = 130,
				  .unit = "instructions",
				  .name = "skid",
				  .smp = {3, 3, {30, -10, 0}}};
	r->fig.also = (struct fig_series){"PMI latency", "cycles", 400, 500, 600, {2, 5, {0, 100}}};
	report_json(&s, json, sizeof(json));
	assert_non_null(
	    strstr(json, "\"unit\": \"instructions\", \"tolerance\": null, "
			 "\"counters\": [], \"name\": \"skid\", \"samples\": [130, 90, "
			 "100], \"samples_taken\": 3,\n      \"series\": [{\"min\": 400, "
			 "\"median\": 500, \"max\": 600, \"unit\": \"cycles\", \"name\": "
			 "\"PMI latency\", \"samples\": [500, 600], \"samples_taken\": 5}]}"));
}

static void crash_record(void **state)
{
	const struct platform p = {0};
	struct int_frame f = {.rax = 0x5a5a1234,
			      .rbx = 0xbadcafe,
			      .r15 = 0xffffffffffffffffull,
			      .vector = 13,
			      .error = 0x18,
			      .rip = 0xfffff80012345678ull};
	(void)state;
	make(&p);
	report_crash_in(&s, &f, "apic.fatal-trigger");
	report_crash(&s, NULL); /* not known: the record stays */
	struct int_frame later = {.vector = 6};
	report_crash(&s, &later); /* a second one: the first stays */
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(json, "\"crash\": {\"vector\": 13, \"error_code\": 24, \"rip\": "
				     "\"0xfffff80012345678\", \"registers\": {\"rax\": "
				     "\"0x5a5a1234\", \"rbx\": \"0xbadcafe\""));
	assert_non_null(strstr(json, "\"r15\": \"0xffffffffffffffff\", \"rflags\": \"0x0\"}, "
				     "\"check\": \"apic.fatal-trigger\"}"));
}

/* A suite's event rows as event.semantics keeps them (tests/suite.h). */
static void two_event_rows(void)
{
	s.ev_rows[0] = (struct event_row){.cpu = 0,
					  .v = V_PASS,
					  .name = "RETIRED_INSTRUCTIONS",
					  .enc = "event=0xc0",
					  .ctr = "PERFCTR0",
					  .table = "amd-k8",
					  .workload = "loop",
					  .iterations = 1000,
					  .rule = "exact",
					  .expected_lo = 3000,
					  .expected_hi = 3000,
					  .measured = 3000,
					  .source = "BKDG 10.2"};
	s.ev_rows[1] = (struct event_row){.cpu = 0,
					  .v = V_FAIL,
					  .name = "DATA_CACHE_MISSES",
					  .enc = "event=0x41",
					  .ctr = "PERFCTR1",
					  .table = "amd-k8",
					  .workload = "chase",
					  .footprint = "256 KiB",
					  .iterations = 1000,
					  .rule = ">= 0.500 x elements",
					  .expected_lo = 500,
					  .expected_hi = EVENT_NO_MAX,
					  .measured = 3,
					  .note = "counts \"hits\""};
	s.n_ev_rows = 2;
	s.ev_cov[0] = (struct event_coverage){.cpu = 0,
					      .table = "amd-k8",
					      .events = 87,
					      .validated = 41,
					      .not_validatable = 30,
					      .passed = 1,
					      .failed = 1};
	s.n_ev_cov = 1;
}

/* event.semantics' rows: every field of both, null where there is none
 * (no footprint, no upper bound, no note or source), the coverage record,
 * and the count of rows that did not fit. */
static void event_rows(void **state)
{
	const struct platform p = {0};
	(void)state;
	make(&p);
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(json, "\"events\": [\n  ],\n  \"events_coverage\": [\n  ],\n  "
				     "\"events_dropped\": 0"));
	two_event_rows();
	s.ev_dropped = 4;
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(
	    json,
	    "\"events\": [\n    {\"cpu\": 0, \"table\": \"amd-k8\", \"event\": "
	    "\"RETIRED_INSTRUCTIONS\", \"encoding\": \"event=0xc0\", \"counter\": "
	    "\"PERFCTR0\",\n     \"workload\": \"loop\", \"footprint\": null, \"iterations\": "
	    "1000, \"rule\": \"exact\", \"expected\": {\"min\": 3000, \"max\": 3000},\n     "
	    "\"measured\": 3000, \"result\": \"PASS\", \"note\": null, \"source\": \"BKDG "
	    "10.2\"},"));
	assert_non_null(strstr(
	    json, "\n    {\"cpu\": 0, \"table\": \"amd-k8\", \"event\": \"DATA_CACHE_MISSES\", "
		  "\"encoding\": \"event=0x41\", \"counter\": \"PERFCTR1\",\n     \"workload\": "
		  "\"chase\", \"footprint\": \"256 KiB\", \"iterations\": 1000, \"rule\": \">= "
		  "0.500 x elements\", \"expected\": {\"min\": 500, \"max\": null},\n     "
		  "\"measured\": 3, \"result\": \"FAIL\", \"note\": \"counts \\\"hits\\\"\", "
		  "\"source\": null}\n  ]"));
	assert_non_null(strstr(json, "\"events_coverage\": [\n    {\"cpu\": 0, \"table\": "
				     "\"amd-k8\", \"events\": 87, \"validated\": 41, "
				     "\"not_validatable\": 30, \"passed\": 1, \"failed\": 1, "
				     "\"skipped\": 0}\n  ],\n  \"events_dropped\": 4"));
}

/* A SKIP measured nothing: its measurement is null, its reason the note. */
static void event_skip_unmeasured(void **state)
{
	const struct platform p = {0};
	(void)state;
	make(&p);
	s.ev_rows[0] = (struct event_row){.cpu = 2,
					  .v = V_SKIP,
					  .name = "SEGMENT_REGISTER_LOADS",
					  .table = "amd-k8",
					  .expected_lo = EVENT_NO_MIN,
					  .expected_hi = 7,
					  .measured = 12345,
					  .note = "filtered"};
	s.n_ev_rows = 1;
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(json, "\"expected\": {\"min\": null, \"max\": 7},\n     "
				     "\"measured\": null, \"result\": \"SKIP\", \"note\": "
				     "\"filtered\""));
	assert_null(strstr(json, "12345"));
}

/* A buffer too small: the length it needs comes back, the text is cut. */
/* The results files' words, one spelling for UEFI and BIOS (the QEMU tests
 * match these lines on both): outcomes joined by "; ", then the line. */
static void results_words(void **state)
{
	char msg[160] = "", line[240];
	(void)state;
	results_file_outcome(msg, sizeof(msg), "a.log", NULL);
	results_file_outcome(msg, sizeof(msg), "a.json", "disk full: NOT saved");
	assert_string_equal(msg, "a.log written and verified; a.json: disk full: NOT saved");
	results_saved_line(line, sizeof(line), false, msg);
	assert_string_equal(line, "error: results files: a.log written and verified; a.json: "
				  "disk full: NOT saved; what is missing is on the console and "
				  "serial only");
	results_saved_line(line, sizeof(line), true, "a.log written and verified");
	assert_string_equal(line, "results.saved: a.log written and verified");
}

static void too_small(void **state)
{
	const struct platform p = {0};
	char small[64];
	(void)state;
	make(&p);
	size_t need = report_json(&s, json, sizeof(json));
	assert_int_equal(report_json(&s, small, sizeof(small)), need);
	assert_true(strlen(small) < sizeof(small));
}

/* The hypervisor by name and what its leaves said (the log's
 * cpu.hypervisor line has the same), null on bare metal; signature and
 * leaf null when no leaf answered. */
static void hypervisor_record(void **state)
{
	const struct platform p = {0};
	struct cpu_info *x;
	(void)state;
	make(&p);
	s.n_cpus = 3;
	for (unsigned i = 0; i < 3; i++)
		s.cpus[i] = (struct cpu_record){.cpu = i, .identified = true};
	x = &s.cpus[0].ci;
	x->hypervisor = true;
	x->hv = (struct hv_info){
	    .id = HV_XEN, .base = 0x40000100, .max_leaf = 0x40000105, .hyperv_face = true};
	snprintf(x->hv.name, sizeof(x->hv.name), "Xen");
	snprintf(x->hv.signature, sizeof(x->hv.signature), "XenVMMXenVMM");
	snprintf(x->hv.version, sizeof(x->hv.version), "4.17");
	x = &s.cpus[1].ci;
	x->hypervisor = true;
	x->hv = (struct hv_info){.id = HV_UNKNOWN};
	snprintf(x->hv.name, sizeof(x->hv.name), "unknown");
	report_json(&s, json, sizeof(json));
	assert_non_null(strstr(json,
			       "\"hypervisor\": \"Xen\", \"hypervisor_cpuid\": {\"signature\": "
			       "\"XenVMMXenVMM\", \"leaf\": 1073742080, \"max_leaf\": "
			       "1073742085, \"version\": \"4.17\", \"hyperv_interface\": true}"));
	assert_non_null(strstr(json, "\"hypervisor\": \"unknown\", \"hypervisor_cpuid\": "
				     "{\"signature\": null, \"leaf\": null, \"max_leaf\": null, "
				     "\"version\": null, \"hyperv_interface\": false}"));
	assert_non_null(strstr(json, "\"hypervisor\": null, \"hypervisor_cpuid\": null"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(platform_identity),     cmocka_unit_test(nothing_known),
	    cmocka_unit_test(cpu_and_figures),	     cmocka_unit_test(figure_samples),
	    cmocka_unit_test(crash_record),	     cmocka_unit_test(too_small),
	    cmocka_unit_test(results_words),	     cmocka_unit_test(event_rows),
	    cmocka_unit_test(event_skip_unmeasured), cmocka_unit_test(hypervisor_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
