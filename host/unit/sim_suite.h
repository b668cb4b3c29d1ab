/* Shared by the unit tests that run checks on simulated CPUs with realism:
 * power a model on with a fault, effects and a seed (a check context comes
 * back, for the old check logic some tests keep), and run one check as the
 * suite does. Include after sim_drv.h. */
#ifndef PMH_TESTS_UNIT_SIM_SUITE_H
#define PMH_TESTS_UNIT_SIM_SUITE_H

#include <stdlib.h>
#include <string.h>
#include "../../tests/platform.h"
#include "../../tests/suite.h"

static struct options opt;
static struct suite su;

static inline void quiet(void *ctx, const char *s)
{
	(void)ctx;
	(void)s;
}

/* The model with fault f and the effects in real, its driver attached,
 * functional and reset; default options. */
static inline struct check_ctx up(const char *model, enum sim_fault f, uint32_t real, uint64_t seed)
{
	struct check_ctx c;
	assert_int_equal(sim_start_real(model, f, real, seed), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.status, PMU_FUNCTIONAL);
	int rc = drv_p.ops->reset(&drv_p);
	/* counter 1's MSRs fault under msr-fault: reset reports it */
	assert_true(f == SF_MSR_FAULT ? rc != HW_OK : rc == HW_OK);
	options_default(&opt);
	memset(&c, 0, sizeof(c));
	c.pmu = &drv_p;
	c.cpu = &drv_ci;
	c.opt = &opt;
	c.apic = &drv_ai;
	return c;
}

/* Runs one check as the suite does (after up()) on platform plat (NULL:
 * none); its result. */
static inline const struct result *run_check_on(const char *id, const struct platform *plat)
{
	strcpy(opt.checks, id);
	suite_init(&su, &opt, &drv_ci, &drv_p, &drv_ai, (struct sink){quiet, 0});
	su.platform = plat;
	suite_run(&su, 0);
	for (unsigned i = 0; i < su.n_results; i++)
		if (!strcmp(su.results[i].id, id))
			return &su.results[i];
	fail_msg("%s did not run on %s", id, sim.m ? sim.m->name : "?");
	return 0;
}

static inline const struct result *run_check(const char *id)
{
	return run_check_on(id, 0);
}

static inline void *sim_suite_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return calloc(1, n);
}

static inline void sim_suite_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

/* The same on a platform that gives memory: the buffers of event.semantics'
 * walks and count.filters' chase. */
static inline const struct result *run_check_mem(const char *id)
{
	static const struct platform plat = {.alloc = sim_suite_alloc, .free = sim_suite_free};
	return run_check_on(id, &plat);
}

#endif
