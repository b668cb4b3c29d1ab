/* AMD K8 table against BKDG chapter 10: every event and unit mask, the
 * counts, reserved events, the E9h rule, CNT_MASK and unit-mask checks. */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#include "k8_doc.inc"

#define K8 PMU_DRV_AMD_LEGACY, 0xf, EVENTS_ANY_MODEL

/* The document's counts, stated in events/amd_k8.c. */
static void counts(void **st)
{
	(void)st;
	size_t parents = 0, subs = 0;
	for (size_t i = 0; i < events_amd_k8.n; i++)
		(events_amd_k8.ev[i].flags & EVF_SUB) ? subs++ : parents++;
	assert_int_equal(N_OF(k8_doc_events), 87);
	assert_int_equal(N_OF(k8_doc_umasks), 115 + 2 * 4); /* F6h rows again for F7h, F8h */
	assert_int_equal(parents, N_OF(k8_doc_events));
	assert_int_equal(subs, N_OF(k8_doc_umasks));
	assert_int_equal(events_amd_k8.n, 210);
	table_hygiene(&events_amd_k8);
}

/* Events in document order, each description opening with the title. */
static void every_event(void **st)
{
	(void)st;
	size_t j = 0;
	for (size_t i = 0; i < events_amd_k8.n; i++) {
		const struct event_def *e = &events_amd_k8.ev[i];
		if (e->flags & EVF_SUB)
			continue;
		assert_true(j < N_OF(k8_doc_events));
		if (e->code != k8_doc_events[j].code ||
		    strncmp(e->desc, k8_doc_events[j].title, strlen(k8_doc_events[j].title)))
			fail_msg("entry %s (0x%02x \"%s\") vs document 0x%02x \"%s\"", e->name,
				 e->code, e->desc, k8_doc_events[j].code, k8_doc_events[j].title);
		assert_int_equal(e->umask, e->umask_bits); /* a parent counts every sub-event */
		j++;
	}
	assert_int_equal(j, N_OF(k8_doc_events));
}

/* Unit masks in document order with the row's text; the parent's documented
 * bits cover them. */
static void every_unit_mask(void **st)
{
	(void)st;
	size_t j = 0;
	for (size_t i = 0; i < events_amd_k8.n; i++) {
		const struct event_def *e = &events_amd_k8.ev[i];
		if (!(e->flags & EVF_SUB))
			continue;
		assert_true(j < N_OF(k8_doc_umasks));
		if (e->code != k8_doc_umasks[j].code || e->umask != k8_doc_umasks[j].umask ||
		    strcmp(e->desc, k8_doc_umasks[j].text))
			fail_msg("entry %s (0x%02x/0x%02x \"%s\") vs document 0x%02x/0x%02x \"%s\"",
				 e->name, e->code, e->umask, e->desc, k8_doc_umasks[j].code,
				 k8_doc_umasks[j].umask, k8_doc_umasks[j].text);
		assert_true(e->umask & e->umask_bits);
		j++;
	}
	assert_int_equal(j, N_OF(k8_doc_umasks));
	/* Parent bits = OR of its rows (7Fh: the text adds bit 1 to the one row). */
	for (size_t i = 0; i < N_OF(k8_doc_events); i++) {
		unsigned code = k8_doc_events[i].code, or = 0;
		for (size_t k = 0; k < N_OF(k8_doc_umasks); k++)
			if (k8_doc_umasks[k].code == code)
				or |= k8_doc_umasks[k].umask;
		struct ev_result r;
		char spec[32];
		snprintf(spec, sizeof(spec), "event=0x%x,umask=0x%x", code, or);
		events_resolve(K8, spec, &r);
		if (code == 0xe9)
			assert_int_equal(r.verdict, EV_OK); /* 0xff has all three parts */
		assert_int_equal(r.verdict, EV_OK);
		assert_non_null(r.def);
		assert_int_equal(r.def->umask_bits, code == 0x7f ? 0x03 : or);
	}
}

