/* What the Intel P6 events must count on the designed workloads
 * (events/semantics.h). */
#include "sem_macros.h"
#include "events.h"

const struct sem_rule events_intel_p6_sem[] = {
    {0},
};
