/* The simulated machine: power-on of its CPUs, each its own CPUID values,
 * MSRs and PMU (one unless the model has several), the switch between
 * them, and per-CPU runs (the platform's run_cpus, tests/platform.h): the
 * cpus option through the per-CPU loop the UEFI path uses too
 * (tests/suite.h suite_run_cpus). */
#include <stdlib.h>
#include "sim.h"
#include "uarch.h"
#include "../../apic/apic.h"
#include "../../lib/str.h"
#include "../../tests/cpu_job.h"
#include "../../tests/cpu_select.h"
#include "../../tests/harness.h"

/* The CPUs of the machine other than the current one, each allocated at
 * its first switch away (a machine of 1,024 CPUs would hold some 11 MiB
 * of them: only what a run uses is there), and whether each was powered
 * on; the fault and effects every CPU of a run gets. */
static struct sim_cpu *cpu_state[SIM_MAX_CPUS];
static bool cpu_on[SIM_MAX_CPUS];
static struct {
	enum sim_fault fault;
	uint32_t realism;
	uint64_t seed;
	unsigned scale; /* --realism-scale; 0 reads as 1 */
} machine;

void sim_set_realism_scale(unsigned k)
{
	machine.scale = k < SIM_SCALE_MIN ? SIM_SCALE_MIN : k > SIM_SCALE_MAX ? SIM_SCALE_MAX : k;
}

unsigned sim_realism_scale(void)
{
	return machine.scale ? machine.scale : 1;
}

/* Power-on of CPU n of model m into sim: CPU 0 is the bootstrap processor. */
static void power_on(const struct sim_model *m, unsigned n)
{
	pmh_memset(&sim, 0, sizeof(sim));
	sim.m = m;
	sim.fault = machine.fault;
	sim.cpu_no = n;
	sim.apic_id = n;
	sim.apic_base = 0xfee00000ull | APIC_BASE_ENABLE | (n ? 0 : APIC_BASE_BSP);
	sim.lvt_pc = LVT_MASKED; /* reset state of an LVT entry */
	sim.svr = 0x1ff;
	sim.irq_enabled = true; /* boot services run with interrupts on */
	sim.tsc = 1000000;
	sim.real.on = m->si ? machine.realism & SIM_REALISM_ALL : 0;
	sim.real.seed = machine.seed;
	sim.real.scale = sim_realism_scale();
	sim_real_reset(&sim);
	sim_user_power_on(&sim);
	m->reset(&sim);
	sim_smp_reset(&sim);
	cpu_on[n] = true;
}

int sim_start_real(const char *model, enum sim_fault fault, uint32_t realism, uint64_t seed)
{
	const struct sim_model *m = sim_model_find(model);

	if (!m || fault >= SF_COUNT)
		return -1;
	if (fault != SF_NONE && !(m->faults & SIM_F(fault)))
		return -1;
	machine.fault = fault;
	machine.realism = realism;
	machine.seed = seed;
	pmh_memset(cpu_on, 0, sizeof(cpu_on));
	uarch_power_on(); /* cold caches and predictor */
	power_on(m, 0);
	return 0;
}

unsigned sim_cpu_count(void)
{
	return sim.m && sim.m->cpus ? sim.m->cpus : 1;
}

int sim_cpu_switch(unsigned n)
{
	unsigned me = sim.cpu_no;

	if (n >= sim_cpu_count() || n >= SIM_MAX_CPUS)
		return -1;
	if (n == me)
		return 0;
	if (!cpu_state[me] && !(cpu_state[me] = calloc(1, sizeof(*cpu_state[me]))))
		return -1; /* kept for the life of the program: reused by later runs */
	*cpu_state[me] = sim;
	if (cpu_on[n])
		sim = *cpu_state[n];
	else
		power_on(sim.m, n);
	return 0;
}

/* The suite on simulated CPU cpu: the boot CPU's own run, or another CPU
 * of the machine switched in with its own CPUID values, MSRs and PMU. */
static const struct pmu *sim_one_cpu(void *ctx, unsigned cpu, bool bsp)
{
	struct harness *h = ctx;
	struct suite *s = h->suite;
	static struct cpu_info ci;
	static struct pmu pmu;
	static struct apic_info apic;
	struct suite_cpu boot = suite_bound(s);

	if (bsp) {
		suite_run(s, cpu);
		return suite_bound(s).pmu;
	}
	sim_cpu_switch(cpu);
	suite_run_other(s, cpu, &ci, &pmu, &apic, boot.out);
	pmu_release(&pmu);
	cpu_restore(&ci);
	sim_cpu_switch(0);
	suite_bind_cpu(s, &boot);
	return &pmu;
}

static void sim_run_parallel(struct harness *h, const uint32_t *flags, unsigned n,
			     struct suite_cpus *w);

/* The simulator's run_cpus for a machine of several CPUs (the model's
 * cpus): each CPU enabled and healthy, CPU 0 the boot CPU. */
void sim_run_cpus(void *ctx, struct harness *h)
{
	static uint32_t flags[SIM_MAX_CPUS];
	static uint16_t sel[SIM_MAX_CPUS];
	static struct cpu_run runs[SIM_MAX_CPUS];
	struct suite_cpus w = {sel, runs, SIM_MAX_CPUS, NULL};
	unsigned n = sim_cpu_count();

	(void)ctx;
	if (!cpu_select_requested(&h->opt)) {
		suite_run(h->suite, 0);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		flags[i] = CPUSEL_ENABLED | CPUSEL_HEALTHY | (i ? 0 : CPUSEL_BSP);
	if (h->opt.cpus_serial) {
		suite_run_cpus(h->suite, flags, n, &w, sim_one_cpu, h);
		return;
	}
	sim_run_parallel(h, flags, n, &w);
}

/* cpus = all (or a list): every selected CPU at once, as fibers taking
 * turns (sim_par.c); the boot CPU alone, or no memory for the run, goes
 * the serial way. */
static void sim_run_parallel(struct harness *h, const uint32_t *flags, unsigned n,
			     struct suite_cpus *w)
{
	struct suite *s = h->suite;
	unsigned k = suite_cpus_select(s, flags, n, w->sel, w->max);
	struct cpu_par p;

	if (!cpu_jobs_need_ap(flags, w->sel, k) || !cpu_par_prepare(&p, s, flags, w->sel, k)) {
		suite_cpus_loop(s, flags, w->sel, k, w->runs, sim_one_cpu, NULL, h);
		return;
	}
	sim_par_run(&p, flags, machine.seed);
	cpu_par_finish(&p, w->runs, (unsigned)(CPU_PAR_TIMEOUT_US / 1000000u));
}
