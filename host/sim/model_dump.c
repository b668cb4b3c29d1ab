/* Model "cpuid-dump": a real processor's CPUID values, read from a dump by
 * pmuharness-sim --cpuid-dump, and no MSR at all (every access #GP, RDPMC
 * #UD), so that identification and the driver choice run as shipped on
 * the values of a real part. Kept out of the registry: the simulator
 * matrix has nothing to validate on it. */
#include "sim.h"

static struct sim_cpuid dump[SIM_MAX_CPUID];
static unsigned n_dump;

void sim_dump_load(const struct sim_cpuid *t, unsigned n)
{
	n_dump = n < SIM_MAX_CPUID ? n : SIM_MAX_CPUID;
	for (unsigned i = 0; i < n_dump; i++)
		dump[i] = t[i];
}

static void reset(struct sim_cpu *s)
{
	for (unsigned i = 0; i < n_dump; i++)
		sim_set_cpuid(s, dump[i].leaf, dump[i].subleaf, dump[i].r.eax, dump[i].r.ebx,
			      dump[i].r.ecx, dump[i].r.edx);
	s->n_ctr = 0;
}

static int no_msr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	(void)s;
	(void)msr;
	(void)v;
	return HW_FAULT_GP;
}

static int no_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	(void)s;
	(void)msr;
	(void)v;
	return HW_FAULT_GP;
}

const struct sim_model sim_model_dump = {
    .name = "cpuid-dump",
    .doc = "CPUID values of a real processor from a dump file; no MSR",
    .driver = PMU_DRV_NONE,
    .reset = reset,
    .rdmsr = no_msr,
    .wrmsr = no_wrmsr,
    .rate = sim_no_rate, /* no counters: model_nopmu.c's */
    .overflow = sim_no_overflow,
};
