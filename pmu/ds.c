/* The debug store: BTS and PEBS detection (to be written). */
#include "pmu.h"
#include "../lib/fmt.h"

void pmu_ds_detect(const struct pmu *p, struct pmu_ds *d)
{
	(void)p;
	*d = (struct pmu_ds){0};
	pmh_fmt(d->why_bts, sizeof(d->why_bts), "not detected yet");
	pmh_fmt(d->why_pebs, sizeof(d->why_pebs), "not detected yet");
}
