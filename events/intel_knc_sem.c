/* What the Xeon Phi Knights Corner events must count on the designed workloads
 * (events/semantics.h). */
#include "sem_macros.h"
#include "events.h"

const struct sem_rule events_intel_knc_sem[] = {
    {0},
};
