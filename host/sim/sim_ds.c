/* The debug store: the branch trace store and PEBS (to be written). */
#include "sim.h"

bool sim_ds_msr(const struct sim_cpu *s, uint32_t msr)
{
	(void)s;
	(void)msr;
	return false;
}

int sim_ds_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	(void)s;
	(void)msr;
	*v = 0;
	return HW_FAULT_GP;
}

int sim_ds_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	(void)s;
	(void)msr;
	(void)v;
	return HW_FAULT_GP;
}

bool sim_ds_bts_on(struct sim_cpu *s)
{
	(void)s;
	return false;
}

void sim_ds_step(struct sim_cpu *s, const struct sim_step *st)
{
	(void)s;
	(void)st;
}

void sim_ds_branch(struct sim_cpu *s, const struct sim_branch *b)
{
	(void)s;
	(void)b;
}
