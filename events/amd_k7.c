/* AMD K7 (Athlon): the PerfEvtSel fields and the events of the AMD Athlon
 * Processor x86 Code Optimization Guide #22007 (Appendix D, "Performance
 * Counter Usage", Figure 11 and Table 11), and the events Linux's K7 event
 * map programs (cache references/misses 0x077d/0x077e, stalled-frontend
 * 0xd0, stalled-backend 0xd1: Linux arch/x86/events/amd/core.c
 * amd_perfmon_event_map). Names follow the K8 BKDG #26094 titles of the
 * same event codes; unit masks are Table 11's (42h-44h: the MOESI state of
 * the line: 01h I, 02h S, 04h E, 08h O, 10h M).
 *
 * Counts (the unit test checks them): 10 PerfEvtSel fields; 29 top-level
 * events: the 10 Linux programs on K7 (80h and 81h are also in Table 11)
 * and 19 more of Table 11; 22 unit masks; 51 entries. */
#include "events.h"
#include "semantics.h"

const struct evsel_field events_amd_k7_fields[] = {
    {"EVENT_SELECT", 0, 7, "Selects the event (K8 BKDG sec. 10.2: bits 7-0)"},
    {"UNIT_MASK", 8, 15, "Further qualifies the event, e.g. a MESI qualifier for cache events"},
    {"USR", 16, 16, "Count at privilege levels 1, 2 or 3"},
    {"OS", 17, 17, "Count at privilege level 0"},
    {"E", 18, 18, "Edge detect: count negated-to-asserted transitions"},
    {"PC", 19, 19, "Pin control: toggle PMi on overflow (set) or on each increment (clear)"},
    {"INT", 20, 20, "APIC interrupt on counter overflow"},
    {"EN", 22, 22, "Enable counting"},
    {"INV", 23, 23, "Invert the counter-mask comparison"},
    {"CNT_MASK", 24, 31, "Threshold: when non-zero, count cycles with at least this many events"},
};
const size_t events_amd_k7_nfields = sizeof(events_amd_k7_fields) / sizeof(events_amd_k7_fields[0]);

#define K(nm, c, u, d)                                                                             \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = u, .fixed_index = -1,             \
		.cpuid_bit = -1, .flags = EVF_FACTS_MAP, .desc = d                                 \
	}
/* Table 11 of #22007: an event, and one unit-mask bit of event c. */
#define T(nm, c, bits, d)                                                                          \
	{                                                                                          \
		.name = nm, .code = c, .umask = bits, .umask_bits = bits, .fixed_index = -1,       \
		.cpuid_bit = -1, .desc = d                                                         \
	}
#define TU(nm, c, u, bits, d)                                                                      \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = bits, .fixed_index = -1,          \
		.cpuid_bit = -1, .flags = EVF_SUB, .desc = d                                       \
	}
/* 42h-44h: the line's MOESI state */
#define MOESI(nm, c, d)                                                                            \
	T(nm, c, 0x1f, d), TU(nm ".INVALID", c, 0x01, 0x1f, "Invalid"),                            \
	    TU(nm ".SHARED", c, 0x02, 0x1f, "Shared"),                                             \
	    TU(nm ".EXCLUSIVE", c, 0x04, 0x1f, "Exclusive"),                                       \
	    TU(nm ".OWNED", c, 0x08, 0x1f, "Owned"), TU(nm ".MODIFIED", c, 0x10, 0x1f, "Modified")

