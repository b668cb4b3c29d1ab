/* The suite on another CPU, the part every platform shares (boot/mp.c over
 * UEFI's MP Services, pc/mp.c over INIT-SIPI-SIPI): the AP's run into a
 * buffer of lines, those lines on the boot CPU afterwards, and the loop
 * over the selected CPUs with one verdict line each. How an AP is started,
 * on which stack, and how long it is waited for is the platform's. */
#ifndef PMH_TESTS_CPU_JOB_H
#define PMH_TESTS_CPU_JOB_H

#include "cpu_select.h"
#include "harness.h"
#include "suite.h"

#define CPU_JOB_BUF (64 * 1024) /* output lines of one AP run */

/* Everything one AP run uses; buf (CPU_JOB_BUF bytes) from the platform. */
struct cpu_job {
	struct suite *s;
	unsigned cpu;
	struct cpu_info ci;
	struct pmu pmu;
	struct apic_info apic;
	char *buf; /* NUL-separated lines */
	size_t len;
	unsigned lost; /* lines that did not fit */
	volatile int done;
	volatile int crashed; /* recovered from an unexpected exception */
	/* the exception and the check it stopped, kept on the CPU that took
	 * it (each CPU has its own interrupt state) for cpu_job_emit */
	struct int_frame fatal;
	bool have_fatal;
	const char *crashed_in;
	/* a parallel run: the results its share holds, and where the boot
	 * CPU's share sends its progress (the screen) */
	unsigned n_results;
	struct sink fwd;
	struct isr_fatal fatal_was; /* the boot CPU's share: the platform's */
	/* never started (cpu_par_not_started), or stopped for good with no
	 * way back (a platform that knows: cpu_par_halted); either way
	 * nothing of it runs any more */
	bool not_started, halted;
	unsigned wave; /* its thread within its core: its turn (cpu_par.h) */
};

/* Before an AP is started on j for CPU cpu. */
void cpu_job_reset(struct cpu_job *j, unsigned cpu);
/* On the AP, with the harness's IDT loaded there: identifies the AP's
 * APIC and PMU, runs the suite into j's buffer (an unexpected exception
 * sets crashed and ends it), and releases what the run changed. The
 * caller sets done once the AP is back in its own state. */
void cpu_job_run(struct cpu_job *j);
/* The same on a CPU that keeps the binding b (the boot CPU's share of a
 * parallel run, on the firmware's stack with the run's own state:
 * percpu.h): no identification, b's progress kept; an exception ends the
 * share as it ends an AP's, and the platform's recovery comes back. */
void cpu_job_run_bound(struct cpu_job *j, const struct suite_cpu *b);
/* On the boot CPU: CPU j->cpu's run as a whole failed for why, its FAIL
 * line into j's buffer (b: the binding to come back to). */
void cpu_job_fail(struct cpu_job *j, const struct suite_cpu *b, const char *why);
/* A line into j's buffer, printed with its lines. */
void cpu_job_note(struct cpu_job *j, const char *line);
/* On the boot CPU after the AP's run: its lines, lost lines and crash. */
void cpu_job_emit(const struct cpu_job *j);

/* The selected CPUs in turn (sel[0..k), flags cpu_select's), then one
 * verdict line each. run_ap runs the suite on AP cpu with job (NULL: no
 * memory for it; the run is a FAIL then) and returns true when the AP may
 * still be running. Returns true when one may. */
struct cpu_jobs {
	bool (*run_ap)(void *ctx, struct cpu_job *job, unsigned cpu);
	void *ctx;
	struct cpu_job *job;
};
bool cpu_jobs_run(const struct cpu_jobs *m, struct harness *h, const uint32_t *flags,
		  const uint16_t *sel, unsigned k, struct cpu_run *runs);
/* True when sel[0..k) names a CPU other than the boot CPU. */
bool cpu_jobs_need_ap(const uint32_t *flags, const uint16_t *sel, unsigned k);

