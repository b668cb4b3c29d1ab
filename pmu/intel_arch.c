/* PMU driver: PMU_DRV_INTEL_ARCH (skeleton: identification and probe only). */
#include "pmu.h"
#include "../lib/fmt.h"

static int init(struct pmu *p)
{
	uint32_t eax = p->cpu->ids.leaf0a.eax;
	p->version = eax & 0xff;
	p->n_gp = (eax >> 8) & 0xff;
	if (p->n_gp == 0)
		return -1;
	for (unsigned i = 0; i < p->n_gp && i < PMU_MAX_COUNTERS; i++) {
		struct pmu_counter *c = &p->ctr[i];
		c->kind = PMU_CTR_GP;
		c->index = (uint8_t)i;
		c->width = (uint8_t)((eax >> 16) & 0xff);
		c->preload_bits = 32;
		c->sign_extends = true;
		c->ctr_msr = 0xc1 + i;
		c->ctl_msr = 0x186 + i;
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

const struct pmu_ops pmu_intel_arch_ops = {
	.name = "intel-arch",
	.id = PMU_DRV_INTEL_ARCH,
	.init = init,
	.write = write,
	.read = read,
};
