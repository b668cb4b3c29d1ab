/* Intel NetBurst (Pentium 4) events: BRANCH_RETIRED from the SDM's NetBurst
 * 'Selecting Events to Count' example (Vol. 3B, the table 'Event Example' and
 * the Pentium 4 event tables of older editions: event mask bits
 * MMNP/MMNM/MMTP/MMTM, CCCR select 05H) and the bindings of Linux's
 * p4_event_bind_map (arch/x86/events/intel/p4.c): GLOBAL_POWER_EVENTS,
 * INSTR_RETIRED, MISPRED_BRANCH_RETIRED, RETIRED_BRANCH_TYPE and
 * BSQ_CACHE_REFERENCE (its event-mask bits are those of Linux's p4.h). ESCR
 * addresses and counters are thread 0's.
 *
 * Counts (the unit test checks them): 6 events, 23 event-mask bits and 3
 * named combinations of BRANCH_RETIRED's, 32 entries; 46 ESCR addresses
 * (Linux msr-index.h), named by the driver's ESCR table. */
#include "events.h"
#include "semantics.h"
#include "../pmu/intel_netburst.h"

#define CTR(a) (1u << (a))
#define IQ_T0  (CTR(12) | CTR(13) | CTR(16))

#define N(nm, c, m, bits, escr, sel, ctr, fl, d)                                                   \
	{                                                                                          \
		.name = nm, .code = c, .escr_mask = m, .escr_bits = bits, .escr_msr = escr,        \
		.escr_select = sel, .counters = ctr, .fixed_index = -1, .cpuid_bit = -1,           \
		.flags = EVF_CTR_RESTRICTED | (fl), .desc = d                                      \
	}

#define IR(nm, m, fl, d)  N(nm, 0x02, m, 0xf, MSR_P4_CRU_ESCR0, 4, IQ_T0, fl, d)
#define BR(nm, m, fl, d)  N(nm, 0x06, m, 0xf, MSR_P4_CRU_ESCR2, 5, IQ_T0, fl, d)
#define MB(nm, m, fl, d)  N(nm, 0x03, m, 0x1, MSR_P4_CRU_ESCR0, 4, IQ_T0, fl, d)
#define RBT(nm, m, fl, d) N(nm, 0x04, m, 0x1e, MSR_P4_TBPU_ESCR0, 2, CTR(4) | CTR(5), fl, d)
#define BSQ(nm, m, fl, d) N(nm, 0x0c, m, 0x73f, MSR_P4_BSU_ESCR0, 7, CTR(0), fl, d)

