/* AMD IBS detection (to be written). */
#include "pmu.h"
#include "../lib/fmt.h"

void pmu_ibs_detect(const struct pmu *p, struct pmu_ibs *b)
{
	(void)p;
	*b = (struct pmu_ibs){0};
	pmh_fmt(b->why, sizeof(b->why), "not detected yet");
}
