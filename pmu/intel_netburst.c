/* PMU driver: PMU_DRV_INTEL_NETBURST (skeleton: identification and probe only). */
#include "pmu.h"
#include "../lib/fmt.h"

static int init(struct pmu *p)
{
	p->n_gp = 18;
	for (unsigned i = 0; i < p->n_gp; i++) {
		struct pmu_counter *c = &p->ctr[i];
		c->kind = PMU_CTR_GP;
		c->index = (uint8_t)i;
		c->width = 40;
		c->preload_bits = 40;
		c->sign_extends = false;
		c->ctr_msr = 0x300 + 1 * i;
		c->ctl_msr = 0x360 + 1 * i;
		c->rdpmc = i;
		pmh_fmt(c->name, sizeof(c->name), "gp%u", i);
	}
	p->n = p->n_gp;
	return 0;
}

static int write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	(void)path;
	return hw_wrmsr(p->ctr[ctr].ctr_msr, val);
}

static int read(struct pmu *p, unsigned ctr, uint64_t *val)
{
	return hw_rdmsr(p->ctr[ctr].ctr_msr, val);
}

const struct pmu_ops pmu_intel_netburst_ops = {
	.name = "intel-netburst",
	.id = PMU_DRV_INTEL_NETBURST,
	.init = init,
	.write = write,
	.read = read,
};
