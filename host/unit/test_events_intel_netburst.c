/* NetBurst table against the SDM NetBurst example (BRANCH_RETIRED) and
 * Linux's event -> ESCR -> counter bindings (p4_event_bind_map), and the binding rules. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#define NB   PMU_DRV_INTEL_NETBURST, 0xf, EVENTS_ANY_MODEL
#define C(n) (1u << (n))

/* name, ESCR event select, event mask, ESCR (T0), CCCR ESCR-select, counters (T0).
 * BRANCH_RETIRED bits and select 05H from the SDM example; the rest from Linux p4.c;
 * BSQ_CACHE_REFERENCE bits from Linux p4.h (0-5, 8-10). */
static const struct {
	const char *name;
	unsigned code, mask, escr, sel, counters;
} expect[] = {
    {"GLOBAL_POWER_EVENTS", 0x13, 0x1, 0x3a2, 6, C(0)},
    {"GLOBAL_POWER_EVENTS.RUNNING", 0x13, 0x1, 0x3a2, 6, C(0)},
    {"INSTR_RETIRED", 0x02, 0xf, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"INSTR_RETIRED.NBOGUSNTAG", 0x02, 0x1, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"INSTR_RETIRED.NBOGUSTAG", 0x02, 0x2, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"INSTR_RETIRED.BOGUSNTAG", 0x02, 0x4, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"INSTR_RETIRED.BOGUSTAG", 0x02, 0x8, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED", 0x06, 0xf, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.MMNP", 0x06, 0x1, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.MMNM", 0x06, 0x2, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.MMTP", 0x06, 0x4, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.MMTM", 0x06, 0x8, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.TAKEN", 0x06, 0xc, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.NOT_TAKEN", 0x06, 0x3, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"BRANCH_RETIRED.MISPREDICTED", 0x06, 0xa, 0x3cc, 5, C(12) | C(13) | C(16)},
    {"MISPRED_BRANCH_RETIRED", 0x03, 0x1, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"MISPRED_BRANCH_RETIRED.NBOGUS", 0x03, 0x1, 0x3b8, 4, C(12) | C(13) | C(16)},
    {"RETIRED_BRANCH_TYPE", 0x04, 0x1e, 0x3c2, 2, C(4) | C(5)},
    {"RETIRED_BRANCH_TYPE.CONDITIONAL", 0x04, 0x02, 0x3c2, 2, C(4) | C(5)},
    {"RETIRED_BRANCH_TYPE.CALL", 0x04, 0x04, 0x3c2, 2, C(4) | C(5)},
    {"RETIRED_BRANCH_TYPE.RETURN", 0x04, 0x08, 0x3c2, 2, C(4) | C(5)},
    {"RETIRED_BRANCH_TYPE.INDIRECT", 0x04, 0x10, 0x3c2, 2, C(4) | C(5)},
    {"BSQ_CACHE_REFERENCE", 0x0c, 0x73f, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_2NDL_HITS", 0x0c, 1u << 0, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_2NDL_HITE", 0x0c, 1u << 1, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_2NDL_HITM", 0x0c, 1u << 2, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_3RDL_HITS", 0x0c, 1u << 3, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_3RDL_HITE", 0x0c, 1u << 4, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_3RDL_HITM", 0x0c, 1u << 5, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_2NDL_MISS", 0x0c, 1u << 8, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.RD_3RDL_MISS", 0x0c, 1u << 9, 0x3a0, 7, C(0)},
    {"BSQ_CACHE_REFERENCE.WR_2NDL_MISS", 0x0c, 1u << 10, 0x3a0, 7, C(0)},
};

static void every_entry(void **st)
{
	(void)st;
	table_hygiene(&events_intel_netburst);
	assert_int_equal(events_intel_netburst.n, N_OF(expect));
	assert_int_equal(N_OF(expect), 32);
	for (size_t i = 0; i < N_OF(expect); i++) {
		const struct event_def *e = &events_intel_netburst.ev[i];
		assert_string_equal(e->name, expect[i].name);
		assert_int_equal(e->code, expect[i].code);
		assert_int_equal(e->escr_mask, expect[i].mask);
		assert_int_equal(e->escr_msr, expect[i].escr);
		assert_int_equal(e->escr_select, expect[i].sel);
		assert_int_equal(e->counters, expect[i].counters);
		assert_int_equal(e->umask, 0);
	}
}

static void escr_addresses(void **st)
{
	(void)st;
	assert_int_equal(events_netburst_escr_count(), 46); /* Linux msr-index.h: 46 */
	assert_string_equal(events_netburst_escr_name(0x3b8), "CRU_ESCR0");
	assert_string_equal(events_netburst_escr_name(0x3cc), "CRU_ESCR2");
	assert_string_equal(events_netburst_escr_name(0x3ba), "IQ_ESCR0");
	assert_string_equal(events_netburst_escr_name(0x3e1), "CRU_ESCR5");
	assert_string_equal(events_netburst_escr_name(0x3a2), "FSB_ESCR0");
	assert_null(events_netburst_escr_name(0x3c6));
	assert_null(events_netburst_escr_name(0x3e2));
	assert_null(events_netburst_escr_name(0x360)); /* a CCCR, not an ESCR */
}

static void binding_rules(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(NB, "escr=0x3b8,event=0x2,mask=0x1", EV_OK);
	assert_string_equal(r.def->name, "INSTR_RETIRED.NBOGUSNTAG");
	assert_int_equal(r.ev.escr_select, 4);
	assert_int_equal(r.ev.counters, C(12) | C(13) | C(16));
	r = resolve_expect(NB, "escr=0x3b8,event=0x2,mask=0x5", EV_OK); /* Linux instructions */
	assert_string_equal(r.def->name, "INSTR_RETIRED");
	assert_string_equal(r.ev.name, "INSTR_RETIRED:0x5");
	assert_int_equal(r.ev.escr_mask, 0x5);
	resolve_expect(NB, "escr=0x3cc,event=0x6,mask=0x8,escr_sel=5", EV_OK);
	r = resolve_expect(NB, "escr=0x3cc,event=0x6,mask=0x8,escr_sel=4", EV_REFUSED);
	assert_non_null(strstr(r.msg, "ESCR-select 5"));
	/* Counter binding: thread-0 IQ counters 12, 13, 16 only. */
	resolve_expect(NB, "BRANCH_RETIRED.MMTM,counter=12", EV_OK);
	resolve_expect(NB, "BRANCH_RETIRED.MMTM,counter=16", EV_OK);
	r = resolve_expect(NB, "BRANCH_RETIRED.MMTM,counter=14", EV_REFUSED);
	assert_non_null(strstr(r.msg, "12,13,16"));
	resolve_expect(NB, "global_power_events.running,counter=0", EV_OK);
	resolve_expect(NB, "GLOBAL_POWER_EVENTS.RUNNING,counter=2", EV_REFUSED);
	resolve_expect(NB, "RETIRED_BRANCH_TYPE,counter=5", EV_OK);
	resolve_expect(NB, "RETIRED_BRANCH_TYPE,counter=18", EV_REFUSED); /* 18 counters */
	/* Masks. */
	r = resolve_expect(NB, "escr=0x3b8,event=0x2,mask=0x10", EV_WARN);
	assert_non_null(strstr(r.msg, "not documented"));
	r = resolve_expect(NB, "escr=0x3b8,event=0x2,mask=0", EV_WARN);
	assert_non_null(strstr(r.msg, "counts nothing"));
	resolve_expect(NB, "escr=0x3a0,event=0xc,mask=0x80", EV_WARN); /* bits 6,7 undocumented */
	/* ESCR addresses and uncatalogued pairs. */
	r = resolve_expect(NB, "escr=0x3c6,event=0x2,mask=1", EV_REFUSED);
	assert_non_null(strstr(r.msg, "not a NetBurst ESCR"));
	resolve_expect(NB, "escr=0x3a0,event=0x2,mask=1", EV_REFUSED); /* needs escr_sel */
	r = resolve_expect(NB, "escr=0x3a0,event=0x2,mask=1,escr_sel=7", EV_WARN);
	assert_non_null(strstr(r.msg, "INSTR_RETIRED"));
	resolve_expect(NB, "escr=0x3a0,event=0x2,mask=1,escr_sel=8", EV_REFUSED);
	/* Syntax. */
	resolve_expect(NB, "event=0xc0", EV_REFUSED);
	resolve_expect(NB, "escr=0x3b8,event=0x2,mask=1,umask=1", EV_REFUSED);
	resolve_expect(NB, "escr=0x3b8,event=0x40,mask=1", EV_REFUSED);
	resolve_expect(NB, "escr=0x3b8,event=0x2,mask=0x10000", EV_REFUSED);
	resolve_expect(PMU_DRV_INTEL_ARCH, 6, 0x5e, "escr=0x3b8,event=0x2,mask=1", EV_REFUSED);
}

static void format(void **st)
{
	(void)st;
	char buf[128];
	struct ev_result r = resolve_expect(NB, "INSTR_RETIRED.BOGUSTAG", EV_OK);
	events_format(&r.ev, true, buf, sizeof(buf));
	assert_string_equal(buf, "escr=0x3b8,event=0x02,mask=0x0008,escr_sel=4 counters=12,13,16");
	/* The formatted encoding parses back to the same entry. */
	char spec[128];
	snprintf(spec, sizeof(spec), "escr=0x3b8,event=0x02,mask=0x0008,escr_sel=4");
	struct ev_result back = resolve_expect(NB, spec, EV_OK);
	assert_ptr_equal(back.def, r.def);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_entry),
	    cmocka_unit_test(escr_addresses),
	    cmocka_unit_test(binding_rules),
	    cmocka_unit_test(format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
