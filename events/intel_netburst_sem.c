/* What the Intel NetBurst events must count on the designed workloads
 * (events/semantics.h). */
#include "sem_macros.h"
#include "events.h"

const struct sem_rule events_intel_netburst_sem[] = {
    {0},
};
