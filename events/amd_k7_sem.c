/* What the AMD K7 (Athlon) events must count on the designed workloads
 * (events/semantics.h). The events are those of the AMD Athlon Processor
 * x86 Code Optimization Guide #22007 Table 11, whose codes K8 kept (K8 BKDG
 * #26094 §10.2.1 words them more fully, and is cited where it does). K7's
 * L2 is an exclusive victim cache like K8's (#22007 "cache architecture"),
 * so the walks meet the same line states. Bounds no document gives are
 * "ours" and wide: a FAIL must mean a dead, miswired or wrongly counting
 * event, not a busy prefetcher. */
#include "sem_macros.h"
#include "events.h"

#define T11(s) "AMD #22007 Table 11" s
#define CLOCKS "CPU_CLOCKS_NOT_HALTED"
#define TIMING "a timing condition no construction fixes"

const struct sem_rule events_amd_k7_sem[] = {
    /* Linux's event map */
    BOUND(CLOCKS, wl_loop, FP_NONE, SQ_ITERATIONS, 900, 20000,
	  T11(": the loop's counter chain takes about a cycle an iteration") OURS),
    EXACT("RETIRED_INSTRUCTIONS", wl_loop, FP_NONE, SQ_INSTRUCTIONS, T11("")),
    EXACT("RETIRED_BRANCH_INSTRUCTIONS", wl_br_random, FP_NONE, SQ_BRANCHES, T11("")),
    BOUND("RETIRED_MISPREDICTED_BRANCH_INSTR", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, 750,
	  T11(": a random direction is mispredicted about half the time") OURS),
    BOUND("RETIRED_MISPREDICTED_BRANCH_INSTR", wl_br_taken, FP_NONE, SQ_ITERATIONS, 0, 20,
	  T11(": an always-taken branch is learned") OURS),
    /* 7Dh/7Eh 07h: the L2 requests and misses of IC, DC and TLB fills
     * (K8 BKDG §10.2.1.4); a chase that misses L1 asks the L2 once an
     * element, and a page walk now and then. */
    BOUND("REQUESTS_TO_L2.IC_DC_TLB_FILL", wl_chase, FP_L2, SQ_ELEMENTS, 500, 2000,
	  "K8 BKDG #26094 §10.2.1.4" OURS),
    BOUND("L2_CACHE_MISSES.IC_DC_TLB_FILL", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 1100,
	  "K8 BKDG #26094 §10.2.1.4" OURS),
    BOUND("L2_CACHE_MISSES.IC_DC_TLB_FILL", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  "K8 BKDG #26094 §10.2.1.4: a walk that fits the L2 does not miss it" OURS),
    BOUND("INSTRUCTION_CACHE_FETCHES", wl_loop, FP_NONE, SQ_ITERATIONS, 125, NOMAX,
	  T11(": at least one fetch per 8 iterations of a 9-byte loop") OURS),
    /* code the harness wrote, one block per line, 4x the L1I (wl_code) */
    BOUND("INSTRUCTION_CACHE_MISSES", wl_code, FP_CODE_L2, SQ_ELEMENTS, 500, 1100,
	  T11(": every line of code 4x the L1I misses it") OURS),
    BOUND("INSTRUCTION_CACHE_MISSES", wl_code, FP_CODE_L1, SQ_ELEMENTS, 0, 50,
	  T11(": code of half the L1I stays in it") OURS),
    NONE("DECODER_EMPTY", TIMING),
    VS("DISPATCH_STALLS", wl_chase, FP_MEM, 250, 1250,
       T11(": a chase to memory stalls most cycles (the clocks are counted in other windows, "
	   "whose walk the prefetcher may help more)") OURS,
       CLOCKS),
    /* load/store and data cache */
    EXACT("SEGMENT_REGISTER_LOADS.ES", wl_segload, FP_NONE, SQ_SEG_ES, T11("")),
    EXACT("SEGMENT_REGISTER_LOADS.SS", wl_segload, FP_NONE, SQ_SEG_SS, T11("")),
    EXACT("SEGMENT_REGISTER_LOADS.DS", wl_segload, FP_NONE, SQ_SEG_DS, T11("")),
    EXACT("SEGMENT_REGISTER_LOADS.CS", wl_far, FP_NONE, SQ_SEG_CS, T11(": a far return loads CS")),
    EXACT("SEGMENT_REGISTER_LOADS", wl_segload, FP_NONE, SQ_SEG_ALL, T11("")),
    NONE("PIPELINE_RESTART_SELF_MODIFYING_CODE",
	 "needs code pages the harness may write; the firmware may map its image read-only"),
    BOUND("DATA_CACHE_ACCESSES", wl_chase, FP_L1, SQ_LOADS, 1000, 2000, T11("") OURS),
    BOUND("DATA_CACHE_MISSES", wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100, T11("") OURS),
    BOUND("DATA_CACHE_MISSES", wl_chase, FP_L1, SQ_ELEMENTS, 0, 50, T11("") OURS),
    BOUND("DATA_CACHE_REFILLS.EXCLUSIVE", wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100,
	  T11(": one core reading holds lines Exclusive") OURS),
    BOUND("DATA_CACHE_REFILLS.EXCLUSIVE", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 0, 50,
	  T11(": dirty lines are not Exclusive") OURS),
    BOUND("DATA_CACHE_REFILLS.MODIFIED", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100,
	  T11(": a line stored to comes back Modified") OURS),
    BOUND("DATA_CACHE_REFILLS.MODIFIED", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  T11(": a line only read is never Modified") OURS),
    BOUND("DATA_CACHE_REFILLS_SYSTEM", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 1100, T11("") OURS),
    BOUND("DATA_CACHE_LINES_EVICTED.MODIFIED", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100,
	  T11(": every refill writes a victim back to the L2") OURS),
    BOUND("DATA_CACHE_LINES_EVICTED.MODIFIED", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50, T11("") OURS),
    /* a page walk over the harness's own 4 KiB pages (events/pagewin.h),
     * 4x the L1 DTLB (fits the L2) or 4x the L2 DTLB, from CPUID */
    BOUND("L1_DTLB_MISS_L2_DTLB_HIT", wl_pages, FP_DTLB_L1, SQ_ELEMENTS, 500, 1100, T11("") OURS),
    BOUND("L1_DTLB_MISS_L2_DTLB_HIT", wl_pages, FP_DTLB_L2, SQ_ELEMENTS, 0, 50, T11("") OURS),
    BOUND("L1_DTLB_MISS_L2_DTLB_MISS", wl_pages, FP_DTLB_L2, SQ_ELEMENTS, 500, 1100, T11("") OURS),
    BOUND("L1_DTLB_MISS_L2_DTLB_MISS", wl_pages, FP_DTLB_L1, SQ_ELEMENTS, 0, 50, T11("") OURS),
    BOUND("MISALIGNED_ACCESSES", wl_misaligned, FP_LINE, SQ_MISALIGNED, 1000, 2000,
	  T11(": an access across an 8-byte boundary (K8 BKDG §10.2.1.3)") OURS),
    BOUND("DRAM_SYSTEM_REQUESTS", wl_chase, FP_MEM, SQ_ELEMENTS, 500, NOMAX,
	  T11(": the system's DRAM requests include ours") OURS),
    /* execution */
    BOUND("RETIRED_UOPS", wl_loop, FP_NONE, SQ_INSTRUCTIONS, 1000, 3000,
	  T11(": a simple instruction is one macro-op or more") OURS),
    EXACT("RETIRED_TAKEN_BRANCH_INSTRUCTIONS", wl_br_taken, FP_NONE, SQ_TAKEN, T11("")),
    EXACT("RETIRED_TAKEN_BRANCH_INSTRUCTIONS", wl_br_none, FP_NONE, SQ_TAKEN, T11("")),
    BOUND("RETIRED_TAKEN_BRANCH_INSTR_MISPREDICTED", wl_br_random, FP_NONE, SQ_ITERATIONS, 100, 600,
	  T11(": about a quarter of a random branch's iterations") OURS),
    EXACT("RETIRED_FAR_CONTROL_TRANSFERS", wl_far, FP_NONE, SQ_FAR, T11("")),
    NONE("RETIRED_BRANCH_RESYNCS", "no documented trigger"),
    VS("INTERRUPTS_MASKED_CYCLES", wl_loop, FP_NONE, 900, 1100,
       T11(": the windows run with interrupts off") OURS, CLOCKS),
    NONE("INT_MASKED_CYCLES_WITH_INT_PENDING", "not yet: needs an interrupt held pending"),
    NONE("INTERRUPTS_TAKEN", "not yet: the windows run with interrupts off"),
    {0},
};
