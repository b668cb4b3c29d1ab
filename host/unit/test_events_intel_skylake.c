/* Skylake L2_RQSTS table against the perf-stat-recipes note, its corrections
 * and the origin x result rule over all 256 unit masks. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#define SKL PMU_DRV_INTEL_ARCH, 6, 0x5e

/* The note's table: event 24H, umask, SDM name, and its verdict; typed from it. */
static const struct {
	const char *name;
	unsigned umask;
	bool wrong;
} sdm[] = {
    {"DEMAND_DATA_RD_MISS", 0x21, false},
    {"RFO_MISS", 0x22, false},
    {"CODE_RD_MISS", 0x24, false},
    {"ALL_DEMAND_MISS", 0x27, false},
    {"PF_MISS", 0x38, false},
    {"MISS", 0x3f, false},
    {"DEMAND_DATA_RD_HIT", 0x41, true},
    {"RFO_HIT", 0x42, true},
    {"CODE_RD_HIT", 0x44, true},
    {"PF_HIT", 0xd8, false},
    {"ALL_DEMAND_DATA_RD", 0xe1, false},
    {"ALL_RFO", 0xe2, false},
    {"ALL_CODE_RD", 0xe4, false},
    {"ALL_DEMAND_REFERENCES", 0xe7, false},
    {"ALL_PF", 0xf8, false},
    {"REFERENCES", 0xef, true},
};
/* Corrections: "Should be umask=C1H", "should be C2H", M lines for code, "FFH". */
static const struct {
	const char *name;
	unsigned umask;
} corrected[] = {
    {"DEMAND_DATA_RD_HIT_CORRECTED", 0xc1},
    {"RFO_HIT_CORRECTED", 0xc2},
    {"CODE_RD_HIT_CORRECTED", 0xc4},
    {"REFERENCES_CORRECTED", 0xff},
};

static const struct event_def *entry(const char *short_name)
{
	char full[64];
	snprintf(full, sizeof(full), "L2_RQSTS.%s", short_name);
	for (size_t i = 0; i < events_intel_skylake.n; i++)
		if (!strcmp(events_intel_skylake.ev[i].name, full))
			return &events_intel_skylake.ev[i];
	return NULL;
}

static void every_event(void **st)
{
	(void)st;
	table_hygiene(&events_intel_skylake);
	assert_int_equal(events_intel_skylake.n, N_OF(sdm) + N_OF(corrected));
	assert_int_equal(N_OF(sdm), 16);
	for (size_t i = 0; i < N_OF(sdm); i++) {
		const struct event_def *e = entry(sdm[i].name);
		if (!e)
			fail_msg("missing L2_RQSTS.%s", sdm[i].name);
		assert_int_equal(e->code, 0x24);
		assert_int_equal(e->umask, sdm[i].umask); /* the SDM name keeps the SDM umask */
		assert_int_equal(!!(e->flags & EVF_DOC_WRONG), sdm[i].wrong);
		assert_false(e->flags & EVF_CORRECTED);
	}
	for (size_t i = 0; i < N_OF(corrected); i++) {
		const struct event_def *e = entry(corrected[i].name);
		if (!e)
			fail_msg("missing L2_RQSTS.%s", corrected[i].name);
		assert_int_equal(e->umask, corrected[i].umask);
		assert_true(e->flags & EVF_CORRECTED);
		assert_false(e->flags & EVF_DOC_WRONG);
	}
}

static void documented_incorrectly_warns(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(SKL, "L2_RQSTS.DEMAND_DATA_RD_HIT", EV_WARN);
	assert_int_equal(r.ev.umask, 0x41);
	assert_non_null(strstr(r.msg, "documented incorrectly"));
	assert_non_null(strstr(r.msg, "0xc1"));
	r = resolve_expect(SKL, "L2_RQSTS.DEMAND_DATA_RD_HIT_CORRECTED", EV_OK);
	assert_int_equal(r.ev.umask, 0xc1);
	resolve_expect(SKL, "L2_RQSTS.RFO_HIT", EV_WARN);
	resolve_expect(SKL, "L2_RQSTS.REFERENCES", EV_WARN);
	resolve_expect(SKL, "L2_RQSTS.PF_HIT", EV_OK); /* "oddly, this one is correct" */
	/* Raw SDM encodings of the wrong names are still valid combinations. */
	r = resolve_expect(SKL, "event=0x24,umask=0x41", EV_OK);
	assert_string_equal(r.def->name, "L2_RQSTS.DEMAND_DATA_RD_HIT");
}

/* Every unit mask: missing origin (0x1f) or result (0xe0) => warning. */
static void origin_result_rule_all_masks(void **st)
{
	(void)st;
	unsigned flagged = 0;
	for (unsigned u = 0; u < 256; u++) {
		char spec[40];
		bool counts = (u & 0x1f) && (u & 0xe0);
		snprintf(spec, sizeof(spec), "event=0x24,umask=0x%02x", u);
		struct ev_result r = resolve_expect(SKL, spec, counts ? EV_OK : EV_WARN);
		if (!counts) {
			assert_non_null(strstr(r.msg, "counts nothing"));
			assert_true(!(u & 0x1f) == !!strstr(r.msg, "no origin bit"));
			assert_true(!(u & 0xe0) == !!strstr(r.msg, "no result bit"));
			flagged++;
		}
		/* The raw-config form agrees. */
		snprintf(spec, sizeof(spec), "r%02x24", u);
		resolve_expect(SKL, spec, counts ? EV_OK : EV_WARN);
	}
	assert_int_equal(flagged, 256 - 31 * 7);
	/* The note's examples. */
	resolve_expect(SKL, "event=0x24,umask=0x21", EV_OK);
	resolve_expect(SKL, "event=0x24,umask=0x3f", EV_OK);
	resolve_expect(SKL, "event=0x24,umask=0xe2", EV_OK);
	struct ev_result r = resolve_expect(SKL, "event=0x24,umask=0x23", EV_OK);
	assert_string_equal(r.ev.name, "L2_RQSTS:0x23");
}

static void lookup_and_models(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(SKL, "l2_rqsts.demand_data_rd_miss", EV_OK);
	assert_int_equal(r.ev.code, 0x24);
	assert_int_equal(r.ev.umask, 0x21);
	struct ev_result u = resolve_expect(SKL, "L2_RQSTS.NOT_AN_EVENT", EV_REFUSED);
	assert_non_null(strstr(u.msg, "unknown event name"));
	/* Only Skylake-derived models carry the table. */
	resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "L2_RQSTS.MISS", EV_REFUSED);
	static const unsigned models[] = {0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6};
	for (size_t i = 0; i < N_OF(models); i++)
		resolve_expect(PMU_DRV_INTEL_ARCH, 6, models[i], "L2_RQSTS.MISS", EV_OK);
	/* On other arch models 0x24 is not catalogued: allowed but unchecked. */
	resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "event=0x24,umask=0x01", EV_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_event),
	    cmocka_unit_test(documented_incorrectly_warns),
	    cmocka_unit_test(origin_result_rule_all_masks),
	    cmocka_unit_test(lookup_and_models),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