static const struct event_def k7[] = {
    K("CPU_CLOCKS_NOT_HALTED", 0x76, 0x00, "Clocks not halted (Linux cycles)"),
    K("RETIRED_INSTRUCTIONS", 0xc0, 0x00, "Instructions retired (Linux instructions)"),
    K("RETIRED_BRANCH_INSTRUCTIONS", 0xc2, 0x00, "Branches retired (Linux branches)"),
    K("RETIRED_MISPREDICTED_BRANCH_INSTR", 0xc3, 0x00,
      "Mispredicted branches retired (Linux branch-misses)"),
    K("REQUESTS_TO_L2.IC_DC_TLB_FILL", 0x7d, 0x07,
      "L2 requests for IC, DC and TLB fills (Linux cache-references 0x077d)"),
    K("L2_CACHE_MISSES.IC_DC_TLB_FILL", 0x7e, 0x07,
      "L2 misses for IC, DC and TLB fills (Linux cache-misses 0x077e)"),
    K("INSTRUCTION_CACHE_FETCHES", 0x80, 0x00,
      "Instruction cache fetches (Table 11; older kernels' cache-references 0x0080)"),
    K("INSTRUCTION_CACHE_MISSES", 0x81, 0x00,
      "Instruction cache misses (Table 11; older kernels' cache-misses 0x0081)"),
    K("DECODER_EMPTY", 0xd0, 0x00, "Decoder empty (Linux stalled-cycles-frontend 0x00d0)"),
    K("DISPATCH_STALLS", 0xd1, 0x00, "Dispatch stalls (Linux stalled-cycles-backend 0x00d1)"),
    /* #22007 Table 11: load/store and data cache */
    T("SEGMENT_REGISTER_LOADS", 0x20, 0x7f, "Segment register loads, by register"),
    TU("SEGMENT_REGISTER_LOADS.ES", 0x20, 0x01, 0x7f, "ES"),
    TU("SEGMENT_REGISTER_LOADS.CS", 0x20, 0x02, 0x7f, "CS"),
    TU("SEGMENT_REGISTER_LOADS.SS", 0x20, 0x04, 0x7f, "SS"),
    TU("SEGMENT_REGISTER_LOADS.DS", 0x20, 0x08, 0x7f, "DS"),
    TU("SEGMENT_REGISTER_LOADS.FS", 0x20, 0x10, 0x7f, "FS"),
    TU("SEGMENT_REGISTER_LOADS.GS", 0x20, 0x20, 0x7f, "GS"),
    TU("SEGMENT_REGISTER_LOADS.HS", 0x20, 0x40, 0x7f, "HS"),
    T("PIPELINE_RESTART_SELF_MODIFYING_CODE", 0x21, 0, "Stores to the active instruction stream"),
    T("DATA_CACHE_ACCESSES", 0x40, 0, "Data cache accesses (loads and stores)"),
    T("DATA_CACHE_MISSES", 0x41, 0, "Data cache misses"),
    MOESI("DATA_CACHE_REFILLS", 0x42, "Data cache refills from the L2, by the line's state"),
    MOESI("DATA_CACHE_REFILLS_SYSTEM", 0x43, "Data cache refills from the system, by state"),
    MOESI("DATA_CACHE_LINES_EVICTED", 0x44, "Data cache writebacks, by the line's state"),
    T("L1_DTLB_MISS_L2_DTLB_HIT", 0x45, 0, "L1 DTLB misses that hit the L2 DTLB"),
    T("L1_DTLB_MISS_L2_DTLB_MISS", 0x46, 0, "L1 and L2 DTLB misses"),
    T("MISALIGNED_ACCESSES", 0x47, 0, "Misaligned data references"),
    T("DRAM_SYSTEM_REQUESTS", 0x64, 0, "DRAM system requests (bus unit)"),
    /* #22007 Table 11: execution */
    T("RETIRED_UOPS", 0xc1, 0, "Retired micro-ops"),
    T("RETIRED_TAKEN_BRANCH_INSTRUCTIONS", 0xc4, 0, "Retired taken branches"),
    T("RETIRED_TAKEN_BRANCH_INSTR_MISPREDICTED", 0xc5, 0, "Retired taken branches mispredicted"),
    T("RETIRED_FAR_CONTROL_TRANSFERS", 0xc6, 0, "Retired far control transfers"),
    T("RETIRED_BRANCH_RESYNCS", 0xc7, 0, "Retired resync branches (non-control-transfer)"),
    T("INTERRUPTS_MASKED_CYCLES", 0xcd, 0, "Cycles with interrupts masked (EFLAGS.IF = 0)"),
    T("INT_MASKED_CYCLES_WITH_INT_PENDING", 0xce, 0,
      "Cycles with interrupts masked while an interrupt is pending"),
    T("INTERRUPTS_TAKEN", 0xcf, 0, "Hardware interrupts taken"),
};

const struct event_table events_amd_k7 = {
    .id = "amd-k7",
    .title = "AMD K7 (Athlon)",
    .doc = "AMD Athlon x86 Code Optimization Guide #22007 Appendix D (Figure 11, Table 11) "
	   "and Linux's K7 event map",
    .driver = PMU_DRV_AMD_LEGACY,
    .family_min = 6,
    .family_max = 6,
    .complete = false,
    .max_code = 0xff,
    .n_counters = 4, /* AMD #22007 'Performance Counter Usage' */
    .sem = events_amd_k7_sem,
    .ev = k7,
    .n = sizeof(k7) / sizeof(k7[0]),
};
