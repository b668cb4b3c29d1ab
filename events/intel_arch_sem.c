/* What the architectural events must count on every arch-perfmon part
 * (events/semantics.h): Intel SDM Vol. 3B §20.2.1.2 (pre-defined
 * architectural events) and §20.2.2 (fixed-function counters). */
#include "sem_macros.h"
#include "events.h"

#define ARCH  "Intel SDM Vol. 3B §20.2.1.2"
#define FIXED "Intel SDM Vol. 3B §20.2.2"

const struct sem_rule events_intel_arch_sem[] = {
    EXACT("INSTRUCTION_RETIRED", wl_loop, FP_NONE, SQ_INSTRUCTIONS, ARCH),
    EXACT("INST_RETIRED.ANY", wl_loop, FP_NONE, SQ_INSTRUCTIONS, FIXED),
    BOUND("UNHALTED_CORE_CYCLES", wl_loop, FP_NONE, SQ_ITERATIONS, 900, 20000,
	  ARCH ": the sub/jae chain takes about a cycle an iteration" OURS),
    BOUND("CPU_CLK_UNHALTED.CORE", wl_loop, FP_NONE, SQ_ITERATIONS, 900, 20000,
	  FIXED ": the sub/jae chain takes about a cycle an iteration" OURS),
    /* fixed counter 2 counts at the TSC's rate while the core is not
     * halted; the windows never halt */
    BOUND("CPU_CLK_UNHALTED.REF", wl_loop, FP_NONE, SQ_TSC, 950, 1050,
	  FIXED ": reference cycles at the TSC rate" OURS),
    NONE("UNHALTED_REFERENCE_CYCLES",
	 "not yet: its clock (bus, crystal) differs by core; fixed counter 2 is checked"),
    EXACT("BRANCH_INSTRUCTION_RETIRED", wl_br_random, FP_NONE, SQ_BRANCHES, ARCH),
    BOUND("BRANCH_MISSES_RETIRED", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, 750,
	  ARCH ": a random direction is mispredicted about half the time" OURS),
    BOUND("BRANCH_MISSES_RETIRED", wl_br_taken, FP_NONE, SQ_ITERATIONS, 0, 20,
	  ARCH ": an always-taken branch is learned" OURS),
    BOUND("LLC_REFERENCE", wl_chase, FP_MEM, SQ_ELEMENTS, 500, NOMAX,
	  ARCH ": a chase of four times the LLC references it" OURS),
    BOUND("LLC_MISSES", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 1100,
	  ARCH ": a chase of four times the LLC misses it" OURS),
    BOUND("LLC_MISSES", wl_chase, FP_L1, SQ_ELEMENTS, 0, 50, ARCH ": a chase within L1" OURS),
    BOUND("LLC_MISSES", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  ARCH ": a chase within the L2, which the last level holds" OURS),
    NONE("TOPDOWN.SLOTS", "not yet: slots per cycle differ by core"),
    {0},
};
