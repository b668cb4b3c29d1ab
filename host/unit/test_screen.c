/* The machine's screen layout (tests/screen.c) rendered to a text grid at
 * 80x25 and larger modes: header, progress, results that fit, SKIP
 * reasons shown once, the hidden-row count, the verdict box and its
 * colours, the crash panel, and event.semantics' coverage and failing
 * events under its row (tests/screen_events.c). */
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
#include "../../tests/screen.h"
#include "../../tests/suite.h"
#include "../sim/sim.h"

#define LONG_REASON                                                                                \
	"pmu.status absent: no PMU driver for this CPU (vendor GenuineIntel family 0x6 "           \
	"model 0x99 is not one the harness knows: the architectural perfmon leaf is absent)"

static struct screen scr;
static struct screen_cell cells[128 * 40];
static char text[40][129]; /* the grid as text, one string per row */

static void render(void)
{
	screen_render(&scr);
	for (unsigned r = 0; r < scr.h; r++) {
		for (unsigned c = 0; c < scr.w; c++)
			text[r][c] = cells[r * scr.w + c].ch;
		text[r][scr.w] = 0;
	}
}

static uint8_t attr_at(unsigned r, unsigned c)
{
	return cells[r * scr.w + c].attr;
}

/* The first row holding needle, or -1. */
static int row_of(const char *needle)
{
	for (unsigned r = 0; r < scr.h; r++)
		if (strstr(text[r], needle))
			return (int)r;
	return -1;
}

static unsigned rows_with(const char *needle)
{
	unsigned k = 0;
	for (unsigned r = 0; r < scr.h; r++)
		k += strstr(text[r], needle) != NULL;
	return k;
}

static void start(unsigned w, unsigned h)
{
	static const struct screen_ident id = {
	    .brand = "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz",
	    .driver = "intel-arch",
	    .apic_mode = "x2apic",
	    .family = 6,
	    .model = 0x55,
	    .stepping = 4,
	    .microcode = 0x2006e05,
	    .microcode_valid = true,
	    .pmu_version = 4,
	    .n_gp = 4,
	    .gp_width = 48,
	    .n_fixed = 3,
	    .fixed_width = 48,
	};
	memset(cells, 0, sizeof(cells));
	screen_init(&scr, w, h, cells);
	screen_event(&scr, &(struct screen_event){.kind = SEV_START});
	screen_line(&scr, "pmuharness: 0.1.0");
	screen_event(&scr, &(struct screen_event){.kind = SEV_IDENT, .ident = &id});
}

static void end(enum run_verdict v, bool saved)
{
	screen_event(
	    &scr, &(struct screen_event){
		      .kind = SEV_END, .verdict = (int)v, .saved = saved, .elapsed_us = 75000000});
	render();
}

static void header_80x25(void **state)
{
	(void)state;
	start(80, 25);
	screen_event(&scr, &(struct screen_event){.kind = SEV_PROGRESS,
						  .i = 3,
						  .n = 28,
						  .id = "count.cycles",
						  .elapsed_us = 12000000});
	render();
	assert_int_equal(row_of("pmuharness 0.1.0"), 0);
	assert_int_equal(row_of("Xeon(R) Gold 6130"), 1);
	assert_int_equal(row_of("microcode 0x2006e05"), 2);
	assert_int_equal(row_of("model 0x55 stepping 0x4"), 2);
	assert_int_equal(row_of("intel-arch v4: 4 x 48-bit general, 3 x 48-bit fixed"), 3);
	assert_int_equal(row_of("APIC x2apic"), 3);
	assert_int_equal(row_of("Board    unknown   Firmware unknown"), 4);
	assert_int_equal(row_of("Check 3 of 28: count.cycles   elapsed 0:12"), 5);
	assert_int_equal(attr_at(0, 0), SCREEN_ATTR(SC_BLACK, SC_CYAN));
	/* no version and no fixed counters: neither is named */
	start(80, 25);
	screen_event(
	    &scr, &(struct screen_event){.kind = SEV_IDENT,
					 .ident = &(struct screen_ident){
					     .driver = "amd-legacy", .n_gp = 4, .gp_width = 48}});
	render();
	assert_int_equal(row_of("PMU      amd-legacy: 4 x 48-bit general   APIC unknown"), 3);
	assert_int_equal(row_of("CPU      unknown"), 1);
}

