/* Every result of every CPU is kept (tests/suite.c suite_reserve): the
 * simulated "manycore" machine (host/sim/model_manycore.c, 256 CPUs, whose
 * run this file pins) with cpus = all keeps each CPU's every result in the
 * suite and in the JSON, the screen's grouped counts and the per-CPU
 * verdict lines agree with the JSON; the suite holds 1,024 CPUs; and where
 * memory runs out the run says how many CPUs fit before it starts them,
 * runs those, and its verdict is ERROR with the results missing counted. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/cpu_select.h"
#include "../../tests/harness.h"
#include "../../tests/screen.h"
#include "../sim/sim.h"

/* Cheap checks: four that pass on every CPU, two that SKIP on every CPU
 * for their own reasons (no NetBurst PEBS, no AMD IBS), so that the
 * screen groups them. */
#define CHECKS	  "pmu.probe,counter.width,rdpmc,apic.lvt-pc,pebs.netburst,ibs.sample"
#define N_CHECKS  6
#define MANY	  256
#define MAX_LINES 4096
#define LINE_MAX  320

static char lines[MAX_LINES][LINE_MAX];
static unsigned n_lines, n_lost;
static struct screen scr;
static struct screen_cell cells[160 * 50];
static size_t budget; /* the allocator fails above this many bytes; 0: never */
static unsigned n_allocs;

static void rec(void *ctx, const char *s)
{
	(void)ctx;
	screen_line(&scr, s);
	if (n_lines < MAX_LINES)
		snprintf(lines[n_lines++], LINE_MAX, "%s", s);
	else
		n_lost++;
}

static void rec_status(void *ctx, const struct screen_event *ev)
{
	(void)ctx;
	screen_event(&scr, ev);
}

static void *t_alloc(void *ctx, size_t n)
{
	(void)ctx;
	if (budget && n > budget)
		return NULL;
	n_allocs++;
	return calloc(1, n);
}

static void t_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static void opt_err(void *ctx, const char *msg)
{
	(void)ctx;
	fail_msg("option refused: %s", msg);
}

static struct harness h;
static struct suite suite;

/* The harness on manycore (every realism effect, seed 1) with cpus = all
 * and CHECKS, the allocator failing above limit bytes (0: never; alloc
 * false: no allocator). */
static enum pmh_exit run_many(size_t limit, bool alloc)
{
	/* static: the suite keeps it for the JSON after the run */
	static struct platform p = {.line = rec, .status = rec_status, .run_cpus = sim_run_cpus};
	char *argv[] = {"cpus=all", "checks=" CHECKS};

	p.alloc = alloc ? t_alloc : NULL;
	p.free = alloc ? t_free : NULL;
	n_lines = n_lost = n_allocs = 0;
	budget = limit;
	screen_init(&scr, 160, 50, cells);
	memset(&h, 0, sizeof(h));
	h.suite = &suite;
	options_default(&h.opt);
	h.opt.on_finish = FINISH_RETURN;
	assert_int_equal(options_parse_args(&h.opt, 2, argv, opt_err, 0), 0);
	assert_int_equal(suite_selected(&h.opt), N_CHECKS);
	assert_int_equal(sim_start_real("manycore", SF_NONE, SIM_REALISM_ALL, 1), 0);
	assert_int_equal(sim_cpu_count(), MANY);
	return harness_run(&p, &h);
}

