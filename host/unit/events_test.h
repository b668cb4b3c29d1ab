/* Shared helpers of the event-catalogue unit tests (test_events_*.c). */
#ifndef PMH_TESTS_UNIT_EVENTS_TEST_H
#define PMH_TESTS_UNIT_EVENTS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h> /* after the headers it relies on */

#include "../../events/events.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Resolves spec and checks the verdict; returns the result for more checks. */
static inline struct ev_result resolve_expect(enum pmu_driver_id d, unsigned family, unsigned model,
					      const char *spec, enum ev_verdict want)
{
	struct ev_result r;
	enum ev_verdict v = events_resolve(d, family, model, spec, &r);
	if (v != want)
		fail_msg("\"%s\": verdict %d, want %d (%s)", spec, v, want, r.msg);
	assert_int_equal(v, r.verdict);
	if (v != EV_OK)
		assert_true(r.msg[0] != 0); /* every non-OK verdict says why */
	return r;
}

/* Names unique (case-insensitively), fit struct pmu_event, printable ASCII;
 * descriptions non-empty ASCII (the console is plain ASCII). */
static inline void table_hygiene(const struct event_table *t)
{
	for (const char *c = t->doc; *c; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
	for (const char *c = t->title; *c; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
	for (size_t i = 0; i < t->n; i++) {
		const struct event_def *e = &t->ev[i];
		assert_non_null(e->name);
		assert_true(strlen(e->name) > 0 &&
			    strlen(e->name) < sizeof(((struct pmu_event *)0)->name));
		for (const char *c = e->name; *c; c++)
			assert_true((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
				    *c == '_' || *c == '.');
		assert_non_null(e->desc);
		assert_true(strlen(e->desc) > 0);
		for (const char *c = e->desc; *c; c++)
			assert_true(*c >= 0x20 && *c < 0x7f);
		for (size_t k = i + 1; k < t->n; k++)
			if (!strcasecmp(e->name, t->ev[k].name))
				fail_msg("%s: duplicate name %s", t->id, e->name);
		if (!(e->flags & EVF_FIXED))
			assert_int_equal(e->fixed_index, -1);
		assert_true(e->code <= t->max_code);
	}
}

#endif
