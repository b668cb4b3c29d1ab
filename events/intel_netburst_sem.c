/* What the Intel NetBurst (Pentium 4) events must count on the designed
 * workloads (events/semantics.h). The events are those of the SDM's NetBurst
 * tables: at-retirement (branch_retired, mispred_branch_retired,
 * instr_retired) and non-retirement (global_power_events,
 * retired_branch_type, BSQ_cache_reference), Intel SDM Vol. 3B chapter
 * "Performance-Monitoring Events", NetBurst tables. Bounds no document gives
 * are "ours" and wide: a FAIL must mean a dead, miswired or wrongly
 * counting event. */
#include "sem_macros.h"
#include "events.h"

#define SDM(e) "Intel SDM Vol. 3B, NetBurst events: " e
/* "This event may overcount conditional branches if mispredictions cause
 * the trace cache and delivery engine to build new traces, or when the
 * pipeline is being cleared" (the SDM's note on retired_branch_type). */
#define OVERCOUNT "; overcounts conditional branches around mispredictions (SDM note)"
#define NO_L3	  "no 3rd-level cache on the parts this catalogue names (Northwood's L2 is the last)"

const struct sem_rule events_intel_netburst_sem[] = {
    /* The double-speed ALUs may run the loop's counter chain at half a
     * cycle an iteration (Intel optimization manual, NetBurst "rapid
     * execution engine"): the lower bound is half the K8 one. */
    BOUND("GLOBAL_POWER_EVENTS.RUNNING", wl_loop, FP_NONE, SQ_ITERATIONS, 450, 20000,
	  SDM("global_power_events RUNNING: every cycle the processor is not stopped") OURS),
    EXACT("INSTR_RETIRED.NBOGUSNTAG", wl_loop, FP_NONE, SQ_INSTRUCTIONS,
	  SDM("instr_retired NBOGUSNTAG: the non-bogus instructions, none tagged")),
    EXACT("INSTR_RETIRED.NBOGUSTAG", wl_loop, FP_NONE, SQ_ZERO,
	  SDM("instr_retired NBOGUSTAG: the harness tags nothing")),
    BOUND("INSTR_RETIRED.BOGUSNTAG", wl_loop, FP_NONE, SQ_INSTRUCTIONS, 0, 20,
	  SDM("instr_retired BOGUSNTAG: a learned loop fetches no wrong path") OURS),
    /* branch_retired: the direction exactly, the prediction bounded */
    EXACT("BRANCH_RETIRED", wl_br_random, FP_NONE, SQ_BRANCHES, SDM("branch_retired")),
    EXACT("BRANCH_RETIRED.TAKEN", wl_br_random, FP_NONE, SQ_TAKEN,
	  SDM("branch_retired MMTP|MMTM: taken, predicted or not")),
    EXACT("BRANCH_RETIRED.NOT_TAKEN", wl_br_random, FP_NONE, SQ_NOT_TAKEN,
	  SDM("branch_retired MMNP|MMNM: not taken, predicted or not")),
    BOUND("BRANCH_RETIRED.MISPREDICTED", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, 750,
	  SDM("branch_retired MMNM|MMTM: a random direction is mispredicted about half the "
	      "time") OURS),
    VS("BRANCH_RETIRED.TAKEN", wl_br_random, FP_NONE, 990, 1010,
       SDM("branch_retired: a combination counts the sum of its bits (each part counted in "
	   "its own windows, where the random pattern mispredicts other branches)") OURS,
       "BRANCH_RETIRED.MMTP", "BRANCH_RETIRED.MMTM"),
    BOUND("BRANCH_RETIRED.MMTP", wl_br_taken, FP_NONE, SQ_TAKEN, 980, 1000,
	  SDM("branch_retired MMTP: an always-taken branch is learned") OURS),
    BOUND("BRANCH_RETIRED.MMTM", wl_br_taken, FP_NONE, SQ_TAKEN, 0, 20,
	  SDM("branch_retired MMTM") OURS),
    BOUND("BRANCH_RETIRED.MMNP", wl_br_none, FP_NONE, SQ_NOT_TAKEN, 980, 1000,
	  SDM("branch_retired MMNP: a never-taken branch is learned") OURS),
    BOUND("BRANCH_RETIRED.MMNM", wl_br_none, FP_NONE, SQ_NOT_TAKEN, 0, 20,
	  SDM("branch_retired MMNM") OURS),
    BOUND("BRANCH_RETIRED.MMTM", wl_br_random, FP_NONE, SQ_ITERATIONS, 100, 600,
	  SDM("branch_retired MMTM: about a quarter of a random branch's iterations") OURS),
    BOUND("BRANCH_RETIRED.MMNM", wl_br_random, FP_NONE, SQ_ITERATIONS, 100, 600,
	  SDM("branch_retired MMNM: about a quarter of a random branch's iterations") OURS),
    BOUND("MISPRED_BRANCH_RETIRED", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, 750,
	  SDM("mispred_branch_retired NBOGUS") OURS),
    BOUND("MISPRED_BRANCH_RETIRED", wl_br_taken, FP_NONE, SQ_ITERATIONS, 0, 20,
	  SDM("mispred_branch_retired: an always-taken branch is learned") OURS),
    /* retired_branch_type: INDIRECT includes returns and indirect calls */
    BOUND("RETIRED_BRANCH_TYPE.CONDITIONAL", wl_br_random, FP_NONE, SQ_COND, 1000, 1500,
	  SDM("retired_branch_type CONDITIONAL") OVERCOUNT OURS),
    BOUND("RETIRED_BRANCH_TYPE.CONDITIONAL", wl_br_taken, FP_NONE, SQ_COND, 1000, 1020,
	  SDM("retired_branch_type CONDITIONAL: no misprediction, no overcount") OURS),
    EXACT("RETIRED_BRANCH_TYPE.CALL", wl_calls, FP_NONE, SQ_CALLS,
	  SDM("retired_branch_type CALL: direct or indirect calls")),
    EXACT("RETIRED_BRANCH_TYPE.RETURN", wl_calls, FP_NONE, SQ_RETS,
	  SDM("retired_branch_type RETURN")),
    EXACT("RETIRED_BRANCH_TYPE.INDIRECT", wl_calls, FP_NONE, SQ_RETS,
	  SDM("retired_branch_type INDIRECT: returns, indirect calls or indirect jumps")),
    EXACT("RETIRED_BRANCH_TYPE.INDIRECT", wl_ind_random, FP_NONE, SQ_INDIRECT,
	  SDM("retired_branch_type INDIRECT: returns, indirect calls or indirect jumps")),
    VS("RETIRED_BRANCH_TYPE", wl_calls, FP_NONE, 1000, 1000,
       SDM("retired_branch_type: each branch once, whichever of its bits select it"),
       "RETIRED_BRANCH_TYPE.CONDITIONAL", "RETIRED_BRANCH_TYPE.CALL", "RETIRED_BRANCH_TYPE.RETURN"),
    /* BSQ_cache_reference: reads (loads and RFOs) and writes (writebacks)
     * by the line's state in the 2nd level. A read-only chase that misses
     * the L1 hits Exclusive lines; a dirty one Modified lines; a walk past
     * the L2 misses it, less the sectors the adjacent-line prefetch
     * brought (half at most: 128-byte sectored lines, SDM Vol. 2A CPUID
     * descriptor 7Bh). */
    BOUND("BSQ_CACHE_REFERENCE.RD_2NDL_HITE", wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100,
	  SDM("BSQ_cache_reference RD_2ndL_HITE") OURS),
    BOUND("BSQ_CACHE_REFERENCE.RD_2NDL_HITM", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100,
	  SDM("BSQ_cache_reference RD_2ndL_HITM: the chase stored to its lines") OURS),
    BOUND("BSQ_CACHE_REFERENCE.RD_2NDL_HITM", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  SDM("BSQ_cache_reference RD_2ndL_HITM: lines only read are not Modified") OURS),
    BOUND("BSQ_CACHE_REFERENCE.RD_2NDL_MISS", wl_chase, FP_MEM, SQ_ELEMENTS, 250, 1100,
	  SDM("BSQ_cache_reference RD_2ndL_MISS") OURS),
    BOUND("BSQ_CACHE_REFERENCE.RD_2NDL_MISS", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  SDM("BSQ_cache_reference RD_2ndL_MISS: a walk that fits the L2 does not miss it") OURS),
    NONE("BSQ_CACHE_REFERENCE.RD_3RDL_HITS", NO_L3),
    NONE("BSQ_CACHE_REFERENCE.RD_3RDL_HITE", NO_L3),
    NONE("BSQ_CACHE_REFERENCE.RD_3RDL_HITM", NO_L3),
    NONE("BSQ_CACHE_REFERENCE.RD_3RDL_MISS", NO_L3),
    NONE("BSQ_CACHE_REFERENCE.RD_2NDL_HITS", "a single core holds no line Shared"),
    NONE("BSQ_CACHE_REFERENCE.WR_2NDL_MISS",
	 "writes are writebacks and evictions (SDM); when one misses the 2nd level is not "
	 "documented"),
    {0},
};
