/* A parallel per-CPU run (cpu_job.h "A parallel run"): the platform-neutral
 * part. Every selected CPU runs the suite at once into its own output
 * buffer and its own share of the results tables (suite.h
 * suite_share_begin); once all are back the boot CPU prints the lines in
 * CPU order and gathers the shares, so the log, the JSON and LAVA read as
 * a serial run's. */
#include "cpu_job.h"
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/percpu.h"

/* What one job adds besides its buffer: its results and further failures
 * are shares of the run's tables, reserved by suite_cpus_select. */
static unsigned per_cpu(const struct suite *s)
{
	return suite_selected(s->opt) + SUITE_CPU_RUN_RESULTS;
}

/* The job and stack memory: one block for the jobs and their buffers, one
 * for the stacks (aligned inside). */
static bool par_alloc(struct cpu_par *p, const struct platform *pf, unsigned k)
{
	size_t jobs = (size_t)k * (sizeof(struct cpu_job) + CPU_JOB_BUF);
	size_t stacks = pcpu_region_bytes(k);
	char *m = stacks ? pf->alloc(pf->ctx, jobs) : 0;
	void *st = m ? pf->alloc(pf->ctx, stacks) : 0;

	if (!st) {
		if (m)
			pf->free(pf->ctx, m);
		return false;
	}
	p->mem = m;
	p->stack_mem = st;
	p->jobs = (struct cpu_job *)(void *)m;
	for (unsigned i = 0; i < k; i++)
		p->jobs[i].buf = m + (size_t)k * sizeof(struct cpu_job) + (size_t)i * CPU_JOB_BUF;
	p->stacks = pcpu_region_init(st, k);
	return p->stacks != 0;
}

/* Each job's wave, its thread within its core (the boot CPU's share runs
 * first, whatever its thread: it is the run's own), and the line that
 * says so where there is more than one. */
static void waves(struct cpu_par *p, const uint32_t *flags)
{
	p->waves = 1;
	for (unsigned i = 0; i < p->k; i++) {
		uint32_t f = flags[p->sel[i]];
		struct cpu_job *j = &p->jobs[i];
		j->wave = f & CPUSEL_BSP ? 0 : CPUSEL_THREAD_OF(f);
		if (j->wave + 1 > p->waves)
			p->waves = j->wave + 1;
	}
	if (p->waves > 1)
		suite_emit(p->s,
			   "cpus: %u CPUs at once, a core's threads one at a time (%u waves): "
			   "SMT threads share their core's caches and predictors",
			   p->k, p->waves);
}

bool cpu_par_prepare(struct cpu_par *p, struct suite *s, const uint32_t *flags, const uint16_t *sel,
		     unsigned k)
{
	const struct platform *pf = s->platform;
	unsigned per = per_cpu(s);

	pmh_memset(p, 0, sizeof(*p));
	p->s = s;
	p->sel = sel;
	p->k = k;
	p->boot = suite_bound(s);
	p->results_base = s->n_results;
	p->more_base = s->n_more;
	if (p->boot.pmu && p->boot.pmu->smt_shared) {
		suite_emit(s,
			   "cpus: %s's counters are shared by the logical processors of a "
			   "core: running the CPUs one after another",
			   p->boot.pmu->name);
		return false;
	}
	/* suite_cpus_select reserved per results for each of the k CPUs */
	if (s->cap_results - s->n_results < k * per) {
		suite_emit(s,
			   "warning: cpus: no room for %u CPUs' results at once: running them "
			   "one after another",
			   k);
		return false;
	}
	p->more_per = (s->cap_more - s->n_more) / k;
	if (!pf || !pf->alloc || !pf->free || !par_alloc(p, pf, k)) {
		suite_emit(s,
			   "warning: cpus: no memory to run %u CPUs at once (%u KiB each for a "
			   "stack and output): running them one after another",
			   k, (unsigned)((PCPU_STACK + CPU_JOB_BUF) / 1024));
		return false;
	}
	for (unsigned i = 0; i < k; i++) {
		struct cpu_job *j = &p->jobs[i];
		char *buf = j->buf;
		pmh_memset(j, 0, sizeof(*j));
		j->buf = buf;
		j->s = s;
		cpu_job_reset(j, sel[i]);
		suite_note_cpu(s, sel[i]); /* every record made before any CPU runs */
	}
	waves(p, flags);
	p->t0 = hw_rdtsc();
	return true;
}

