/* Shared by the unit tests that pin a family's generic-event map. The map
 * ships in the family's driver (its generic_event op), so these tests power
 * on a simulated CPU of the family and ask the driver, and then check that
 * the event catalogue documents the encoding the driver programs. Include
 * after events_test.h. */
#ifndef PMH_TESTS_UNIT_GENERIC_TEST_H
#define PMH_TESTS_UNIT_GENERIC_TEST_H

#include "../../pmu/hw.h"
#include "../../pmu/pmu.h"
#include "../sim/sim.h"

static struct cpu_info gen_ci;
static struct pmu gen_p;

/* Powers model on, healthy, and attaches the driver it selects. A non-zero
 * family replaces the display family CPUID.1 reports (model and stepping
 * stay), for the families no model is written for. */
static inline struct pmu *gen_attach(const char *model, unsigned family)
{
	assert_int_equal(sim_start(model, SF_NONE), 0);
	if (family) {
		struct cpuid_regs r;
		uint32_t fam, mod, step;
		hw_cpuid(1, 0, &r);
		cpu_decode_fms(VENDOR_OTHER, r.eax, &fam, &mod, &step);
		sim_set_cpuid(&sim, 1, 0, sim_fms(family, mod, step), r.ebx, r.ecx, r.edx);
	}
	cpu_identify(&gen_ci);
	pmu_attach(&gen_p, &gen_ci);
	assert_int_equal(gen_p.status, PMU_FUNCTIONAL);
	if (family)
		assert_int_equal(gen_ci.family, family);
	return &gen_p;
}

/* The driver's encoding of g on counter ctr as umask << 8 | event, or 0
 * when the driver has none (it then says unsupported or refused). */
static inline unsigned gen_enc(struct pmu *p, enum pmu_generic g, unsigned ctr,
			       struct pmu_event *ev)
{
	int rc = p->ops->generic_event(p, g, ctr, ev);
	if (rc != HW_OK) {
		assert_true(rc == HW_UNSUPPORTED || rc == HW_REFUSED);
		return 0;
	}
	return ((unsigned)ev->umask << 8) | ev->code;
}

/* Resolves the driver's encoding as a raw spec against the catalogue of
 * the attached CPU: it must be documented (EV_OK). */
static inline struct ev_result gen_catalogued(const struct pmu *p, const struct pmu_event *ev)
{
	char spec[96];
	if (p->ops->id == PMU_DRV_INTEL_NETBURST)
		snprintf(spec, sizeof(spec), "escr=0x%x,event=0x%x,mask=0x%x,escr_sel=%u",
			 ev->escr_msr, ev->code, ev->escr_mask, ev->escr_select);
	else
		snprintf(spec, sizeof(spec), "event=0x%x,umask=0x%x", ev->code, ev->umask);
	return resolve_expect(p->ops->id, p->cpu->family, p->cpu->model, spec, EV_OK);
}

#endif
