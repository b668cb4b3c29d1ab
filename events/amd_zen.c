/* AMD Zen (family 17h and later): Linux's Fam17h+ map
 * (arch/x86/events/amd/core.c amd_zen1_perfmon_event_map) with the Zen1 JSON
 * names (tools/perf/pmu-events/arch/x86/amdzen1: ls_not_halted_cyc 0x76,
 * ex_ret_instr 0xc0, ex_ret_brn 0xc2, ex_ret_brn_misp 0xc3), plus
 * Linux's cache-references (0xff60) and cache-misses (0x0964) encodings under
 * descriptive names (the map gives no JSON name for them). Event selects are
 * 12 bits (35:32 and 7:0).
 *
 * Counts (the unit test checks them): 6 entries. */
#include "events.h"

#define Z(nm, c, u, fl, d)                                                                         \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = u, .fixed_index = -1,             \
		.cpuid_bit = -1, .flags = (fl), .desc = d                                          \
	}

static const struct event_def zen[] = {
    Z("LS_NOT_HALTED_CYC", 0x76, 0x00, 0, "Core cycles not halted (Linux cycles)"),
    Z("EX_RET_INSTR", 0xc0, 0x00, 0, "Retired instructions"),
    Z("EX_RET_BRN", 0xc2, 0x00, 0, "Retired branch instructions"),
    Z("EX_RET_BRN_MISP", 0xc3, 0x00, 0, "Retired branch instructions mispredicted"),
    Z("L2_REQUESTS_ALL", 0x60, 0xff, EVF_FACTS_MAP,
      "L2 cache requests, all unit-mask bits (Linux cache-references 0xff60)"),
    Z("L2_MISSES_IC_DC", 0x64, 0x09, EVF_FACTS_MAP,
      "L2 cache request status, IC/DC misses (Linux cache-misses 0x0964)"),
};

const struct event_table events_amd_zen = {
    .id = "amd-zen",
    .title = "AMD Zen (family 17h+)",
    .doc = "Linux amd_zen1_perfmon_event_map and the Zen1 JSON names",
    .driver = PMU_DRV_AMD_CORE,
    .family_min = 0x17,
    .family_max = 0xffffffffu,
    .complete = false,
    .max_code = 0xfff,
    .ev = zen,
    .n = sizeof(zen) / sizeof(zen[0]),
};
