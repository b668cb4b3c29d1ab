/* The results JSON's "sampling" section (tests/report_sampling.c). */
#ifndef PMH_TESTS_REPORT_SAMPLING_H
#define PMH_TESTS_REPORT_SAMPLING_H

#include "suite.h"
#include "../lib/fmt.h"

void report_json_sampling(struct pmh_sb *sb, const struct suite *s);

#endif
