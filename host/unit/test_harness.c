/* The harness's run and session (tests/harness.c) over a recording
 * platform (tests/platform.h) and a simulated CPU: what is printed in which
 * order, the results files, the countdown and end prompt, the ways to leave,
 * the stops before the suite, a recovered exception, the crash trigger that
 * runs only when named, and the suite's API for runs on other CPUs. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/harness.h"
#include "../sim/sim.h"

#define MAX_EVENTS 400
#define MAX_KEYS   8

/* What the platform was asked to do, in order: "line: ...", "screen: ...",
 * "open", "flush", "close: <JSON verdict or none>", "qemu-exit: N",
 * "power-off". */
static char events[MAX_EVENTS][240];
static unsigned n_events;

static struct {
	const char *cfg;		  /* the options the platform supplies */
	bool files;			  /* results_open succeeds */
	bool crash;			  /* guard reports an exception before the run */
	bool no_memory;			  /* alloc fails */
	bool unsaved;			  /* results_close could not write a file */
	enum platform_key keys[MAX_KEYS]; /* key_wait's answers in turn, then Esc */
	unsigned n_keys, next_key;
	uint64_t clock;
	unsigned allocs;
	void *live[4]; /* what a session keeps for good, freed by the next setup */
} fake;

static void note(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *f, ...)
{
	va_list ap;
	assert_true(n_events < MAX_EVENTS);
	va_start(ap, f);
	vsnprintf(events[n_events++], sizeof(events[0]), f, ap);
	va_end(ap);
}

/* The index of the first event that starts with prefix at or after from;
 * -1 when none. */
