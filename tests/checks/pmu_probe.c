/* pmu.probe: Linux's functional probe, check_hw_exists (write a pattern to the first
 * counter the firmware did not enable, read it back). On bare metal a
 * matched driver whose counters do not respond is a failure; under a
 * hypervisor it means "no virtual PMU" and is a SKIP, whose reason (from
 * pmu_attach, as the NO PMU verdict's) names the hypervisor and how its
 * virtual PMU is turned on. */
#include "../suite.h"

static void run(struct check_ctx *c)
{
	const struct pmu *p = c->pmu;

	switch (p->status) {
	case PMU_FUNCTIONAL:
		check_pass(c, "%s: %s (MSR 0x%x) held a written pattern%s", p->name,
			   p->ctr[p->probed].name, p->ctr[p->probed].ctr_msr,
			   p->probed ? " (the counters before it were left enabled by the firmware)"
				     : "");
		break;
	case PMU_ABSENT:
		check_skip(c, "no PMU driver: %s", p->reason);
		break;
	default:
		if (c->cpu->hypervisor)
			check_skip(c, "%s", p->reason);
		else
			check_fail(c, "expected a counter that holds writes, got: %s", p->reason);
		break;
	}
}

PMH_CHECK(pmu_probe, .id = "pmu.probe", .summary = "counters hold written values", .order = 10,
	  .run = run);
