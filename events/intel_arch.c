/* Intel architectural performance events: the seven events whose availability
 * CPUID.0AH:EBX reports (a set bit means unavailable; bit order SDM Vol. 3B
 * 20.2.1.2) and the fixed counters with their pseudo-encodings (Linux
 * perf_event.h: fixed0 INST_RETIRED.ANY, fixed1 CPU_CLK_UNHALTED.CORE, fixed2
 * CPU_CLK_UNHALTED.REF 0x0300, fixed3 TOPDOWN.SLOTS 0x0400). Event/umask pairs
 * are the SDM's architectural encodings, which the Linux event map in
 * arch/x86/events/intel/core.c (intel_perfmon_event_map) also uses (0x003c,
 * 0x00c0, 0x4f2e, 0x412e, 0x00c4, 0x00c5; the reference-cycles event 0x013c is
 * its bus-cycles).
 * Counts (the unit test checks them): 7 architectural events + 4 fixed = 11. */
#include "events.h"
#include "semantics.h"
#include "../pmu/intel_arch.h"

/* enc is umask << 8 | event, from the driver's names (pmu/intel_arch.h). */
#define A(nm, enc, bit, d)                                                                         \
	{                                                                                          \
		.name = nm, .code = (enc)&0xff, .umask = (enc) >> 8, .umask_bits = (enc) >> 8,     \
		.fixed_index = -1, .cpuid_bit = bit, .desc = d                                     \
	}
#define F(nm, enc, idx, d)                                                                         \
	{                                                                                          \
		.name = nm, .code = (enc)&0xff, .umask = (enc) >> 8, .umask_bits = (enc) >> 8,     \
		.fixed_index = idx, .cpuid_bit = -1, .flags = EVF_FIXED, .desc = d                 \
	}

static const struct event_def arch[] = {
    A("UNHALTED_CORE_CYCLES", ARCH_EV_CORE_CYCLES, ARCH_EBX_CORE_CYCLES,
      "Core cycles while not halted (EBX bit 0)"),
    A("INSTRUCTION_RETIRED", ARCH_EV_INSTRUCTIONS, ARCH_EBX_INSTRUCTIONS,
      "Instructions retired (EBX bit 1)"),
    A("UNHALTED_REFERENCE_CYCLES", ARCH_EV_REF_CYCLES, ARCH_EBX_REF_CYCLES,
      "Reference cycles while not halted (EBX bit 2)"),
    A("LLC_REFERENCE", ARCH_EV_LLC_REFS, ARCH_EBX_LLC_REFS,
      "Last-level cache references (EBX bit 3)"),
    A("LLC_MISSES", ARCH_EV_LLC_MISSES, ARCH_EBX_LLC_MISSES, "Last-level cache misses (EBX bit 4)"),
    A("BRANCH_INSTRUCTION_RETIRED", ARCH_EV_BRANCHES, ARCH_EBX_BRANCHES,
      "Branch instructions retired (EBX bit 5)"),
    A("BRANCH_MISSES_RETIRED", ARCH_EV_BRANCH_MISSES, ARCH_EBX_BRANCH_MISSES,
      "Mispredicted branches retired (EBX bit 6)"),
    F("INST_RETIRED.ANY", ARCH_FIXED0_EVENT, 0, "Fixed counter 0: instructions retired"),
    F("CPU_CLK_UNHALTED.CORE", ARCH_FIXED1_EVENT, 1, "Fixed counter 1: core cycles not halted"),
    F("CPU_CLK_UNHALTED.REF", ARCH_FIXED2_EVENT, 2,
      "Fixed counter 2: reference cycles not halted (pseudo-encoding 0x0300)"),
    F("TOPDOWN.SLOTS", ARCH_FIXED3_EVENT, 3,
      "Fixed counter 3: topdown issue slots (pseudo-encoding 0x0400)"),
};

const struct event_table events_intel_arch = {
    .id = "intel-arch",
    .title = "Intel architectural performance events",
    .doc = "SDM Vol. 3B 20.2.1.2 (CPUID.0AH EBX bit order), 20.2.2 (fixed counters)",
    .driver = PMU_DRV_INTEL_ARCH,
    .family_min = 0,
    .family_max = 0xffffffffu,
    .complete = false,
    .max_code = 0xff,
    .ev = arch,
    .n = sizeof(arch) / sizeof(arch[0]),
    .sem = events_intel_arch_sem,
};
