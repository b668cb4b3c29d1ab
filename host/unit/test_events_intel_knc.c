/* Knights Corner table against table 1-6 of the KNC PMU guide #327357, and the
 * counter-0 restriction of Linux's knc_event_constraints. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#include "knc_doc.inc"

#define KNC PMU_DRV_INTEL_KNC, 0xb, EVENTS_ANY_MODEL

/* Linux knc_perfmon_event_map and knc_event_constraints. */
static const unsigned counter0_only[] = {0xc3, 0xc4, 0xc8, 0xc9, 0xca, 0xcb, 0xcc,
					 0xce, 0xcf, 0xd7, 0xe3, 0xe6, 0xe7, 0xf1,
					 0xf2, 0xf6, 0xf7, 0xfc, 0xfd, 0xfe, 0xff};

static bool restricted(unsigned code)
{
	for (size_t i = 0; i < N_OF(counter0_only); i++)
		if (counter0_only[i] == code)
			return true;
	return false;
}

static void every_row(void **st)
{
	(void)st;
	assert_int_equal(N_OF(knc_doc), 59);
	assert_int_equal(events_intel_knc.n, N_OF(knc_doc));
	table_hygiene(&events_intel_knc);
	unsigned n_restricted = 0;
	for (size_t i = 0; i < N_OF(knc_doc); i++) {
		const struct event_def *e = &events_intel_knc.ev[i];
		assert_string_equal(e->name, knc_doc[i].name);
		assert_int_equal(e->code, knc_doc[i].code);
		assert_int_equal(e->umask, knc_doc[i].umask);
		/* The umask is the FUB's: P54C 0x00 (CODE_READ has no FUB), CRI 0x10, VPU 0x20. */
		assert_int_equal(e->umask, !strcmp(knc_doc[i].fub, "CRI")   ? 0x10
					   : !strcmp(knc_doc[i].fub, "VPU") ? 0x20
									    : 0x00);
		bool r = knc_doc[i].umask == 0x10 && restricted(knc_doc[i].code);
		assert_int_equal(e->counters, r ? 0x1u : 0u);
		assert_int_equal(!!(e->flags & EVF_CTR_RESTRICTED), r);
		n_restricted += r;
	}
	assert_int_equal(n_restricted, 17);
}

static void counter_restriction(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(KNC, "L2_READ_MISS,counter=1", EV_REFUSED);
	assert_non_null(strstr(r.msg, "counter 1"));
	resolve_expect(KNC, "L2_READ_MISS,counter=0", EV_OK);
	resolve_expect(KNC, "event=0xcb,umask=0x10,counter=1", EV_REFUSED);
	resolve_expect(KNC, "event=0xcb,umask=0x10,counter=0", EV_OK);
	/* F0h and F5h are not in the list: both counters. */
	resolve_expect(KNC, "L2_CODE_READ_MISS_CACHE_FILL,counter=1", EV_OK);
	resolve_expect(KNC, "L2_CODE_READ_MISS_MEM_FILL,counter=1", EV_OK);
	/* VPU events share low codes with P54C ones; no restriction. */
	resolve_expect(KNC, "VPU_DATA_READ,counter=1", EV_OK);
	resolve_expect(KNC, "cpu_clk_unhalted,counter=1", EV_OK);
	/* Two counters per thread (KNC §1.4). */
	r = resolve_expect(KNC, "CPU_CLK_UNHALTED,counter=2", EV_REFUSED);
	assert_non_null(strstr(r.msg, "2 counters"));
	r = resolve_expect(KNC, "L2_READ_MISS,counter=1", EV_REFUSED);
	char msg[160];
	struct pmu_event ev = r.ev;
	assert_int_equal(events_check_counter(&ev, 0, msg, sizeof(msg)), EV_OK);
	assert_int_equal(events_check_counter(&ev, 1, msg, sizeof(msg)), EV_REFUSED);
}

static void lookup_and_undocumented(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(KNC, "vpu_elements_active", EV_OK);
	assert_int_equal(r.ev.code, 0x18);
	assert_int_equal(r.ev.umask, 0x20);
	r = resolve_expect(KNC, "event=0x00", EV_OK); /* DATA_READ is valid: KNC #327357 */
	assert_string_equal(r.def->name, "DATA_READ");
	r = resolve_expect(KNC, "event=0x00,umask=0x20", EV_OK);
	assert_string_equal(r.def->name, "VPU_DATA_READ");
	r = resolve_expect(KNC, "event=0x07", EV_REFUSED); /* not in table 1-6 */
	assert_non_null(strstr(r.msg, "reserved or undocumented"));
	r = resolve_expect(KNC, "event=0x05", EV_REFUSED); /* 0x05 is VPU (umask 0x20) only */
	assert_non_null(strstr(r.msg, "unit mask"));
	resolve_expect(KNC, "event=0xc3,umask=0x10", EV_REFUSED); /* restricted but not listed */
	r = resolve_expect(KNC, "event=0x16,umask=0x10", EV_REFUSED); /* wrong FUB umask */
	assert_non_null(strstr(r.msg, "unit mask"));
	resolve_expect(KNC, "L2_READ_HIT_X", EV_REFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_row),
	    cmocka_unit_test(counter_restriction),
	    cmocka_unit_test(lookup_and_undocumented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
