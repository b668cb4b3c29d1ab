/* The LBR checks (lbr.stack, lbr.filter, lbr.freeze) on the models with
 * LBRs of each kind, and the simulator's decoding of the sampling kernel
 * against the kernel's walk from its labels (events/sample.h): the two
 * accounts of one piece of code, made independently, must agree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"
#include "../../events/sample.h"
#include "../../pmu/msr.h"

#define SEEDS 25

static const char *const ids[] = {"lbr.stack", "lbr.filter", "lbr.freeze", "lbr.callstack"};
/* Every model with LBRs the simulator models, and Sapphire Rapids's
 * architectural ones where that model is built. */
static const char *const with_lbr[] = {"skylake", "zen4", "skylake-kvm", "sapphirerapids"};

static void healthy_pass_on_every_seed(void **st)
{
	(void)st;
	for (unsigned m = 0; m < sizeof(with_lbr) / sizeof(with_lbr[0]); m++) {
		if (!sim_model_find(with_lbr[m]))
			continue;
		for (uint64_t seed = 1; seed <= SEEDS; seed++)
			for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
				up(with_lbr[m], SF_NONE, SIM_REALISM_ALL, seed);
				const struct result *r = run_check(ids[i]);
				/* AMD LBR v2 has no call-stack mode */
				bool skip_ok = !strcmp(ids[i], "lbr.callstack") &&
					       !strcmp(with_lbr[m], "zen4");
				if (r->v != (skip_ok ? V_SKIP : V_PASS))
					fail_msg("%s seed %llu: %s %s: %s", with_lbr[m],
						 (unsigned long long)seed, ids[i],
						 verdict_name(r->v), r->msg);
			}
	}
}

/* Each LBR fault fails the check that is about it, on every seed. */
static void faults_fail_on_every_seed(void **st)
{
	static const struct {
		enum sim_fault f;
		const char *id;
	} cases[] = {{SF_LBR_OFF_BY_ONE, "lbr.stack"},
		     {SF_LBR_FILTER_IGNORED, "lbr.filter"},
		     {SF_LBR_FREEZE_IGNORED, "lbr.freeze"},
		     {SF_LBR_CALLSTACK_IGNORED, "lbr.callstack"}};
	(void)st;
	for (unsigned m = 0; m < sizeof(with_lbr) / sizeof(with_lbr[0]); m++) {
		if (!sim_model_find(with_lbr[m]))
			continue;
		for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
			for (uint64_t seed = 1; seed <= 12; seed++) {
				if (!(sim_model_find(with_lbr[m])->faults & SIM_F(cases[k].f)))
					break;
				up(with_lbr[m], cases[k].f, SIM_REALISM_ALL, seed);
				const struct result *r = run_check(cases[k].id);
				if (r->v != V_FAIL || !strstr(r->msg, "LBR"))
					fail_msg("%s %s seed %llu: %s %s: %s", with_lbr[m],
						 sim_fault_name(cases[k].f),
						 (unsigned long long)seed, cases[k].id,
						 verdict_name(r->v), r->msg);
			}
	}
}

/* No LBRs: every LBR check SKIPs with the reason. */
static void skip_without_lbrs(void **st)
{
	static const char *const none[] = {"zen4-kvm", "nopmu", "core2", "pentium4"};
	(void)st;
	for (unsigned m = 0; m < sizeof(none) / sizeof(none[0]); m++)
		for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			sim_start(none[m], SF_NONE);
			cpu_identify(&drv_ci);
			apic_detect(&drv_ai);
			pmu_attach(&drv_p, &drv_ci);
			options_default(&opt);
			const struct result *r = run_check(ids[i]);
			if (r->v != V_SKIP)
				fail_msg("%s %s: %s %s", none[m], ids[i], verdict_name(r->v),
					 r->msg);
		}
}

struct seen {
	unsigned n;
	uint64_t from[64], to[64];
};

static void taken(void *ctx, const struct smp_step *s)
{
	struct seen *x = ctx;
	if (s->kind != SMP_NONE && s->taken && x->n < 64) {
		x->from[x->n] = s->ip;
		x->to[x->n++] = s->next;
	}
}

/* The decoder's account (what the LBRs record of the whole of a short
 * call, every branch kind, no realism) against the walk's, branch for
 * branch, from the first to the RET back to the caller; and the
 * instructions it retires, counted by a counter at CPL 0 with nothing else
 * in the window, against the walk's count. */
static void decoder_agrees_with_the_labels(void **st)
{
	(void)st;
	for (uint64_t iters = 0; iters <= 3; iters++) {
		struct seen w = {0};
		uint64_t n = smp_walk(iters, taken, &w);
		struct pmu *p = drv_up("skylake", SF_NONE);
		drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS);
		assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, DEBUGCTL_LBR), HW_OK);
		assert_int_equal(p->ops->start(p, 1), HW_OK);
		hw_run_workload(&wl_sample, iters);
		assert_int_equal(p->ops->stop(p, 1), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_DEBUGCTL, 0), HW_OK);
		assert_int_equal(drv_read(p, 0), n);
		uint64_t tos = drv_msr(MSR_LBR_TOS);
		assert_true(w.n <= 32);
		for (unsigned i = 0; i < w.n; i++) { /* youngest first */
			unsigned k = (unsigned)((tos + 32 - i) % 32);
			unsigned j = w.n - 1 - i;
			assert_int_equal(drv_msr(MSR_LBR_NHM_FROM + k), w.from[j]);
			if (w.to[j]) /* the RET's: the caller, the simulator's own */
				assert_int_equal(drv_msr(MSR_LBR_NHM_TO + k), w.to[j]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(decoder_agrees_with_the_labels),
	    cmocka_unit_test(skip_without_lbrs),
	    cmocka_unit_test(healthy_pass_on_every_seed),
	    cmocka_unit_test(faults_fail_on_every_seed),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
