/* AMD K7 (Athlon): the PerfEvtSel fields of the Athlon optimization guide
 * (shared/specs/amd-athlon-k7-perfevtsel.txt, "Performance Counter Usage",
 * p.163) and the events the fact sheet's K7-Fam16h map names (facts §7; the
 * K7 excerpt itself refers to its Table 11 for events but does not include
 * it). Names follow the K8 BKDG titles of the same event codes.
 *
 * Counts (the unit test checks them): 10 PerfEvtSel fields (the excerpt
 * documents bits 8-31; EVENT_SELECT 7:0 is the same field as K8 BKDG §10.2),
 * 10 events: cycles, instructions, branches, branch misses, the current
 * cache-references/misses encodings (0x077d/0x077e), the older ones
 * (0x0080/0x0081), stalled-frontend 0xd0 and stalled-backend 0xd1. */
#include "events.h"

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

static const struct event_def k7[] = {
    K("CPU_CLOCKS_NOT_HALTED", 0x76, 0x00, "Clocks not halted (Linux cycles, facts sec. 7)"),
    K("RETIRED_INSTRUCTIONS", 0xc0, 0x00, "Instructions retired (Linux instructions)"),
    K("RETIRED_BRANCH_INSTRUCTIONS", 0xc2, 0x00, "Branches retired (Linux branches)"),
    K("RETIRED_MISPREDICTED_BRANCH_INSTR", 0xc3, 0x00,
      "Mispredicted branches retired (Linux branch-misses)"),
    K("REQUESTS_TO_L2.IC_DC_TLB_FILL", 0x7d, 0x07,
      "L2 requests for IC, DC and TLB fills (Linux cache-references 0x077d)"),
    K("L2_CACHE_MISSES.IC_DC_TLB_FILL", 0x7e, 0x07,
      "L2 misses for IC, DC and TLB fills (Linux cache-misses 0x077e)"),
    K("INSTRUCTION_CACHE_FETCHES", 0x80, 0x00,
      "Instruction cache fetches (older kernels' cache-references 0x0080)"),
    K("INSTRUCTION_CACHE_MISSES", 0x81, 0x00,
      "Instruction cache misses (older kernels' cache-misses 0x0081)"),
    K("DECODER_EMPTY", 0xd0, 0x00, "Decoder empty (Linux stalled-cycles-frontend 0x00d0)"),
    K("DISPATCH_STALLS", 0xd1, 0x00, "Dispatch stalls (Linux stalled-cycles-backend 0x00d1)"),
};

const struct event_table events_amd_k7 = {
    .id = "amd-k7",
    .title = "AMD K7 (Athlon)",
    .doc = "amd-athlon-k7-perfevtsel.txt (PerfEvtSel fields) and x86-pmu-facts.md sec. 7 map",
    .driver = PMU_DRV_AMD_LEGACY,
    .family_min = 6,
    .family_max = 6,
    .complete = false,
    .max_code = 0xff,
    .n_counters = 4, /* facts §2 */
    .ev = k7,
    .n = sizeof(k7) / sizeof(k7[0]),
};
