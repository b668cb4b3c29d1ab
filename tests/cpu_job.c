/* The platform-neutral half of a per-CPU run (cpu_job.h). */
#include "cpu_job.h"
#include "../apic/pmi.h"
#include "../lib/str.h"

static struct cpu_job *cur_job; /* for the fatal-exception report on the AP */

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

static void job_fatal(const char *s)
{
	if (cur_job)
		job_line(cur_job, s);
}

void cpu_job_reset(struct cpu_job *j, unsigned cpu)
{
	j->cpu = cpu;
	j->len = 0;
	j->lost = 0;
	j->done = 0;
	j->crashed = 0;
	j->pmu.status = PMU_ABSENT; /* until this AP has probed its own PMU */
}

void cpu_job_run(struct cpu_job *j)
{
	struct pmh_jmpbuf jb;

	cur_job = j;
	if (pmh_setjmp(&jb)) {
		j->crashed = 1;
		goto out;
	}
	isr_set_fatal(job_fatal, &jb);
	/* An AP may run this with IF = 0 (one woken by INIT-SIPI starts with
	 * EFLAGS = 2, SDM Vol. 3A 9.1.1): the PMI checks open interrupts,
	 * with the TPR holding off every class below the PMI's, only for
	 * their windows and PMI waits (apic/pmi.c pmi_window_open, pmi_wait)
	 * and put IF back as they found it. */
	cpu_identify(&j->ci);
	apic_detect(&j->apic);
	pmu_attach(&j->pmu, &j->ci);
	suite_bind_cpu(j->s, &(struct suite_cpu){&j->ci, &j->pmu, &j->apic, {job_line, j}});
	suite_emit(j->s, "cpu.%u.identity: apic.id 0x%x (%s), pmu.driver %s, pmu.status %s", j->cpu,
		   j->apic.id, apic_mode_name(j->apic.mode), pmu_driver_name(j->ci.driver),
		   pmu_status_name(j->pmu.status));
	suite_run(j->s, j->cpu);
out:
	isr_set_fatal(0, 0);
	pmi_disarm();	      /* also closes a PMI window a crash left open (TPR, IF) */
	pmu_release(&j->pmu); /* this AP's TSX force-abort and LIMIT_CPUID */
	cpu_restore(&j->ci);
	cur_job = NULL;
}

void cpu_job_emit(const struct cpu_job *j)
{
	for (size_t off = 0; off < j->len; off += pmh_strlen(j->buf + off) + 1)
		suite_emit(j->s, "%s", j->buf + off);
	if (j->lost)
		suite_emit(j->s, "warning: cpu.%u: %u output lines did not fit in the buffer",
			   j->cpu, j->lost);
	if (j->crashed) /* the AP's exception, for the log and the results JSON */
		report_crash(j->s, isr_last_fatal());
}

bool cpu_jobs_need_ap(const uint32_t *flags, const uint16_t *sel, unsigned k)
{
	for (unsigned i = 0; i < k; i++)
		if (!(flags[sel[i]] & CPUSEL_BSP))
			return true;
	return false;
}

/* The suite on CPU cpu (the BSP's own run or an AP's), and that CPU's
 * share of the counts into r. */
static bool run_cpu(const struct cpu_jobs *m, struct suite *s, unsigned cpu, bool bsp,
		    struct cpu_run *r)
{
	struct run_counts before = suite_counts(s);
	const struct pmu *own = s->pmu; /* the PMU this CPU's checks measured */
	bool stuck = false;

	if (bsp) {
		suite_run(s, cpu);
	} else if (!m->job) {
		suite_fail_cpu(s, cpu, "out of memory for the AP's stack and output buffer");
	} else {
		stuck = m->run_ap(m->ctx, m->job, cpu);
		own = &m->job->pmu;
	}
	r->cpu = (uint16_t)cpu;
	r->n = suite_share(s, &before);
	r->n.pmu_usable = own->status == PMU_FUNCTIONAL;
	return stuck;
}

bool cpu_jobs_run(const struct cpu_jobs *m, struct harness *h, const uint32_t *flags,
		  const uint16_t *sel, unsigned k, struct cpu_run *runs)
{
	struct suite *s = h->suite;
	bool ran_ap = false, stuck = false;
	char line[96];

	for (unsigned i = 0; i < k; i++) {
		bool bsp = flags[sel[i]] & CPUSEL_BSP;
		stuck |= run_cpu(m, s, sel[i], bsp, &runs[i]);
		ran_ap |= !bsp && m->job;
	}
	/* the APIC globals describe the last CPU that ran: the BSP's again */
	if (ran_ap)
		apic_detect(&h->apic);
	for (unsigned i = 0; i < k; i++) {
		cpu_verdict_line(&runs[i], line, sizeof(line));
		suite_emit(s, "%s", line);
	}
	return stuck;
}

static void warn_line(void *ctx, const char *msg)
{
	struct suite *s = ctx;
	suite_emit(s, "warning: %s", msg);
}

unsigned cpu_jobs_select(struct suite *s, const uint32_t *flags, unsigned n, uint16_t *sel,
			 unsigned max)
{
	unsigned k = cpu_select(s->opt, flags, n, sel, max, warn_line, s);
	char none[160];

	if (!k) {
		cpu_select_none(s->opt, none, sizeof(none));
		suite_emit(s, "error: %s", none);
	}
	return k;
}
