/* What the Xeon Phi Knights Corner events must count on the designed
 * workloads (events/semantics.h). The events are table 1-6 of the KNC PMU
 * guide (327357-001JA, §1.4.3.3); bounds no document gives are marked
 * "ours" and are wide on purpose: a FAIL must mean a dead, miswired or
 * wrongly counting event, not a busy prefetcher. Per mille (pm) bounds are
 * of the named quantity times the iterations measured.
 *
 * The core is in order and one core's reads hold lines Exclusive; its
 * 512 KiB L2 holds a walk of four times the 32 KiB L1D (the footprints come
 * from CPUID leaf 04H). KNC has no SSE, CLFLUSH or FCOMI: the workloads that
 * need them SKIP, so none is used here. */
#include "sem_macros.h"
#include "events.h"

#define DOC(s) "KNC PMU guide #327357 §1.4.3.3 table 1-6" s

#define CLOCKS "CPU_CLK_UNHALTED"
#define VPU    "needs VPU (512-bit vector) instructions: the workloads have none"
#define PF1    "needs vprefetch0: no workload issues KNC vector prefetches"
#define PF2    "needs vprefetch1: no workload issues KNC vector prefetches"
#define OTHER  "needs another core's L2 (a snoop or a fill from it): the harness runs on one core"
#define NOTLB                                                                                      \
	"not yet: the harness sizes TLB walks from CPUID (leaf 02H, 8000_0005h), "                 \
	"and reads no TLB size for KNC"
#define TIMING "a timing condition no construction fixes"

