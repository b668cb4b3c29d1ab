/* Event catalogue core: spec parsing errors, generic events of the Intel
 * families, listing (text and JSON), the option handler and the families
 * without a table. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#include "../../tests/measure.h"
#include "generic_test.h"

static char lines[1200][512];
static size_t n_lines;

static void collect(void *ctx, const char *s)
{
	(void)ctx;
	if (n_lines < N_OF(lines))
		snprintf(lines[n_lines], sizeof(lines[0]), "%s", s);
	n_lines++;
}
static const struct events_sink sink = {collect, NULL};

static void parse_errors(void **st)
{
	(void)st;
	static const char *bad[] = {
	    "",
	    "   ",
	    "event=",
	    "event=0x",
	    "event=zz",
	    "umask=1",
	    "0xZZ",
	    "0x10000",
	    "r4300c0",
	    "INST,event=1",
	    "event=1,foo",
	    "event=1,bar=2",
	    "event=1,cmask=256",
	    "event=1,umask=0x100",
	    "event=1,,umask=1",
	    "cmask=1",
	    "LLC_MISSES,escr=0x3b8",
	};
	for (size_t i = 0; i < N_OF(bad); i++) {
		struct ev_result r =
		    resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, bad[i], EV_REFUSED);
		assert_non_null(strstr(r.msg, "event \""));
	}
	/* Accepted forms, all the same event. */
	static const char *same[] = {"event=0xc0", "event=192,umask=0",
				     "0xc0",	   "0x00c0",
				     "r00c0",	   " event = 0xc0 , umask = 0x00 ",
				     "R00C0"};
	for (size_t i = 0; i < N_OF(same); i++) {
		struct ev_result r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, same[i], EV_OK);
		assert_int_equal(r.ev.code, 0xc0);
		assert_int_equal(r.ev.umask, 0);
		assert_int_equal(r.counter, -1);
	}
	/* Flags in the raw config: edge 18, inv 23, cmask 31:24. */
	struct ev_result r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "0x2804003c", EV_OK);
	assert_int_equal(r.flags, PMU_F_CMASK(0x28) | PMU_F_EDGE);
	r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "0x80003c", EV_OK);
	assert_int_equal(r.flags, PMU_F_INV);
	resolve_expect(PMU_DRV_NONE, 6, 0x3c, "event=0xc0", EV_REFUSED);
}

static void case_insensitive_names(void **st)
{
	(void)st;
	static const char *spellings[] = {"LLC_MISSES", "llc_misses", "Llc_Misses"};
	for (size_t i = 0; i < N_OF(spellings); i++) {
		const struct event_table *t = NULL;
		const struct event_def *e =
		    events_find(PMU_DRV_INTEL_ARCH, 6, 0x3c, spellings[i], &t);
		assert_non_null(e);
		assert_ptr_equal(t, &events_intel_arch);
		assert_string_equal(e->name, "LLC_MISSES");
	}
	assert_null(events_find(PMU_DRV_INTEL_ARCH, 6, 0x3c, "LLC_MISSE", NULL));
	struct ev_result r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "nope", EV_REFUSED);
	assert_non_null(strstr(r.msg, "unknown event name \"nope\""));
}

/* The Intel drivers' maps through their generic_event op on a simulated
 * CPU of the family: Linux intel_perfmon_event_map (arch). ref-cycles is the pseudo-encoding
 * 0x0300 of fixed counter 2 alone; 0x013c on a GP counter is Linux's
 * bus-cycles. */
static void generic_intel(void **st)
{
	(void)st;
	static const unsigned arch[GEN_COUNT] = {0x003c, 0x00c0, 0x00c4, 0x00c5, 0x4f2e, 0x412e, 0};
	struct pmu_event ev;
	struct pmu *p = gen_attach("skylake", 0);
	for (int g = 0; g < GEN_COUNT; g++) {
		assert_int_equal(gen_enc(p, (enum pmu_generic)g, 0, &ev), arch[g]);
		if (arch[g]) {
			assert_false(ev.fixed_only);
			assert_non_null(gen_catalogued(p, &ev).def);
		}
	}
	assert_int_equal(gen_enc(p, GEN_REF_CYCLES, p->n_gp + 2, &ev), 0x0300);
	assert_true(ev.fixed_only);
	assert_int_equal(events_fixed_index(&ev), 2);
	assert_string_equal(events_find_raw(&events_intel_arch, ev.code, ev.umask, 0, 0)->name,
			    "CPU_CLK_UNHALTED.REF");
	gen_enc(p, GEN_INSTRUCTIONS, 0, &ev);
	assert_string_equal(gen_catalogued(p, &ev).def->name, "INSTRUCTION_RETIRED");
	assert_int_equal(p->ops->generic_event(p, GEN_COUNT, 0, &ev), HW_UNSUPPORTED);
	assert_null(pmu_ops_for(PMU_DRV_NONE));
	assert_string_equal(m_gen_name(GEN_BRANCH_MISSES), "branch-misses");
}

