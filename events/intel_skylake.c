/* Skylake L2_RQSTS (event 0x24): every event of the "perf stat recipes" note
 * (Travis Downs, github.com/travisdowns/uarch-bench/wiki/perf-stat-recipies),
 * which also explains the unit mask: bits 4:0 select the request origin (0x01
 * demand data read, 0x02 RFO, 0x04 instruction read, 0x08 L1 prefetch, 0x10 L2
 * HW prefetcher), bits 7:5 the result (0x20 miss, 0x40 hit E/S, 0x80 hit M); a
 * request counts when it matches one selected origin AND one selected result,
 * so a mask without an origin bit or without a result bit counts nothing.
 *
 * Counts (the unit test checks them): the note's table has 16 SDM events; 4 of
 * them are documented incorrectly (DEMAND_DATA_RD_HIT, RFO_HIT, CODE_RD_HIT
 * exclude M-state hits; REFERENCES excludes the L2 prefetcher), and each gets
 * a *_CORRECTED variant: 20 entries. The SDM entries keep the SDM umask. */
#include "../lib/fmt.h"
#include "events.h"
#include "semantics.h"

#define L2_ORIGIN 0x1fu
#define L2_RESULT 0xe0u

#define S(nm, u, fl, d)                                                                            \
	{                                                                                          \
		.name = "L2_RQSTS." nm, .code = 0x24, .umask = u, .umask_bits = 0xff,              \
		.fixed_index = -1, .cpuid_bit = -1, .flags = (fl), .desc = d                       \
	}

static const struct event_def skl[] = {
    S("DEMAND_DATA_RD_MISS", 0x21, 0, "Demand Data Read requests that missed L2, no rejects"),
    S("RFO_MISS", 0x22, 0, "RFO requests that missed L2 (includes SW RFO prefetches, prefetchw)"),
    S("CODE_RD_MISS", 0x24, 0, "L2 cache misses when fetching instructions"),
    S("ALL_DEMAND_MISS", 0x27, 0,
      "Demand requests that missed L2: the sum of the three above, code fetches included"),
    S("PF_MISS", 0x38, 0,
      "Requests from the L1/L2 hardware prefetchers or load software prefetches that miss L2"),
    S("MISS", 0x3f, 0, "All requests that missed L2"),
    S("DEMAND_DATA_RD_HIT", 0x41, EVF_DOC_WRONG,
      "SDM: demand data reads that hit L2; really only hits on E/S-state lines, not M: use "
      "DEMAND_DATA_RD_HIT_CORRECTED (0xc1)"),
    S("RFO_HIT", 0x42, EVF_DOC_WRONG,
      "SDM: RFO requests that hit L2; really only E/S-state hits, not M: use RFO_HIT_CORRECTED "
      "(0xc2)"),
    S("CODE_RD_HIT", 0x44, EVF_DOC_WRONG,
      "SDM: L2 hits when fetching instructions; more or less correct, but excludes M-state "
      "hits: CODE_RD_HIT_CORRECTED (0xc4)"),
    S("PF_HIT", 0xd8, 0, "Prefetches that hit L2 (correct: includes M-state lines)"),
    S("ALL_DEMAND_DATA_RD", 0xe1, 0, "All demand data read requests to L2"),
    S("ALL_RFO", 0xe2, 0, "All RFO requests to L2"),
    S("ALL_CODE_RD", 0xe4, 0, "All L2 code requests (includes M-state code lines)"),
    S("ALL_DEMAND_REFERENCES", 0xe7, 0,
      "All demand requests to L2, code fetches and SW RFO prefetches included"),
    S("ALL_PF", 0xf8, 0,
      "All requests from the L1/L2 hardware prefetchers or load software prefetches"),
    S("REFERENCES", 0xef, EVF_DOC_WRONG,
      "SDM: all requests to L2; really excludes origin 0x10 (the L2 HW prefetcher's own "
      "requests): REFERENCES_CORRECTED (0xff)"),
    /* Corrected variants: not SDM names. */
    S("DEMAND_DATA_RD_HIT_CORRECTED", 0xc1, EVF_CORRECTED,
      "Demand data reads that hit L2 in any state (M 0x80 | E/S 0x40 | demand read 0x01)"),
    S("RFO_HIT_CORRECTED", 0xc2, EVF_CORRECTED,
      "RFO requests that hit L2 in any state (M 0x80 | E/S 0x40 | RFO 0x02)"),
    S("CODE_RD_HIT_CORRECTED", 0xc4, EVF_CORRECTED,
      "Instruction reads that hit L2 in any state (M 0x80 | E/S 0x40 | code 0x04)"),
    S("REFERENCES_CORRECTED", 0xff, EVF_CORRECTED,
      "All requests to L2 including the L2 HW prefetcher (the note: 'would probably be' 0xff)"),
};

/* Origin x result rule; any combination with both parts is documented. */
static enum ev_verdict skl_rule(const struct event_table *t, uint16_t code, uint8_t umask,
				uint32_t flags, bool *known, char *msg, size_t n)
{
	(void)t;
	(void)flags;
	if (code != 0x24)
		return EV_OK;
	if (!(umask & L2_ORIGIN) || !(umask & L2_RESULT)) {
		pmh_fmt(msg, n,
			"L2_RQSTS unit mask 0x%02x counts nothing: it needs at least one origin "
			"bit (0x1f) and one result bit (0xe0)%s%s",
			umask, (umask & L2_ORIGIN) ? "" : "; no origin bit",
			(umask & L2_RESULT) ? "" : "; no result bit");
		*known = true;
		return EV_WARN;
	}
	*known = true;
	return EV_OK;
}

/* Skylake and derived cores (the note: "Skylake and derived archs"). */
static const uint16_t skl_models[] = {0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6};

const struct event_table events_intel_skylake = {
    .id = "intel-skylake",
    .title = "Intel Skylake L2_RQSTS",
    .doc = "skylake-l2-rqsts-perf-stat-recipes.md (SDM L2_RQSTS events with corrections)",
    .driver = PMU_DRV_INTEL_ARCH,
    .family_min = 6,
    .family_max = 6,
    .models = skl_models,
    .n_models = sizeof(skl_models) / sizeof(skl_models[0]),
    .complete = false,
    .max_code = 0xff,
    .rule = skl_rule,
    .ev = skl,
    .n = sizeof(skl) / sizeof(skl[0]),
    .sem = events_intel_skylake_sem,
};
