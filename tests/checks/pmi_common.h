/* What the checks that take real PMIs share: the PMI service (apic/pmi.h)
 * and the PMI windows of tests/measure.h (pmi_begin, pmi_run, pmi_trouble,
 * pmi_end). */
#ifndef PMH_CHECKS_PMI_COMMON_H
#define PMH_CHECKS_PMI_COMMON_H

#include "../measure.h"
#include "../../apic/pmi.h"
#include "../../apic/isr.h"
#include "../../pmu/msr.h"

#define PMI_WAIT_US 100000 /* an expected PMI: 100 ms, far beyond any PMI latency */
/* A PMI that must not come (INT clear, a second one for one overflow): 10
 * ms without it, after the first had its PMI_WAIT_US. */
#define PMI_QUIET_US (PMI_WAIT_US / 10)

#endif