/* Linux's KNC map (knc_perfmon_event_map), unit mask 0. */
static void generic_knc(void **st)
{
	(void)st;
	static const unsigned knc[GEN_COUNT] = {0x2a, 0x16, 0x12, 0x2b, 0x28, 0x29, 0};
	struct pmu_event ev;
	struct pmu *p = gen_attach("knc", 0);
	for (int g = 0; g < GEN_COUNT; g++) {
		assert_int_equal(gen_enc(p, (enum pmu_generic)g, 0, &ev), knc[g]);
		if (knc[g])
			assert_int_equal(ev.umask, 0);
	}
}

/* Linux p4_general_events: branches are BRANCH_RETIRED with all four outcome bits (SDM
 * Table 18-64, "P6: EMON_BR_INST_RETIRED"); no cache events. */
static void generic_netburst(void **st)
{
	(void)st;
	struct pmu_event ev;
	static const struct {
		unsigned code, mask, escr, sel, counters;
	} nb[GEN_COUNT] = {
	    {0x13, 0x1, 0x3a2, 6, 1u << 0}, /* GLOBAL_POWER_EVENTS:RUNNING */
	    {0x02, 0x5, 0x3b8, 4, (1u << 12) | (1u << 13) | (1u << 16)}, /* NBOGUSNTAG|BOGUSNTAG */
	    {0x06, 0xf, 0x3cc, 5, (1u << 12) | (1u << 13) | (1u << 16)}, /* MMNP|MMNM|MMTP|MMTM */
	    {0x03, 0x1, 0x3b8, 4, (1u << 12) | (1u << 13) | (1u << 16)}, /* MISPRED:NBOGUS */
	};
	struct pmu *p = gen_attach("pentium4", 0);
	for (int g = 0; g < GEN_COUNT; g++) {
		unsigned ctr = nb[g].counters ? (unsigned)__builtin_ctz(nb[g].counters) : 0;
		int rc = p->ops->generic_event(p, (enum pmu_generic)g, ctr, &ev);
		if (!nb[g].counters) {
			assert_int_equal(rc, HW_UNSUPPORTED);
			continue;
		}
		assert_int_equal(rc, HW_OK);
		assert_int_equal(ev.code, nb[g].code);
		assert_int_equal(ev.escr_mask, nb[g].mask);
		assert_int_equal(ev.escr_msr, nb[g].escr);
		assert_int_equal(ev.escr_select, nb[g].sel);
		assert_int_equal(ev.counters, nb[g].counters);
	}
	gen_enc(p, GEN_CYCLES, 0, &ev);
	assert_string_equal(gen_catalogued(p, &ev).def->name, "GLOBAL_POWER_EVENTS");
	gen_enc(p, GEN_INSTRUCTIONS, 12, &ev);
	assert_string_equal(gen_catalogued(p, &ev).ev.name, "INSTR_RETIRED:0x5");
}

/* Tiny JSON structure check: brackets balance outside strings, strings close. */
static void json_balanced(void)
{
	int depth = 0;
	for (size_t i = 0; i < n_lines; i++) {
		bool in_str = false;
		for (const char *c = lines[i]; *c; c++) {
			if (in_str) {
				if (*c == '\\')
					c++;
				else if (*c == '"')
					in_str = false;
			} else if (*c == '"')
				in_str = true;
			else if (*c == '{' || *c == '[')
				depth++;
			else if (*c == '}' || *c == ']')
				assert_true(--depth >= 0);
		}
		assert_false(in_str);
		assert_true(depth > 0 || i == n_lines - 1);
	}
	assert_int_equal(depth, 0);
}

static void listing(void **st)
{
	(void)st;
	n_lines = 0;
	size_t n = events_list(PMU_DRV_INTEL_ARCH, 6, 0x5e, false, &sink);
	assert_int_equal(n, events_intel_arch.n + events_intel_skylake.n);
	assert_int_equal(n_lines, n + 2); /* a header per table */
	assert_non_null(strstr(lines[0], "# intel-arch"));
	bool seen = false;
	for (size_t i = 0; i < n_lines; i++)
		if (strstr(lines[i], "L2_RQSTS.DEMAND_DATA_RD_HIT ")) {
			assert_non_null(strstr(lines[i], "event=0x24,umask=0x41"));
			assert_non_null(strstr(lines[i], "[documented incorrectly]"));
			seen = true;
		}
	assert_true(seen);
	/* Haswell model: no Skylake table. */
	n_lines = 0;
	assert_int_equal(events_list(PMU_DRV_INTEL_ARCH, 6, 0x3c, false, &sink),
			 events_intel_arch.n);

	n_lines = 0;
	n = events_list(PMU_DRV_AMD_LEGACY, 0xf, EVENTS_ANY_MODEL, true, &sink);
	assert_int_equal(n, 210);
	assert_true(n_lines < N_OF(lines));
	assert_non_null(strstr(lines[0], "\"schema\": \"pmuharness-events/1\""));
	assert_non_null(strstr(lines[0], "\"driver\": \"amd-legacy\""));
	assert_non_null(strstr(lines[n_lines - 1], "\"count\": 210}"));
	json_balanced();
	assert_non_null(strstr(lines[2], "\"name\": \"DISPATCHED_FPU_OPS\""));

	n_lines = 0;
	events_list(PMU_DRV_INTEL_NETBURST, 0xf, 2, true, &sink);
	json_balanced();
	assert_non_null(strstr(lines[2], "\"escr\": \"0x3a2\""));

	/* AMD family 10h: no table here. */
	n_lines = 0;
	assert_int_equal(events_list(PMU_DRV_AMD_LEGACY, 0x10, 2, false, &sink), 0);
	assert_int_equal(n_lines, 1);
	assert_non_null(strstr(lines[0], "no event table"));
	n_lines = 0;
	assert_int_equal(events_list(PMU_DRV_AMD_LEGACY, 0x10, 2, true, &sink), 0);
	json_balanced();
}

