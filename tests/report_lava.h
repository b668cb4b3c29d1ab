/* LAVA's test signals on the console (output = lava): the run's results as
 * one test set of test cases, in the syntax lava-dispatcher parses. */
#ifndef PMH_TESTS_REPORT_LAVA_H
#define PMH_TESTS_REPORT_LAVA_H

#include <stddef.h>
#include "suite.h"

/* The LAVA test case id of a result into buf (n bytes): the check id,
 * "@cpuN" after it when the run reports per CPU, every character outside
 * [A-Za-z0-9._-] turned into '_'. */
const char *lava_case_id(char *buf, size_t n, const char *id, unsigned cpu, bool per_cpu);
/* Each signal only when options.output is lava. The test set's START
 * (before the first check; once) or STOP (only of a set that started). */
void lava_set(struct suite *s, bool start);
/* A test case as it happens: STARTTC before check id runs on cpu; ENDTC and
 * TESTCASE once its result is recorded, with its figures, so that a run
 * that never ends has its finished cases reported and each case brackets
 * the check's own lines. */
void lava_case_start(struct suite *s, const char *id, unsigned cpu);
void lava_case_end(struct suite *s, const struct result *r);
/* After the checks' set: a second set, "pmuharness-identity", with each
 * identified CPU's identification from the records the results JSON's
 * "cpus" is written from (vendor, family, model, stepping, hypervisor,
 * pmu driver, status, version, counters and widths). */
void lava_identity(struct suite *s);
/* The run's end, after its results files are closed: the checks' set
 * (started here if the run stopped before its first check, so that LAVA
 * sees a whole set) gets a "verdict" case, pass only for PASS, and after a
 * crash a failed "harness.crash" case, then its STOP; then the identity
 * set. A lab powers the machine off at the last STOP: nothing the run
 * keeps comes after it. */
void lava_end(struct suite *s);

#endif
