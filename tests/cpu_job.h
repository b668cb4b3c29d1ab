/* The suite on another CPU, the part every platform shares (boot/mp.c over
 * UEFI's MP Services, bios/mp.c over INIT-SIPI-SIPI): the AP's run into a
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
};

/* Before an AP is started on j for CPU cpu. */
void cpu_job_reset(struct cpu_job *j, unsigned cpu);
/* On the AP, with the harness's IDT loaded there: identifies the AP's
 * APIC and PMU, runs the suite into j's buffer (an unexpected exception
 * sets crashed and ends it), and releases what the run changed. The
 * caller sets done once the AP is back in its own state. */
void cpu_job_run(struct cpu_job *j);
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

#endif