const struct sem_rule events_intel_knc_sem[] = {
    /* K-unit (L1D) reads and writes: a chase loads once an element and
     * stores nothing; a store walk stores once an element and reads
     * nothing. */
    EXACT("DATA_READ", wl_chase, FP_L1, SQ_LOADS, DOC("")),
    BOUND("DATA_READ", wl_store_walk, FP_L1, SQ_ELEMENTS, 0, 50,
	  DOC(": a store is not a read") OURS),
    EXACT("DATA_WRITE", wl_store_walk, FP_L1, SQ_STORES, DOC("")),
    BOUND("DATA_WRITE", wl_chase, FP_L1, SQ_ELEMENTS, 0, 50, DOC(": a load is not a write") OURS),
    VS("DATA_READ_OR_WRITE", wl_chase_dirty, FP_L1, 950, 1050,
       DOC(": reads and writes, hits and misses") OURS, "DATA_READ", "DATA_WRITE"),
    NONE("DATA_PAGE_WALK", NOTLB),
    BOUND("DATA_READ_MISS", wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": a chase of four times the L1D misses it") OURS),
    BOUND("DATA_READ_MISS", wl_chase, FP_L1, SQ_ELEMENTS, 0, 50, DOC(": a chase within L1") OURS),
    BOUND("DATA_WRITE_MISS", wl_store_walk, FP_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": stores over four times the L1D miss it") OURS),
    BOUND("DATA_WRITE_MISS", wl_chase_dirty, FP_L1, SQ_ELEMENTS, 0, 50,
	  DOC(": a store to the line just loaded hits") OURS),
    VS("DATA_READ_MISS_OR_WRITE_MISS", wl_chase_dirty, FP_L2, 900, 1100,
       DOC(": read misses and write misses") OURS, "DATA_READ_MISS", "DATA_WRITE_MISS"),
    BOUND("DATA_READ_MISS_OR_WRITE_MISS", wl_store_walk, FP_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": write misses count") OURS),
    BOUND("DATA_CACHE_LINES_WRITTEN_BACK", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": every line stored to is evicted dirty") OURS),
    BOUND("DATA_CACHE_LINES_WRITTEN_BACK", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  DOC(": a line only read is never dirty") OURS),
    NONE("MEMORY_ACCESSES_IN_BOTH_PIPES",
	 "U/V pairing follows issue rules the workloads' constructions do not fix"),
    NONE("BANK_CONFLICTS", TIMING),
    BOUND("CODE_READ", wl_loop, FP_NONE, SQ_ITERATIONS, 125, NOMAX,
	  DOC(": at least one instruction read per 8 iterations of the loop") OURS),
    NONE("CODE_PAGE_WALK", NOTLB),
    /* code the harness wrote, one block per line (wl_code), 4x the L1I */
    BOUND("CODE_CACHE_MISS", wl_code, FP_CODE_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": every line of code 4x the L1I misses it") OURS),
    BOUND("CODE_CACHE_MISS", wl_code, FP_CODE_L1, SQ_ELEMENTS, 0, 50,
	  DOC(": code of half the L1I stays in it") OURS),
    NONE("L1_DATA_PF1", PF1),
    /* Branches of every kind, taken or not: calls and returns included. */
    EXACT("BRANCHES", wl_calls, FP_NONE, SQ_BRANCHES, DOC(": calls and returns count")),
    EXACT("BRANCHES", wl_br_none, FP_NONE, SQ_BRANCHES, DOC(": not-taken branches count")),
    /* Flushes from mispredictions and segment descriptor loads (a far
     * return loads CS); a learned branch flushes nothing. */
    BOUND("PIPELINE_FLUSHES", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, NOMAX,
	  DOC(": a random direction is mispredicted about half the time") OURS),
    BOUND("PIPELINE_FLUSHES", wl_far, FP_NONE, SQ_FAR, 500, NOMAX,
	  DOC(": a far return loads a segment descriptor") OURS),
    BOUND("PIPELINE_FLUSHES", wl_br_taken, FP_NONE, SQ_ITERATIONS, 0, 20,
	  DOC(": an always-taken branch is learned") OURS),
    /* An in-order core executes only what it retires: exact on a loop
     * without mispredictions. */
    EXACT("INSTRUCTIONS_EXECUTED", wl_loop, FP_NONE, SQ_INSTRUCTIONS, DOC("")),
    NONE("INSTRUCTIONS_EXECUTED_V_PIPE",
	 "U/V pairing follows issue rules the workloads' constructions do not fix"),
    NONE("L1_DATA_PF1_MISS", PF1),
    NONE("L1_DATA_PF1_DROP", PF1),
    NONE("PIPELINE_AGI_STALLS", TIMING),
    NONE("L1_DATA_HIT_INFLIGHT_PF1", PF1),
    NONE("PIPELINE_SG_AGI_STALLS", "needs vgather/vscatter (VPU) instructions: none"),
    BOUND(CLOCKS, wl_loop, FP_NONE, SQ_ITERATIONS, 900, 20000,
	  DOC(": the loop's counter chain takes at least a cycle an iteration") OURS),
    BOUND(CLOCKS, wl_loop, FP_NONE, SQ_TSC, 900, 1100,
	  "KNC PMU guide #327357 §1.4.3.1: the TSC counts core clock cycles" OURS),
    /* Mispredictions on BTB hits only: the random branch runs every
     * iteration, so it is in the BTB and half its directions miss. */
    BOUND("BRANCHES_MISPREDICTED", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, 750,
	  DOC(": a random direction is mispredicted about half the time") OURS),
    BOUND("BRANCHES_MISPREDICTED", wl_br_taken, FP_NONE, SQ_ITERATIONS, 0, 20,
	  DOC(": an always-taken branch is learned") OURS),
    BOUND("MICROCODE_CYCLES", wl_cpuid, FP_NONE, SQ_CPUID, 10000, NOMAX,
	  DOC(": CPUID runs in microcode, at least 10 cycles") OURS),
    BOUND("MICROCODE_CYCLES", wl_loop, FP_NONE, SQ_ITERATIONS, 0, 20,
	  DOC(": add, dec and jnz are not microcoded") OURS),
    VS("FE_STALLED", wl_chase, FP_MEM, 250, 1050,
       DOC(": a chase to memory stalls most cycles") OURS, CLOCKS),
    BOUND("EXEC_STAGE_CYCLES", wl_loop, FP_NONE, SQ_ITERATIONS, 500, 20000,
	  DOC(": its three instructions pass the E stage, two at most a clock") OURS),
    NONE("L1_DATA_PF2", PF2),
    NONE("L2_DATA_PF1_MISS", PF1),
    NONE("LONG_DATA_PAGE_WALK", NOTLB),
    NONE("LONG_CODE_PAGE_WALK", NOTLB),
    /* CRI (L2) events, counter 0 only: a read-only chase of four times the
     * L1D hits the L2 in E, a dirty one in M; four times the L2 misses it
     * and fills from memory. */
    BOUND("L2_READ_HIT_E", wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": one core reading holds lines Exclusive") OURS),
    BOUND("L2_READ_HIT_E", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 0, 50,
	  DOC(": lines stored to are Modified, not E") OURS),
    BOUND("L2_READ_HIT_M", wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100,
	  DOC(": the L1's dirty victims are Modified in the L2") OURS),
    BOUND("L2_READ_HIT_M", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  DOC(": a line only read is never Modified") OURS),
    NONE("L2_READ_HIT_S", "needs another core's copy (S state): one core's reads hold lines E"),
    BOUND("L2_READ_MISS", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 2200,
	  DOC(": a prefetch and a demand read of one line count twice") OURS),
    BOUND("L2_READ_MISS", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50, DOC(": a chase within the L2") OURS),
    NONE("L2_WRITE_HIT", "the document describes it as read hits that may undercount: "
			 "no rule can say which it counts"),
    NONE("L2_VICTIM_REQ_WITH_DATA",
	 "the document does not say whose victims (L1 write-backs or other cores' requests)"),
    NONE("SNP_HITM_BUNIT", OTHER),
    NONE("SNP_HIT_L2", OTHER),
    NONE("SNP_HITM_L2", OTHER),
    NONE("L2_CODE_READ_MISS_CACHE_FILL", OTHER),
    NONE("L2_DATA_READ_MISS_CACHE_FILL", OTHER),
    NONE("L2_DATA_WRITE_MISS_CACHE_FILL", OTHER),
    BOUND("L2_CODE_READ_MISS_MEM_FILL", wl_code, FP_CODE_MEM, SQ_ELEMENTS, 500, 1100,
	  DOC(": code 4x the L2 fills from memory") OURS),
    BOUND("L2_CODE_READ_MISS_MEM_FILL", wl_code, FP_CODE_L2, SQ_ELEMENTS, 0, 50,
	  DOC(": code the L2 holds") OURS),
    BOUND("L2_DATA_READ_MISS_MEM_FILL", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 1100,
	  DOC(": one core's L2 misses fill from memory") OURS),
    /* The L2 streamer may serve part of a strided store walk: a lower
     * bound of a quarter. */
    BOUND("L2_DATA_WRITE_MISS_MEM_FILL", wl_store_walk, FP_MEM, SQ_ELEMENTS, 250, 1100,
	  DOC(": a store walk of four times the L2 asks for ownership of each line") OURS),
    BOUND("L2_DATA_WRITE_MISS_MEM_FILL", wl_chase, FP_MEM, SQ_ELEMENTS, 0, 50,
	  DOC(": a load is not a write (RFO)") OURS),
    NONE("L2_DATA_PF2", PF2),
    NONE("L2_DATA_PF2_DROP", PF2),
    NONE("L2_DATA_PF2_MISS", PF2),
    NONE("L2_DATA_HIT_INFLIGHT_PF2", PF2),
    NONE("VPU_DATA_READ", VPU),
    NONE("VPU_DATA_WRITE", VPU),
    NONE("VPU_DATA_READ_MISS", VPU),
    NONE("VPU_DATA_WRITE_MISS", VPU),
    NONE("VPU_STALL_REG", VPU),
    NONE("VPU_INSTRUCTIONS_EXECUTED", VPU),
    NONE("VPU_INSTRUCTIONS_EXECUTED_V_PIPE", VPU),
    NONE("VPU_ELEMENTS_ACTIVE", VPU),
    {0},
};
