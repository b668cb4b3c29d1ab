/* What the Intel P6 events must count on the designed workloads
 * (events/semantics.h). The event definitions are the SDM's table of P6
 * family events (Intel SDM Vol. 3B, "Performance-Monitoring Events for
 * Processors Based on the P6 Family Microarchitecture"); bounds no
 * document gives are marked "ours" and are wide on purpose: a FAIL must
 * mean a dead, miswired or wrongly counting event, not a busy bus. Per
 * mille (pm) bounds are of the named quantity times the iterations
 * measured. A Pentium III has neither SSE2 nor CLFLUSH nor PREFETCHW, so
 * only workloads it runs are used. P6 lines are 32 bytes: the walks take
 * their stride from CPUID leaf 02H. */
#include "sem_macros.h"
#include "events.h"

#define SDM(ev) "Intel SDM Vol. 3B, P6 family events, " ev
/* L2_RQSTS (2EH) qualifies a request by the state the line has in the L2
 * (unit mask 08H M, 04H E, 02H S, 01H I): I is a miss. Not an SDM name:
 * the E-state requests alone, hits on lines only read. */
#define L2_E   "event=0x2e,umask=0x04"
#define DIVIDE "not yet: no workload divides"

const struct sem_rule events_intel_p6_sem[] = {
    EXACT("INST_RETIRED", wl_loop, FP_NONE, SQ_INSTRUCTIONS, SDM("INST_RETIRED (C0H)")),
    EXACT("BR_INST_RETIRED", wl_br_random, FP_NONE, SQ_BRANCHES, SDM("BR_INST_RETIRED (C4H)")),
    BOUND("BR_MISS_PRED_RETIRED", wl_br_random, FP_NONE, SQ_ITERATIONS, 250, 750,
	  SDM("BR_MISS_PRED_RETIRED (C5H): a random direction is mispredicted about half "
	      "the time") OURS),
    BOUND("BR_MISS_PRED_RETIRED", wl_br_taken, FP_NONE, SQ_ITERATIONS, 0, 20,
	  SDM("BR_MISS_PRED_RETIRED (C5H): an always-taken branch is learned") OURS),
    BOUND("CPU_CLK_UNHALTED", wl_loop, FP_NONE, SQ_ITERATIONS, 900, 20000,
	  SDM("CPU_CLK_UNHALTED (79H): the loop's counter chain takes about a cycle an "
	      "iteration") OURS),
    /* L2 requests: a chase of four times the L1D that fits the L2 asks
     * the L2 once an element and finds the line there (E: only read); a
     * chase of four times the L2 finds it Invalid. */
    BOUND("L2_RQSTS.MESI", wl_chase, FP_L2, SQ_ELEMENTS, 500, 1500,
	  SDM("L2_RQSTS (2EH): an L1D miss is an L2 request") OURS),
    BOUND("L2_RQSTS.MESI", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 1500,
	  SDM("L2_RQSTS (2EH): an L1D miss is an L2 request, whatever the state") OURS),
    BOUND("L2_RQSTS.I_STATE", wl_chase, FP_MEM, SQ_ELEMENTS, 500, 1100,
	  SDM("L2_RQSTS (2EH) unit mask 01H: the line is Invalid in the L2 (a miss)") OURS),
    BOUND("L2_RQSTS.I_STATE", wl_chase, FP_L2, SQ_ELEMENTS, 0, 50,
	  SDM("L2_RQSTS (2EH) unit mask 01H: a chase that fits the L2 finds its lines") OURS),
    BOUND(L2_E, wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100,
	  SDM("L2_RQSTS (2EH) unit mask 04H: lines only read are Exclusive") OURS),
    /* a walk four times the L2 finds at most a quarter of its lines there,
     * whatever the replacement; LRU finds none */
    BOUND(L2_E, wl_chase, FP_MEM, SQ_ELEMENTS, 0, 250,
	  SDM("L2_RQSTS (2EH) unit mask 04H: a request that misses is not an E hit") OURS),
    /* wl_x87: FADD, FMUL, FCOMI an iteration. FADD and FMUL are
     * computational; FCOMI is a compare on the FP adder, which the SDM
     * neither names nor excludes: 2 to 3 ops an iteration. FNSAVE,
     * FRSTOR, FLD1 and FSTP are loads and stores, which the SDM excludes,
     * and lie outside the loop (the N/2N difference drops them). The
     * values stay small integers: no assist, no trap. */
    BOUND("FLOPS", wl_x87, FP_LINE, SQ_X87, 667, 1000,
	  SDM("FLOPS (C1H): computational x87 ops retired, loads and stores excluded") OURS),
    BOUND("FP_COMP_OPS_EXE", wl_x87, FP_LINE, SQ_X87, 667, 2000,
	  SDM("FP_COMP_OPS_EXE (10H): computational x87 ops executed, speculative ones "
	      "included") OURS),
    BOUND("MUL", wl_x87, FP_LINE, SQ_X87_MUL, 1000, 2000,
	  SDM("MUL (12H): integer and FP multiplies, counted speculatively; wl_x87 has one "
	      "FMUL an iteration and no integer multiply") OURS),
    NONE("DIV", DIVIDE),
    NONE("CYCLES_DIV_BUSY", DIVIDE),
    NONE("FP_ASSIST", "not yet: no workload meets a denormal or masked x87 exception"),
    /* Unit mask 00H counts the bus clocks in which this processor drives
     * DRDY#: the data of its own writes. A store walk of four times the L2
     * writes every line back: a 32-byte line is four transfers on the
     * 64-bit bus. The reads' data are the chipset's. */
    BOUND("BUS_DRDY_CLOCKS", wl_store_walk, FP_MEM, SQ_ELEMENTS, 1000, NOMAX,
	  SDM("BUS_DRDY_CLOCKS (62H) unit mask 00H: bus clocks this processor drives "
	      "DRDY#; a written-back line is 4 of them") OURS),
    NONE("RESOURCE_STALLS", "a timing condition no construction fixes"),
    {0},
};
