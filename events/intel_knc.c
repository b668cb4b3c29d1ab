/* Xeon Phi Knights Corner events: every row of table 1-6 of the KNC PMU guide
 * (Intel #327357, read in its Japanese edition 327357-001JA, §1.4.3.3), names
 * and encodings as given, descriptions translated from the Japanese.
 *
 * Counts (the unit test checks them): 59 rows: 32 P54C (umask 0x00), 19 CRI
 * (umask 0x10), 8 VPU (umask 0x20). The L2/snoop events of Linux's
 * knc_event_constraints (0xC3, 0xC4, 0xC8-0xCC, 0xCE, 0xCF, 0xD7, 0xE3, 0xE6,
 * 0xE7, 0xF1, 0xF2, 0xF6, 0xF7, 0xFC-0xFF) run on counter 0 only; 17 of them
 * are in the table.
 *
 * The descriptions of E3h, E6h, E7h and F0h in the document read as if
 * shifted by one row (E3h describes a code-read fill from another L2, F0h a
 * snoop HITM); they are translated as printed and marked. */
#include "events.h"
#include "semantics.h"

#define K(nm, c, u, fl, ctr, d)                                                                    \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = u, .counters = ctr,               \
		.fixed_index = -1, .cpuid_bit = -1, .flags = (fl), .desc = d                       \
	}
#define P(nm, c, d)  K(nm, c, 0x00, 0, 0, d)
#define C(nm, c, d)  K(nm, c, 0x10, 0, 0, d)
#define C0(nm, c, d) K(nm, c, 0x10, EVF_CTR_RESTRICTED, 0x1, d) /* counter 0 only */
#define V(nm, c, d)  K(nm, c, 0x20, 0, 0, d)

