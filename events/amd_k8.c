/* AMD K8 (Athlon 64 / Opteron) events: every event and every unit mask of AMD's
 * BIOS and Kernel Developer's Guide for Athlon 64 and Opteron (#26094, chapter
 * 10 'Performance Monitoring', §10.2.1). Names are the document's event titles
 * in upper case, shortened to fit struct pmu_event's 39 characters;
 * descriptions are its first sentence.
 *
 * Counts (the unit test checks them): 87 events (85 "Event Select" headings,
 * F6h/F7h/F8h share one), 115 unit-mask table rows, of which the four rows of
 * F6h-F8h apply to each of the three links: 123 unit-mask entries, 210 in all.
 * The parent entry programs every documented unit-mask bit. */
#include "../lib/fmt.h"
#include "events.h"
#include "semantics.h"

#define E(nm, c, bits, fl, d)                                                                      \
	{                                                                                          \
		.name = nm, .code = c, .umask = bits, .umask_bits = bits, .fixed_index = -1,       \
		.cpuid_bit = -1, .flags = (fl), .desc = d                                          \
	}
#define U(nm, c, u, bits, fl, d)                                                                   \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = bits, .fixed_index = -1,          \
		.cpuid_bit = -1, .flags = EVF_SUB | (fl), .desc = d                                \
	}
#define NB EVF_NB