static int find(const char *prefix, int from)
{
	for (unsigned i = (unsigned)from; i < n_events; i++)
		if (!strncmp(events[i], prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

static unsigned count(const char *prefix)
{
	unsigned n = 0;
	for (int i = find(prefix, 0); i >= 0; i = find(prefix, i + 1))
		n++;
	return n;
}

static void f_line(void *ctx, const char *s)
{
	(void)ctx;
	note("line: %s", s);
}

static void f_screen(void *ctx, const char *s)
{
	(void)ctx;
	note("screen: %s", s);
}

static bool f_open(void *ctx, char *name, size_t cap)
{
	(void)ctx;
	note("open");
	if (!fake.files)
		return false;
	snprintf(name, cap, "pmuharness-007.log pmuharness-007.json");
	return true;
}

static void f_flush(void *ctx)
{
	(void)ctx;
	note("flush");
}

static bool f_close(void *ctx, const char *json, size_t len)
{
	(void)ctx;
	static const char key[] = "\n  \"verdict\": \""; /* the run's, not a result's */
	const char *v = json ? strstr(json, key) : NULL;
	if (!json) {
		note("close: none");
		return false;
	}
	assert_int_equal(strlen(json), len);
	assert_non_null(v);
	v += sizeof(key) - 1;
	note("close: %.*s", (int)strcspn(v, "\""), v);
	return fake.files && !fake.unsaved;
}

static void *f_alloc(void *ctx, size_t n)
{
	(void)ctx;
	if (fake.no_memory)
		return NULL;
	for (unsigned i = 0; i < 4; i++)
		if (!fake.live[i]) {
			fake.allocs++;
			return fake.live[i] = calloc(1, n);
		}
	fail_msg("more than 4 allocations alive");
	return NULL;
}

static void f_free(void *ctx, void *p)
{
	(void)ctx;
	for (unsigned i = 0; i < 4; i++)
		if (fake.live[i] == p) {
			fake.live[i] = NULL;
			fake.allocs--;
		}
	free(p);
}

static void f_options(void *ctx, struct options *o)
{
	(void)ctx;
	assert_int_equal(options_parse_config(o, fake.cfg, strlen(fake.cfg), NULL, NULL), 0);
}

static uint64_t f_now(void *ctx)
{
	(void)ctx;
	return fake.clock += 5;
}

static void f_key_flush(void *ctx)
{
	(void)ctx;
	note("key-flush");
}

static enum platform_key f_key_wait(void *ctx, uint64_t us)
{
	(void)ctx;
	(void)us;
	return fake.next_key < fake.n_keys ? fake.keys[fake.next_key++] : PKEY_ESC;
}

static bool f_guard(void *ctx, void (*fn)(void *arg), void *arg)
{
	(void)ctx;
	note("guard");
	if (fake.crash)
		return true; /* as if the first instruction had raised one */
	fn(arg);
	return false;
}

static void f_unguard(void *ctx)
{
	(void)ctx;
	note("unguard");
}

static void f_qemu_exit(void *ctx, unsigned value)
{
	(void)ctx;
	note("qemu-exit: %u", value);
}

static void f_power_off(void *ctx)
{
	(void)ctx;
	note("power-off");
}

static const struct platform plat = {
    .line = f_line,
    .screen = f_screen,
    .results_open = f_open,
    .results_flush = f_flush,
    .results_close = f_close,
    .alloc = f_alloc,
    .free = f_free,
    .options = f_options,
    .now_us = f_now,
    .key_flush = f_key_flush,
    .key_wait = f_key_wait,
    .guard = f_guard,
    .unguard = f_unguard,
    .qemu_exit = f_qemu_exit,
    .power_off = f_power_off,
};

/* A healthy simulated Skylake, the fake platform reset, files on. */
static int setup(void **st)
{
	(void)st;
	n_events = 0;
	for (unsigned i = 0; i < 4; i++)
		free(fake.live[i]);
	memset(&fake, 0, sizeof(fake));
	fake.files = true;
	fake.cfg = "on_finish = qemu-exit\nchecks = apic.*\n";
	return sim_start("skylake", SF_NONE);
}

static void keys(unsigned n, const enum platform_key *k)
{
	memcpy(fake.keys, k, n * sizeof(*k));
	fake.n_keys = n;
}

/* on_finish = qemu-exit: one run, printed in order, the verdict's exit
 * value to the port, then the power-off where the port is missing. */
static void session_qemu_exit(void **st)
{
	(void)st;
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	int open = find("open", 0), ident = find("line: pmuharness: ", 0);
	int files = find("line: results.files: pmuharness-007.log pmuharness-007.json", 0);
	int fin = find("line: options.on_finish: qemu-exit", 0), flush = find("flush", 0);
	int check = find("line: PASS apic.", 0), closing = find("line: 3 passed, 0 failed", 0);
	int verdict = find("line: verdict: NO VERDICT", 0), elapsed = find("line: harness.", 0);
	assert_true(find("guard", 0) < open && open < ident && ident < files && files < fin);
	assert_true(fin < flush && flush < check && check < closing && closing < verdict);
	assert_true(verdict < elapsed);
	assert_string_equal(events[elapsed], "line: harness.elapsed_us: 5");
	int close = find("close: ", 0), unguard = find("unguard", 0);
	assert_string_equal(events[close], "close: NO VERDICT");
	assert_true(elapsed < close && close < unguard);
	assert_string_equal(events[unguard + 1], "qemu-exit: 4"); /* PMH_EXIT_NO_VERDICT */
	assert_string_equal(events[unguard + 2], "power-off");
	assert_int_equal(unguard + 3, n_events);
	assert_int_equal(count("screen: "), 0); /* no countdown, no prompt */
	assert_int_equal(fake.allocs, 2);	/* the state and the results table stay */
}

/* on_finish = wait: the countdown, Esc skips the run. */
static void countdown_esc_skips(void **st)
{
	(void)st;
	fake.cfg = "countdown = 2\n";
	keys(1, (enum platform_key[]){PKEY_ESC});
	assert_int_equal(harness_main(&plat), HARNESS_SKIPPED);
	assert_string_equal(events[0], "key-flush");
	assert_string_equal(
	    events[1], "screen: Starting in 2 s. Esc: skip the run; any other key: start now.");
	assert_string_equal(events[2], "screen: Run skipped (Esc): returning to the firmware.");
	assert_int_equal(n_events, 3);
}

/* Time up starts the run; at the end prompt other keys wait, R runs
 * again, Esc returns to the firmware. */
static void prompt_runs_again(void **st)
{
	(void)st;
	fake.cfg = "checks = idt.*\ncountdown = 2\n";
	keys(4, (enum platform_key[]){PKEY_NONE, PKEY_NONE, PKEY_OTHER, PKEY_AGAIN});
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_equal(count("screen: Starting in "), 2);
	assert_int_equal(count("line: pmuharness: "), 2);
	assert_int_equal(count("line: options.on_finish: wait"), 2);
	assert_int_equal(count("screen: Results saved. R: run again; Esc: return to the firmware."),
			 2);
	assert_int_equal(count("close: "), 2);
	assert_string_equal(events[n_events - 1], "screen: Returning to the firmware.");
	assert_int_equal(count("qemu-exit"), 0);
}

/* Results files the platform could not write: the end prompt never says
 * they were saved. */
static void prompt_says_unsaved(void **st)
{
	(void)st;
	fake.cfg = "checks = idt.*\ncountdown = 0\n";
	fake.unsaved = true;
	keys(1, (enum platform_key[]){PKEY_ESC});
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_equal(count("screen: Results saved."), 0);
	assert_int_equal(count("screen: Results NOT saved to files (see above): they are on the "
			       "screen and serial port only."),
			 1);
}

/* No memory for the results table: the error, then the default finish
 * (wait: the prompt). */
static void no_memory(void **st)
{
	(void)st;
	fake.no_memory = true;
	assert_int_equal(harness_main(&plat), HARNESS_NO_MEMORY);
	assert_string_equal(events[0], "line: error: out of memory for the results table");
	assert_int_not_equal(find("screen: Results NOT saved to files (see above)", 0), -1);
	assert_int_equal(count("line: pmuharness: "), 0);
}

/* In a session a listing still ends with the summary and the files. */
static void session_listing_keeps_summary(void **st)
{
	(void)st;
	fake.cfg = "on_finish = return\nlist_events = yes\n";
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_true(count("line: ") > 5); /* the event list */
	assert_int_equal(count("line: pmuharness: "), 0);
	assert_int_not_equal(find("line: 0 passed, 0 failed, 0 skipped", 0), -1);
	assert_int_not_equal(find("close: NO VERDICT", 0), -1);
}

/* An event this CPU lacks is a bad value like any other: said with where
 * it was set, event.raw skipped, the rest of the run measured as usual
 * (never ERROR, never a PMU FAIL). */
static void refused_event_goes_on(void **st)
{
	(void)st;
	fake.cfg = "on_finish = qemu-exit\nchecks = event.raw,counter.width\n"
		   "event = no_such_event\n";
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_not_equal(
	    find("line: error: event (pmuharness.cfg line 3): unknown event name", 0), -1);
	assert_int_not_equal(
	    find("line: SKIP event.raw: event (pmuharness.cfg line 3) refused: unknown event", 0),
	    -1);
	assert_int_not_equal(find("line: PASS counter.width", 0), -1);
	assert_int_equal(find("line: FAIL", 0), -1);
	assert_int_not_equal(find("qemu-exit: 0", 0), -1); /* PMH_EXIT_PASS */
}

/* counter=N beyond the counters CPUID gives (arch perfmon: only the
 * attached PMU knows) is the user's mistake, said and skipped, not failed
 * as the PMU's. */
static void missing_counter_refused(void **st)
{
	(void)st;
	fake.cfg = "on_finish = qemu-exit\nchecks = event.raw,counter.width\n"
		   "event = event=0xc0,counter=20\n";
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_not_equal(find("line: error: event (pmuharness.cfg line 3): counter 20 does "
				  "not exist: intel-arch has",
				  0),
			     -1);
	assert_int_not_equal(
	    find("line: SKIP event.raw: event (pmuharness.cfg line 3) refused:", 0), -1);
	assert_int_equal(find("line: FAIL", 0), -1);
	assert_int_not_equal(find("qemu-exit: 0", 0), -1); /* PMH_EXIT_PASS */
}

/* A checks option that selects nothing says so, by option and value, and
 * runs nothing: NO VERDICT (4), never the PASS value. */
static void no_check_selected(void **st)
{
	fake.cfg = "on_finish = qemu-exit\nchecks = nomatch*\n";
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	int err = find("line: error: checks = nomatch*: matches no check", 0);
	assert_int_not_equal(err, -1);
	assert_true(find("line: options.on_finish: ", 0) < err);
	assert_true(err < find("line: 0 passed, 0 failed, 0 skipped", 0));
	assert_int_equal(count("line: PASS ") + count("line: SKIP ") + count("line: FAIL "), 0);
	assert_int_not_equal(find("line: verdict: NO VERDICT", 0), -1);
	assert_int_not_equal(find("close: NO VERDICT", 0), -1);
	assert_int_not_equal(find("qemu-exit: 4", 0), -1); /* PMH_EXIT_NO_VERDICT */
	/* a check that runs only when named counts when it is named */
	assert_int_equal(setup(st), 0); /* a fresh session */
	fake.cfg = "on_finish = return\nchecks = apic.fatal-trigger\n";
	harness_main(&plat);
	assert_int_equal(count("line: error: checks"), 0);
	assert_int_equal(count("line: SKIP apic.fatal-trigger"), 1);
}

/* output = lava: the results files are closed before the checks' set's
 * STOP, the verdict a case inside it; a selection that matches nothing
 * still gives a whole set (START, the failed verdict, STOP). */
static void lava_end_after_files(void **st)
{
	(void)st;
	fake.cfg = "on_finish = qemu-exit\noutput = lava\nchecks = apic.*\n";
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	int start = find("line: <LAVA_SIGNAL_TESTSET START pmuharness>", 0);
	int close = find("close: ", 0);
	int verdict = find("line: <LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict RESULT=fail>", 0);
	int stop = find("line: <LAVA_SIGNAL_TESTSET STOP>", 0);
	int ident = find("line: <LAVA_SIGNAL_TESTSET START pmuharness-identity>", 0);
	assert_true(start >= 0 && start < close && close < verdict && verdict < stop);
	assert_true(stop < ident);
	assert_int_equal(count("line: <LAVA_SIGNAL_TESTSET STOP>"), 2);
	assert_int_equal(setup(st), 0);
	fake.cfg = "on_finish = qemu-exit\noutput = lava\nchecks = nomatch*\n";
	harness_main(&plat);
	start = find("line: <LAVA_SIGNAL_TESTSET START pmuharness>", 0);
	verdict = find("line: <LAVA_SIGNAL_TESTCASE TEST_CASE_ID=verdict RESULT=fail>", 0);
	stop = find("line: <LAVA_SIGNAL_TESTSET STOP>", 0);
	assert_true(start >= 0 && start < verdict && verdict < stop);
	assert_int_equal(count("line: <LAVA_SIGNAL_TESTSET START"), 2);
	assert_int_equal(count("line: <LAVA_SIGNAL_TESTSET STOP>"), 2);
}

/* output = kvm-unit-tests: "PASS: id" lines, the SUMMARY line last, and the
 * runner's exit values (NO VERDICT as its SKIP, 38; PASS 0). */
static void kvm_unit_tests_mode(void **st)
{
	(void)st;
	fake.cfg = "on_finish = qemu-exit\noutput = kvm-unit-tests\nchecks = apic.*\n";
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_equal(count("line: PASS: apic."), 3);
	assert_int_equal(count("line: PASS apic."), 0);
	int sum = find("line: SUMMARY: 3 tests; verdict NO VERDICT", 0);
	assert_true(sum > find("close: ", 0));
	for (unsigned i = (unsigned)sum + 1; i < n_events; i++)
		assert_true(strncmp(events[i], "line: ", 6) != 0); /* the last line */
	assert_int_not_equal(find("qemu-exit: 38", 0), -1);
	assert_int_equal(setup(st), 0);
	fake.cfg = "on_finish = qemu-exit\noutput = kvm-unit-tests\nchecks = count.*\n";
	harness_main(&plat);
	assert_int_equal(find("qemu-exit: 0", 0) > 0, find("line: verdict: PASS", 0) > 0);
	assert_int_not_equal(find("line: SUMMARY: ", 0), -1);
	assert_int_equal(run_exit_kut(PMH_EXIT_FAIL), 1);
	assert_int_equal(run_exit_kut(PMH_EXIT_ERROR), 1);
	assert_int_equal(run_exit_kut(PMH_EXIT_NO_PMU), 38);
	assert_int_equal(run_exit_kut(PMH_EXIT_PASS), 0);
}

/* An NMI from outside (a watchdog, the BMC) on every MSR read: nothing is
 * printed in NMI context (no fatal line, no log write racing the writer);
 * the suite says it after the check, with the count and a rip. */
static void outside_nmi(struct sim_cpu *cpu, uint32_t msr, uint64_t *val)
{
	(void)msr;
	(void)val;
	cpu->nmi_pending = true;
	sim_deliver(cpu);
}

static void outside_nmi_said_after_check(void **st)
{
	(void)st;
	fake.cfg = "on_finish = qemu-exit\nchecks = msr.access\n";
	sim_rdmsr_filter = outside_nmi;
	harness_main(&plat);
	sim_rdmsr_filter = 0;
	int warn = find("line: warning: ", 0);
	assert_int_not_equal(warn, -1);
	assert_non_null(strstr(events[warn],
			       "NMIs from outside the harness (not a PMI: none was "
			       "armed for NMI) during msr.access, the last at rip 0x"));
	assert_true(find("line: PASS msr.access", 0) > warn);
	assert_int_equal(count("line: fatal"), 0);
	assert_int_equal(count("line: warning: unexpected NMI"), 0);
}

/* A recovered exception: the error line, ERROR, the files still closed. */
static void exception_is_error(void **st)
{
	(void)st;
	fake.crash = true;
	assert_int_equal(harness_main(&plat), HARNESS_ERROR);
	int err = find("line: error: the harness stopped after an unexpected exception", 0);
	assert_int_not_equal(err, -1);
	assert_true(err < find("line: 0 passed, 0 failed, 0 skipped", 0));
	assert_int_not_equal(find("close: none", 0), -1); /* before the files were opened */
	assert_int_not_equal(find("qemu-exit: 2", 0), -1);
}

/* Without results files no results.files line and no JSON document. */
static void no_results_files(void **st)
{
	(void)st;
	fake.files = false;
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_equal(count("line: results.files"), 0);
	assert_int_not_equal(find("close: none", 0), -1);
}

/* A lone run (the simulator's) stops right after a listing, and goes on
 * past a refused event (flagged for the simulator's exit); a platform without optional members gets
 * the boot CPU run. */
static void lone_run(void **st)
{
	(void)st;
	static struct harness h;
	static struct suite s;
	const struct platform bare = {.line = f_line};

	h.suite = &s;
	options_default(&h.opt);
	h.opt.list_events = true;
	harness_run(&bare, &h);
	assert_int_equal(h.stop, HSTOP_LISTED);
	assert_int_equal(count("line: verdict: "), 0);
	h.opt.list_events = false;
	strcpy(h.opt.event, "no_such_event");
	strcpy(h.opt.checks, "event.raw");
	n_events = 0;
	harness_run(&bare, &h);
	assert_true(h.event_refused); /* the simulator's exit 4 */
	assert_int_equal(h.stop, HSTOP_NONE);
	assert_int_equal(count("line: verdict: "), 1);
	h.opt.event[0] = 0;
	strcpy(h.opt.checks, "apic.lvt-pc");
	n_events = 0;
	harness_run(&bare, &h);
	assert_int_equal(h.stop, HSTOP_NONE);
	assert_int_not_equal(find("line: PASS apic.lvt-pc", 0), -1);
	assert_int_not_equal(find("line: verdict: ", 0), -1);
	assert_int_equal(count("line: options.on_finish"), 0);
	assert_int_equal(count("line: harness.elapsed_us"), 0);
}

/* The identification says which CPUID leaf listed the counters. */
static void enumeration_line(void **st)
{
	(void)st;
	assert_int_equal(harness_main(&plat), HARNESS_DONE); /* skylake */
	assert_int_not_equal(find("line: pmu.enumeration: cpuid 0x0a", 0), -1);
	assert_int_equal(count("line: cpu.core_type: "), 0); /* not hybrid */
}

static void enumeration_line_v6(void **st)
{
	(void)st;
	assert_int_equal(sim_start("arrowlake", SF_NONE), 0);
	sim_set_cpuid(&sim, 7, 0, 0, 0, 0, 1u << 15); /* hybrid, a P-core */
	sim_set_cpuid(&sim, 0x1a, 0, 0x40000001u, 0, 0, 0);
	assert_int_equal(harness_main(&plat), HARNESS_DONE);
	assert_int_not_equal(find("line: cpu.core_type: 0x40 core", 0), -1);
	assert_int_not_equal(find("line: pmu.enumeration: cpuid 0x23", 0), -1);
	assert_int_not_equal(find("line: pmu.counters: 10 general-purpose", 0), -1);
}

/* help prints the keys and runs nothing: no identification, no check, no
 * verdict, no results files. */
static void help_runs_nothing(void **st)
{
	(void)st;
	static struct harness h;
	static struct suite s;
	const struct platform bare = {.line = f_line};

	h.suite = &s;
	options_default(&h.opt);
	h.opt.help = true;
	n_events = 0;
	harness_run(&bare, &h);
	assert_int_equal(h.stop, HSTOP_HELP);
	assert_int_not_equal(find("line: pmuharness options:", 0), -1);
	assert_int_not_equal(
	    find("line:   repeat      measurements per figure, 1-1001 (default 11)", 0), -1);
	assert_int_equal(find("line: cpu.vendor", 0), -1);
	assert_int_equal(count("line: verdict: "), 0);
}

/* apic.fatal-trigger runs only when checks= names it exactly. */
static void trigger_only_when_named(void **st)
{
	(void)st;
	static const char *const not_named[] = {"*", "apic.*", "apic.fatal-trigger*",
						"apic.fatal-trigge"};
	static struct harness h;
	static struct suite s;
	const struct platform bare = {.line = f_line};

	h.suite = &s;
	for (unsigned i = 0; i < sizeof(not_named) / sizeof(not_named[0]); i++) {
		options_default(&h.opt);
		strcpy(h.opt.checks, not_named[i]);
		n_events = 0;
		harness_run(&bare, &h);
		assert_int_equal(count("line: SKIP apic.fatal-trigger"), 0);
	}
	strcpy(h.opt.checks, "apic.lvt-pc,apic.fatal-trigger");
	n_events = 0;
	harness_run(&bare, &h);
	assert_int_not_equal(
	    find("line: SKIP apic.fatal-trigger: the host build has no exception path", 0), -1);
	assert_int_not_equal(find("line: 1 passed, 0 failed, 1 skipped", 0), -1);
}

/* The suite's API for a run on another CPU: its sink and identity while
 * bound, the CPU's share of the counts, a FAIL of the run as a whole. */
static void suite_cpu_api(void **st)
{
	(void)st;
	static struct suite s;
	static struct options o;
	struct cpu_info ci = {0};
	struct pmu p = {.status = PMU_FUNCTIONAL}, ap_pmu = {0};
	struct apic_info ai = {0};

	options_default(&o);
	suite_init(&s, &o, &ci, &p, &ai, (struct sink){f_line, 0});
	struct suite_cpu bsp = suite_bound(&s);
	struct run_counts before = suite_counts(&s);
	suite_bind_cpu(&s, &(struct suite_cpu){&ci, &ap_pmu, &ai, {f_screen, 0}});
	assert_ptr_equal(suite_bound(&s).pmu, &ap_pmu);
	suite_emit(&s, "on the AP");
	suite_fail_cpu(&s, 2, "the run did not finish");
	suite_bind_cpu(&s, &bsp);
	suite_emit(&s, "on the BSP");
	assert_string_equal(events[0], "screen: on the AP");
	assert_string_equal(events[1], "screen: FAIL cpu.2: the run did not finish");
	assert_string_equal(events[2], "line: on the BSP");
	assert_ptr_equal(suite_bound(&s).pmu, &p);
	assert_int_equal(s.n_results, 1);
	assert_string_equal(s.results[0].id, "cpu.run");
	assert_int_equal(s.results[0].cpu, 2);
	assert_int_equal(s.results[0].v, V_FAIL);
	struct run_counts share = suite_share(&s, &before);
	assert_int_equal(share.failed, 1);
	assert_int_equal(share.passed + share.skipped + share.pmu_passed, 0);
	assert_false(share.pmu_usable); /* the caller's to set from the CPU's PMU */
	assert_int_equal(suite_verdict(&s), RV_FAIL);
}

/* Each verdict's exit value (docs/user-guide.md "Exit codes"). */
static void exit_values(void **st)
{
	(void)st;
	assert_int_equal(run_verdict_exit(RV_PASS), 0);
	assert_int_equal(run_verdict_exit(RV_FAIL), 1);
	assert_int_equal(run_verdict_exit(RV_ERROR), 2);
	assert_int_equal(run_verdict_exit(RV_NO_PMU), 3);
	assert_int_equal(run_verdict_exit(RV_NO_VERDICT), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(session_qemu_exit, setup),
	    cmocka_unit_test_setup(enumeration_line, setup),
	    cmocka_unit_test_setup(enumeration_line_v6, setup),
	    cmocka_unit_test_setup(countdown_esc_skips, setup),
	    cmocka_unit_test_setup(prompt_runs_again, setup),
	    cmocka_unit_test_setup(no_memory, setup),
	    cmocka_unit_test_setup(prompt_says_unsaved, setup),
	    cmocka_unit_test_setup(session_listing_keeps_summary, setup),
	    cmocka_unit_test_setup(refused_event_goes_on, setup),
	    cmocka_unit_test_setup(missing_counter_refused, setup),
	    cmocka_unit_test_setup(no_check_selected, setup),
	    cmocka_unit_test_setup(lava_end_after_files, setup),
	    cmocka_unit_test_setup(kvm_unit_tests_mode, setup),
	    cmocka_unit_test_setup(outside_nmi_said_after_check, setup),
	    cmocka_unit_test_setup(exception_is_error, setup),
	    cmocka_unit_test_setup(no_results_files, setup),
	    cmocka_unit_test(help_runs_nothing),
	    cmocka_unit_test_setup(lone_run, setup),
	    cmocka_unit_test_setup(trigger_only_when_named, setup),
	    cmocka_unit_test_setup(suite_cpu_api, setup),
	    cmocka_unit_test_setup(exit_values, setup), /* the last setup frees */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