/* A long reason is cut at a word's end with "...", never wrapped. */
static void rows_cut_at_words(void **state)
{
	(void)state;
	start(80, 25);
	screen_line(&scr, "FAIL overflow.pmi " LONG_REASON);
	render();
	int r = row_of("FAIL  overflow.pmi");
	assert_true(r >= 0);
	char *dots = strstr(text[r], "...");
	assert_non_null(dots);
	/* what stands before "..." ends a word of the reason */
	size_t kept = (size_t)(dots - strstr(text[r], "pmu.status"));
	assert_true(LONG_REASON[kept] == ' ');
	assert_int_equal(rows_with("architectural"), 0); /* not wrapped onto a row */
	assert_int_equal(attr_at((unsigned)r, 1), SCREEN_ATTR(SC_LIGHTRED, SC_BLACK));
}

/* The same SKIP reason on many checks and CPUs: the reason once, then
 * the checks once each, families collapsed. */
static void skips_grouped(void **state)
{
	static const char *const ids[] = {"count.branches", "count.cycles",    "count.fixed",
					  "overflow.pmi",   "overflow.status", "skid"};
	char line[300];

	(void)state;
	start(80, 25);
	screen_line(&scr, "PASS pmu.probe no PMU, as CPUID says");
	for (unsigned cpu = 0; cpu < 4; cpu++)
		for (unsigned i = 0; i < 6; i++) {
			snprintf(line, sizeof(line), "SKIP %s@cpu%u: %s", ids[i], cpu,
				 "pmu.status absent: no driver");
			screen_line(&scr, line);
		}
	render();
	assert_int_equal(rows_with("pmu.status absent: no driver"), 1);
	assert_true(row_of("24 skipped: pmu.status absent") >= 0);
	assert_true(row_of("SKIP count.* (3), overflow.* (2), skid") >= 0);
	assert_int_equal(rows_with("@cpu"), 0);
	assert_true(row_of("PASS  pmu.probe") >= 0);
	assert_int_equal(rows_with("hidden"), 0);
}

/* More rows than fit: the FAILs and the newest stay, and the count of the
 * hidden ones is said. */
static void hidden_rows_counted(void **state)
{
	char line[100];

	(void)state;
	start(80, 25);
	screen_line(&scr, "FAIL first.check counted 5, expected 10");
	for (unsigned i = 0; i < 30; i++) {
		snprintf(line, sizeof(line), "PASS check.%02u fine", i);
		screen_line(&scr, line);
	}
	render(); /* 25 - 6 header rows - 1 prompt row = 18 rows */
	assert_true(row_of("FAIL  first.check") >= 0);
	assert_true(row_of("PASS  check.29") >= 0);
	assert_int_equal(row_of("PASS  check.00"), -1);
	assert_true(row_of("... 14 more rows hidden") >= 0);
	/* a larger mode shows them all */
	start(128, 40);
	screen_line(&scr, "FAIL first.check counted 5, expected 10");
	for (unsigned i = 0; i < 30; i++) {
		snprintf(line, sizeof(line), "PASS check.%02u fine", i);
		screen_line(&scr, line);
	}
	render();
	assert_true(row_of("PASS  check.00") >= 0);
	assert_int_equal(rows_with("hidden"), 0);
}

/* The verdict box: full width, the verdict's colour, its reason and where
 * the results went. */
static void verdict_box_pass(void **state)
{
	(void)state;
	start(100, 31);
	screen_line(&scr, "results.files: pmuharness-003.log pmuharness-003.json");
	screen_line(&scr, "verdict: PASS (12 PMU checks measured and passed, none failed)");
	end(RV_PASS, true);
	int r = row_of("P A S S");
	assert_true(r >= 0);
	assert_true(r + 3 < 31);
	for (unsigned c = 0; c < 100; c++)
		for (int k = -1; k <= 3; k++)
			assert_int_equal(attr_at((unsigned)(r + k), c), SCREEN_PASS);
	assert_int_equal(row_of("PASS (12 PMU checks measured"), r + 1);
	assert_int_equal(row_of("saved beside the binary: pmuharness-003.log pmuharness-003.json"),
			 r + 2);
	assert_true(row_of("Finished after 1:15") == 5);
}

