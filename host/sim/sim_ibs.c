/* AMD instruction-based sampling (to be written). */
#include "sim.h"

bool sim_ibs_msr(const struct sim_cpu *s, uint32_t msr)
{
	(void)s;
	(void)msr;
	return false;
}

int sim_ibs_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	(void)s;
	(void)msr;
	*v = 0;
	return HW_FAULT_GP;
}

int sim_ibs_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	(void)s;
	(void)msr;
	(void)v;
	return HW_FAULT_GP;
}

void sim_ibs_step(struct sim_cpu *s, const struct sim_step *st)
{
	(void)s;
	(void)st;
}
