/* A hybrid machine per CPU: the simulated "alderlake" (host/sim/model_hybrid.c)
 * has P-cores and E-cores, each CPU its own CPUID values, MSRs and PMU; the
 * per-CPU run (sim_run_cpus over tests/suite.h suite_run_cpus) identifies
 * each with its core type and own counters, in the lines and the JSON, and
 * a check that needs a counter only the P-cores have SKIPs on an E-core.
 * CPUID values from the SDM Vol. 2A (leaf 0AH, 1AH) and Linux's
 * intel/core.c intel_pmu_init for Alder Lake. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../pmu/cpuid.h"
#include "../../tests/harness.h"
#include "../sim/sim.h"

#define P_CORE	0 /* CPUs 0-1: Golden Cove */
#define E_CORE	2 /* CPUs 2-3: Gracemont */
#define EVTSEL0 0x186u

/* CPU n's leaf 0AH and 1AH, and what the driver attaches there. */
static void on_cpu(unsigned n, struct cpuid_regs *l0a, uint32_t *type, struct pmu *p)
{
	static struct cpu_info ci;
	struct cpuid_regs r;

	assert_int_equal(sim_cpu_switch(n), 0);
	hw_cpuid(0x0a, 0, l0a);
	hw_cpuid(0x1a, 0, &r);
	*type = r.eax >> 24;
	cpu_identify(&ci);
	pmu_attach(p, &ci);
	assert_int_equal(ci.ids.core_type, *type);
}

static void cpus_have_their_own_counters(void **st)
{
	struct cpuid_regs a;
	uint32_t type;
	struct pmu p;

	(void)st;
	assert_int_equal(sim_start("alderlake", SF_NONE), 0);
	assert_int_equal(sim_cpu_count(), 4);
	for (unsigned n = 0; n < 4; n++) {
		on_cpu(n, &a, &type, &p);
		/* 0AH on both: version 5, 6 GP (EAX[15:8]), 3 fixed (EDX[4:0]) */
		assert_int_equal(a.eax & 0xff, 5);
		assert_int_equal((a.eax >> 8) & 0xff, 6);
		assert_int_equal(a.edx & 0x1f, 3);
		/* 1AH EAX[31:24]: 0x40 Core (P-core), 0x20 Atom (E-core) */
		assert_int_equal(type, n < E_CORE ? 0x40 : 0x20);
		assert_int_equal(p.status, PMU_FUNCTIONAL);
		assert_int_equal(p.n_gp, n < E_CORE ? 8 : 6);
		assert_int_equal(p.n_fixed, n < E_CORE ? 4 : 3);
		assert_int_equal(sim.apic_id, n);
		pmu_release(&p);
	}
	assert_int_equal(sim_cpu_switch(4), -1);
}

/* Each CPU keeps its own MSR file across switches. */
static void cpus_keep_their_own_state(void **st)
{
	uint64_t v = 0;

	(void)st;
	assert_int_equal(sim_start("alderlake", SF_NONE), 0);
	assert_int_equal(hw_wrmsr(EVTSEL0, 0x4300c0), HW_OK);
	assert_int_equal(sim_cpu_switch(E_CORE), 0);
	assert_int_equal(hw_rdmsr(EVTSEL0, &v), HW_OK);
	assert_int_equal(v, 0);
	assert_int_equal(hw_wrmsr(EVTSEL0, 0x43003c), HW_OK);
	assert_int_equal(sim_cpu_switch(P_CORE), 0);
	assert_int_equal(hw_rdmsr(EVTSEL0, &v), HW_OK);
	assert_int_equal(v, 0x4300c0);
	assert_int_equal(sim_cpu_switch(E_CORE), 0);
	assert_int_equal(hw_rdmsr(EVTSEL0, &v), HW_OK);
	assert_int_equal(v, 0x43003c);
	/* a one-CPU model has no CPU 1 */
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_int_equal(sim_cpu_count(), 1);
	assert_int_equal(sim_cpu_switch(1), -1);
}

/* ---- a whole run with cpus = all ---------------------------------------- */

static char lines[600][240];
static unsigned n_lines;

