/* count.filters on the simulated CPUs: the filter faults (os-ignored,
 * edge-ignored, inv-ignored, cmask-ignored) are each caught on a model of
 * every family, the healthy models pass with every realism effect, and the
 * simulator's edge detect counts the stall episodes of a workload that
 * misses (SDM Vol. 3B 18.2.1.1 E flag), not 0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/measure.h"
#include "../../tests/platform.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define ALL   SIM_REALISM_ALL
#define SEEDS 3

/* One model of each family (the KVM guests run the hosts' filters). */
static const char *const models[] = {"skylake",	 "yonah",	"pentium3", "knc",
				     "pentium4", "athlon",	"opteron",  "bulldozer",
				     "zen4",	 "skylake-kvm", "zen4-kvm"};
#define N_MODELS (sizeof(models) / sizeof(models[0]))

/* count.filters on model with fault f, every realism effect, seed. */
static const struct result *filters(const char *model, enum sim_fault f, uint64_t seed)
{
	(void)up(model, f, ALL, seed);
	return run_check_mem("count.filters");
}

static void healthy_models_pass(void **st)
{
	(void)st;
	for (unsigned k = 0; k < N_MODELS; k++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			const struct result *r = filters(models[k], SF_NONE, seed);
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s", models[k], (unsigned long long)seed,
					 r->msg);
			/* the edge was measured, not skipped */
			assert_non_null(strstr(r->msg, "edge"));
			assert_null(strstr(r->msg, "SKIP"));
		}
}

/* Fault f FAILs count.filters on every model, naming its symptom. */
static void caught(enum sim_fault f, const char *word)
{
	for (unsigned k = 0; k < N_MODELS; k++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			const struct result *r = filters(models[k], f, seed);
			if (r->v != V_FAIL || !strstr(r->msg, word))
				fail_msg("%s %s seed %llu: %s %s", models[k], sim_fault_name(f),
					 (unsigned long long)seed, verdict_name(r->v), r->msg);
		}
}

static void os_ignored_caught(void **st)
{
	(void)st;
	caught(SF_OS_IGNORED, "USR-only");
}

static void edge_ignored_caught(void **st)
{
	(void)st;
	caught(SF_EDGE_IGNORED, "edge detect");
}

static void inv_ignored_caught(void **st)
{
	(void)st;
	caught(SF_INV_IGNORED, "inverted");
}

static void cmask_ignored_caught(void **st)
{
	(void)st;
	caught(SF_CMASK_IGNORED, "counter mask");
}

/* The first counter that counts retired instructions from zero over
 * iters of w with flags. */
static uint64_t counted(struct pmu *p, const struct workload *w, uint64_t iters, uint32_t flags)
{
	struct pmu_event ev;
	unsigned i = 0;
	while (i < p->n && p->ops->generic_event(p, GEN_INSTRUCTIONS, i, &ev) != HW_OK)
		i++;
	assert_true(i < p->n);
	drv_program(p, i, GEN_INSTRUCTIONS, PMU_F_OS | flags);
	assert_int_equal(p->ops->write(p, i, 0, PMU_WRITE_PRELOAD), HW_OK);
	assert_int_equal(p->ops->start(p, 1ull << i), HW_OK);
	hw_run_workload(w, iters);
	assert_int_equal(p->ops->stop(p, 1ull << i), HW_OK);
	return drv_read(p, i);
}

/* Edge detect of "no instruction retired": 0 on wl_loop, which never
 * stalls; on a chase of 4096 elements that miss the L1D one edge per
 * element (and per pass end), each far shorter than the stall it starts. */
static void edge_counts_stall_episodes(void **st)
{
	(void)st;
	const uint32_t stall = PMU_F_CMASK(1) | PMU_F_INV;
	const uint64_t lines = 4096, passes = 4;
	static const char *const ms[] = {"skylake",  "pentium3", "knc",
					 "pentium4", "opteron",	 "zen4"};
	void *raw = calloc(1, lines * 64 + 4096);
	struct wl_args a = {(void *)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095), lines, 64, 0};
	struct workload w = wl_chase;

	assert_non_null(raw);
	workload_chain(a.buf, lines, 64, 1);
	w.args = &a;
	for (unsigned k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
		struct pmu *p = drv_up(ms[k], SF_NONE);
		assert_int_equal(counted(p, &wl_loop, 1000, stall | PMU_F_EDGE), 0);
		hw_run_workload(&w, 1); /* warm */
		uint64_t e = counted(p, &w, passes, stall | PMU_F_EDGE);
		uint64_t s = counted(p, &w, passes, stall);
		if (e < lines * passes || e > (lines + 2) * passes || 2 * e > s)
			fail_msg("%s: %llu edges in %llu stall cycles of %llu elements", ms[k],
				 (unsigned long long)e, (unsigned long long)s,
				 (unsigned long long)(lines * passes));
		/* edge-ignored: every stall cycle */
		p = drv_up(ms[k], SF_EDGE_IGNORED);
		hw_run_workload(&w, 1);
		assert_int_equal(counted(p, &w, passes, stall | PMU_F_EDGE), s);
	}
	free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(healthy_models_pass),  cmocka_unit_test(os_ignored_caught),
	    cmocka_unit_test(edge_ignored_caught),  cmocka_unit_test(inv_ignored_caught),
	    cmocka_unit_test(cmask_ignored_caught), cmocka_unit_test(edge_counts_stall_episodes),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
