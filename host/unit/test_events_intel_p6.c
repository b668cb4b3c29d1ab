/* Intel P6 events and constraints against Linux p6.c. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#include "generic_test.h"

#define P6 PMU_DRV_INTEL_P6, 6, 7

static const struct {
	unsigned enc, counters;
} expect[] = {
    {0x0079, 0}, {0x00c0, 0}, {0x0f2e, 0}, {0x012e, 0}, {0x00c4, 0}, {0x00c5, 0}, {0x0062, 0},
    {0x00a2, 0}, {0x00c1, 1}, {0x0010, 1}, {0x0014, 1}, {0x0011, 2}, {0x0012, 2}, {0x0013, 2},
};
static const unsigned gen_expect[GEN_COUNT] = {0x79, 0xc0, 0xc4, 0xc5, 0x0f2e, 0x012e, 0};

static void every_entry(void **st)
{
	(void)st;
	table_hygiene(&events_intel_p6);
	assert_int_equal(events_intel_p6.n, N_OF(expect));
	for (size_t i = 0; i < N_OF(expect); i++) {
		const struct event_def *e = &events_intel_p6.ev[i];
		assert_int_equal(((unsigned)e->umask << 8) | e->code, expect[i].enc);
		assert_int_equal(e->counters, expect[i].counters);
	}
}

static void constraints_and_rules(void **st)
{
	(void)st;
	resolve_expect(P6, "FLOPS,counter=0", EV_OK);
	resolve_expect(P6, "FLOPS,counter=1", EV_REFUSED);
	resolve_expect(P6, "event=0x12,counter=0", EV_REFUSED); /* MUL: PMC1 only */
	resolve_expect(P6, "event=0x12,counter=1", EV_OK);
	/* The constraint goes by event code, whatever the unit mask. */
	struct ev_result r = resolve_expect(P6, "event=0xc1,umask=0x01", EV_WARN);
	assert_int_equal(r.ev.counters, 1);
	r = resolve_expect(P6, "event=0x2e,umask=0x00", EV_WARN);
	assert_non_null(strstr(r.msg, "counts nothing"));
	r = resolve_expect(P6, "event=0x2e,umask=0x04", EV_WARN); /* a MESI bit Linux's map omits */
	assert_non_null(strstr(r.msg, "not in the catalogue"));
	resolve_expect(P6, "event=0x2e,umask=0x0f", EV_OK);
	resolve_expect(P6, "INST_RETIRED,counter=2", EV_REFUSED); /* two counters */
	/* The driver's map (p6_perfmon_event_map) on a Pentium III: each encoding it
	 * programs is in the catalogue. */
	struct pmu *p = gen_attach("pentium3", 0);
	for (int g = 0; g < GEN_COUNT; g++) {
		struct pmu_event ev;
		int rc = p->ops->generic_event(p, (enum pmu_generic)g, 0, &ev);
		assert_int_equal(rc, gen_expect[g] ? HW_OK : HW_UNSUPPORTED);
		if (!rc) {
			assert_int_equal(((unsigned)ev.umask << 8) | ev.code, gen_expect[g]);
			assert_non_null(gen_catalogued(p, &ev).def);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_entry),
	    cmocka_unit_test(constraints_and_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
