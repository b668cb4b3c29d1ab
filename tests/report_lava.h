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
/* The test set around every result in the table, each as STARTTC, ENDTC
 * and TESTCASE lines; nothing unless options.output is lava. */
void report_lava(struct suite *s);

#endif