#define HT_LINK(n, c)                                                                              \
	E("HT_LINK" #n "_TRANSMIT", c, 0x0f, NB,                                                   \
	  "HyperTransport Link " #n " Transmit Bandwidth: Dwords transmitted (or unused, "         \
	  "for Nops) on the outgoing side of the link"),                                           \
	    U("HT_LINK" #n "_TRANSMIT.COMMAND_DWORD", c, 0x01, 0x0f, NB, "Command Dword sent"),    \
	    U("HT_LINK" #n "_TRANSMIT.DATA_DWORD", c, 0x02, 0x0f, NB, "Data Dword sent"),          \
	    U("HT_LINK" #n "_TRANSMIT.BUFFER_RELEASE_DWORD", c, 0x04, 0x0f, NB,                    \
	      "Buffer release Dword sent"),                                                        \
	    U("HT_LINK" #n "_TRANSMIT.NOP_DWORD", c, 0x08, 0x0f, NB, "Nop Dword sent (idle)")

static const struct event_def k8[] = {
    /* §10.2.1.1 Floating point unit events */
    E("DISPATCHED_FPU_OPS", 0x00, 0x3f, 0,
      "Dispatched FPU Operations: operations (uops) dispatched to the FPU execution pipelines"),
    U("DISPATCHED_FPU_OPS.ADD_PIPE", 0x00, 0x01, 0x3f, 0, "Add pipe ops"),
    U("DISPATCHED_FPU_OPS.MULTIPLY_PIPE", 0x00, 0x02, 0x3f, 0, "Multiply pipe ops"),
    U("DISPATCHED_FPU_OPS.STORE_PIPE", 0x00, 0x04, 0x3f, 0, "Store pipe ops"),
    U("DISPATCHED_FPU_OPS.ADD_PIPE_LOAD", 0x00, 0x08, 0x3f, 0, "Add pipe load ops"),
    U("DISPATCHED_FPU_OPS.MULTIPLY_PIPE_LOAD", 0x00, 0x10, 0x3f, 0, "Multiply pipe load ops"),
    U("DISPATCHED_FPU_OPS.STORE_PIPE_LOAD", 0x00, 0x20, 0x3f, 0, "Store pipe load ops"),
    E("CYCLES_NO_FPU_OPS_RETIRED", 0x01, 0, 0,
      "Cycles with no FPU Ops Retired: cycles in which no FPU operations were retired"),
    E("DISPATCHED_FAST_FLAG_FPU_OPS", 0x02, 0, 0,
      "Dispatched Fast Flag FPU Operations: FPU operations that use the fast flag interface"),
    /* §10.2.1.2 Load/store unit and TLB events */
    E("SEGMENT_REGISTER_LOADS", 0x20, 0x7f, 0,
      "Segment Register Loads: the number of segment register loads performed"),
    U("SEGMENT_REGISTER_LOADS.ES", 0x20, 0x01, 0x7f, 0, "ES"),
    U("SEGMENT_REGISTER_LOADS.CS", 0x20, 0x02, 0x7f, 0, "CS"),
    U("SEGMENT_REGISTER_LOADS.SS", 0x20, 0x04, 0x7f, 0, "SS"),
    U("SEGMENT_REGISTER_LOADS.DS", 0x20, 0x08, 0x7f, 0, "DS"),
    U("SEGMENT_REGISTER_LOADS.FS", 0x20, 0x10, 0x7f, 0, "FS"),
    U("SEGMENT_REGISTER_LOADS.GS", 0x20, 0x20, 0x7f, 0, "GS"),
    U("SEGMENT_REGISTER_LOADS.HS", 0x20, 0x40, 0x7f, 0, "HS"),
    E("PIPELINE_RESTART_SELF_MODIFYING_CODE", 0x21, 0, 0,
      "Pipeline Restart Due to Self-Modifying Code: restarts caused by self-modifying code"),
    E("PIPELINE_RESTART_PROBE_HIT", 0x22, 0, 0,
      "Pipeline Restart Due to Probe Hit: restarts caused by an invalidating probe hitting "
      "on a speculative out-of-order load"),
    E("LS_BUFFER_2_FULL", 0x23, 0, 0,
      "LS Buffer 2 Full: the number of cycles that the LS2 buffer is full"),
    E("LOCKED_OPS", 0x24, 0x07, 0,
      "Locked Operations: locked operations performed and their execution time"),
    U("LOCKED_OPS.EXECUTED", 0x24, 0x01, 0x07, 0, "The number of locked instructions executed"),
    U("LOCKED_OPS.CYCLES_SPECULATIVE", 0x24, 0x02, 0x07, 0,
      "The number of cycles spent in speculative phase"),
    U("LOCKED_OPS.CYCLES_NON_SPECULATIVE", 0x24, 0x04, 0x07, 0,
      "The number of cycles spent in non-speculative phase (including cache miss penalty)"),
    E("MEMORY_REQUESTS", 0x65, 0x83, 0,
      "Memory Requests by Type: accesses to UC or WC memory regions and streaming stores to WB"),
    U("MEMORY_REQUESTS.NON_CACHEABLE", 0x65, 0x01, 0x83, 0,
      "Requests to non-cacheable (UC) memory"),
    U("MEMORY_REQUESTS.WRITE_COMBINING", 0x65, 0x02, 0x83, 0,
      "Requests to write-combining (WC) memory or WC buffer flushes to WB memory"),
    U("MEMORY_REQUESTS.STREAMING_STORE", 0x65, 0x80, 0x83, 0, "Streaming store (SS) requests"),
    /* §10.2.1.3 Data cache events */
    E("DATA_CACHE_ACCESSES", 0x40, 0, 0,
      "Data Cache Accesses: accesses to the data cache for load and store references"),
    E("DATA_CACHE_MISSES", 0x41, 0, 0,
      "Data Cache Misses: data cache references which missed in the data cache"),
    E("DATA_CACHE_REFILLS", 0x42, 0x1f, 0,
      "Data Cache Refills from L2 or System: refills satisfied from the L2 (and/or the system)"),
    U("DATA_CACHE_REFILLS.SYSTEM", 0x42, 0x01, 0x1f, 0, "Refill from System"),
    U("DATA_CACHE_REFILLS.L2_SHARED", 0x42, 0x02, 0x1f, 0, "Shared-state line from L2"),
    U("DATA_CACHE_REFILLS.L2_EXCLUSIVE", 0x42, 0x04, 0x1f, 0, "Exclusive-state line from L2"),
    U("DATA_CACHE_REFILLS.L2_OWNED", 0x42, 0x08, 0x1f, 0, "Owned-state line from L2"),
    U("DATA_CACHE_REFILLS.L2_MODIFIED", 0x42, 0x10, 0x1f, 0, "Modified-state line from L2"),
    E("DATA_CACHE_REFILLS_SYSTEM", 0x43, 0x1f, 0,
      "Data Cache Refills from System: L1 refills satisfied from the system, not the L2"),
    U("DATA_CACHE_REFILLS_SYSTEM.INVALID", 0x43, 0x01, 0x1f, 0, "Invalid"),
    U("DATA_CACHE_REFILLS_SYSTEM.SHARED", 0x43, 0x02, 0x1f, 0, "Shared"),
    U("DATA_CACHE_REFILLS_SYSTEM.EXCLUSIVE", 0x43, 0x04, 0x1f, 0, "Exclusive"),
    U("DATA_CACHE_REFILLS_SYSTEM.OWNED", 0x43, 0x08, 0x1f, 0, "Owned"),
    U("DATA_CACHE_REFILLS_SYSTEM.MODIFIED", 0x43, 0x10, 0x1f, 0, "Modified"),
    E("DATA_CACHE_LINES_EVICTED", 0x44, 0x1f, 0,
      "Data Cache Lines Evicted: L1 data cache lines written to the L2 or system memory"),
    U("DATA_CACHE_LINES_EVICTED.INVALID", 0x44, 0x01, 0x1f, 0, "Invalid"),
    U("DATA_CACHE_LINES_EVICTED.SHARED", 0x44, 0x02, 0x1f, 0, "Shared"),
    U("DATA_CACHE_LINES_EVICTED.EXCLUSIVE", 0x44, 0x04, 0x1f, 0, "Exclusive"),
    U("DATA_CACHE_LINES_EVICTED.OWNED", 0x44, 0x08, 0x1f, 0, "Owned"),
    U("DATA_CACHE_LINES_EVICTED.MODIFIED", 0x44, 0x10, 0x1f, 0, "Modified"),
    E("L1_DTLB_MISS_L2_DTLB_HIT", 0x45, 0, 0,
      "L1 DTLB Miss and L2 DLTB Hit: data cache accesses that miss the L1 DTLB and hit the L2"),
    E("L1_DTLB_MISS_L2_DTLB_MISS", 0x46, 0, 0,
      "L1 DTLB and L2 DLTB Miss: data cache accesses that miss in both the L1 and L2 DTLBs"),
    E("MISALIGNED_ACCESSES", 0x47, 0, 0,
      "Misaligned Accesses: data cache accesses that cross an eight-byte boundary"),
    E("MICROARCH_LATE_CANCEL_OF_ACCESS", 0x48, 0, 0, "Microarchitectural Late Cancel of an Access"),
    E("MICROARCH_EARLY_CANCEL_OF_ACCESS", 0x49, 0, 0,
      "Microarchitectural Early Cancel of an Access"),
    E("SINGLE_BIT_ECC_ERRORS", 0x4a, 0x03, 0,
      "Single-bit ECC Errors Recorded by Scrubber: single-bit errors corrected in the data cache"),
    U("SINGLE_BIT_ECC_ERRORS.SCRUBBER", 0x4a, 0x01, 0x03, 0, "Scrubber error"),
    U("SINGLE_BIT_ECC_ERRORS.PIGGYBACK", 0x4a, 0x02, 0x03, 0, "Piggyback scrubber errors"),
    E("PREFETCH_INSTRUCTIONS_DISPATCHED", 0x4b, 0x07, 0,
      "Prefetch Instructions Dispatched: prefetch instructions dispatched by the decoder"),
    U("PREFETCH_INSTRUCTIONS_DISPATCHED.LOAD", 0x4b, 0x01, 0x07, 0,
      "Load (Prefetch, PrefetchT0/T1/T2)"),
    U("PREFETCH_INSTRUCTIONS_DISPATCHED.STORE", 0x4b, 0x02, 0x07, 0, "Store (PrefetchW)"),
    U("PREFETCH_INSTRUCTIONS_DISPATCHED.NTA", 0x4b, 0x04, 0x07, 0, "NTA (PrefetchNTA)"),
    E("DCACHE_MISS_LOCKED_INSTR", 0x4c, 0x02, 0,
      "DCACHE Misses by Locked Instructions: data cache misses incurred by locked instructions"),
    U("DCACHE_MISS_LOCKED_INSTR.DCACHE_MISS", 0x4c, 0x02, 0x02, 0,
      "Data cache misses by locked instructions"),
    /* §10.2.1.4 L2 cache and system interface events */
    E("DATA_PREFETCHER", 0x67, 0x03, 0, "Data Prefetcher: requests made by the data prefetcher"),
    U("DATA_PREFETCHER.CANCELLED", 0x67, 0x01, 0x03, 0, "Cancelled prefetches"),
    U("DATA_PREFETCHER.ATTEMPTS", 0x67, 0x02, 0x03, 0, "Prefetch attempts"),
    E("SYSTEM_READ_RESPONSES", 0x6c, 0x07, 0,
      "System Read Responses by Coherency State: responses from the system for cache refills"),
    U("SYSTEM_READ_RESPONSES.EXCLUSIVE", 0x6c, 0x01, 0x07, 0, "Exclusive"),
    U("SYSTEM_READ_RESPONSES.MODIFIED", 0x6c, 0x02, 0x07, 0, "Modified"),
    U("SYSTEM_READ_RESPONSES.SHARED", 0x6c, 0x04, 0x07, 0, "Shared"),
    E("QWORDS_WRITTEN_TO_SYSTEM", 0x6d, 0x01, 0,
      "Quadwords Written to System: quadword (8-byte) transfers from the processor to the system"),
    U("QWORDS_WRITTEN_TO_SYSTEM.WRITE_TRANSFER", 0x6d, 0x01, 0x01, 0, "Quadword write transfer"),
    E("REQUESTS_TO_L2", 0x7d, 0x1f, 0,
      "Requests to L2 Cache: requests to the L2 for Icache or Dcache fills, or TLB page table "
      "lookups"),
    U("REQUESTS_TO_L2.IC_FILL", 0x7d, 0x01, 0x1f, 0, "IC fill"),
    U("REQUESTS_TO_L2.DC_FILL", 0x7d, 0x02, 0x1f, 0, "DC fill"),
    U("REQUESTS_TO_L2.TLB_FILL", 0x7d, 0x04, 0x1f, 0, "TLB fill (page table walks)"),
    U("REQUESTS_TO_L2.TAG_SNOOP", 0x7d, 0x08, 0x1f, 0, "Tag snoop request"),
    U("REQUESTS_TO_L2.CANCELLED", 0x7d, 0x10, 0x1f, 0, "Cancelled request"),
    E("L2_CACHE_MISSES", 0x7e, 0x07, 0,
      "L2 Cache Misses: the number of requests that miss in the L2 cache"),
    U("L2_CACHE_MISSES.IC_FILL", 0x7e, 0x01, 0x07, 0, "IC fill"),
    U("L2_CACHE_MISSES.DC_FILL", 0x7e, 0x02, 0x07, 0,
      "DC fill (includes possible replays, whereas event 41h does not)"),
    U("L2_CACHE_MISSES.TLB_PAGE_WALK", 0x7e, 0x04, 0x07, 0, "TLB page table walk"),
    /* The text also names unit-mask bit 1 (L2 writebacks to the system); the
     * table has one row. */
    E("L2_FILL_WRITEBACK", 0x7f, 0x03, 0,
      "L2 Fill/Writeback: lines written into the L2 (bit 0) or dirty L2 writebacks to the "
      "system (bit 1)"),
    U("L2_FILL_WRITEBACK.L2_FILLS", 0x7f, 0x01, 0x03, 0,
      "L2 fills (victims from L1 caches, TLB page table walks and data prefetches)"),
    /* §10.2.1.5 Instruction cache events */
    E("INSTRUCTION_CACHE_FETCHES", 0x80, 0, 0,
      "Instruction Cache Fetches: instruction cache accesses by the instruction fetcher"),
    E("INSTRUCTION_CACHE_MISSES", 0x81, 0, 0,
      "Instruction Cache Misses: instruction fetches that miss in the instruction cache"),
    E("INSTRUCTION_CACHE_REFILLS_FROM_L2", 0x82, 0, 0,
      "Instruction Cache Refills from L2: instruction cache refills satisfied from the L2"),
    E("INSTRUCTION_CACHE_REFILLS_FROM_SYSTEM", 0x83, 0, 0,
      "Instruction Cache Refills from System: refills from system memory (or another cache)"),
    E("L1_ITLB_MISS_L2_ITLB_HIT", 0x84, 0, 0,
      "L1 ITLB Miss, L2 ITLB Hit: fetches that miss the L1 ITLB but hit the L2 ITLB"),
    E("L1_ITLB_MISS_L2_ITLB_MISS", 0x85, 0, 0,
      "L1 ITLB Miss, L2 ITLB Miss: fetches that miss in both the L1 and L2 ITLBs"),
    E("PIPELINE_RESTART_INSTR_STREAM_PROBE", 0x86, 0, 0,
      "Pipeline Restart Due to Instruction Stream Probe: invalidating probes hitting the "
      "executing instruction stream"),
    E("INSTRUCTION_FETCH_STALL", 0x87, 0, 0,
      "Instruction Fetch Stall: the number of cycles the instruction fetcher is stalled"),
    E("RETURN_STACK_HITS", 0x88, 0, 0,
      "Return Stack Hits: near returns that get their address from the return address stack"),
    E("RETURN_STACK_OVERFLOWS", 0x89, 0, 0,
      "Return Stack Overflows: near calls that cause the return address stack to overflow"),
    /* §10.2.1.6 Execution unit events */
    E("RETIRED_CLFLUSH_INSTRUCTIONS", 0x26, 0, 0,
      "Retired CLFLUSH Instructions: the number of CLFLUSH instructions retired"),
    E("RETIRED_CPUID_INSTRUCTIONS", 0x27, 0, 0,
      "Retired CPUID Instructions: the number of CPUID instructions retired"),
    E("CPU_CLOCKS_NOT_HALTED", 0x76, 0, 0,
      "CPU Clocks not Halted: clocks that the CPU is not in a halted state"),
    E("RETIRED_INSTRUCTIONS", 0xc0, 0, 0,
      "Retired Instructions: instructions retired, each exception or interrupt counting as one"),
    E("RETIRED_UOPS", 0xc1, 0, 0, "Retired uops: the number of micro-ops retired"),
    E("RETIRED_BRANCH_INSTRUCTIONS", 0xc2, 0, 0,
      "Retired Branch Instructions: branches retired, including exceptions and interrupts"),
    E("RETIRED_MISPREDICTED_BRANCH_INSTR", 0xc3, 0, 0,
      "Retired Mispredicted Branch Instructions: retired branches that were not correctly "
      "predicted"),
    E("RETIRED_TAKEN_BRANCH_INSTRUCTIONS", 0xc4, 0, 0,
      "Retired Taken Branch Instructions: the number of taken branches that were retired"),
    E("RETIRED_TAKEN_BRANCH_INSTR_MISPREDICTED", 0xc5, 0, 0,
      "Retired Taken Branch Instructions Mispredicted: retired taken branches mispredicted"),
    E("RETIRED_FAR_CONTROL_TRANSFERS", 0xc6, 0, 0,
      "Retired Far Control Transfers: far call/jump/return, IRET, SYSCALL/SYSRET, exceptions "
      "and interrupts"),
    E("RETIRED_BRANCH_RESYNCS", 0xc7, 0, 0,
      "Retired Branch Resyncs: the number of resync branches"),
    E("RETIRED_NEAR_RETURNS", 0xc8, 0, 0,
      "Retired Near Returns: near return instructions (RET or RET Iw) retired"),
    E("RETIRED_NEAR_RETURNS_MISPREDICTED", 0xc9, 0, 0,
      "Retired Near Returns Mispredicted: near returns not correctly predicted"),
    E("RETIRED_INDIRECT_BRANCHES_MISPREDICTED", 0xca, 0, 0,
      "Retired Indirect Branches Mispredicted: indirect branches with a mispredicted target"),
    E("RETIRED_MMX_FP_INSTR", 0xcb, 0x0f, 0,
      "Retired MMX/FP Instructions: MMX, SSE or X87 instructions retired"),
    U("RETIRED_MMX_FP_INSTR.X87", 0xcb, 0x01, 0x0f, 0, "x87 instructions"),
    U("RETIRED_MMX_FP_INSTR.MMX_3DNOW", 0xcb, 0x02, 0x0f, 0, "MMX and 3DNow! instructions"),
    U("RETIRED_MMX_FP_INSTR.PACKED_SSE_SSE2", 0xcb, 0x04, 0x0f, 0,
      "Packed SSE and SSE2 instructions"),
    U("RETIRED_MMX_FP_INSTR.SCALAR_SSE_SSE2", 0xcb, 0x08, 0x0f, 0,
      "Scalar SSE and SSE2 instructions"),
    E("FASTPATH_DOUBLE_OP_INSTR", 0xcc, 0x07, 0, "Retired Fastpath Double op Instructions"),
    U("FASTPATH_DOUBLE_OP_INSTR.LOW_OP_POS0", 0xcc, 0x01, 0x07, 0, "With low op in position 0"),
    U("FASTPATH_DOUBLE_OP_INSTR.LOW_OP_POS1", 0xcc, 0x02, 0x07, 0, "With low op in position 1"),
    U("FASTPATH_DOUBLE_OP_INSTR.LOW_OP_POS2", 0xcc, 0x04, 0x07, 0, "With low op in position 2"),
    E("INTERRUPTS_MASKED_CYCLES", 0xcd, 0, 0,
      "Interrupts-Masked Cycles: processor cycles where interrupts are masked (EFLAGS.IF = 0)"),
    E("INT_MASKED_CYCLES_WITH_INT_PENDING", 0xce, 0, 0,
      "Interrupts-Masked Cycles with Interrupt Pending: IF = 0 and an interrupt is pending"),
    E("INTERRUPTS_TAKEN", 0xcf, 0, 0, "Interrupts Taken: hardware interrupts taken (not INT n)"),
    E("DECODER_EMPTY", 0xd0, 0, 0,
      "Decoder Empty: cycles where the decoder has nothing to dispatch"),
    E("DISPATCH_STALLS", 0xd1, 0, 0,
      "Dispatch Stalls: cycles where the decoder is stalled for any reason"),
    E("DISPATCH_STALL_BRANCH_ABORT", 0xd2, 0, 0,
      "Dispatch Stall for Branch Abort to Retire: waiting for the pipe to drain after a "
      "mispredicted branch"),
    E("DISPATCH_STALL_SERIALIZATION", 0xd3, 0, 0,
      "Dispatch Stall for Serialization: stalled due to a serializing operation"),
    E("DISPATCH_STALL_SEGMENT_LOAD", 0xd4, 0, 0,
      "Dispatch Stall for Segment Load: a segment load while a previous one is pending"),
    E("DISPATCH_STALL_REORDER_BUFFER_FULL", 0xd5, 0, 0,
      "Dispatch Stall for Reorder Buffer Full: stalled because the reorder buffer is full"),
    E("DISPATCH_STALL_RESERVATION_STATION_FULL", 0xd6, 0, 0,
      "Dispatch Stall for Reservation Station Full: an integer reservation station is full"),
    E("DISPATCH_STALL_FPU_FULL", 0xd7, 0, 0,
      "Dispatch Stall for FPU Full: the FPU scheduler is full"),
    E("DISPATCH_STALL_LS_FULL", 0xd8, 0, 0,
      "Dispatch Stall for LS Full: the Load/Store Unit is full"),
    E("DISPATCH_STALL_WAITING_FOR_ALL_QUIET", 0xd9, 0, 0,
      "Dispatch Stall Waiting for All Quiet: waiting for outstanding system requests"),
    E("DISPATCH_STALL_FAR_TRANSFER_OR_RESYNC", 0xda, 0, 0,
      "Dispatch Stall for Far Transfer or Resync to Retire: waiting for the pipe to drain"),
    E("FPU_EXCEPTIONS", 0xdb, 0x0f, 0,
      "FPU Exceptions: floating point unit exceptions for microcode assists"),
    U("FPU_EXCEPTIONS.X87_RECLASS_MICROFAULTS", 0xdb, 0x01, 0x0f, 0, "x87 reclass microfaults"),
    U("FPU_EXCEPTIONS.SSE_RETYPE_MICROFAULTS", 0xdb, 0x02, 0x0f, 0, "SSE retype microfaults"),
    U("FPU_EXCEPTIONS.SSE_RECLASS_MICROFAULTS", 0xdb, 0x04, 0x0f, 0, "SSE reclass microfaults"),
    U("FPU_EXCEPTIONS.SSE_AND_X87_MICROTRAPS", 0xdb, 0x08, 0x0f, 0, "SSE and x87 microtraps"),
    E("DR0_BREAKPOINT_MATCHES", 0xdc, 0, 0,
      "DR0 Breakpoint Matches: matches on the address in breakpoint register DR0"),
    E("DR1_BREAKPOINT_MATCHES", 0xdd, 0, 0,
      "DR1 Breakpoint Matches: matches on the address in breakpoint register DR1"),
    E("DR2_BREAKPOINT_MATCHES", 0xde, 0, 0,
      "DR2 Breakpoint Matches: matches on the address in breakpoint register DR2"),
    E("DR3_BREAKPOINT_MATCHES", 0xdf, 0, 0,
      "DR3 Breakpoint Matches: matches on the address in breakpoint register DR3"),
    /* §10.2.1.7 Memory controller events (northbridge) */
    E("DRAM_ACCESSES", 0xe0, 0x07, NB,
      "DRAM Accesses: memory accesses performed by the local DRAM controller"),
    U("DRAM_ACCESSES.PAGE_HIT", 0xe0, 0x01, 0x07, NB, "Page hit"),
    U("DRAM_ACCESSES.PAGE_MISS", 0xe0, 0x02, 0x07, NB, "Page Miss"),
    U("DRAM_ACCESSES.PAGE_CONFLICT", 0xe0, 0x04, 0x07, NB, "Page Conflict"),
    E("MEM_CTRL_PAGE_TABLE_OVERFLOWS", 0xe1, 0, NB,
      "Memory Controller Page Table Overflows: page table overflows in the local DRAM "
      "controller"),
    E("MEM_CTRL_TURNAROUNDS", 0xe3, 0x07, NB,
      "Memory Controller Turnarounds: turnarounds on the local DRAM data bus"),
    U("MEM_CTRL_TURNAROUNDS.DIMM_TURNAROUND", 0xe3, 0x01, 0x07, NB,
      "DIMM (chip select) turnaround"),
    U("MEM_CTRL_TURNAROUNDS.READ_TO_WRITE", 0xe3, 0x02, 0x07, NB, "Read to write turnaround"),
    U("MEM_CTRL_TURNAROUNDS.WRITE_TO_READ", 0xe3, 0x04, 0x07, NB, "Write to read turnaround"),
    E("MEM_CTRL_BYPASS_SAT", 0xe4, 0x0f, NB, "Memory Controller Bypass Counter Saturation"),
    U("MEM_CTRL_BYPASS_SAT.HIGH_PRIORITY", 0xe4, 0x01, 0x0f, NB,
      "Memory controller high priority bypass"),
    U("MEM_CTRL_BYPASS_SAT.LOW_PRIORITY", 0xe4, 0x02, 0x0f, NB,
      "Memory controller low priority bypass"),
    U("MEM_CTRL_BYPASS_SAT.DRAM_INTERFACE", 0xe4, 0x04, 0x0f, NB,
      "DRAM controller interface bypass"),
    U("MEM_CTRL_BYPASS_SAT.DRAM_QUEUE", 0xe4, 0x08, 0x0f, NB, "DRAM controller queue bypass"),
    E("SIZED_BLOCKS", 0xe5, 0x3c, NB,
      "Sized Blocks: 32- or 64-byte sized read/write transfers from the processor or "
      "Hostbridge"),
    U("SIZED_BLOCKS.WRITES_32B", 0xe5, 0x04, 0x3c, NB,
      "32-byte Sized Writes (Revision D and later revisions)"),
    U("SIZED_BLOCKS.WRITES_64B", 0xe5, 0x08, 0x3c, NB,
      "64-byte Sized Writes (Revision D and later revisions)"),
    U("SIZED_BLOCKS.READS_32B", 0xe5, 0x10, 0x3c, NB,
      "32-byte Sized Reads (Revision D and later revisions)"),
    U("SIZED_BLOCKS.READS_64B", 0xe5, 0x20, 0x3c, NB,
      "64-byte Sized Reads (Revision D and later revisions)"),
    E("ECC_ERRORS", 0xe8, 0x80, NB, "ECC Errors"),
    U("ECC_ERRORS.DRAM_ECC_ERRORS", 0xe8, 0x80, 0x80, NB,
      "Number of correctable and Uncorrectable DRAM ECC errors (Revision E)"),
    /* E9h: a request type (3:0), a target (5:4) and a source (7:6) are all
     * needed; a single row alone counts nothing (see k8_rule). */
    E("CPU_IO_REQUESTS", 0xe9, 0xff, NB,
      "CPU/IO Requests to Memory/IO: request flow between units and nodes (Revision E)"),
    U("CPU_IO_REQUESTS.IO_TO_IO", 0xe9, 0x01, 0xff, NB, "I/O to I/O"),
    U("CPU_IO_REQUESTS.IO_TO_MEM", 0xe9, 0x02, 0xff, NB, "I/O to Mem"),
    U("CPU_IO_REQUESTS.CPU_TO_IO", 0xe9, 0x04, 0xff, NB, "CPU to I/O"),
    U("CPU_IO_REQUESTS.CPU_TO_MEM", 0xe9, 0x08, 0xff, NB, "CPU to Mem"),
    U("CPU_IO_REQUESTS.TO_REMOTE_NODE", 0xe9, 0x10, 0xff, NB, "To remote node"),
    U("CPU_IO_REQUESTS.TO_LOCAL_NODE", 0xe9, 0x20, 0xff, NB, "To local node"),
    U("CPU_IO_REQUESTS.FROM_REMOTE_NODE", 0xe9, 0x40, 0xff, NB, "From remote node"),
    U("CPU_IO_REQUESTS.FROM_LOCAL_NODE", 0xe9, 0x80, 0xff, NB, "From local node"),
    E("CACHE_BLOCK_CMDS", 0xea, 0x3d, NB,
      "Cache Block Commands: requests to the system for cache line transfers or state changes "
      "(Revision E)"),
    U("CACHE_BLOCK_CMDS.VICTIM_BLOCK", 0xea, 0x01, 0x3d, NB, "Victim Block (Writeback)"),
    U("CACHE_BLOCK_CMDS.READ_BLOCK", 0xea, 0x04, 0x3d, NB, "Read Block (Dcache load miss refill)"),
    U("CACHE_BLOCK_CMDS.READ_BLOCK_SHARED", 0xea, 0x08, 0x3d, NB,
      "Read Block Shared (Icache refill)"),
    U("CACHE_BLOCK_CMDS.READ_BLOCK_MODIFIED", 0xea, 0x10, 0x3d, NB,
      "Read Block Modified (Dcache store miss refill)"),
    U("CACHE_BLOCK_CMDS.CHANGE_TO_DIRTY", 0xea, 0x20, 0x3d, NB,
      "Change to Dirty (first store to clean block already in cache)"),
    E("SIZED_COMMANDS", 0xeb, 0x7f, NB,
      "Sized Commands: Sized Read/Write commands handled by the System Request Interface"),
    U("SIZED_COMMANDS.NONPOSTED_SZWR_BYTE", 0xeb, 0x01, 0x7f, NB,
      "NonPosted SzWr Byte (1-32 bytes)"),
    U("SIZED_COMMANDS.NONPOSTED_SZWR_DWORD", 0xeb, 0x02, 0x7f, NB,
      "NonPosted SzWr Dword (1-16 dwords)"),
    U("SIZED_COMMANDS.POSTED_SZWR_BYTE", 0xeb, 0x04, 0x7f, NB, "Posted SzWr Byte (1-32 bytes)"),
    U("SIZED_COMMANDS.POSTED_SZWR_DWORD", 0xeb, 0x08, 0x7f, NB, "Posted SzWr Dword (1-16 dwords)"),
    U("SIZED_COMMANDS.SZRD_BYTE", 0xeb, 0x10, 0x7f, NB, "SzRd Byte (4 bytes)"),
    U("SIZED_COMMANDS.SZRD_DWORD", 0xeb, 0x20, 0x7f, NB, "SzRd Dword (1-16 dwords)"),
    U("SIZED_COMMANDS.RDMODWR", 0xeb, 0x40, 0x7f, NB, "RdModWr"),
    E("PROBE_UPSTREAM", 0xec, 0x7f, NB,
      "Probe Responses and Upstream Requests: cache probe results and Hostbridge requests from "
      "non-coherent links"),
    U("PROBE_UPSTREAM.PROBE_MISS", 0xec, 0x01, 0x7f, NB, "Probe miss"),
    U("PROBE_UPSTREAM.PROBE_HIT_CLEAN", 0xec, 0x02, 0x7f, NB, "Probe hit clean"),
    U("PROBE_UPSTREAM.PROBE_DIRTY_NO_CANCEL", 0xec, 0x04, 0x7f, NB,
      "Probe hit dirty without memory cancel (probed by Sized Write or Change2Dirty)"),
    U("PROBE_UPSTREAM.PROBE_DIRTY_CANCEL", 0xec, 0x08, 0x7f, NB,
      "Probe hit dirty with memory cancel (probed by DMA read or cache refill request)"),
    U("PROBE_UPSTREAM.DISPLAY_REFRESH_READS", 0xec, 0x10, 0x7f, NB,
      "Upstream display refresh reads"),
    U("PROBE_UPSTREAM.NON_DISPLAY_READS", 0xec, 0x20, 0x7f, NB,
      "Upstream non-display refresh reads"),
    U("PROBE_UPSTREAM.UPSTREAM_WRITES", 0xec, 0x40, 0x7f, NB,
      "Upstream writes (Revision D and later revisions)"),
    E("GART_EVENTS", 0xee, 0x07, NB, "GART Events: GART activity"),
    U("GART_EVENTS.APERTURE_HIT_CPU", 0xee, 0x01, 0x07, NB, "GART aperture hit on access from CPU"),
    U("GART_EVENTS.APERTURE_HIT_IO", 0xee, 0x02, 0x07, NB, "GART aperture hit on access from I/O"),
    U("GART_EVENTS.GART_MISS", 0xee, 0x04, 0x07, NB, "GART miss"),
    /* §10.2.1.9 HyperTransport interface events */
    HT_LINK(0, 0xf6),
    HT_LINK(1, 0xf7),
    HT_LINK(2, 0xf8),
};

/* K8 BKDG §10.2: CNT_MASK 4-255 reserved; E9h needs a request type, a
 * target and a source; unit-mask bits the document does not define. */
static enum ev_verdict k8_rule(const struct event_table *t, uint16_t code, uint8_t umask,
			       uint32_t flags, bool *known, char *msg, size_t n)
{
	const struct event_def *parent = 0;

	if (PMU_F_CMASK_OF(flags) > 3) {
		pmh_fmt(msg, n, "CNT_MASK %u is reserved on K8 (values 4-255, BKDG sec. 10.2)",
			(unsigned)PMU_F_CMASK_OF(flags));
		return EV_REFUSED;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].code == code && !(t->ev[i].flags & EVF_SUB)) {
			parent = &t->ev[i];
			break;
		}
	if (!parent)
		return EV_OK; /* the caller refuses undocumented codes */
	*known = true;
	if (code == 0xe9 && (!(umask & 0x0f) || !(umask & 0x30) || !(umask & 0xc0))) {
		pmh_fmt(msg, n,
			"event 0xe9 unit mask 0x%02x counts nothing: it needs a request type "
			"(bits 3:0), a target (5:4) and a source (7:6) (K8 BKDG sec. 10.2.1.7)",
			umask);
		return EV_WARN;
	}
	if (umask & ~parent->umask_bits) {
		pmh_fmt(msg, n, "unit mask bits 0x%02x are not documented for event 0x%02x (%s)",
			umask & ~parent->umask_bits, code, parent->name);
		return EV_WARN;
	}
	if (parent->umask_bits && !umask) {
		pmh_fmt(msg, n, "event 0x%02x (%s) with unit mask 0 selects no sub-event", code,
			parent->name);
		return EV_WARN;
	}
	return EV_OK;
}

const struct event_table events_amd_k8 = {
    .id = "amd-k8",
    .title = "AMD K8 (Athlon 64, Opteron)",
    .doc = "AMD K8 BKDG chapter 10, Performance Monitoring (sec. 10.2.1)",
    .driver = PMU_DRV_AMD_LEGACY,
    .family_min = 0xf,
    .family_max = 0xf,
    .complete = true,
    .max_code = 0xff, /* EVENT_SELECT is bits 7:0 on K8 */
    .n_counters = 4,  /* K8 BKDG §10.1 */
    .rule = k8_rule,
    .ev = k8,
    .n = sizeof(k8) / sizeof(k8[0]),
    .sem = events_amd_k8_sem,
};
