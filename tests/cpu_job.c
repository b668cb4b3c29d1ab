/* The platform-neutral half of a per-CPU run (cpu_job.h). */
#include "cpu_job.h"
#include "../apic/pmi.h"
#include "../lib/str.h"

#include "../pmu/percpu.h"

/* for the fatal-exception report on the CPU that took it */
static struct cpu_job *cur_job PMH_PERCPU;

static void job_line(void *ctx, const char *s)
{
	struct cpu_job *j = ctx;
	size_t n = pmh_strlen(s) + 1;

	if (j->len + n > CPU_JOB_BUF) {
		j->lost++;
		return;
	}
	pmh_memcpy(j->buf + j->len, s, n);
	j->len += n;
}

/* The boot CPU's share shows its progress on the screen. */
static void job_progress(void *ctx, const char *id, unsigned i, unsigned n, unsigned cpu)
{
	const struct cpu_job *j = ctx;

	if (j->fwd.progress)
		j->fwd.progress(j->fwd.ctx, id, i, n, cpu);
}

void cpu_job_note(struct cpu_job *j, const char *line)
{
	job_line(j, line);
}

void cpu_job_fail(struct cpu_job *j, const struct suite_cpu *b, const char *why)
{
	suite_bind_cpu(j->s,
		       &(struct suite_cpu){b->cpu, b->pmu, b->apic, (struct sink){job_line, j, 0}});
	suite_fail_cpu(j->s, j->cpu, why);
	suite_bind_cpu(j->s, b);
}

static void job_fatal(const char *s)
{
	if (PCPU(cur_job))
		job_line(PCPU(cur_job), s);
}

void cpu_job_reset(struct cpu_job *j, unsigned cpu)
{
	j->cpu = cpu;
	j->len = 0;
	j->lost = 0;
	j->done = 0;
	j->crashed = 0;
	j->have_fatal = false;
	j->crashed_in = 0;
	j->pmu.status = PMU_ABSENT; /* until this AP has probed its own PMU */
}

/* After a recovered exception: what it was and where, kept on the CPU
 * that took it (each CPU has its own interrupt state). */
static void job_crashed(struct cpu_job *j)
{
	const struct int_frame *f = isr_last_fatal();

	j->crashed = 1;
	j->crashed_in = suite_running(j->s);
	j->have_fatal = f != 0;
	if (f)
		j->fatal = *f;
}

void cpu_job_run_bound(struct cpu_job *j, const struct suite_cpu *b)
{
	struct pmh_jmpbuf jb;

	j->fwd = b->out;
	j->pmu = *b->pmu;		/* what the verdict line reads */
	j->fatal_was = isr_fatal_now(); /* the platform's, back afterwards */
	PCPU(cur_job) = j;
	suite_bind_cpu(j->s, &(struct suite_cpu){b->cpu, b->pmu, b->apic,
						 (struct sink){job_line, j, job_progress}});
	if (pmh_setjmp(&jb)) {
		job_crashed(j);
		pmi_disarm(); /* also closes a PMI window the crash left open */
	} else {
		isr_set_fatal(job_fatal, &jb);
		suite_run(j->s, j->cpu);
	}
	isr_set_fatal(j->fatal_was.report, j->fatal_was.recover);
	PCPU(cur_job) = NULL;
	suite_bind_cpu(j->s, b);
}

void cpu_job_run(struct cpu_job *j)
{
	struct pmh_jmpbuf jb;

	PCPU(cur_job) = j;
	if (pmh_setjmp(&jb)) {
		job_crashed(j);
		goto out;
	}
	isr_set_fatal(job_fatal, &jb);
	/* An AP may run this with IF = 0 (one woken by INIT-SIPI starts with
	 * EFLAGS = 2, SDM Vol. 3A 9.1.1): the PMI checks open interrupts,
	 * with the TPR holding off every class below the PMI's, only for
	 * their windows and PMI waits (apic/pmi.c pmi_window_open, pmi_wait)
	 * and put IF back as they found it. */
	suite_run_other(j->s, j->cpu, &j->ci, &j->pmu, &j->apic, (struct sink){job_line, j});
out:
	isr_set_fatal(0, 0);
	pmi_disarm();	      /* also closes a PMI window a crash left open (TPR, IF) */
	pmu_release(&j->pmu); /* this AP's TSX force-abort and LIMIT_CPUID */
	cpu_restore(&j->ci);
	PCPU(cur_job) = NULL;
}

void cpu_job_emit(const struct cpu_job *j)
{
	for (size_t off = 0; off < j->len; off += pmh_strlen(j->buf + off) + 1)
		suite_emit(j->s, "%s", j->buf + off);
	if (j->lost)
		suite_emit(j->s, "warning: cpu.%u: %u output lines did not fit in the buffer",
			   j->cpu, j->lost);
	if (j->crashed) /* the AP's exception, for the log and the results JSON */
		report_crash_in(j->s, j->have_fatal ? &j->fatal : 0, j->crashed_in);
}

bool cpu_jobs_need_ap(const uint32_t *flags, const uint16_t *sel, unsigned k)
{
	for (unsigned i = 0; i < k; i++)
		if (!(flags[sel[i]] & CPUSEL_BSP))
			return true;
	return false;
}

/* The loop's state: which AP job runs, whether one ran and whether one
 * may still be running. */
struct jobs_run {
	const struct cpu_jobs *m;
	struct harness *h;
	bool ran_ap, stuck;
};

/* The suite on CPU cpu (the BSP's own run or an AP's): the PMU its checks
 * measured. */
static const struct pmu *run_one(void *ctx, unsigned cpu, bool bsp)
{
	struct jobs_run *r = ctx;
	struct suite *s = r->h->suite;

	if (bsp) {
		suite_run(s, cpu);
		return suite_bound(s).pmu;
	}
	if (!r->m->job) {
		suite_fail_cpu(s, cpu, "out of memory for the AP's stack and output buffer");
		return suite_bound(s).pmu;
	}
	r->stuck |= r->m->run_ap(r->m->ctx, r->m->job, cpu);
	r->ran_ap = true;
	return &r->m->job->pmu;
}

/* The APIC globals describe the last CPU that ran: the BSP's again. */
static void after_runs(void *ctx)
{
	struct jobs_run *r = ctx;

	if (r->ran_ap)
		apic_detect(&r->h->apic);
}

bool cpu_jobs_run(const struct cpu_jobs *m, struct harness *h, const uint32_t *flags,
		  const uint16_t *sel, unsigned k, struct cpu_run *runs)
{
	struct jobs_run r = {m, h, false, false};

	suite_cpus_loop(h->suite, flags, sel, k, runs, run_one, after_runs, &r);
	return r.stuck;
}