/* The first line that starts with prefix, or -1. */
static int line_of(const char *prefix)
{
	for (unsigned i = 0; i < n_lines; i++)
		if (!strncmp(lines[i], prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

/* The suite's JSON document (malloc'd). */
static char *json_of(const struct suite *s)
{
	char probe[1];
	size_t cap = report_json(s, probe, sizeof(probe)) + 64;
	char *j = malloc(cap);

	assert_non_null(j);
	assert_true(report_json(s, j, cap) < cap);
	return j;
}

/* The JSON's results per CPU: how many, and of each verdict; the SKIPs
 * whose detail is why (NULL: none counted); returns the results. */
struct per_cpu {
	unsigned ids, pass, fail, skip;
};
static unsigned json_results(const char *j, struct per_cpu *pc, unsigned n_cpus, const char *why,
			     unsigned *skips)
{
	const char *p = strstr(j, "\"results\": ["), *end = p ? strstr(p, "\n  ]") : NULL;
	unsigned n = 0, cpu;
	char v[8];

	assert_non_null(end);
	memset(pc, 0, n_cpus * sizeof(*pc));
	*skips = 0;
	while ((p = strstr(p + 1, "{\"id\": ")) && p < end) {
		const char *c = strstr(p, "\"cpu\": ");
		assert_int_equal(sscanf(c, "\"cpu\": %u, \"verdict\": \"%4[A-Z]\"", &cpu, v), 2);
		assert_true(cpu < n_cpus);
		pc[cpu].ids++;
		pc[cpu].pass += !strcmp(v, "PASS");
		pc[cpu].fail += !strcmp(v, "FAIL");
		pc[cpu].skip += !strcmp(v, "SKIP");
		if (why && !strcmp(v, "SKIP") &&
		    !strncmp(strstr(c, "\"detail\": \"") + 11, why, strlen(why)))
			(*skips)++;
		n++;
	}
	return n;
}

/* The screen as text: the row holding needle, or NULL. */
static const char *screen_row(const char *needle, char *row)
{
	screen_render(&scr);
	for (unsigned r = 0; r < scr.h; r++) {
		for (unsigned c = 0; c < scr.w; c++)
			row[c] = cells[r * scr.w + c].ch;
		row[scr.w] = 0;
		if (strstr(row, needle))
			return row;
	}
	return NULL;
}

/* The screen's rows: results shown (PASS rows, a shared reason's two
 * rows as one), plus those it says are hidden. */
static unsigned screen_rows(void)
{
	char row[200];
	unsigned shown = 0, hidden = 0;

	screen_render(&scr);
	for (unsigned r = 0; r < scr.h; r++) {
		for (unsigned c = 0; c < scr.w; c++)
			row[c] = cells[r * scr.w + c].ch;
		row[scr.w] = 0;
		shown += !strncmp(row, " PASS  ", 7) || strstr(row, " skipped: ") != NULL;
		sscanf(row, " ... %u more rows hidden", &hidden);
	}
	return shown + hidden;
}

/* Each CPU's results in the suite: every selected check once. */
static void every_cpu_complete(const struct suite *s, unsigned n_cpus)
{
	static unsigned per[1024];

	memset(per, 0, sizeof(per));
	for (unsigned i = 0; i < s->n_results; i++) {
		assert_true(s->results[i].cpu < n_cpus);
		per[s->results[i].cpu]++;
	}
	for (unsigned c = 0; c < n_cpus; c++)
		if (per[c] != N_CHECKS)
			fail_msg("cpu %u: %u results, expected %u", c, per[c], N_CHECKS);
	assert_int_equal(s->n_cpus, n_cpus);
}

/* 256 CPUs: every result in the suite and the JSON; the screen's grouped
 * SKIP count and each cpu.N.verdict line agree with the JSON. */
static void every_result_of_256_cpus(void **st)
{
	static struct per_cpu pc[MANY];
	char row[200], want[LINE_MAX];
	const char *why = "no NetBurst PEBS";
	unsigned skips, p, f, k;

	(void)st;
	assert_int_equal(run_many(0, true), PMH_EXIT_PASS);
	assert_int_equal(n_lost, 0);
	assert_int_equal(suite.n_results, MANY * N_CHECKS);
	assert_int_equal(suite.dropped, 0);
	every_cpu_complete(&suite, MANY);
	char *j = json_of(&suite);
	assert_int_equal(json_results(j, pc, MANY, why, &skips), MANY * N_CHECKS);
	for (unsigned c = 0; c < MANY; c++) {
		assert_int_equal(pc[c].ids, N_CHECKS);
		snprintf(want, sizeof(want), "cpu.%u.verdict: PASS (", c);
		int l = line_of(want);
		assert_true(l >= 0);
		assert_int_equal(
		    sscanf(lines[l] + strlen(want), "%u passed, %u failed, %u skipped", &p, &f, &k),
		    3);
		assert_int_equal(p, pc[c].pass);
		assert_int_equal(f, pc[c].fail);
		assert_int_equal(k, pc[c].skip);
	}
	assert_non_null(strstr(j, "\"dropped\": 0}"));
	assert_int_equal(skips, MANY); /* one check, every CPU */
	/* the screen counts every SKIP, not the rows it kept (160) */
	snprintf(want, sizeof(want), "%u skipped: %s", skips, why);
	assert_non_null(screen_row(want, row));
	assert_non_null(screen_row("SKIP pebs.netburst", row));
	/* every PASS a row, shown or counted hidden; each SKIP reason one */
	unsigned passes = 0;
	for (unsigned c = 0; c < MANY; c++)
		passes += pc[c].pass;
	assert_int_equal(screen_rows(), passes + 2);
	free(j);
}

/* The suite alone holds 1,024 CPUs' results (the selection's limit),
 * each CPU's record, and their JSON. */
static const struct pmu *on_boot_cpu(void *ctx, unsigned cpu, bool bsp)
{
	struct suite *s = ctx;
	(void)bsp;
	suite_run(s, cpu);
	return suite_bound(s).pmu;
}

static void suite_holds_1024_cpus(void **st)
{
	static uint32_t flags[SUITE_MAX_CPUS];
	static uint16_t sel[SUITE_MAX_CPUS];
	static struct cpu_run runs[SUITE_MAX_CPUS];
	static struct per_cpu pc[SUITE_MAX_CPUS];
	static const struct platform p = {.line = rec, .alloc = t_alloc, .free = t_free};
	struct suite_cpus w = {sel, runs, SUITE_MAX_CPUS, NULL};
	unsigned skips;

	(void)st;
	run_many(0, true); /* a run before: its tables go back at suite_init */
	for (unsigned i = 0; i < SUITE_MAX_CPUS; i++)
		flags[i] = CPUSEL_ENABLED | CPUSEL_HEALTHY | (i ? 0 : CPUSEL_BSP);
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	suite_init(&suite, &h.opt, &h.cpu, &h.pmu, &h.apic, (struct sink){rec, 0, 0});
	cpu_identify(&h.cpu);
	apic_detect(&h.apic);
	pmu_attach(&h.pmu, &h.cpu);
	report_start(&suite, &p, 0);
	n_lines = n_allocs = 0;
	suite_run_cpus(&suite, flags, SUITE_MAX_CPUS, &w, on_boot_cpu, &suite);
	assert_int_equal(n_allocs, 1); /* one block, sized before the first CPU */
	assert_int_equal(suite.n_results, SUITE_MAX_CPUS * N_CHECKS);
	assert_int_equal(suite.dropped, 0);
	every_cpu_complete(&suite, SUITE_MAX_CPUS);
	char *j = json_of(&suite);
	assert_int_equal(json_results(j, pc, SUITE_MAX_CPUS, NULL, &skips),
			 SUITE_MAX_CPUS * N_CHECKS);
	for (unsigned c = 0; c < SUITE_MAX_CPUS; c++)
		assert_int_equal(pc[c].ids, N_CHECKS);
	assert_int_equal(suite_verdict(&suite), RV_PASS);
	free(j);
	pmu_release(&h.pmu);
	suite_release(&suite);
}

/* The run says how many CPUs fit, before any runs, runs those with every
 * result, and its verdict is ERROR over the results missing. */
static void out_of_memory(size_t limit, bool alloc, unsigned lo, unsigned hi)
{
	char want[LINE_MAX], reason[160];
	unsigned asked, per, fit;

	assert_int_equal(run_many(limit, alloc), PMH_EXIT_ERROR);
	int l = line_of("error: cpus: out of memory for the results of ");
	assert_true(l >= 0);
	assert_int_equal(sscanf(lines[l],
				"error: cpus: out of memory for the results of %u CPUs "
				"(%u checks each): room for %u;",
				&asked, &per, &fit),
			 3);
	assert_int_equal(asked, MANY);
	assert_int_equal(per, N_CHECKS);
	assert_true(fit >= lo && fit <= hi);
	snprintf(want, sizeof(want), "CPU %u and the %u selected after it are not run", fit,
		 MANY - fit - 1);
	assert_non_null(strstr(lines[l], want));
	assert_true(line_of("cpu.1.identity:") > l); /* said before the CPUs ran */
	snprintf(want, sizeof(want), "cpu.%u.identity:", fit);
	assert_int_equal(line_of(want), -1);
	every_cpu_complete(&suite, fit);
	assert_int_equal(suite.dropped, (MANY - fit) * N_CHECKS);
	assert_int_equal(suite.cpus_not_run, MANY - fit);
	assert_int_equal(suite_verdict(&suite), RV_ERROR);
	snprintf(reason, sizeof(reason), "verdict: ERROR (%u results missing: CPUs not run",
		 suite.dropped);
	assert_true(line_of(reason) >= 0);
	char *j = json_of(&suite);
	snprintf(want, sizeof(want), "\"dropped\": %u}", suite.dropped);
	assert_non_null(strstr(j, want));
	assert_non_null(strstr(j, "\"verdict\": \"ERROR\""));
	free(j);
}

/* No block at all: the suite's own tables hold SUITE_OWN_CPUS records. */
static void allocator_fails(void **st)
{
	(void)st;
	out_of_memory(1, true, SUITE_OWN_CPUS, SUITE_OWN_CPUS);
	out_of_memory(0, false, SUITE_OWN_CPUS, SUITE_OWN_CPUS); /* no allocator */
}

/* A block for some CPUs and not all: the most that fit, more than the own
 * tables hold. */
static void allocator_runs_short(void **st)
{
	size_t cpu = N_CHECKS * (sizeof(struct result) + RESULT_MSG) + sizeof(struct cpu_record);

	(void)st;
	out_of_memory(40 * cpu, true, SUITE_OWN_CPUS + 1, 40);
}

/* Results past the table (a defect, no CPU left out): counted, said, and
 * the verdict ERROR, not a FAIL no failing result shows. */
static void table_full_is_error(void **st)
{
	static struct options o;
	struct cpu_info ci = {0};
	struct pmu p = {.status = PMU_FUNCTIONAL};
	struct apic_info ai = {0};

	(void)st;
	options_default(&o);
	n_lines = 0;
	suite_init(&suite, &o, &ci, &p, &ai, (struct sink){rec, 0, 0});
	for (unsigned i = 0; i < SUITE_OWN_RESULTS + 5; i++)
		suite_fail_cpu(&suite, i % SUITE_OWN_CPUS, "the run did not finish");
	assert_int_equal(suite.n_results, SUITE_OWN_RESULTS);
	assert_int_equal(suite.dropped, 5);
	assert_int_equal(suite_verdict(&suite), RV_ERROR);
	report_summary(&suite);
	char want[LINE_MAX];
	snprintf(want, sizeof(want), "error: 5 results did not fit in the results table of %u",
		 (unsigned)SUITE_OWN_RESULTS);
	assert_true(line_of(want) >= 0);
	assert_true(line_of("verdict: ERROR (5 results missing: the results table was full") >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_result_of_256_cpus), cmocka_unit_test(suite_holds_1024_cpus),
	    cmocka_unit_test(allocator_fails),		cmocka_unit_test(allocator_runs_short),
	    cmocka_unit_test(table_full_is_error),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
