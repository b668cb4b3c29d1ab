/* What the checks that take real PMIs share: the PMI service (apic/pmi.h)
 * and the PMI windows of tests/measure.h (pmi_begin, pmi_run, pmi_trouble,
 * pmi_end). */
#ifndef PMH_CHECKS_PMI_COMMON_H
#define PMH_CHECKS_PMI_COMMON_H

#include "../measure.h"
#include "../../apic/pmi.h"
#include "../../apic/isr.h"
#include "../../pmu/msr.h"

#define PMI_WAIT_US 100000 /* 100 ms: far beyond any PMI latency */

#endif
