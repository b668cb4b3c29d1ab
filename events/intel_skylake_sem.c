/* What Skylake's L2_RQSTS events must count (events/semantics.h): the
 * origin x result table of the L2_RQSTS note (Travis Downs, "perf stat
 * recipes", L2_RQSTS section). A request counts when it matches a selected
 * origin (umask bits 4:0) AND a selected result (7:5: 0x20 miss, 0x40 hit
 * E/S, 0x80 hit M). A walk of four times the L1D that fits the L2 hits L2:
 * read-only lines hit E/S, lines stored to hit M; a walk of four times the
 * L2 misses it. The SDM names 0x41 and 0x42 "hits", which they are only in
 * E/S state: the rules below hold the silicon to the note, so a part that
 * counted M-state hits there would fail and say so. */
#include "sem_macros.h"
#include "events.h"

#define NOTE	   "L2_RQSTS note (perf stat recipes)"
#define NOTE_WRONG NOTE ": the SDM says all hits; really E/S only, not M"
#define L2(n)	   "L2_RQSTS." n
#define M_HITS	   "event=0x24,umask=0x81" /* demand data read, hit M: not an SDM name */

const struct sem_rule events_intel_skylake_sem[] = {
    BOUND(L2("DEMAND_DATA_RD_MISS"), wl_chase, FP_L2_OVER, SQ_ELEMENTS, 500, 1100, NOTE OURS),
    BOUND(L2("DEMAND_DATA_RD_MISS"), wl_chase, FP_L2, SQ_ELEMENTS, 0, 50, NOTE OURS),
    BOUND(L2("DEMAND_DATA_RD_HIT"), wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100, NOTE_WRONG OURS),
    BOUND(L2("DEMAND_DATA_RD_HIT"), wl_chase_dirty, FP_L2, SQ_ELEMENTS, 0, 50,
	  NOTE_WRONG ": M-state hits excluded" OURS),
    BOUND(M_HITS, wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100, NOTE ": 0x80 is hit M" OURS),
    BOUND(M_HITS, wl_chase, FP_L2, SQ_ELEMENTS, 0, 50, NOTE ": read-only lines are not M" OURS),
    BOUND(L2("DEMAND_DATA_RD_HIT_CORRECTED"), wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100,
	  NOTE ": 0xc1 is every demand-read hit" OURS),
    BOUND(L2("DEMAND_DATA_RD_HIT_CORRECTED"), wl_chase_dirty, FP_L2, SQ_ELEMENTS, 500, 1100,
	  NOTE ": 0xc1 includes M-state hits" OURS),
    VS(L2("ALL_DEMAND_DATA_RD"), wl_chase, FP_L2, 950, 1050,
       NOTE ": 0xe1 is the sum of its disjoint results" OURS, L2("DEMAND_DATA_RD_MISS"),
       L2("DEMAND_DATA_RD_HIT"), M_HITS),
    BOUND(L2("RFO_MISS"), wl_store_walk, FP_L2_OVER, SQ_ELEMENTS, 500, 1100, NOTE OURS),
    BOUND(L2("RFO_HIT"), wl_store_walk, FP_L2, SQ_ELEMENTS, 0, 50,
	  NOTE_WRONG ": stored lines hit M, excluded" OURS),
    BOUND(L2("RFO_HIT_CORRECTED"), wl_store_walk, FP_L2, SQ_ELEMENTS, 500, 1100,
	  NOTE ": 0xc2 includes M-state hits" OURS),
    BOUND(L2("ALL_RFO"), wl_store_walk, FP_L2, SQ_ELEMENTS, 500, 1100, NOTE OURS),
    /* code the harness wrote, one block per line (wl_code): 4x the L1I
     * misses it and hits the L2; the L1I's next-line prefetches are code
     * reads too (Intel Optimization Manual, "instruction prefetcher"):
     * up to twice the lines. Past the LLC (events = all) every line
     * misses. */
    BOUND(L2("CODE_RD_HIT"), wl_code, FP_CODE_L2, SQ_ELEMENTS, 500, 2000, NOTE OURS),
    BOUND(L2("CODE_RD_MISS"), wl_code, FP_CODE_L2, SQ_ELEMENTS, 0, 50,
	  NOTE ": code the L2 holds" OURS),
    BOUND(L2("CODE_RD_MISS"), wl_code, FP_CODE_MEM, SQ_ELEMENTS, 500, 2000, NOTE OURS),
    VS(L2("ALL_CODE_RD"), wl_code, FP_CODE_L2, 950, 1050,
       NOTE ": 0xe4 is the sum of its results" OURS, L2("CODE_RD_MISS"), L2("CODE_RD_HIT")),
    /* software load prefetches are origin 0x08; the hardware prefetchers
     * add requests of their own, so no upper bound */
    BOUND(L2("PF_MISS"), wl_pf_t0, FP_L2_OVER, SQ_PF_LOAD, 250, NOMAX,
	  NOTE ": PREFETCHT0 is an L1 prefetch request" OURS),
    BOUND(L2("PF_HIT"), wl_pf_t0, FP_L2, SQ_PF_LOAD, 250, NOMAX, NOTE OURS),
    BOUND(L2("ALL_PF"), wl_pf_t0, FP_L2, SQ_PF_LOAD, 250, NOMAX, NOTE OURS),
    BOUND(L2("MISS"), wl_chase, FP_L2_OVER, SQ_ELEMENTS, 500, NOMAX, NOTE OURS),
    BOUND(L2("ALL_DEMAND_MISS"), wl_chase, FP_L2_OVER, SQ_ELEMENTS, 500, 1100, NOTE OURS),
    BOUND(L2("ALL_DEMAND_REFERENCES"), wl_chase, FP_L2, SQ_ELEMENTS, 500, 1100, NOTE OURS),
    BOUND(L2("REFERENCES"), wl_chase, FP_L2, SQ_ELEMENTS, 500, NOMAX, NOTE OURS),
    VS(L2("REFERENCES_CORRECTED"), wl_chase, FP_L2, 1000, NOMAX,
       NOTE ": 0xff adds the L2 prefetcher's own requests to 0xef" OURS, L2("REFERENCES")),
    /* a mask without an origin or without a result selects nothing */
    EXACT("event=0x24,umask=0x01", wl_chase, FP_L2, SQ_ZERO, NOTE ": no result bit"),
    EXACT("event=0x24,umask=0xe0", wl_chase, FP_L2, SQ_ZERO, NOTE ": no origin bit"),
    {0},
};
