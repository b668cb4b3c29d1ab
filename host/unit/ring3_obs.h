/* The ring-3 faults seen at the seam, for the driver tests that observe
 * every fault of a model: user-as-os (a USR-only counter misses code at
 * CPL 3), pce-ignored (RDPMC at CPL 3 without CR4.PCE reads), tr-leaked
 * (the excursion leaves TR changed). Include after cmocka.h and
 * sim_drv.h. */
#ifndef PMH_TESTS_UNIT_RING3_OBS_H
#define PMH_TESTS_UNIT_RING3_OBS_H

/* Whether f is a ring-3 fault; if so its effect is asserted on model. */
static inline bool ring3_fault_observed(const char *model, enum sim_fault f)
{
	struct hw_cpu_tables a, b;
	uint64_t v = 0;

	if (f != SF_USER_AS_OS && f != SF_PCE_IGNORED && f != SF_TR_LEAKED)
		return false;
	struct pmu *pm = drv_up(model, f);
	hw_cpu_tables(&a);
	drv_program(pm, 0, GEN_INSTRUCTIONS, PMU_F_USR);
	assert_int_equal(pm->ops->start(pm, 1), HW_OK);
	assert_int_equal(hw_user_run(&wl_loop, 1000), HW_OK);
	assert_int_equal(pm->ops->stop(pm, 1), HW_OK);
	hw_cpu_tables(&b);
	int e = hw_user_rdpmc(0, false, &v);
	if (f == SF_USER_AS_OS)
		assert_true(drv_read(pm, 0) < 1000);
	else if (f == SF_PCE_IGNORED)
		assert_int_equal(e, HW_OK);
	else
		assert_int_not_equal(a.tr, b.tr);
	return true;
}

#endif
