/* event.semantics' rows and coverage records (struct event_row and struct
 * event_coverage, suite.h) as the reports read them: the results JSON's
 * `events` (report_json.c), LAVA's cases (report_lava.c) and the screen
 * (screen_events.c), which recognises the check's own lines. */
#ifndef PMH_TESTS_REPORT_EVENTS_H
#define PMH_TESTS_REPORT_EVENTS_H

#include <stdint.h>
#include "suite.h"

/* The check whose rows these are: its result's TESTCASE is followed by one
 * TESTCASE per row of its CPU, and its row on the screen by the coverage
 * lines and the failing events. */
#define EVENT_CHECK_ID "event.semantics"
/* expected_hi without an upper bound, expected_lo without a lower one:
 * null in the JSON. */
#define EVENT_NO_MAX INT64_MAX
#define EVENT_NO_MIN INT64_MIN
/* The check's lines the screen takes (leading blanks skipped):
 *   event.coverage: amd-k8: 41 of 87 events validated, 30 not validatable; ...
 *   event: FAIL TABLE NAME (ENC) CTR WORKLOAD xN: RULE, expected 5..9, got 3...
 * (tests/checks/event_semantics.c, keep_row and run_table). */
#define EVENT_LINE_COVERAGE "event.coverage: "
#define EVENT_LINE_FAIL	    "event: FAIL "

/* A row's verdict: V_NONE (a row that decided nothing) is a FAIL, in the
 * JSON and LAVA alike. */
static inline enum verdict event_row_verdict(const struct event_row *r)
{
	return r->v <= V_SKIP ? r->v : V_FAIL;
}

#endif