static const struct event_def knc[] = {
    /* FUB P54C, umask 0x00 */
    P("DATA_READ", 0x00,
      "Memory data reads committed by the K-unit (L1); on A0 stepping includes cache "
      "accesses of prefetch instructions"),
    P("DATA_WRITE", 0x01,
      "Memory data writes committed by the K-unit (L1), including streaming stores (L1 "
      "hit/miss), partial cacheable writes and UC promotions"),
    P("DATA_PAGE_WALK", 0x02, "Data page walks"),
    P("DATA_READ_MISS", 0x03,
      "Memory reads, cacheable or not, that missed the internal data cache; prefetch "
      "instruction accesses not included"),
    P("DATA_WRITE_MISS", 0x04,
      "Memory writes that missed the internal data cache; non-cacheable misses not included"),
    P("DATA_CACHE_LINES_WRITTEN_BACK", 0x06, "Dirty lines written back, for any reason"),
    P("MEMORY_ACCESSES_IN_BOTH_PIPES", 0x09,
      "Data memory reads/writes paired in both pipes of the pipeline"),
    P("BANK_CONFLICTS", 0x0a, "Actual bank conflicts"),
    P("CODE_READ", 0x0c, "Instruction reads, cacheable or not (no FUB given in the table)"),
    P("CODE_PAGE_WALK", 0x0d, "Code page walks"),
    P("CODE_CACHE_MISS", 0x0e,
      "Instruction reads, cacheable or not, that missed the internal code cache"),
    P("L1_DATA_PF1", 0x11, "Data vprefetch0 requests seen by the L1"),
    P("BRANCHES", 0x12,
      "Branches, taken or not: conditional branches, jumps, calls, returns, software "
      "interrupts and interrupt returns"),
    P("PIPELINE_FLUSHES", 0x15,
      "Pipeline flushes from BTB misses on executed branches, mispredictions, exceptions, "
      "interrupts and segment descriptor loads"),
    P("INSTRUCTIONS_EXECUTED", 0x16, "Instructions executed (at most two per clock)"),
    P("INSTRUCTIONS_EXECUTED_V_PIPE", 0x17,
      "Instructions executed in the V pipe: the number of paired instructions"),
    P("L1_DATA_PF1_MISS", 0x1c,
      "Data vprefetch0 requests seen by the L1 that missed the L1; vprefetch1 requests not "
      "included (the document: counted by L1_DATA_PF1_DROP)"),
    P("L1_DATA_PF1_DROP", 0x1e,
      "Data vprefetch0 requests seen by the L1 that were dropped (address matches another "
      "request, or UC memory)"),
    P("PIPELINE_AGI_STALLS", 0x1f,
      "Address generation interlock (AGI) stalls; an AGI in both U and V pipes in one clock "
      "counts twice"),
    P("L1_DATA_HIT_INFLIGHT_PF1", 0x20,
      "Data requests that hit an in-flight vprefetch0, not necessarily of the same thread"),
    P("PIPELINE_SG_AGI_STALLS", 0x21, "AGI stalls caused by vscatter* and vgather* instructions"),
    P("DATA_READ_OR_WRITE", 0x28,
      "Memory data reads/writes, internal data cache hits and misses; on A0 stepping "
      "includes prefetch instruction reads"),
    P("DATA_READ_MISS_OR_WRITE_MISS", 0x29,
      "Memory reads/writes, cacheable or not, that missed the internal data cache"),
    P("CPU_CLK_UNHALTED", 0x2a, "Cycles the processor was not halted"),
    P("BRANCHES_MISPREDICTED", 0x2b,
      "Branch mispredictions on BTB hits (BTB misses are not predicted, so not counted)"),
    P("MICROCODE_CYCLES", 0x2c,
      "Cycles spent executing microcode; every other thread stalls meanwhile"),
    P("FE_STALLED", 0x2d,
      "Cycles the front end could not advance, including back-pressure from multi-cycle "
      "instructions and cycles with nothing to issue"),
    P("EXEC_STAGE_CYCLES", 0x2e,
      "Completed E-stage cycles including multi-cycle E-stage instructions; for FPU/VPU "
      "instructions, the integer E-stage cycles"),
    P("L1_DATA_PF2", 0x37,
      "Data vprefetch1 requests seen by the L1, including ones the core dropped"),
    P("L2_DATA_PF1_MISS", 0x38, "Data vprefetch0 requests seen by the L2 that missed the L2"),
    P("LONG_DATA_PAGE_WALK", 0x3a,
      "Long data page walks (that also missed the L2 uTLB); a subset of DATA_PAGE_WALK"),
    P("LONG_CODE_PAGE_WALK", 0x3b,
      "Long code page walks (that also missed the L2 uTLB); a subset of \"DATA_CODE_WALK\" "
      "(sic)"),
    /* FUB CRI, umask 0x10 */
    C0("L2_READ_HIT_E", 0xc8, "L2 read hits in E state; may include prefetches on A0 stepping"),
    C0("L2_READ_HIT_M", 0xc9, "L2 read hits in M state"),
    C0("L2_READ_HIT_S", 0xca, "L2 read hits in S state"),
    C0("L2_READ_MISS", 0xcb,
       "L2 read misses; prefetch and demand requests to one address count twice"),
    C0("L2_WRITE_HIT", 0xcc,
       "L2 read hits (sic: the document says read); may undercount on A0 stepping"),
    C0("L2_VICTIM_REQ_WITH_DATA", 0xd7, "Victim requests the L2 received and sent data for"),
    C0("SNP_HITM_BUNIT", 0xe3,
       "As printed: code reads that missed the L2 and hit another L2, including promoted "
       "DATA accesses (text appears shifted)"),
    C0("SNP_HIT_L2", 0xe6,
       "As printed: snoop hit-modified (HITM) in the BUNIT (text appears shifted)"),
    C0("SNP_HITM_L2", 0xe7, "As printed: snoop hits in the L2 (text appears shifted)"),
    C("L2_CODE_READ_MISS_CACHE_FILL", 0xf0,
      "As printed: snoop hit-modified (HITM) in the L2 (text appears shifted)"),
    C0("L2_DATA_READ_MISS_CACHE_FILL", 0xf1,
       "Data reads that missed the L2 and hit another L2, including promoted CODE accesses"),
    C0("L2_DATA_WRITE_MISS_CACHE_FILL", 0xf2,
       "Data writes (RFO) that missed the L2 and hit another L2"),
    C("L2_CODE_READ_MISS_MEM_FILL", 0xf5,
      "Code reads that missed the L2 and were filled from memory, including promoted DATA "
      "accesses"),
    C0("L2_DATA_READ_MISS_MEM_FILL", 0xf6,
       "Data reads that missed the L2 and were filled from memory, including promoted CODE "
       "accesses"),
    C0("L2_DATA_WRITE_MISS_MEM_FILL", 0xf7,
       "Data writes (RFO) that missed the L2 and were filled from memory"),
    C0("L2_DATA_PF2", 0xfc,
       "Data vprefetch1 requests seen by the L2; only vprefetch1 hits count on A0 stepping"),
    C0("L2_DATA_PF2_DROP", 0xfd, "Data vprefetch1 requests seen by the L2 that were dropped"),
    C0("L2_DATA_PF2_MISS", 0xfe,
       "Data vprefetch1 requests seen by the L2 that missed the L2; vprefetch2 not included"),
    C0("L2_DATA_HIT_INFLIGHT_PF2", 0xff,
       "Data requests that hit an in-flight vprefetch1, not necessarily of the same thread"),
    /* FUB VPU, umask 0x20 */
    V("VPU_DATA_READ", 0x00,
      "Read transactions issued, normally one 64-byte line each; a misaligned read counts "
      "once per line"),
    V("VPU_DATA_WRITE", 0x01,
      "Write transactions issued, normally one 64-byte line each; a misaligned write counts "
      "once per line"),
    V("VPU_DATA_READ_MISS", 0x03, "VPU L1 data cache read misses"),
    V("VPU_DATA_WRITE_MISS", 0x04, "VPU L1 data cache write misses"),
    V("VPU_STALL_REG", 0x05, "VPU stalls on register dependencies (RAW, WAW, WAR)"),
    V("VPU_INSTRUCTIONS_EXECUTED", 0x16, "VPU instructions executed in the U and V pipes"),
    V("VPU_INSTRUCTIONS_EXECUTED_V_PIPE", 0x17,
      "VPU instructions paired and executed in the V pipe"),
    V("VPU_ELEMENTS_ACTIVE", 0x18,
      "Cumulative elements active (by mask) for issued VPU instructions"),
};

const struct event_table events_intel_knc = {
    .id = "intel-knc",
    .title = "Intel Xeon Phi Knights Corner",
    .doc = "Xeon Phi coprocessor (Knights Corner) PMU, 327357-001JA, table 1-6",
    .driver = PMU_DRV_INTEL_KNC,
    .family_min = 0xb,
    .family_max = 0xb,
    .complete = true,
    .max_code = 0xff,
    .n_counters = 2, /* two per thread, KNC §1.4 */
    .ev = knc,
    .n = sizeof(knc) / sizeof(knc[0]),
    .sem = events_intel_knc_sem,
};
