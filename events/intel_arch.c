/* Intel architectural performance events: the seven events whose
 * availability CPUID.0AH:EBX reports (a set bit means unavailable; bit order
 * facts §4) and the fixed counters with their pseudo-encodings (facts §4 MSR
 * table: fixed0 INST_RETIRED.ANY, fixed1 CPU_CLK_UNHALTED.CORE, fixed2
 * CPU_CLK_UNHALTED.REF 0x0300, fixed3 TOPDOWN.SLOTS 0x0400). Event/umask
 * pairs are the SDM's architectural encodings, which the Linux event map in
 * facts §4 also uses (0x003c, 0x00c0, 0x4f2e, 0x412e, 0x00c4, 0x00c5, and the
 * reference-cycles event 0x013c).
 *
 * Counts (the unit test checks them): 7 architectural events + 4 fixed = 11. */
#include "events.h"

#define A(nm, c, u, bit, d)                                                                        \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = u, .fixed_index = -1,             \
		.cpuid_bit = bit, .desc = d                                                        \
	}
#define F(nm, c, u, idx, d)                                                                        \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = u, .fixed_index = idx,            \
		.cpuid_bit = -1, .flags = EVF_FIXED, .desc = d                                     \
	}

static const struct event_def arch[] = {
    A("UNHALTED_CORE_CYCLES", 0x3c, 0x00, 0, "Core cycles while not halted (EBX bit 0)"),
    A("INSTRUCTION_RETIRED", 0xc0, 0x00, 1, "Instructions retired (EBX bit 1)"),
    A("UNHALTED_REFERENCE_CYCLES", 0x3c, 0x01, 2, "Reference cycles while not halted (EBX bit 2)"),
    A("LLC_REFERENCE", 0x2e, 0x4f, 3, "Last-level cache references (EBX bit 3)"),
    A("LLC_MISSES", 0x2e, 0x41, 4, "Last-level cache misses (EBX bit 4)"),
    A("BRANCH_INSTRUCTION_RETIRED", 0xc4, 0x00, 5, "Branch instructions retired (EBX bit 5)"),
    A("BRANCH_MISSES_RETIRED", 0xc5, 0x00, 6, "Mispredicted branches retired (EBX bit 6)"),
    F("INST_RETIRED.ANY", 0xc0, 0x00, 0, "Fixed counter 0: instructions retired"),
    F("CPU_CLK_UNHALTED.CORE", 0x3c, 0x00, 1, "Fixed counter 1: core cycles not halted"),
    F("CPU_CLK_UNHALTED.REF", 0x00, 0x03, 2,
      "Fixed counter 2: reference cycles not halted (pseudo-encoding 0x0300)"),
    F("TOPDOWN.SLOTS", 0x00, 0x04, 3,
      "Fixed counter 3: topdown issue slots (pseudo-encoding 0x0400)"),
};

const struct event_table events_intel_arch = {
    .id = "intel-arch",
    .title = "Intel architectural performance events",
    .doc = "x86-pmu-facts.md sec. 4 (CPUID.0AH EBX bit order, fixed counters)",
    .driver = PMU_DRV_INTEL_ARCH,
    .family_min = 0,
    .family_max = 0xffffffffu,
    .complete = false,
    .max_code = 0xff,
    .ev = arch,
    .n = sizeof(arch) / sizeof(arch[0]),
};