static void verdict_box_colours_and_not_saved(void **state)
{
	static const struct {
		enum run_verdict v;
		uint8_t attr;
		const char *word;
	} cases[] = {
	    {RV_FAIL, SCREEN_FAIL, "F A I L"},
	    {RV_ERROR, SCREEN_ERROR, "E R R O R"},
	    {RV_NO_PMU, SCREEN_NO_PMU, "N O   P M U"},
	    {RV_NO_VERDICT, SCREEN_NO_VERDICT, "N O   V E R D I C T"},
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		start(80, 25);
		screen_line(&scr, "warning: cannot create results files beside the binary "
				  "(write-protected, EFI status 0x8000000000000008): results are "
				  "on the console and serial only");
		end(cases[i].v, false);
		int r = row_of(cases[i].word);
		assert_true(r > 5);
		assert_int_equal(attr_at((unsigned)r, 40), cases[i].attr);
		assert_int_equal(row_of("Results NOT saved to files: cannot create results"),
				 r + 2);
	}
}

/* An exception: the crash panel with the running check and the fatal
 * lines, above the verdict box. */
static void crash_panel(void **state)
{
	(void)state;
	start(80, 25);
	screen_event(&scr, &(struct screen_event){
			       .kind = SEV_PROGRESS, .i = 1, .n = 1, .id = "apic.fatal-trigger"});
	screen_fatal(&scr, "");
	screen_fatal(&scr, "fatal: unexpected exception vector 6 error 0x0 at rip 0x5e1a3c");
	screen_fatal(&scr, "fatal: rax=0 rbx=1 rcx=2 rdx=3 rsi=4 rdi=5");
	screen_fatal(&scr, "fatal: rbp=6 rsp=7 r8=8 r9=9 rflags=246 cs=38");
	screen_line(&scr, "error: the harness stopped after an unexpected exception (see above)");
	end(RV_ERROR, false);
	int r =
	    row_of("CRASH: unexpected exception; last check started: apic.fatal-trigger on CPU 0");
	assert_true(r > 5);
	assert_int_equal(row_of("unexpected exception vector 6 error 0x0 at rip 0x5e1a3c"), r + 1);
	assert_int_equal(row_of("rbp=6 rsp=7"), r + 3);
	for (int k = 0; k <= 3; k++)
		assert_int_equal(attr_at((unsigned)(r + k), 60), SCREEN_CRASH);
	assert_true(row_of("E R R O R") > r + 3);
	assert_int_equal(strcmp(scr.crash.check, "apic.fatal-trigger"), 0);
	assert_int_equal(scr.crash.n, 3);
}

/* A new run after the end starts with an empty results area and no
 * prompt (the end prompt, or the countdown before the first run). */
/* A config error comes before the run's layout is drawn: it is an error
 * row of the layout and of the end screen, not a line that scrolled away. */
static void config_errors_kept(void **state)
{
	(void)state;
	memset(cells, 0, sizeof(cells));
	screen_init(&scr, 80, 25, cells);
	screen_line(&scr,
		    "config: pmuharness.cfg: line 3: unknown key \"on_finsh\" (default kept)");
	screen_event(&scr, &(struct screen_event){.kind = SEV_START});
	screen_line(&scr, "PASS apic.lvt-pc 4/4 values");
	render();
	assert_true(row_of("line 3: unknown key \"on_finsh\"") > 0);
	end(RV_NO_PMU, true);
	assert_true(row_of("line 3: unknown key \"on_finsh\"") > 0);
}

static void new_run_clears(void **state)
{
	(void)state;
	start(80, 25);
	screen_line(&scr, "FAIL old.check wrong");
	end(RV_FAIL, true);
	screen_prompt(&scr, "Results saved. R: run again; Esc: return to the firmware.");
	screen_event(&scr, &(struct screen_event){.kind = SEV_START});
	render();
	assert_int_equal(row_of("old.check"), -1);
	assert_int_equal(row_of("F A I L"), -1);
	assert_int_equal(row_of("R: run again"), -1); /* nor its prompt */
	assert_true(row_of("Xeon") >= 0);	      /* the identification stays */
}

/* event.semantics' lines as the check prints them (keep_row, run_table in
 * tests/checks/event_semantics.c) for two rows, a PASS and a FAIL, and a
 * coverage record, then its result line. */
