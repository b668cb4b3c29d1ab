/* AMD K7: the PerfEvtSel fields of the Athlon guide and the events of the
 * Linux's K7-Fam16h map (amd/core.c amd_perfmon_event_map), and the legacy generic events. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#include "generic_test.h"

#define K7 PMU_DRV_AMD_LEGACY, 6, 1

/* Bit positions typed from amd-athlon-k7-perfevtsel.txt (EVENT_SELECT from K8 §10.2). */
static const struct {
	const char *name;
	unsigned lo, hi;
} fields[] = {
    {"EVENT_SELECT", 0, 7}, {"UNIT_MASK", 8, 15}, {"USR", 16, 16}, {"OS", 17, 17},
    {"E", 18, 18},	    {"PC", 19, 19},	  {"INT", 20, 20}, {"EN", 22, 22},
    {"INV", 23, 23},	    {"CNT_MASK", 24, 31},
};
/* Linux's K7 map: cycles, instructions, branches, branch-misses, cache-ref,
 * cache-miss, older cache-ref/miss, stalled-frontend, stalled-backend; then
 * the rest of #22007 Table 11, typed from the guide (top-level events). */
static const unsigned events[] = {0x0076, 0x00c0, 0x00c2, 0x00c3, 0x077d, 0x077e, 0x0080, 0x0081,
				  0x00d0, 0x00d1, 0x7f20, 0x0021, 0x0040, 0x0041, 0x1f42, 0x1f43,
				  0x1f44, 0x0045, 0x0046, 0x0047, 0x0064, 0x00c1, 0x00c4, 0x00c5,
				  0x00c6, 0x00c7, 0x00cd, 0x00ce, 0x00cf};
#define MAP_EVENTS 10
static const unsigned gen_expect[GEN_COUNT] = {0x76, 0xc0, 0xc2, 0xc3, 0x077d, 0x077e, 0};

static void perfevtsel_fields(void **st)
{
	(void)st;
	assert_int_equal(events_amd_k7_nfields, N_OF(fields));
	uint32_t covered = 0;
	for (size_t i = 0; i < N_OF(fields); i++) {
		const struct evsel_field *f = &events_amd_k7_fields[i];
		assert_string_equal(f->name, fields[i].name);
		assert_int_equal(f->lo, fields[i].lo);
		assert_int_equal(f->hi, fields[i].hi);
		uint32_t bits = (uint32_t)((2ull << f->hi) - (1ull << f->lo));
		assert_int_equal(covered & bits, 0); /* no overlap */
		covered |= bits;
	}
	assert_int_equal(covered, 0xffdfffffu); /* bit 21 is the only gap */
}

static void every_event(void **st)
{
	(void)st;
	table_hygiene(&events_amd_k7);
	assert_int_equal(events_amd_k7.n, 51); /* 29 events, 22 unit masks */
	size_t k = 0;
	for (size_t i = 0; i < events_amd_k7.n; i++) {
		const struct event_def *e = &events_amd_k7.ev[i];
		if (e->flags & EVF_SUB)
			continue;
		assert_true(k < N_OF(events));
		assert_int_equal(((unsigned)e->umask << 8) | e->code, events[k]);
		assert_int_equal((e->flags & EVF_FACTS_MAP) != 0, k < MAP_EVENTS);
		k++;
	}
	assert_int_equal(k, N_OF(events));
	/* a MOESI unit mask of Table 11 */
	struct ev_result m = resolve_expect(K7, "DATA_CACHE_REFILLS.MODIFIED", EV_OK);
	assert_int_equal(m.ev.code, 0x42);
	assert_int_equal(m.ev.umask, 0x10);
	struct ev_result r = resolve_expect(K7, "cpu_clocks_not_halted", EV_OK);
	assert_int_equal(r.ev.code, 0x76);
	r = resolve_expect(K7, "event=0x4b", EV_WARN); /* K7 list is partial: unchecked */
	assert_non_null(strstr(r.msg, "not in the catalogue"));
	resolve_expect(K7, "RETIRED_NEAR_RETURNS", EV_REFUSED); /* a K8 table name */
	resolve_expect(K7, "RETIRED_INSTRUCTIONS,counter=3", EV_OK);
	resolve_expect(K7, "RETIRED_INSTRUCTIONS,counter=4", EV_REFUSED); /* four counters */
}

/* K7 to Fam16h share one map (Linux amd_perfmon_event_map), legacy or core-extension driver:
 * the driver's generic_event on a simulated CPU of each family. */
static void generic(void **st)
{
	(void)st;
	static const struct {
		const char *model;
		unsigned fam;
		enum pmu_driver_id d;
	} cpus[] = {{"athlon", 0, PMU_DRV_AMD_LEGACY},
		    {"opteron", 0, PMU_DRV_AMD_LEGACY},
		    {"opteron", 0x10, PMU_DRV_AMD_LEGACY},
		    {"bulldozer", 0, PMU_DRV_AMD_CORE},
		    {"bulldozer", 0x16, PMU_DRV_AMD_CORE}};
	struct pmu_event ev;
	for (size_t c = 0; c < N_OF(cpus); c++) {
		struct pmu *p = gen_attach(cpus[c].model, cpus[c].fam);
		assert_int_equal(p->ops->id, cpus[c].d);
		for (int g = 0; g < GEN_COUNT; g++) {
			int rc = p->ops->generic_event(p, (enum pmu_generic)g, 0, &ev);
			if (!gen_expect[g]) {
				assert_int_equal(rc, HW_UNSUPPORTED);
				continue;
			}
			assert_int_equal(rc, HW_OK);
			assert_int_equal(((unsigned)ev.umask << 8) | ev.code, gen_expect[g]);
		}
	}
	/* The catalogue names what the driver programs. */
	struct pmu *p = gen_attach("athlon", 0);
	assert_int_equal(gen_enc(p, GEN_CACHE_REFS, 0, &ev), 0x077d);
	assert_string_equal(gen_catalogued(p, &ev).def->name, "REQUESTS_TO_L2.IC_DC_TLB_FILL");
	p = gen_attach("opteron", 0);
	assert_int_equal(gen_enc(p, GEN_CACHE_REFS, 0, &ev), 0x077d);
	assert_string_equal(gen_catalogued(p, &ev).ev.name,
			    "REQUESTS_TO_L2:0x07"); /* a K8 combination */
	assert_int_equal(gen_enc(p, GEN_INSTRUCTIONS, 0, &ev), 0x00c0);
	assert_string_equal(gen_catalogued(p, &ev).def->name, "RETIRED_INSTRUCTIONS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(perfevtsel_fields),
	    cmocka_unit_test(every_event),
	    cmocka_unit_test(generic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
