/* Every selected CPU at once (tests/cpu_par.c, host/sim/sim_par.c): the
 * simulated CPUs' shares run as fibers that take turns inside checks, so
 * a run in parallel must give what the same run one CPU after another
 * gives (ids, CPUs, verdicts, in CPU order; lines grouped per CPU), and
 * the per-CPU state (pmu/percpu.h) is what makes it so: with every AP on
 * one shared block, the same interleaved run goes wrong. Also: the PMU a
 * core's threads share runs the CPUs one after another, and a run
 * without the memory for it says so and runs them serially. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../pmu/percpu.h"
#include "../../tests/cpu_job.h"
#include "../../tests/harness.h"
#include "../sim/sim.h"

#define MAX_LINES 6000
#define LINE_MAX  320
#define SEEDS	  4

static char lines[MAX_LINES][LINE_MAX];
static unsigned n_lines;
static bool no_alloc; /* the allocator refuses everything */

static void rec(void *ctx, const char *s)
{
	(void)ctx;
	if (n_lines < MAX_LINES)
		snprintf(lines[n_lines++], LINE_MAX, "%s", s);
}

static void *t_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return no_alloc ? NULL : calloc(1, n);
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

/* One run's results as "id cpu verdict" lines, in the suite's order. */
struct outcome {
	char (*row)[64];
	unsigned n, failed;
};

static void run_checks(const char *model, const char *cpus, uint64_t seed, const char *checks,
		       struct outcome *o)
{
	static struct platform p = {.line = rec, .run_cpus = sim_run_cpus};
	char cpus_arg[32], checks_arg[160],
	    *argv[4] = {cpus_arg, "events=none", "repeat=3", checks_arg};

	p.alloc = t_alloc;
	p.free = t_free;
	snprintf(cpus_arg, sizeof(cpus_arg), "cpus=%s", cpus);
	snprintf(checks_arg, sizeof(checks_arg), "checks=%s", checks);
	n_lines = 0;
	memset(&h, 0, sizeof(h));
	h.suite = &suite;
	options_default(&h.opt);
	h.opt.on_finish = FINISH_RETURN;
	assert_int_equal(options_parse_args(&h.opt, 4, argv, opt_err, 0), 0);
	assert_int_equal(sim_start_real(model, SF_NONE, SIM_REALISM_ALL, seed), 0);
	harness_run(&p, &h);
	o->n = suite.n_results;
	o->failed = suite.failed;
	o->row = calloc(o->n ? o->n : 1, sizeof(*o->row));
	assert_non_null(o->row);
	for (unsigned i = 0; i < o->n; i++)
		snprintf(o->row[i], sizeof(o->row[i]), "%s %u %s", suite.results[i].id,
			 suite.results[i].cpu, verdict_name(suite.results[i].v));
}

static void run(const char *model, const char *cpus, uint64_t seed, struct outcome *o)
{
	run_checks(model, cpus, seed, "*", o);
}