static void event_lines(const char *cpu)
{
	char line[200];

	screen_line(&scr, "  event: PASS amd-k8 RETIRED_INSTRUCTIONS (event=0xc0) PERFCTR0 loop "
			  "x1000: exact, expected 3000..3000, got 3000 [BKDG 10.2]");
	screen_line(&scr, "  event: FAIL amd-k8 DATA_CACHE_MISSES (event=0x41) PERFCTR1 chase "
			  "256 KiB x1000: >= 0.500 x elements, expected >= 500, got 3: counts "
			  "hits [ours]");
	screen_line(&scr, "  event.coverage: amd-k8: 41 of 87 events validated, 30 not "
			  "validatable; rules 1 pass, 1 fail, 0 skip");
	snprintf(line, sizeof(line),
		 "FAIL event.semantics%s 1 of 2 events counted wrong: DATA_CACHE_MISSES "
		 "(expected 500..9223372036854775807, got 3)",
		 cpu);
	screen_line(&scr, line);
}

/* After event.semantics' row: its catalogue's coverage line, then the
 * failing event with what it expected and measured; the passing one is
 * not shown. */
static void event_coverage_and_failures(void **state)
{
	(void)state;
	start(100, 30);
	screen_line(&scr, "PASS count.fixed 3 fixed counters");
	event_lines("");
	screen_line(&scr, "PASS apic.nmi delivered");
	render();
	int r = row_of("FAIL  event.semantics  1 of 2 events counted wrong");
	assert_true(r > 5);
	assert_int_equal(row_of("PASS  count.fixed"), r - 1);
	/* the coverage as the brief line: the check's "rules " and ", 0 skip" out */
	assert_int_equal(row_of("    amd-k8: 41 of 87 events validated, 30 not validatable; 1 "
				"pass, 1 fail  "),
			 r + 1);
	assert_int_equal(row_of("    FAIL DATA_CACHE_MISSES  expected >= 500, got 3: counts "
				"hits [ours]"),
			 r + 2);
	assert_int_equal(attr_at((unsigned)r + 2, 7), SCREEN_ATTR(SC_LIGHTRED, SC_BLACK));
	assert_int_equal(attr_at((unsigned)r + 1, 7), SCREEN_ATTR(SC_LIGHTCYAN, SC_BLACK));
	assert_int_equal(row_of("PASS  apic.nmi"), r + 3);
	assert_int_equal(row_of("RETIRED_INSTRUCTIONS"), -1);
}

/* More rows than fit: the failing event stays with the FAILs; each CPU's
 * lines follow its own event.semantics row. */
static void event_failures_kept(void **state)
{
	char line[100];

	(void)state;
	start(80, 25);
	event_lines("@cpu0");
	event_lines("@cpu1");
	for (unsigned i = 0; i < 30; i++) {
		snprintf(line, sizeof(line), "PASS check.%02u fine", i);
		screen_line(&scr, line);
	}
	render();
	assert_int_equal(rows_with("FAIL DATA_CACHE_MISSES  expected >= 500, got 3"), 2);
	int r0 = row_of("event.semantics@cpu0"), r1 = row_of("event.semantics@cpu1");
	assert_true(r0 > 5 && r1 > r0);
	assert_int_equal(row_of("FAIL DATA_CACHE_MISSES"), r1 - 1);
	assert_true(row_of("more rows hidden") >= 0);
	assert_true(row_of("PASS  check.29") >= 0);
}

/* A run of the harness on a simulated Skylake tells the platform's status
 * member its start, identification, each check before it runs (i of n),
 * and its end; the lines go on to the model as the UEFI console feeds it. */
static char seen[64][64];
static unsigned n_seen;

static void rec_line(void *ctx, const char *s)
{
	(void)ctx;
	screen_line(&scr, s);
}

static void rec_status(void *ctx, const struct screen_event *ev)
{
	(void)ctx;
	if (n_seen < 64)
		snprintf(seen[n_seen++], sizeof(seen[0]), "%d %u/%u %s", (int)ev->kind, ev->i,
			 ev->n, ev->kind == SEV_PROGRESS ? ev->id : "");
	screen_event(&scr, ev);
}

