/* What host/unit/test_pebs.c and test_bts.c judge the same way in their
 * debug-store checks (pebs.record, bts.trace): the check PASSes healthy on
 * every seed with every realism effect (one seed in five with NMI
 * delivery), FAILs under each of its faults on every seed with a message
 * naming the symptom (the word scripts/sim-matrix.py SYMPTOM has), and
 * SKIPs on the models without the feature. Include after cmocka.h and
 * sim_suite.h. */
#ifndef PMH_TESTS_UNIT_DS_TEST_H
#define PMH_TESTS_UNIT_DS_TEST_H

#define DS_TEST_SEEDS 25

/* The models with a debug store the simulator writes. */
static const char *const ds_test_models[] = {"skylake", "sapphirerapids"};
#define DS_TEST_MODELS (sizeof(ds_test_models) / sizeof(ds_test_models[0]))

/* A fault and the word its FAIL message must hold. */
struct ds_test_case {
	enum sim_fault f;
	const char *word;
};

static inline void ds_test_healthy(const char *check)
{
	for (unsigned m = 0; m < DS_TEST_MODELS; m++) {
		if (!sim_model_find(ds_test_models[m]))
			continue;
		for (uint64_t seed = 1; seed <= DS_TEST_SEEDS; seed++) {
			(void)up(ds_test_models[m], SF_NONE, SIM_REALISM_ALL, seed);
			opt.pmi = seed % 5 ? PMI_FIXED : PMI_NMI;
			const struct result *r = run_check(check);
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s: %s", ds_test_models[m],
					 (unsigned long long)seed, verdict_name(r->v), r->msg);
		}
	}
}

/* Each of the n cases FAILs check on every seed, its message holding the
 * case's word and, where all is not NULL, all. */
static inline void ds_test_faults(const char *check, const struct ds_test_case *cases, unsigned n,
				  const char *all)
{
	for (unsigned m = 0; m < DS_TEST_MODELS; m++) {
		if (!sim_model_find(ds_test_models[m]))
			continue;
		for (unsigned k = 0; k < n; k++)
			for (uint64_t seed = 1; seed <= DS_TEST_SEEDS; seed++) {
				(void)up(ds_test_models[m], cases[k].f, SIM_REALISM_ALL, seed);
				const struct result *r = run_check(check);
				if (r->v != V_FAIL || (all && !strstr(r->msg, all)) ||
				    !strstr(r->msg, cases[k].word))
					fail_msg("%s %s seed %llu: %s: %s", ds_test_models[m],
						 sim_fault_name(cases[k].f),
						 (unsigned long long)seed, verdict_name(r->v),
						 r->msg);
			}
	}
}

/* No debug store for check: KVM on Skylake (MISC_ENABLE), AMD, QEMU TCG,
 * core2 (MISC_ENABLE: no debug store modelled), NetBurst (not arch
 * perfmon). */
static inline void ds_test_skip(const char *check)
{
	static const char *const none[] = {"skylake-kvm", "zen4", "nopmu", "core2", "pentium4"};

	for (unsigned m = 0; m < sizeof(none) / sizeof(none[0]); m++) {
		assert_int_equal(sim_start_real(none[m], SF_NONE, SIM_REALISM_ALL, 1), 0);
		cpu_identify(&drv_ci);
		apic_detect(&drv_ai);
		pmu_attach(&drv_p, &drv_ci);
		options_default(&opt);
		const struct result *r = run_check(check);
		if (r->v != V_SKIP)
			fail_msg("%s: %s %s", none[m], verdict_name(r->v), r->msg);
	}
}

#endif
