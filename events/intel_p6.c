/* Intel P6 (Pentium Pro/II/III/M) events named by Linux's p6.c:
 * the Linux event map and the counter constraints (FLOPS 0xC1 and 0x10,
 * CYCLES_DIV_BUSY 0x14 on PMC0 only; FP_ASSIST 0x11, MUL 0x12, DIV 0x13 on
 * PMC1 only). L2_RQSTS (0x2E) takes a MESI unit mask (0x0f all states, 0x01
 * I-state); with an empty mask it counts nothing, which is why Linux uses
 * 0x2E as its "disable" event (P6_NOP_EVENT).
 *
 * Counts (the unit test checks them): 8 map events + 6 constrained = 14. */
#include "../lib/fmt.h"
#include "events.h"
#include "semantics.h"

#define P(nm, c, u, ctr, d)                                                                        \
	{                                                                                          \
		.name = nm, .code = c, .umask = u, .umask_bits = u, .counters = ctr,               \
		.fixed_index = -1, .cpuid_bit = -1,                                                \
		.flags = EVF_FACTS_MAP | ((ctr) ? EVF_CTR_RESTRICTED : 0), .desc = d               \
	}

static const struct event_def p6[] = {
    P("CPU_CLK_UNHALTED", 0x79, 0x00, 0, "Cycles not halted (Linux cycles, facts sec. 3)"),
    P("INST_RETIRED", 0xc0, 0x00, 0, "Instructions retired (Linux instructions)"),
    P("L2_RQSTS.MESI", 0x2e, 0x0f, 0, "L2 requests, all MESI states (Linux cache-references)"),
    P("L2_RQSTS.I_STATE", 0x2e, 0x01, 0, "L2 requests, I state (Linux cache-misses)"),
    P("BR_INST_RETIRED", 0xc4, 0x00, 0, "Branches retired (Linux branches)"),
    P("BR_MISS_PRED_RETIRED", 0xc5, 0x00, 0, "Mispredicted branches retired (branch-misses)"),
    P("BUS_DRDY_CLOCKS", 0x62, 0x00, 0, "Bus cycles (Linux bus-cycles)"),
    P("RESOURCE_STALLS", 0xa2, 0x00, 0, "Resource stalls (Linux stalled-cycles-frontend)"),
    P("FLOPS", 0xc1, 0x00, 0x1, "Floating-point operations retired; PMC0 only"),
    P("FP_COMP_OPS_EXE", 0x10, 0x00, 0x1, "Floating-point operations executed; PMC0 only"),
    P("CYCLES_DIV_BUSY", 0x14, 0x00, 0x1, "Cycles the divider is busy; PMC0 only"),
    P("FP_ASSIST", 0x11, 0x00, 0x2, "Floating-point assists; PMC1 only"),
    P("MUL", 0x12, 0x00, 0x2, "Multiplies; PMC1 only"),
    P("DIV", 0x13, 0x00, 0x2, "Divides; PMC1 only"),
};

static enum ev_verdict p6_rule(const struct event_table *t, uint16_t code, uint8_t umask,
			       uint32_t flags, bool *known, char *msg, size_t n)
{
	(void)t;
	(void)flags;
	if (code == 0x2e && !(umask & 0x0f)) {
		*known = true;
		pmh_fmt(msg, n,
			"L2_RQSTS (0x2e) with no MESI unit-mask bit (0x0f) counts nothing "
			"(Linux's P6 disable event, facts sec. 3)");
		return EV_WARN;
	}
	return EV_OK;
}

const struct event_table events_intel_p6 = {
    .id = "intel-p6",
    .title = "Intel P6",
    .doc = "Linux p6.c (event map and constraints)",
    .driver = PMU_DRV_INTEL_P6,
    .family_min = 6,
    .family_max = 6,
    .complete = false,
    .max_code = 0xff,
    .n_counters = 2, /* SDM Vol. 3B P6 section */
    .rule = p6_rule,
    .ev = p6,
    .n = sizeof(p6) / sizeof(p6[0]),
    .sem = events_intel_p6_sem,
};
