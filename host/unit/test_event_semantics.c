/* event.semantics: the rule tables (every rule names a catalogue event of
 * its table, states its source, and its bounds make sense; K8 coverage),
 * the events option, and the check on simulated CPUs: healthy models pass
 * under every realism effect, each event fault fails naming the event, and
 * Skylake's 0x41 is reported as the L2_RQSTS note has it. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include "sim_drv.h"
#include "sim_suite.h"
#include "../../events/semantics.h"
#include "../../tests/platform.h"
#include <stdlib.h>

static const struct {
	const struct event_table *t;
	enum pmu_driver_id d;
	unsigned family, model;
} tabs[] = {
    {&events_amd_k8, PMU_DRV_AMD_LEGACY, 0xf, 0x5},
    {&events_amd_k7, PMU_DRV_AMD_LEGACY, 0x6, 0x4},
    {&events_intel_netburst, PMU_DRV_INTEL_NETBURST, 0xf, 0x2},
    {&events_intel_knc, PMU_DRV_INTEL_KNC, 0xb, 0x1},
    {&events_intel_p6, PMU_DRV_INTEL_P6, 0x6, 0x7},
    {&events_intel_skylake, PMU_DRV_INTEL_ARCH, 6, 0x5e},
    {&events_intel_arch, PMU_DRV_INTEL_ARCH, 6, 0x5e},
};

/* Every rule resolves on its family, has a source, a workload and sane bounds. */
static void rules_sane(void **st)
{
	(void)st;
	for (size_t i = 0; i < N_OF(tabs); i++) {
		const struct sem_rule *r;
		size_t n = sem_rules(tabs[i].t, &r);
		assert_true(n > 0);
		for (size_t k = 0; k < n; k++) {
			struct ev_result er;
			if (!r[k].source || !r[k].source[0])
				fail_msg("%s: rule %zu (%s) has no source", tabs[i].t->id, k,
					 r[k].event);
			if (r[k].kind == SEM_NONE) {
				if (!events_find_in(tabs[i].t, r[k].event))
					fail_msg("%s: %s is not in the table", tabs[i].t->id,
						 r[k].event);
				continue;
			}
			if (events_resolve(tabs[i].d, tabs[i].family, tabs[i].model, r[k].event,
					   &er) == EV_REFUSED)
				fail_msg("%s: %s refused: %s", tabs[i].t->id, r[k].event, er.msg);
			assert_non_null(r[k].wl);
			if (r[k].kind == SEM_BOUNDED && r[k].hi_pm != SEM_NO_MAX &&
			    r[k].lo_pm > r[k].hi_pm)
				fail_msg("%s: %s bounds %u > %u", tabs[i].t->id, r[k].event,
					 r[k].lo_pm, r[k].hi_pm);
			if (r[k].q == SQ_EVENTS)
				assert_non_null(r[k].partner[0]);
		}
	}
}

/* K8: at least 40 of its 87 events validated; the rest mostly say why. */
static void k8_coverage(void **st)
{
	(void)st;
	struct sem_coverage c;
	sem_coverage(&events_amd_k8, &c);
	assert_int_equal(c.events, 87);
	assert_true(c.validated >= 40);
	assert_int_equal(c.validated + c.not_validatable, 87);
}

/* K7: 21 of the 29 events of its catalogue validated, the rest say why. */
static void k7_coverage(void **st)
{
	(void)st;
	struct sem_coverage c;
	sem_coverage(&events_amd_k7, &c);
	assert_int_equal(c.events, 29);
	assert_true(c.validated >= 21);
	assert_int_equal(c.validated + c.not_validatable, 29);
}

/* events = globs, all, none; a bad character is refused naming the key. */
static void events_option(void **st)
{
	(void)st;
	struct options o;
	char err[160];
	options_default(&o);
	assert_string_equal(o.events, "");
	assert_int_equal(options_set(&o, "events", "L2_RQSTS.*,RETIRED_*", "t", err, sizeof(err)),
			 0);
	assert_string_equal(o.events, "L2_RQSTS.*,RETIRED_*");
	assert_int_not_equal(options_set(&o, "events", "a/b", "t", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "events"));
}

/* ---- the check on simulated CPUs ---- */

/* Runs event.semantics on model with fault f, realism all, seed. */
static const struct result *sem_run(const char *model, enum sim_fault f, uint64_t seed)
{
	(void)up(model, f, SIM_REALISM_ALL, seed);
	return run_check_mem("event.semantics");
}

static const struct event_row *row_of(const char *name, const char *wl)
{
	for (unsigned i = 0; i < su.n_ev_rows; i++)
		if (!strcmp(su.ev_rows[i].name, name) && !strcmp(su.ev_rows[i].workload, wl))
			return &su.ev_rows[i];
	fail_msg("no row for %s on %s", name, wl);
	return 0;
}