static const struct event_def netburst[] = {
    N("GLOBAL_POWER_EVENTS", 0x13, 0x1, 0x1, MSR_P4_FSB_ESCR0, 6, CTR(0), 0,
      "Time the processor is not stopped (Linux cycles)"),
    N("GLOBAL_POWER_EVENTS.RUNNING", 0x13, 0x1, 0x1, MSR_P4_FSB_ESCR0, 6, CTR(0), EVF_SUB,
      "The processor is active"),
    IR("INSTR_RETIRED", 0xf, 0, "Instructions retired, all four tag/bogus combinations"),
    IR("INSTR_RETIRED.NBOGUSNTAG", 0x1, EVF_SUB, "Non-bogus instructions, not tagged"),
    IR("INSTR_RETIRED.NBOGUSTAG", 0x2, EVF_SUB, "Non-bogus instructions, tagged"),
    IR("INSTR_RETIRED.BOGUSNTAG", 0x4, EVF_SUB, "Bogus instructions, not tagged"),
    IR("INSTR_RETIRED.BOGUSTAG", 0x8, EVF_SUB, "Bogus instructions, tagged"),
    BR("BRANCH_RETIRED", 0xf, 0, "Retired branches, all four outcomes (P6: EMON_BR_INST_RETIRED)"),
    BR("BRANCH_RETIRED.MMNP", 0x1, EVF_SUB, "Branch Not-taken Predicted"),
    BR("BRANCH_RETIRED.MMNM", 0x2, EVF_SUB, "Branch Not-taken Mispredicted"),
    BR("BRANCH_RETIRED.MMTP", 0x4, EVF_SUB, "Branch Taken Predicted"),
    BR("BRANCH_RETIRED.MMTM", 0x8, EVF_SUB, "Branch Taken Mispredicted"),
    /* combinations the SDM asks for ("one or more mask bits to select any
     * combination of taken, not-taken, predicted and mispredicted") */
    BR("BRANCH_RETIRED.TAKEN", 0xc, EVF_SUB, "Taken branches, predicted or not (MMTP|MMTM)"),
    BR("BRANCH_RETIRED.NOT_TAKEN", 0x3, EVF_SUB,
       "Not-taken branches, predicted or not (MMNP|MMNM)"),
    BR("BRANCH_RETIRED.MISPREDICTED", 0xa, EVF_SUB,
       "Mispredicted branches, either direction (MMNM|MMTM)"),
    MB("MISPRED_BRANCH_RETIRED", 0x1, 0, "Mispredicted branches retired (Linux branch-misses)"),
    MB("MISPRED_BRANCH_RETIRED.NBOGUS", 0x1, EVF_SUB, "Non-bogus mispredicted branches"),
    RBT("RETIRED_BRANCH_TYPE", 0x1e, 0, "Retired branches by type, all four (Linux branches)"),
    RBT("RETIRED_BRANCH_TYPE.CONDITIONAL", 0x02, EVF_SUB, "Conditional branches"),
    RBT("RETIRED_BRANCH_TYPE.CALL", 0x04, EVF_SUB, "Calls"),
    RBT("RETIRED_BRANCH_TYPE.RETURN", 0x08, EVF_SUB, "Returns"),
    RBT("RETIRED_BRANCH_TYPE.INDIRECT", 0x10, EVF_SUB, "Indirect branches"),
    BSQ("BSQ_CACHE_REFERENCE", 0x73f, 0, "2nd/3rd-level cache references seen by the bus unit"),
    BSQ("BSQ_CACHE_REFERENCE.RD_2NDL_HITS", 0x001, EVF_SUB, "Read 2nd-level hit, Shared"),
    BSQ("BSQ_CACHE_REFERENCE.RD_2NDL_HITE", 0x002, EVF_SUB, "Read 2nd-level hit, Exclusive"),
    BSQ("BSQ_CACHE_REFERENCE.RD_2NDL_HITM", 0x004, EVF_SUB, "Read 2nd-level hit, Modified"),
    BSQ("BSQ_CACHE_REFERENCE.RD_3RDL_HITS", 0x008, EVF_SUB, "Read 3rd-level hit, Shared"),
    BSQ("BSQ_CACHE_REFERENCE.RD_3RDL_HITE", 0x010, EVF_SUB, "Read 3rd-level hit, Exclusive"),
    BSQ("BSQ_CACHE_REFERENCE.RD_3RDL_HITM", 0x020, EVF_SUB, "Read 3rd-level hit, Modified"),
    BSQ("BSQ_CACHE_REFERENCE.RD_2NDL_MISS", 0x100, EVF_SUB, "Read 2nd-level miss"),
    BSQ("BSQ_CACHE_REFERENCE.RD_3RDL_MISS", 0x200, EVF_SUB, "Read 3rd-level miss"),
    BSQ("BSQ_CACHE_REFERENCE.WR_2NDL_MISS", 0x400, EVF_SUB, "Write 2nd-level miss"),
};

const struct event_table events_intel_netburst = {
    .id = "intel-netburst",
    .title = "Intel NetBurst (Pentium 4)",
    .doc = "SDM Vol. 3B NetBurst 'Event Example' and Linux p4.c p4_event_bind_map",
    .driver = PMU_DRV_INTEL_NETBURST,
    .family_min = 0xf,
    .family_max = 0xf,
    .complete = false,
    .netburst = true,
    .max_code = 0x3f, /* ESCR event select is bits 30:25 */
    .n_counters = 18, /* SDM NetBurst 'Performance Counters' */
    .sem = events_intel_netburst_sem,
    .ev = netburst,
    .n = sizeof(netburst) / sizeof(netburst[0]),
};

/* ESCR names and count: the driver's table of every ESCR (Linux msr-index.h). */
const char *events_netburst_escr_name(uint32_t addr)
{
	const struct escr *e = netburst_escr_find(addr);
	return e ? e->name : 0;
}

size_t events_netburst_escr_count(void)
{
	return netburst_escr_count();
}