static void rec(void *ctx, const char *s)
{
	(void)ctx;
	if (n_lines < sizeof(lines) / sizeof(lines[0]))
		snprintf(lines[n_lines++], sizeof(lines[0]), "%s", s);
}

static bool has_line(const char *prefix)
{
	for (unsigned i = 0; i < n_lines; i++)
		if (!strncmp(lines[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static void opt_err(void *ctx, const char *msg)
{
	(void)ctx;
	fail_msg("option refused: %s", msg);
}

static struct harness h;
static struct suite suite;

/* The harness on model with the options in args, every CPU per cpus. */
static void run(const char *model, const char *args)
{
	static char buf[256];
	char *argv[8];
	int argc = 0;
	const struct platform p = {.line = rec, .run_cpus = sim_run_cpus};

	n_lines = 0;
	memset(&h, 0, sizeof(h));
	h.suite = &suite;
	options_default(&h.opt);
	h.opt.on_finish = FINISH_RETURN;
	snprintf(buf, sizeof(buf), "%s", args);
	for (char *t = strtok(buf, " "); t && argc < 8; t = strtok(NULL, " "))
		argv[argc++] = t;
	assert_int_equal(options_parse_args(&h.opt, argc, argv, opt_err, 0), 0);
	assert_int_equal(sim_start(model, SF_NONE), 0);
	harness_run(&p, &h);
}

static const struct result *result_of(const char *id, unsigned cpu)
{
	for (unsigned i = 0; i < suite.n_results; i++)
		if (!strcmp(suite.results[i].id, id) && suite.results[i].cpu == cpu)
			return &suite.results[i];
	fail_msg("no result %s on cpu %u", id, cpu);
	return NULL;
}

/* gp7 exists on the P-cores only: on an E-core flat counter 7 is fixed1,
 * and the check says the event has no counter there instead of failing. */
static void p_core_counter_skips_on_e_core(void **st)
{
	(void)st;
	run("alderlake", "cpus=all checks=event.raw event=event=0xc0,umask=0x00,counter=7");
	for (unsigned n = 0; n < 4; n++) {
		const struct result *r = result_of("event.raw", n);
		assert_int_equal(r->v, n < E_CORE ? V_PASS : V_SKIP);
		if (n >= E_CORE)
			assert_non_null(strstr(r->msg, "no counter of intel-arch's 9 accepts it"));
	}
	assert_int_equal(suite.failed, 0);
}

/* The per-CPU identity line and the JSON's cpus[] say each CPU's core type
 * and its own counters. */
static void identity_carries_core_type(void **st)
{
	static char json[1 << 18];

	(void)st;
	run("alderlake", "cpus=all checks=pmu.probe");
	assert_true(
	    has_line("cpu.1.identity: apic.id 0x1 (x2apic), pmu.driver intel-arch, "
		     "pmu.status functional, core_type 0x40 core, counters 8 gp + 4 fixed"));
	assert_true(
	    has_line("cpu.2.identity: apic.id 0x2 (x2apic), pmu.driver intel-arch, "
		     "pmu.status functional, core_type 0x20 atom, counters 6 gp + 3 fixed"));
	assert_true(has_line("cpu.3.verdict: "));
	assert_true(report_json(&suite, json, sizeof(json)) < sizeof(json));
	assert_non_null(strstr(json, "{\"cpu\": 0, \"apic_id\": 0,"));
	const char *e = strstr(json, "{\"cpu\": 2, \"apic_id\": 2,");
	assert_non_null(e);
	assert_non_null(strstr(json, "\"core_type\": \"core\""));
	assert_non_null(strstr(e, "\"core_type\": \"atom\""));
	/* not hybrid: null, and no per-CPU identity of a core type */
	run("skylake", "checks=pmu.probe");
	assert_true(report_json(&suite, json, sizeof(json)) < sizeof(json));
	assert_non_null(strstr(json, "\"core_type\": null"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cpus_have_their_own_counters),
	    cmocka_unit_test(cpus_keep_their_own_state),
	    cmocka_unit_test(p_core_counter_skips_on_e_core),
	    cmocka_unit_test(identity_carries_core_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