static int line_of(const char *prefix)
{
	for (unsigned i = 0; i < n_lines; i++)
		if (!strncmp(lines[i], prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

/* The first FAIL line, for a message that says what went wrong. */
static const char *first_fail(void)
{
	for (unsigned i = 0; i < n_lines; i++)
		if (!strncmp(lines[i], "FAIL ", 5))
			return lines[i];
	return "(none)";
}

/* The hybrid part, healthy, over several seeds: the parallel run's results
 * are the serial run's, one for one and in order, and nothing fails. */
static void parallel_equals_serial(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct outcome a, b;
		run("alderlake", "serial", seed, &a);
		assert_int_equal(line_of("warning: cpus"), -1);
		run("alderlake", "all", seed, &b);
		if (b.failed)
			fail_msg("seed %llu: %s", (unsigned long long)seed, first_fail());
		assert_int_equal(line_of("warning: cpus"), -1); /* it did run at once */
		assert_int_equal(a.n, b.n);
		assert_true(a.n > 4 * 40); /* every CPU's every check */
		for (unsigned i = 0; i < a.n; i++)
			assert_string_equal(a.row[i], b.row[i]);
		assert_int_equal(a.failed, 0);
		free(a.row);
		free(b.row);
	}
}

/* The lines come CPU by CPU: CPU n's identity after every line of CPU
 * n - 1's checks, and the verdict lines after all of them, in order. */
static void lines_in_cpu_order(void **st)
{
	struct outcome o;
	char want[32];
	int last = -1;

	(void)st;
	run("alderlake", "all", 3, &o);
	for (unsigned n = 1; n < 4; n++) {
		snprintf(want, sizeof(want), "cpu.%u.identity:", n);
		int at = line_of(want);
		assert_true(at > last);
		for (unsigned i = (unsigned)last + 1; last >= 0 && i < (unsigned)at; i++)
			assert_null(strstr(lines[i], want)); /* nothing of CPU n before */
		last = at;
	}
	for (unsigned n = 0; n < 4; n++) {
		snprintf(want, sizeof(want), "cpu.%u.verdict: PASS", n);
		int at = line_of(want);
		assert_true(at > last);
		last = at;
	}
	free(o.row);
}

/* The fault the per-CPU state exists for: every AP on one shared block
 * (state shared between CPUs, as a global would be), the same interleaved
 * run fails or loses results on every seed. */
static void shared_state_is_caught(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct outcome a, b;
		run("alderlake", "serial", seed, &a);
		sim_par_share_blocks(true);
		run("alderlake", "all", seed, &b);
		sim_par_share_blocks(false);
		bool same = a.n == b.n && b.failed == 0;
		for (unsigned i = 0; same && i < a.n; i++)
			same = !strcmp(a.row[i], b.row[i]);
		if (same)
			fail_msg("seed %llu: one block shared by every AP went unnoticed",
				 (unsigned long long)seed);
		free(a.row);
		free(b.row);
	}
}

/* 256 CPUs of two core types at once (the checks that need a PMI, a
 * counter of each kind and CPL 3): every result of every CPU, none
 * dropped, in CPU order. */
static void manycore_at_once(void **st)
{
	struct outcome o;
	unsigned per[256] = {0};

	(void)st;
	run_checks("manycore", "all", 1,
		   "pmu.probe,counter.width,overflow.pmi,count.fixed,count.user,apic.self-ipi", &o);
	assert_int_equal(line_of("warning: cpus"), -1);
	assert_int_equal(suite.dropped, 0);
	assert_int_equal(o.failed, 0);
	for (unsigned i = 0; i < suite.n_results; i++) {
		assert_true(suite.results[i].cpu < 256);
		/* in CPU order */
		assert_true(i == 0 || suite.results[i - 1].cpu <= suite.results[i].cpu);
		per[suite.results[i].cpu]++;
	}
	for (unsigned c = 1; c < 256; c++)
		assert_int_equal(per[c], per[0]);
	assert_int_equal(per[0], 6);
	assert_int_equal(suite.passed, 256 * 6);
	free(o.row);
}

/* No memory for the stacks and buffers: said, and the CPUs run serially
 * with every result kept. */
static void no_memory_runs_serially(void **st)
{
	struct outcome a, b;

	(void)st;
	run("alderlake", "serial", 2, &a);
	no_alloc = true;
	run("alderlake", "all", 2, &b);
	no_alloc = false;
	assert_true(line_of("warning: cpus: no memory to run 4 CPUs at once") >= 0);
	assert_int_equal(a.n, b.n);
	for (unsigned i = 0; i < a.n; i++)
		assert_string_equal(a.row[i], b.row[i]);
	free(a.row);
	free(b.row);
}

/* A suite bound to a boot CPU whose PMU is pmu, with room for k CPUs, for
 * cpu_par_prepare without running anything; and what the preparing took. */
static struct {
	struct platform p;
	struct options o;
	struct cpu_info ci;
	struct apic_info ai;
	struct suite s;
} fx;

static struct suite *fixture(struct pmu *pmu, unsigned k)
{
	fx.p = (struct platform){.line = rec, .alloc = t_alloc, .free = t_free};
	options_default(&fx.o);
	fx.o.all_cpus = true;
	n_lines = 0;
	suite_init(&fx.s, &fx.o, &fx.ci, pmu, &fx.ai, (struct sink){rec, 0, 0});
	fx.s.platform = &fx.p;
	assert_int_equal(suite_reserve(&fx.s, k), k);
	return &fx.s;
}

static void unprepare(struct cpu_par *par)
{
	pcpu_stacks_register(0, 0);
	free(par->stack_mem);
	free(par->mem);
}

/* A PMU the logical processors of a core share (NetBurst with HT) makes
 * cpu_par_prepare refuse, saying why. */
static void smt_shared_pmu_runs_serially(void **st)
{
	struct pmu pmu = {.smt_shared = true, .name = "intel-netburst"};
	struct suite *s = fixture(&pmu, 2);
	struct cpu_par par;
	uint16_t sel[2] = {0, 1};
	uint32_t flags[2] = {CPUSEL_BSP | CPUSEL_ENABLED, CPUSEL_ENABLED};

	(void)st;
	assert_false(cpu_par_prepare(&par, s, flags, sel, 2));
	assert_true(line_of("cpus: intel-netburst's counters are shared by the logical processors "
			    "of a core: running the CPUs one after another") >= 0);
	pmu.smt_shared = false;
	assert_true(cpu_par_prepare(&par, s, flags, sel, 2));
	unprepare(&par);
	suite_release(s);
}

/* SMT: a core's threads in waves by their thread index (the boot CPU's
 * share first whatever its thread): wave 1 starts only once every job of
 * wave 0 is done, and the run is done only when every job is. */
static void smt_threads_in_waves(void **st)
{
	struct pmu pmu = {.name = "intel-arch"};
	struct suite *s = fixture(&pmu, 4);
	struct cpu_par par;
	uint16_t sel[4] = {0, 1, 2, 3};
	uint32_t flags[4] = {CPUSEL_BSP | CPUSEL_ENABLED | CPUSEL_THREAD(1),
			     CPUSEL_ENABLED | CPUSEL_THREAD(1), CPUSEL_ENABLED,
			     CPUSEL_ENABLED | CPUSEL_THREAD(1)};

	(void)st;
	assert_true(cpu_par_prepare(&par, s, flags, sel, 4));
	assert_true(line_of("cpus: 4 CPUs at once, a core's threads one at a time (2 waves)") >= 0);
	assert_int_equal(par.waves, 2);
	assert_int_equal(par.jobs[0].wave, 0); /* the boot CPU goes first */
	assert_int_equal(par.jobs[1].wave, 1);
	assert_int_equal(par.jobs[2].wave, 0);
	assert_int_equal(par.jobs[3].wave, 1);
	par.jobs[1].done = 1; /* a thread of wave 1 done early moves nothing */
	assert_false(cpu_par_all_done(&par));
	assert_int_equal(par.wave_now, 0);
	par.jobs[0].done = 1;
	assert_false(cpu_par_all_done(&par));
	assert_int_equal(par.wave_now, 0);
	par.jobs[2].done = 1; /* wave 0 done: wave 1 starts */
	assert_false(cpu_par_all_done(&par));
	assert_int_equal(par.wave_now, 1);
	par.jobs[3].done = 1;
	assert_true(cpu_par_all_done(&par));
	unprepare(&par);
	/* one thread a core: one wave, no line */
	for (unsigned i = 0; i < 4; i++)
		flags[i] &= ~CPUSEL_THREAD(CPUSEL_THREAD_MAX);
	s = fixture(&pmu, 4);
	assert_true(cpu_par_prepare(&par, s, flags, sel, 4));
	assert_int_equal(par.waves, 1);
	assert_int_equal(line_of("cpus: "), -1);
	unprepare(&par);
	suite_release(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parallel_equals_serial),
	    cmocka_unit_test(lines_in_cpu_order),
	    cmocka_unit_test(shared_state_is_caught),
	    cmocka_unit_test(manycore_at_once),
	    cmocka_unit_test(no_memory_runs_serially),
	    cmocka_unit_test(smt_shared_pmu_runs_serially),
	    cmocka_unit_test(smt_threads_in_waves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