void cpu_par_enter(struct cpu_par *p, unsigned i)
{
	struct suite *s = p->s;
	struct cpu_job *j = &p->jobs[i];
	unsigned per = per_cpu(s);

	suite_share_begin(s, &s->results[p->results_base + i * per], per,
			  &s->more[p->more_base + i * p->more_per], p->more_per);
	/* on a stack of the run, its own state: identified there, as an AP,
	 * once its wave has come; the boot CPU on the firmware's stack keeps
	 * the run's (percpu.h) and goes first */
	if (hw_cpu_local()) {
		while (__atomic_load_n(&p->wave_now, __ATOMIC_ACQUIRE) < j->wave)
			hw_relax();
		cpu_job_run(j);
	} else {
		cpu_job_run_bound(j, &p->boot);
	}
	j->n_results = suite_share_end(s);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

void cpu_par_not_started(struct cpu_par *p, unsigned i, const char *why)
{
	struct cpu_job *j = &p->jobs[i];

	cpu_par_fail(p, i, why); /* its share is empty: the FAIL is its first */
	j->not_started = true;
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

void cpu_par_halted(struct cpu_par *p, unsigned i)
{
	p->jobs[i].halted = true;
}

/* Whether every job of waves up to w is done. */
static bool wave_done(const struct cpu_par *p, unsigned w)
{
	for (unsigned i = 0; i < p->k; i++)
		if (p->jobs[i].wave <= w && !__atomic_load_n(&p->jobs[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

bool cpu_par_all_done(struct cpu_par *p)
{
	unsigned w = __atomic_load_n(&p->wave_now, __ATOMIC_ACQUIRE);

	while (w + 1 < p->waves && wave_done(p, w))
		__atomic_store_n(&p->wave_now, ++w, __ATOMIC_RELEASE);
	return wave_done(p, p->waves - 1);
}

void cpu_par_note(struct cpu_par *p, unsigned i, const char *line)
{
	cpu_job_note(&p->jobs[i], line);
}

void cpu_par_fail(struct cpu_par *p, unsigned i, const char *msg)
{
	struct suite *s = p->s;
	struct cpu_job *j = &p->jobs[i];
	unsigned per = per_cpu(s);

	suite_share_begin(s, &s->results[p->results_base + i * per + j->n_results],
			  per - j->n_results, 0, 0);
	cpu_job_fail(j, &p->boot, msg);
	j->n_results += suite_share_end(s);
}

/* Job i's lines; a crash's FAIL goes into its share, after its results
 * (the share has room for it: SUITE_CPU_RUN_RESULTS). A job that never
 * came back may still write its share: nothing of it is read, and its
 * FAIL comes after the gathering (stuck). */
static void finish_one(struct cpu_par *p, unsigned i, unsigned *n, bool *stuck)
{
	struct cpu_job *j = &p->jobs[i];

	stuck[i] = !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
	p->kept |= stuck[i] && !j->halted;
	if (!stuck[i] && j->crashed)
		cpu_par_fail(p, i, "the run stopped after an unexpected exception (see above)");
	n[i] = stuck[i] ? 0 : j->n_results;
	cpu_job_emit(j);
}

/* Each CPU's counts from its record; its PMU usable where its job came
 * back with one. */
static void counts(const struct cpu_par *p, struct cpu_run *runs)
{
	for (unsigned i = 0; i < p->k; i++) {
		const struct cpu_record *r = suite_cpu_record(p->s, p->sel[i]);
		const struct cpu_job *j = &p->jobs[i];
		runs[i].cpu = p->sel[i];
		pmh_memset(&runs[i].n, 0, sizeof(runs[i].n));
		if (r)
			runs[i].n = r->n;
		runs[i].n.pmu_usable = __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) &&
				       !j->not_started && j->pmu.status == PMU_FUNCTIONAL;
	}
}

void cpu_par_finish(struct cpu_par *p, struct cpu_run *runs, unsigned timed_out_s)
{
	struct suite *s = p->s;
	unsigned n[SUITE_MAX_CPUS];
	bool stuck[SUITE_MAX_CPUS] = {false};
	char line[160];

	suite_bind_cpu(s, &p->boot);
	for (unsigned i = 0; i < p->k; i++)
		finish_one(p, i, n, stuck);
	/* the further failures stay where each share wrote them; with a CPU
	 * still running, its tables are left to it: the others' results are
	 * gathered into new ones */
	s->n_more = p->more_base + p->k * p->more_per;
	suite_gather_shares(s, p->results_base, per_cpu(s), n, p->k, p->kept);
	for (unsigned i = 0; i < p->k; i++) {
		if (!stuck[i])
			continue;
		if (p->jobs[i].halted)
			pmh_strlcpy(line, "the CPU stopped for good before its run finished",
				    sizeof(line));
		else
			pmh_fmt(line, sizeof(line),
				"the run did not finish within %u s (every CPU started at once)",
				timed_out_s);
		suite_fail_cpu(s, p->sel[i], line);
	}
	counts(p, runs);
	suite_cpus_end(s, p->t0, runs, p->k, "at once");
	if (p->kept)
		return; /* a CPU still running uses its stack, block and buffer */
	pcpu_stacks_register(0, 0);
	s->platform->free(s->platform->ctx, p->stack_mem);
	s->platform->free(s->platform->ctx, p->mem);
}
