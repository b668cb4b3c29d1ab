/* Intel architectural performance monitoring: the driver's tables, the
 * documented MSR listing (msr.access), the generic event map and the event
 * of each fixed counter. Apart from intel_arch.c because none of this
 * touches a register: it describes what init() found, and intel_arch.c
 * keeps the path that programs, reads and acknowledges the counters. */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "cpuid.h"
#include "intel_arch.h"
#include "msr.h"

const uint16_t intel_arch_fixed_event[ARCH_FIXED_EVENTS] = {ARCH_FIXED0_EVENT, ARCH_FIXED1_EVENT,
							    ARCH_FIXED2_EVENT, ARCH_FIXED3_EVENT};

int intel_arch_fixed_index(uint16_t enc)
{
	for (int i = 0; i < ARCH_FIXED_EVENTS; i++)
		if (intel_arch_fixed_event[i] == enc)
			return i;
	return -1;
}

/* EVNTSEL.ANY and the fixed AnyThread bits: from v3 (SDM Vol. 3B §20.2.3)
 * until CPUID.0AH:EDX[15] deprecates them (§20.2.5; Linux intel_pmu_init
 * drops the "any" format attribute then). */
static bool any_thread(const struct pmu *p)
{
	return p->version >= ARCH_V_ANYTHREAD &&
	       !(p->cpu->ids.leaf0a.edx & CPUID_0A_EDX_ANYTHREAD_DEPRECATED);
}

bool intel_arch_nhm_erratum(const struct cpu_info *ci)
{
	/* Nehalem 1AH 1EH 1FH 2EH, Westmere 25H 2CH 2FH */
	static const uint8_t nhm_wsm[] = {0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c, 0x2f};
	for (unsigned i = 0; i < sizeof(nhm_wsm); i++)
		if (ci->family == 6 && ci->model == nhm_wsm[i])
			return true;
	return false;
}

bool intel_arch_pin_control(const struct cpu_info *ci, unsigned version)
{
	/* Nehalem and Westmere: the last v3 cores before Sandy Bridge */
	return version < ARCH_V_ANYTHREAD || intel_arch_nhm_erratum(ci);
}

int intel_arch_nhm_reset(void)
{
	static const uint32_t magic[NHM_PMCS] = {0x4300b5, 0x4300d2, 0x4300b1, 0x4300b1};
	uint64_t sel[NHM_PMCS], val[NHM_PMCS], g = 0;
	int st = hw_rdmsr(MSR_PERF_GLOBAL_CTRL, &g);

	for (unsigned i = 0; i < NHM_PMCS; i++) {
		st = pmu_first_err(st, hw_rdmsr(MSR_P6_EVNTSEL0 + i, &sel[i]));
		st = pmu_first_err(st, hw_rdmsr(MSR_P6_PERFCTR0 + i, &val[i]));
	}
	if (st != HW_OK)
		return st;
	st = hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0);
	for (unsigned i = 0; i < NHM_PMCS; i++) {
		st = pmu_first_err(st, hw_wrmsr(MSR_P6_EVNTSEL0 + i, magic[i]));
		st = pmu_first_err(st, hw_wrmsr(MSR_P6_PERFCTR0 + i, 0));
	}
	st = pmu_first_err(st, hw_wrmsr(MSR_PERF_GLOBAL_CTRL, pmu_width_mask(NHM_PMCS)));
	st = pmu_first_err(st, hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0));
	for (unsigned i = 0; i < NHM_PMCS; i++) {
		st = pmu_first_err(st, hw_wrmsr(MSR_P6_EVNTSEL0 + i, sel[i]));
		st = pmu_first_err(st, hw_wrmsr(MSR_P6_PERFCTR0 + i, val[i] & 0xffffffffull));
	}
	return pmu_first_err(st, hw_wrmsr(MSR_PERF_GLOBAL_CTRL, g));
}