/* A parallel run (cpus = all, docs/user-guide.md "Options"): every selected CPU runs
 * the suite at once, the boot CPU among them, each on its own stack with
 * its own per-CPU state (pmu/percpu.h), output buffer and share of the
 * results tables; the lines are printed in CPU order once all are back.
 * The platform's part:
 *   1. cpu_par_prepare (on the boot CPU, before any AP starts);
 *   2. start every AP i (sel[i] not the boot CPU) so that it calls
 *      cpu_par_enter(p, i) on the top of its stack, pcpu_stack_top(
 *      p->stacks, i), with the harness's IDT loaded, and puts its own
 *      state back afterwards; then the boot CPU's own share, the same
 *      call on its own stack (if it is selected);
 *   3. wait for every job's done, bounded (CPU_PAR_TIMEOUT_US from the
 *      start), on the boot CPU's stack of the run;
 *   4. cpu_par_finish, back on the firmware's stack. */
#define CPU_PAR_TIMEOUT_US 120000000ull /* the whole suite on every CPU at once, a wave */
struct cpu_par {
	struct suite *s;
	const uint16_t *sel;
	unsigned k;
	struct cpu_job *jobs;			    /* jobs[i] runs on CPU sel[i] */
	uintptr_t stacks;			    /* pcpu_region_init's base: stack i, block i */
	void *mem, *stack_mem;			    /* the run's allocations, from s->platform */
	struct suite_cpu boot;			    /* the boot CPU's binding, the run's own */
	unsigned results_base, more_base, more_per; /* the shares' places */
	uint64_t t0; /* the TSC when the jobs were ready, for cpus.elapsed_us */
	/* SMT: a core's threads run one at a time, in waves by their thread
	 * index (CPUSEL_THREAD_OF): wave w starts once every job of the waves
	 * before it is done (cpu_par_all_done advances it) */
	unsigned waves;
	volatile unsigned wave_now;
	/* a job that never came back keeps its memory (kept = true) */
	bool kept;
};
/* Memory for k jobs (buffers, stacks and per-CPU blocks, the results
 * shares) from the platform's allocator; false, with the line that says
 * so, when there is not enough: the caller runs the CPUs serially. */
bool cpu_par_prepare(struct cpu_par *p, struct suite *s, const uint32_t *flags, const uint16_t *sel,
		     unsigned k);
/* Job i on its own CPU: the suite into its buffer and share, then done.
 * Must run on stack i (its per-CPU block is found from the stack). */
void cpu_par_enter(struct cpu_par *p, unsigned i);
/* On the boot CPU after the wait: each job's lines in CPU order, a FAIL
 * "cpu.run" for a job that did not finish ("did not finish within N s";
 * its memory is kept), the results gathered in CPU order, the event rows
 * and findings sorted by CPU, and one verdict line per CPU. timed_out_s:
 * the bound the platform waited for, for the message. */
void cpu_par_finish(struct cpu_par *p, struct cpu_run *runs, unsigned timed_out_s);
/* On the boot CPU, before the wait: CPU sel[i] was never started (why):
 * its FAIL in its place, and its job done. */
void cpu_par_not_started(struct cpu_par *p, unsigned i, const char *why);
/* On the boot CPU after CPU sel[i]'s run: a line of its own among its
 * lines, and a FAIL "cpu.run" of its run as a whole (in its share, after
 * its results: the share has room for SUITE_CPU_RUN_RESULTS). */
void cpu_par_note(struct cpu_par *p, unsigned i, const char *line);
void cpu_par_fail(struct cpu_par *p, unsigned i, const char *msg);
/* CPU sel[i] stopped for good without finishing (its memory can go). */
void cpu_par_halted(struct cpu_par *p, unsigned i);
/* Whether every job is done; the boot CPU's wait loop calls it, and it
 * starts the next wave once every job of the current one is. */
bool cpu_par_all_done(struct cpu_par *p);

#endif