static void no_table_family(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(PMU_DRV_AMD_LEGACY, 0x10, 2, "event=0xc0", EV_WARN);
	assert_non_null(strstr(r.msg, "no event catalogue"));
	resolve_expect(PMU_DRV_AMD_LEGACY, 0x10, 2, "event=0x1c0",
		       EV_REFUSED); /* 8-bit before 15h */
	resolve_expect(PMU_DRV_AMD_LEGACY, 0x10, 2, "RETIRED_INSTRUCTIONS", EV_REFUSED);
}

static void option_handler(void **st)
{
	(void)st;
	struct ev_result r;
	n_lines = 0;
	assert_int_equal(events_handle_options(PMU_DRV_INTEL_ARCH, 6, 0x5e, false, false, "",
					       "line 1", &sink, &r),
			 EVOPT_NONE);
	assert_int_equal(n_lines, 0);
	assert_int_equal(events_handle_options(PMU_DRV_INTEL_ARCH, 6, 0x5e, true, false, "x",
					       "line 1", &sink, &r),
			 EVOPT_LISTED);
	assert_true(n_lines > 20);
	n_lines = 0;
	assert_int_equal(events_handle_options(PMU_DRV_INTEL_ARCH, 6, 0x5e, false, false,
					       "L2_RQSTS.DEMAND_DATA_RD_MISS", "line 1", &sink, &r),
			 EVOPT_RESOLVED);
	assert_int_equal(n_lines, 1);
	assert_string_equal(lines[0],
			    "event.resolved: L2_RQSTS.DEMAND_DATA_RD_MISS event=0x24,umask=0x21");
	n_lines = 0;
	assert_int_equal(events_handle_options(PMU_DRV_INTEL_ARCH, 6, 0x5e, false, false,
					       "event=0x24,umask=0x1f,cmask=1,inv,counter=2",
					       "line 1", &sink, &r),
			 EVOPT_RESOLVED);
	assert_int_equal(n_lines, 2);
	assert_true(!strncmp(lines[0], "warning: L2_RQSTS unit mask 0x1f counts nothing", 47));
	assert_string_equal(
	    lines[1], "event.resolved: L2_RQSTS:0x1f event=0x24,umask=0x1f cmask=1 inv counter=2");
	n_lines = 0;
	assert_int_equal(events_handle_options(PMU_DRV_INTEL_ARCH, 6, 0x5e, false, false,
					       "L2_RQSTS.NOPE", "pmuharness.cfg line 7", &sink, &r),
			 EVOPT_REFUSED);
	assert_int_equal(n_lines, 1);
	/* the refusal names where the option was set, as every bad value does */
	assert_true(
	    !strncmp(lines[0], "error: event (pmuharness.cfg line 7): unknown event name", 56));
	assert_non_null(strstr(lines[0], "the run goes on without it"));
}

/* counter= beyond the flat counters is refused naming it, not truncated;
 * numbers need a digit; the spec is quoted escaped. */
static void counter_range_and_escapes(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c,
					    "event=0xc0,counter=4294967296", EV_REFUSED);
	assert_non_null(strstr(r.msg, "counter 4294967296 out of range"));
	r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "event=0xc0,counter=32", EV_REFUSED);
	assert_non_null(strstr(r.msg, "counter 32"));
	r = resolve_expect(PMU_DRV_INTEL_P6, 6, 0x8, "event=0xc0,counter=8", EV_REFUSED);
	assert_non_null(strstr(r.msg, "counter 8"));
	resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "event=_", EV_REFUSED);
	resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "event=0xc0,umask=0x_", EV_REFUSED);
	r = resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x3c, "\x1b[2J\r,inv", EV_REFUSED);
	assert_non_null(strstr(r.msg, "\\x1b[2J"));
	for (const char *p = r.msg; *p; p++)
		assert_true(*p >= 0x20 && *p <= 0x7e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_errors),
	    cmocka_unit_test(case_insensitive_names),
	    cmocka_unit_test(generic_intel),
	    cmocka_unit_test(generic_knc),
	    cmocka_unit_test(generic_netburst),
	    cmocka_unit_test(listing),
	    cmocka_unit_test(no_table_family),
	    cmocka_unit_test(option_handler),
	    cmocka_unit_test(counter_range_and_escapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