static void harness_feeds_the_screen(void **state)
{
	static struct harness h;
	static struct suite s;
	/* SMBIOS system (type 1) "QEMU" "Std", no board (type 2), end (127) */
	static const uint8_t table[] = {1,   8,	  1,   0,   1,	 2,   3,   0, 'Q',
					'E', 'M', 'U', 0,   'S', 't', 'd', 0, 'v',
					'1', 0,	  0,   127, 4,	 3,   0,   0, 0};
	const struct platform p = {.line = rec_line,
				   .status = rec_status,
				   .fw_vendor = "EDK II",
				   .fw_revision = "0x10000",
				   .smbios = table,
				   .smbios_len = sizeof(table)};
	char want[64];

	(void)state;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	memset(cells, 0, sizeof(cells));
	screen_init(&scr, 80, 25, cells);
	n_seen = 0;
	h.suite = &s;
	options_default(&h.opt);
	strcpy(h.opt.checks, "apic.*");
	unsigned n = suite_selected(&h.opt);
	assert_true(n >= 2);
	harness_run(&p, &h);
	assert_int_equal(n_seen, n + 3);
	assert_string_equal(seen[0], "0 0/0 ");
	assert_string_equal(seen[1], "1 0/0 ");
	snprintf(want, sizeof(want), "2 1/%u apic.", n);
	assert_int_equal(strncmp(seen[2], want, strlen(want)), 0);
	snprintf(want, sizeof(want), "2 %u/%u apic.", n, n);
	assert_int_equal(strncmp(seen[n + 1], want, strlen(want)), 0);
	assert_string_equal(seen[n + 2], "3 0/0 ");
	render();
	assert_int_equal(row_of("Simulated Intel Core i7-6700"), 1);
	assert_int_equal(row_of("PMU      intel-arch v4: 4 x 48-bit general"), 3);
	assert_int_equal(rows_with("PASS  apic."), n);
	/* the board from SMBIOS (the system's without a board structure) and
	 * the firmware from the platform */
	assert_true(row_of("QEMU Std") >= 1 && row_of("QEMU Std") <= 4);
	assert_true(row_of("EDK II 0x10000") >= 1 && row_of("EDK II 0x10000") <= 4);
	/* apic.* measures no PMU counter: NO VERDICT, and no results files */
	assert_true(row_of("N O   V E R D I C T") > 5);
	assert_true(row_of("Results NOT saved to files: no results files were opened") > 5);
}

/* The check's own lines as the harness prints them on a simulated K8
 * (the contract between tests/checks/event_semantics.c and the screen):
 * its catalogue's coverage right under its row, then one row per event
 * line that FAILed. */
static unsigned ev_fail_lines;

static void count_line(void *ctx, const char *s)
{
	(void)ctx;
	ev_fail_lines += strncmp(s, "  event: FAIL ", 14) == 0;
	screen_line(&scr, s);
}

static void harness_event_rows_on_screen(void **state)
{
	static struct harness h;
	static struct suite s;
	const struct platform p = {.line = count_line, .status = rec_status};

	(void)state;
	assert_int_equal(sim_start("opteron", SF_NONE), 0);
	memset(cells, 0, sizeof(cells));
	screen_init(&scr, 128, 40, cells);
	n_seen = ev_fail_lines = 0;
	h.suite = &s;
	options_default(&h.opt);
	strcpy(h.opt.checks, "event.semantics");
	harness_run(&p, &h);
	render();
	int r = row_of("  event.semantics  ");
	assert_true(r > 5);
	assert_non_null(strstr(text[r + 1], "    amd-k8: "));
	assert_non_null(strstr(text[r + 1], " events validated, "));
	assert_int_equal(rows_with("    FAIL "), ev_fail_lines);
	assert_int_equal(s.n_ev_cov, 1);
	assert_true(s.n_ev_rows > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(header_80x25),
	    cmocka_unit_test(rows_cut_at_words),
	    cmocka_unit_test(skips_grouped),
	    cmocka_unit_test(hidden_rows_counted),
	    cmocka_unit_test(verdict_box_pass),
	    cmocka_unit_test(verdict_box_colours_and_not_saved),
	    cmocka_unit_test(crash_panel),
	    cmocka_unit_test(new_run_clears),
	    cmocka_unit_test(config_errors_kept),
	    cmocka_unit_test(harness_feeds_the_screen),
	    cmocka_unit_test(event_coverage_and_failures),
	    cmocka_unit_test(event_failures_kept),
	    cmocka_unit_test(harness_event_rows_on_screen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
