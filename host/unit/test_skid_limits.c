/* skid and overflow.rearm against the family's skid limit (struct
 * pmu_ops.skid_limit): every limit is reachable. On each family a healthy
 * core passes; a PMI 1.5x the limit late FAILs skid as too late and
 * overflow.rearm as over the limit (before, the rearm expectation took any
 * measured skid); 3x the limit, past the window, FAILs skid as "not
 * within" (before, the window's remainder was printed as the skid); the
 * skid-long fault (100x the model's longest) FAILs both. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

static const char *const models[] = {"skylake", "core2", "pentium3", "knc",
				     "opteron", "zen4",	 "pentium4"};

static int teardown(void **st)
{
	(void)st;
	sim_set_skid(0);
	return 0;
}

static const struct result *check(const char *model, enum sim_fault f, uint64_t skid,
				  const char *id, uint64_t *limit)
{
	sim_set_skid(skid);
	up(model, f, SIM_REALISM_ALL, 1);
	*limit = drv_p.ops->skid_limit;
	return run_check(id);
}

static void expect(const char *model, const char *id, uint64_t skid, enum sim_fault f,
		   enum verdict v, const char *words)
{
	uint64_t lim;
	const struct result *r = check(model, f, skid, id, &lim);
	if (r->v != v || (words && !strstr(r->msg, words)))
		fail_msg("%s %s skid %llu fault %s: %s %s", model, id, (unsigned long long)skid,
			 sim_fault_name(f), verdict_name(r->v), r->msg);
}

static void every_limit_reachable(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		uint64_t lim;
		const char *m = models[i];
		(void)check(m, SF_NONE, 0, "skid", &lim);
		assert_true(lim == 1000 || lim == 30000);
		expect(m, "skid", 0, SF_NONE, V_PASS, 0);
		expect(m, "skid", lim * 3 / 2, SF_NONE, V_FAIL, "exceeds");
		expect(m, "skid", lim * 3, SF_NONE, V_FAIL, "not within");
		expect(m, "skid", 0, SF_SKID_LONG, V_FAIL, 0);
	}
}

static void rearm_bounded_by_limit(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		uint64_t lim;
		const char *m = models[i];
		(void)check(m, SF_NONE, 0, "overflow.rearm", &lim);
		expect(m, "overflow.rearm", 0, SF_NONE, V_PASS, 0);
		expect(m, "overflow.rearm", lim * 3 / 2, SF_NONE, V_FAIL, "limit");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(every_limit_reachable, teardown),
	    cmocka_unit_test_teardown(rearm_bounded_by_limit, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