static void healthy_pass(void **st)
{
	(void)st;
	static const char *const models[] = {"opteron",	 "skylake", "athlon",
					     "pentium4", "knc",	    "pentium3"};
	for (size_t m = 0; m < N_OF(models); m++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			const struct result *r = sem_run(models[m], SF_NONE, seed);
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s %s", models[m], (unsigned long long)seed,
					 verdict_name(r->v), r->msg);
		}
	/* K8: 40 or more validated events measured, none skipped for want of
	 * a workload or memory */
	(void)sem_run("opteron", SF_NONE, 7);
	assert_true(su.n_ev_cov >= 1);
	assert_true(su.ev_cov[0].validated >= 40);
	assert_int_equal(su.ev_cov[0].failed, 0);
	assert_int_equal(su.ev_cov[0].skipped, 0);
}

/* Skylake: 0x41 counts E/S hits but not M-state ones, 0xc1 both. */
static void skylake_l2_rqsts(void **st)
{
	(void)st;
	(void)sem_run("skylake", SF_NONE, 5);
	const struct event_row *clean = row_of("L2_RQSTS.DEMAND_DATA_RD_HIT", "chase");
	const struct event_row *dirty = row_of("L2_RQSTS.DEMAND_DATA_RD_HIT", "chase_dirty");
	const struct event_row *all =
	    row_of("L2_RQSTS.DEMAND_DATA_RD_HIT_CORRECTED", "chase_dirty");
	assert_int_equal(clean->v, V_PASS);
	assert_int_equal(dirty->v, V_PASS);
	assert_int_equal(all->v, V_PASS);
	assert_true(clean->measured > 1000);
	assert_true(dirty->measured * 20 < clean->measured);
	assert_true(all->measured > 1000);
}

/* Each event fault fails the check naming an event, on every seed. */
static void faults_caught(void **st)
{
	(void)st;
	static const struct {
		const char *model, *fault, *name;
	} t[] = {
	    {"opteron", "event-dead", "RETIRED_MISPREDICTED_BRANCH_INSTR"},
	    {"opteron", "event-miswired", "RETIRED_MISPREDICTED_BRANCH_INSTR"},
	    {"opteron", "umask-ignored", "DATA_CACHE_REFILLS"},
	    {"opteron", "miss-counts-hits", "DATA_CACHE_MISSES"},
	    {"opteron", "double-count", "RETIRED_NEAR_RETURNS"},
	    {"athlon", "event-dead", "RETIRED_MISPREDICTED_BRANCH_INSTR"},
	    {"athlon", "umask-ignored", "DATA_CACHE_REFILLS"},
	    {"athlon", "miss-counts-hits", "L2_CACHE_MISSES"},
	    {"pentium4", "umask-ignored", "BRANCH_RETIRED.TAKEN"},
	    {"pentium4", "miss-counts-hits", "BSQ_CACHE_REFERENCE.RD_2NDL_MISS"},
	    {"pentium4", "double-count", "RETIRED_BRANCH_TYPE"},
	    {"knc", "event-miswired", "BRANCHES_MISPREDICTED"},
	    {"knc", "umask-ignored", "L2_READ_HIT"},
	    {"pentium3", "event-dead", "BR_MISS_PRED_RETIRED"},
	    {"pentium3", "umask-ignored", "event=0x2e,umask=0x04"},
	    {"pentium3", "miss-counts-hits", "L2_RQSTS.I_STATE"},
	    {"skylake", "event-dead", "BRANCH_MISSES_RETIRED"},
	    {"skylake", "umask-ignored", "L2_RQSTS.DEMAND_DATA_RD_HIT"},
	    {"skylake", "miss-counts-hits", "L2_RQSTS"},
	    {"skylake", "double-count", "BRANCH_INSTRUCTION_RETIRED"},
	    {"skylake", "refcyc-core", "CPU_CLK_UNHALTED.REF"},
	};
	for (size_t i = 0; i < N_OF(t); i++)
		for (uint64_t seed = 1; seed <= 2; seed++) {
			enum sim_fault f = sim_fault_from_name(t[i].fault);
			assert_int_not_equal(f, SF_COUNT);
			const struct result *r = sem_run(t[i].model, f, seed);
			if (r->v != V_FAIL || !strstr(r->msg, t[i].name))
				fail_msg("%s %s seed %llu: %s %s", t[i].model, t[i].fault,
					 (unsigned long long)seed, verdict_name(r->v), r->msg);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rules_sane),    cmocka_unit_test(k8_coverage),
	    cmocka_unit_test(k7_coverage),   cmocka_unit_test(events_option),
	    cmocka_unit_test(healthy_pass),  cmocka_unit_test(skylake_l2_rqsts),
	    cmocka_unit_test(faults_caught),
	};
	return cmocka_run_group_tests_name("test_event_semantics", tests, 0, 0);
}