size_t intel_arch_msrs(struct pmu *p, struct pmu_msr_desc *out, size_t max)
{
	size_t n = 0;
	char name[24];
	uint64_t fixed_rw = 0;
	uint64_t sel_rw = EVTSEL_LOW32 & ~(any_thread(p) ? 0 : EVTSEL_ANY) &
			  ~(intel_arch_pin_control(p->cpu, p->version) ? 0 : EVTSEL_PC);

	for (unsigned i = 0; i < p->n_gp; i++) {
		const struct pmu_counter *c = &p->ctr[i];
		if (n + 3 > max)
			return n;
		pmh_fmt(name, sizeof(name), "IA32_PMC%u", i);
		bool v6 = c->full_msr == c->ctr_msr; /* one full-width MSR */
		pmu_msr_desc(&out[n++], c->ctr_msr, name, PMU_MSR_RW,
			     pmu_width_mask(v6 ? c->width : PMC_WRITE_BITS));
		pmh_fmt(name, sizeof(name), "IA32_PERFEVTSEL%u", i);
		pmu_msr_desc(&out[n++], c->ctl_msr, name, PMU_MSR_RW, sel_rw);
		if (c->full_msr && !v6) {
			pmh_fmt(name, sizeof(name), "IA32_A_PMC%u", i);
			pmu_msr_desc(&out[n++], c->full_msr, name, PMU_MSR_RW,
				     pmu_width_mask(c->width));
		}
	}
	for (unsigned i = p->n_gp; i < p->n; i++) {
		const struct pmu_counter *c = &p->ctr[i];
		if (n >= max)
			return n;
		pmh_fmt(name, sizeof(name), "IA32_FIXED_CTR%u", c->index);
		pmu_msr_desc(&out[n++], c->ctr_msr, name, PMU_MSR_RW, pmu_width_mask(c->width));
		fixed_rw |= (FIX_OS | FIX_USR | FIX_PMI | (any_thread(p) ? FIX_ANY : 0))
			    << FIX_SHIFT(c->index);
	}
	if (p->n_fixed && n < max)
		pmu_msr_desc(&out[n++], MSR_FIXED_CTR_CTRL, "IA32_FIXED_CTR_CTRL", PMU_MSR_RW,
			     fixed_rw);
	if (p->version >= ARCH_V_GLOBALS && n + 3 <= max) { /* globals, SDM Vol. 3B 20.2.2 */
		uint64_t bits = intel_arch_global_bits(p, pmu_all_mask(p));
		pmu_msr_desc(&out[n++], MSR_PERF_GLOBAL_CTRL, "PERF_GLOBAL_CTRL", PMU_MSR_RW, bits);
		pmu_msr_desc(&out[n++], MSR_PERF_GLOBAL_STATUS, "PERF_GLOBAL_STATUS", PMU_MSR_RO,
			     0);
		pmu_msr_desc(&out[n++], MSR_PERF_GLOBAL_OVF_CTRL, "PERF_GLOBAL_OVF_CTRL",
			     PMU_MSR_WO, 0);
	}
	if (p->version >= ARCH_V_STATUS_SET && n < max)
		pmu_msr_desc(&out[n++], MSR_PERF_GLOBAL_STATUS_SET, "PERF_GLOBAL_STATUS_SET",
			     PMU_MSR_WO, 0);
	if ((p->cpu->ids.leaf1.ecx & CPUID_1_ECX_PDCM) && n < max)
		pmu_msr_desc(&out[n++], MSR_PERF_CAPABILITIES, "IA32_PERF_CAPABILITIES", PMU_MSR_RO,
			     0);
	return n;
}

int intel_arch_generic_event(struct pmu *p, enum pmu_generic g, unsigned ctr, struct pmu_event *out)
{
	/* Linux intel_perfmon_event_map; ebx = the CPUID.0AH:EBX bit that marks it
	 * unavailable. Reference cycles are Linux's pseudo-encoding 0x0300,
	 * fixed counter 2 alone (Linux perf_event.h): no GP encoding (enc 0); 0x013C on
	 * a GP counter is what Linux counts as bus-cycles. */
	static const struct {
		uint16_t enc; /* umask << 8 | event */
		int8_t ebx;
		const char *name;
	} map[GEN_COUNT] = {
	    [GEN_CYCLES] = {ARCH_EV_CORE_CYCLES, ARCH_EBX_CORE_CYCLES, "CPU_CLK_UNHALTED.CORE"},
	    [GEN_INSTRUCTIONS] = {ARCH_EV_INSTRUCTIONS, ARCH_EBX_INSTRUCTIONS, "INST_RETIRED.ANY"},
	    [GEN_REF_CYCLES] = {0, ARCH_EBX_REF_CYCLES, "CPU_CLK_UNHALTED.REF"},
	    [GEN_CACHE_REFS] = {ARCH_EV_LLC_REFS, ARCH_EBX_LLC_REFS, "LONGEST_LAT_CACHE.REFERENCE"},
	    [GEN_CACHE_MISSES] = {ARCH_EV_LLC_MISSES, ARCH_EBX_LLC_MISSES,
				  "LONGEST_LAT_CACHE.MISS"},
	    [GEN_BRANCHES] = {ARCH_EV_BRANCHES, ARCH_EBX_BRANCHES, "BR_INST_RETIRED.ALL"},
	    [GEN_BRANCH_MISSES] = {ARCH_EV_BRANCH_MISSES, ARCH_EBX_BRANCH_MISSES,
				   "BR_MISP_RETIRED.ALL"},
	};
	/* The generic event each fixed counter provides. */
	static const int fixed_generic[3] = {GEN_INSTRUCTIONS, GEN_CYCLES, GEN_REF_CYCLES};
	const struct pmu_counter *c;

	if ((unsigned)g >= GEN_COUNT || !map[g].name)
		return HW_UNSUPPORTED;
	if (ctr >= p->n)
		return HW_REFUSED;
	c = &p->ctr[ctr];
	pmh_memset(out, 0, sizeof(*out));
	if (c->kind == PMU_CTR_FIXED) {
		if (c->index >= 3 || fixed_generic[c->index] != (int)g)
			return HW_REFUSED; /* the counter counts another event */
		out->code = intel_arch_fixed_event[c->index] & 0xff;
		out->umask = (uint8_t)(intel_arch_fixed_event[c->index] >> 8);
		out->counters = 1u << ctr;
		out->fixed_only = g == GEN_REF_CYCLES; /* 0x0300 is a pseudo-encoding */
		pmh_fmt(out->name, sizeof(out->name), "%s (fixed%u)", map[g].name, c->index);
		return HW_OK;
	}
	/* A set EBX bit makes the GP encoding unavailable (Linux
	 * intel_arch_events_quirk); fixed counters are enumerated by EDX/ECX
	 * instead, so the check applies to GP counters. */
	if (!map[g].enc)
		return HW_REFUSED; /* fixed counter 2's event only */
	if (p->arch_ebx & (1u << map[g].ebx))
		return HW_UNSUPPORTED;
	out->code = map[g].enc & 0xff;
	out->umask = (uint8_t)(map[g].enc >> 8);
	pmh_strlcpy(out->name, map[g].name, sizeof(out->name));
	return HW_OK;
}
