/* Generic events per family, typed from the fact sheet's event maps (facts §3
 * P6, §4 arch, §5 NetBurst, §6 KNC, §7 AMD K7-Fam16h and Fam17h+). Names come
 * from the catalogue when it has the exact encoding. */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "events.h"

struct gen_enc {
	bool valid;
	uint16_t code;
	uint8_t umask;
	uint32_t escr_mask, escr_msr;
	uint8_t sel;
	uint32_t counters;
	bool fixed_only;
};

#define G(c, u)                                                                                    \
	{                                                                                          \
		true, c, u, 0, 0, 0, 0, false                                                      \
	}
#define GF(c, u)                                                                                   \
	{                                                                                          \
		true, c, u, 0, 0, 0, 0, true                                                       \
	}
#define GN(c, m, escr, sel, ctr)                                                                   \
	{                                                                                          \
		true, c, 0, m, escr, sel, ctr, false                                               \
	}
#define NONE                                                                                       \
	{                                                                                          \
		false, 0, 0, 0, 0, 0, 0, false                                                     \
	}

/* Order: cycles, instructions, branches, branch-misses, cache-refs,
 * cache-misses, ref-cycles (enum pmu_generic). */
static const struct gen_enc gen_p6[GEN_COUNT] = {
    G(0x79, 0), G(0xc0, 0), G(0xc4, 0), G(0xc5, 0), G(0x2e, 0x0f), G(0x2e, 0x01), NONE,
};
static const struct gen_enc gen_arch[GEN_COUNT] = {
    G(0x3c, 0), G(0xc0, 0), G(0xc4, 0), G(0xc5, 0), G(0x2e, 0x4f), G(0x2e, 0x41), GF(0x00, 0x03),
};
#define IQ_T0 ((1u << 12) | (1u << 13) | (1u << 16))
static const struct gen_enc gen_netburst[GEN_COUNT] = {
    GN(0x13, 0x1, 0x3a2, 6, 1u << 0),		     /* GLOBAL_POWER_EVENTS:RUNNING */
    GN(0x02, 0x5, 0x3b8, 4, IQ_T0),		     /* INSTR_RETIRED NBOGUSNTAG|BOGUSNTAG */
    GN(0x04, 0x1e, 0x3c2, 2, (1u << 4) | (1u << 5)), /* RETIRED_BRANCH_TYPE, all 4 */
    GN(0x03, 0x1, 0x3b8, 4, IQ_T0),		     /* MISPRED_BRANCH_RETIRED:NBOGUS */
    GN(0x0c, 0x3f, 0x3a0, 7, 1u << 0),		     /* BSQ_CACHE_REFERENCE hits, 2nd+3rd level */
    GN(0x0c, 0x700, 0x3a0, 7, 1u << 0),		     /* BSQ_CACHE_REFERENCE misses */
    NONE,
};
static const struct gen_enc gen_knc[GEN_COUNT] = {
    G(0x2a, 0), G(0x16, 0), G(0x12, 0), G(0x2b, 0), G(0x28, 0), G(0x29, 0), NONE,
};
static const struct gen_enc gen_amd_k7[GEN_COUNT] = {
    G(0x76, 0), G(0xc0, 0), G(0xc2, 0), G(0xc3, 0), G(0x7d, 0x07), G(0x7e, 0x07), NONE,
};
static const struct gen_enc gen_amd_zen[GEN_COUNT] = {
    G(0x76, 0), G(0xc0, 0), G(0xc2, 0), G(0xc3, 0), G(0x60, 0xff), G(0x64, 0x09), NONE,
};

const char *events_generic_name(enum pmu_generic g)
{
	static const char *const names[GEN_COUNT] = {
	    "cycles",		"instructions", "branches",   "branch-misses",
	    "cache-references", "cache-misses", "ref-cycles",
	};
	return (unsigned)g < GEN_COUNT ? names[g] : "?";
}

int events_generic(enum pmu_driver_id d, unsigned family, enum pmu_generic g, struct pmu_event *out)
{
	const struct gen_enc *map;
	const struct event_table *t[8];
	size_t nt;

	switch (d) {
	case PMU_DRV_INTEL_P6:
		map = gen_p6;
		break;
	case PMU_DRV_INTEL_ARCH:
		map = gen_arch;
		break;
	case PMU_DRV_INTEL_NETBURST:
		map = gen_netburst;
		break;
	case PMU_DRV_INTEL_KNC:
		map = gen_knc;
		break;
	case PMU_DRV_AMD_LEGACY:
	case PMU_DRV_AMD_CORE:
		map = family >= 0x17 ? gen_amd_zen : gen_amd_k7;
		break;
	default:
		return -1;
	}
	if ((unsigned)g >= GEN_COUNT || !map[g].valid)
		return -1;
	const struct gen_enc *m = &map[g];
	pmh_memset(out, 0, sizeof(*out));
	out->code = m->code;
	out->umask = m->umask;
	out->escr_mask = m->escr_mask;
	out->escr_msr = m->escr_msr;
	out->escr_select = m->sel;
	out->counters = m->counters;
	out->fixed_only = m->fixed_only;
	pmh_strlcpy(out->name, events_generic_name(g), sizeof(out->name));

	/* Name it after the catalogue entry, or "EVENT:0xMASK" for a combination. */
	nt = events_tables_for(d, family, EVENTS_ANY_MODEL, t, 8);
	for (size_t i = 0; i < nt; i++) {
		const struct event_def *e =
		    events_find_raw(t[i], m->code, m->umask, m->escr_msr, m->escr_mask);
		if (e && !!(e->flags & EVF_FIXED) == m->fixed_only) {
			pmh_strlcpy(out->name, e->name, sizeof(out->name));
			return 0;
		}
	}
	for (size_t i = 0; i < nt; i++)
		for (size_t k = 0; k < t[i]->n; k++) {
			const struct event_def *e = &t[i]->ev[k];
			if (e->code != m->code || (e->flags & (EVF_SUB | EVF_FIXED)) ||
			    e->escr_msr != m->escr_msr)
				continue;
			char pre[29];
			pmh_strlcpy(pre, e->name, sizeof(pre));
			pmh_fmt(out->name, sizeof(out->name), "%s:0x%x", pre,
				t[i]->netburst ? m->escr_mask : m->umask);
			return 0;
		}
	return 0;
}