static void lookup_by_name_and_raw(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(K8, "retired_instructions", EV_OK);
	assert_int_equal(r.ev.code, 0xc0);
	assert_int_equal(r.ev.umask, 0);
	assert_string_equal(r.def->name, "RETIRED_INSTRUCTIONS");
	r = resolve_expect(K8, "Data_Cache_Refills.L2_Modified", EV_OK);
	assert_int_equal(r.ev.code, 0x42);
	assert_int_equal(r.ev.umask, 0x10);
	r = resolve_expect(K8, "event=0xc0,umask=0x00", EV_OK);
	assert_string_equal(r.def->name, "RETIRED_INSTRUCTIONS");
	r = resolve_expect(K8, "r00c0", EV_OK);
	assert_string_equal(r.def->name, "RETIRED_INSTRUCTIONS");
	r = resolve_expect(K8, "0x1042", EV_OK);
	assert_string_equal(r.def->name, "DATA_CACHE_REFILLS.L2_MODIFIED");
	/* A documented combination without its own entry. */
	r = resolve_expect(K8, "event=0x42,umask=0x06", EV_OK);
	assert_null(r.def);
	assert_string_equal(r.ev.name, "DATA_CACHE_REFILLS:0x06");
	resolve_expect(K8, "RETIRED_INSTRUCTIONS_X", EV_REFUSED);
}

/* BKDG §10.1: reserved events; every code the chapter does not list is refused. */
static void reserved_events(void **st)
{
	(void)st;
	unsigned documented = 0;
	for (unsigned code = 0; code < 256; code++) {
		unsigned or = 0;
		bool doc = false;
		for (size_t i = 0; i < N_OF(k8_doc_events); i++)
			doc |= k8_doc_events[i].code == code;
		for (size_t k = 0; k < N_OF(k8_doc_umasks); k++)
			if (k8_doc_umasks[k].code == code)
				or |= k8_doc_umasks[k].umask;
		char spec[32];
		snprintf(spec, sizeof(spec), "event=0x%x,umask=0x%x", code, or);
		struct ev_result r = resolve_expect(K8, spec, doc ? EV_OK : EV_REFUSED);
		if (!doc)
			assert_non_null(strstr(r.msg, "reserved or undocumented"));
		documented += doc;
	}
	assert_int_equal(documented, 87);
	resolve_expect(K8, "event=0x1c0", EV_REFUSED); /* EVENT_SELECT is 8 bits on K8 */
}

/* E9h: a request type (3:0), a target (5:4) and a source (7:6), all 256 masks. */
static void e9_rule_all_masks(void **st)
{
	(void)st;
	unsigned ok = 0;
	for (unsigned u = 0; u < 256; u++) {
		char spec[32];
		bool good = (u & 0x0f) && (u & 0x30) && (u & 0xc0);
		snprintf(spec, sizeof(spec), "event=0xe9,umask=0x%02x", u);
		struct ev_result r = resolve_expect(K8, spec, good ? EV_OK : EV_WARN);
		if (!good)
			assert_non_null(strstr(r.msg, "counts nothing"));
		ok += good;
	}
	assert_int_equal(ok, 15 * 3 * 3);
	/* The document's valid-path values pass. */
	resolve_expect(K8, "event=0xe9,umask=0xa8", EV_OK);
	resolve_expect(K8, "event=0xe9,umask=0xf4", EV_OK);
	/* A single row alone is documented but counts nothing. */
	resolve_expect(K8, "CPU_IO_REQUESTS.CPU_TO_MEM", EV_WARN);
}

static void unit_mask_and_cmask_rules(void **st)
{
	(void)st;
	resolve_expect(K8, "event=0x42,umask=0x20", EV_WARN); /* bit 5 not documented */
	resolve_expect(K8, "event=0x42,umask=0x00", EV_WARN); /* selects no sub-event */
	resolve_expect(K8, "event=0xc0,umask=0x01", EV_WARN); /* no unit mask defined */
	resolve_expect(K8, "event=0xc0,cmask=3", EV_OK);
	struct ev_result r = resolve_expect(K8, "event=0xc0,cmask=4", EV_REFUSED);
	assert_non_null(strstr(r.msg, "CNT_MASK"));
	resolve_expect(K8, "RETIRED_UOPS,cmask=255", EV_REFUSED);
	r = resolve_expect(K8, "DISPATCH_STALLS,cmask=2,inv,edge", EV_OK);
	assert_int_equal(r.flags, PMU_F_CMASK(2) | PMU_F_INV | PMU_F_EDGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(counts),
	    cmocka_unit_test(every_event),
	    cmocka_unit_test(every_unit_mask),
	    cmocka_unit_test(lookup_by_name_and_raw),
	    cmocka_unit_test(reserved_events),
	    cmocka_unit_test(e9_rule_all_masks),
	    cmocka_unit_test(unit_mask_and_cmask_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
