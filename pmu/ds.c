/* Debug store detection: the branch trace store and PEBS, as Linux finds
 * them (arch/x86/kernel/cpu/intel.c early_init_intel, arch/x86/events/
 * intel/ds.c intel_ds_init):
 *  - the debug store where CPUID.1:EDX[21] DS says so; the 64-bit layout
 *    of its save area with CPUID.1:ECX[2] DTES64 (SDM Vol. 3B 18.6.3.4);
 *  - BTS unless IA32_MISC_ENABLE[11] (BTS_UNAVAILABLE), PEBS unless
 *    IA32_MISC_ENABLE[12] (PEBS_UNAVAILABLE) (SDM Vol. 4 Table 2-2); an
 *    IA32_MISC_ENABLE that #GPs says nothing: neither;
 *  - the PEBS record format in IA32_PERF_CAPABILITIES[11:8], trap-like
 *    records [6], adaptive PEBS [14] (SDM Vol. 3B "IA32_PERF_CAPABILITIES"),
 *    read only where CPUID.1:ECX[15] PDCM enumerates the MSR;
 *  - Intel's only, and with the architectural-perfmon PMU alone: Linux
 *    calls intel_ds_init from intel_pmu_init, never for P6 or NetBurst
 *    (whose DEBUGCTL has other bit positions, SDM Vol. 3B 18.5.1).
 * An IA32_DS_AREA that #GPs where CPUID enumerates DS and MISC_ENABLE does
 * not mark both unavailable has no debug store to program: neither (ours;
 * a hypervisor that enumerates DS and passes no MSR through would answer
 * so; the simulated CPUs without a debug store set both MISC_ENABLE bits,
 * host/sim/model_arch_firmware.c). */
#include "pmu.h"
#include "cpu.h"
#include "cpuid.h"
#include "msr.h"
#include "hw.h"
#include "../lib/fmt.h"

#define PEBS_FMT_MIN 1 /* format 0 (Core 2) has no PERF_CAPABILITIES to say so */
#define PEBS_FMT_MAX 6 /* Linux intel_ds_init knows formats up to 6 */

/* The event the harness samples with PEBS, by record format and family 6
 * model (none listed: any model): an event every instruction retires, so
 * that the kernel's walk says which instruction each record is for. The
 * first entry that fits is taken. */
struct pebs_event {
	uint8_t fmt_min, fmt_max;
	uint8_t event, umask, ctr;
	uint8_t models[6]; /* 0-terminated; in place: no relocation in the image */
	char name[24];
};

static const struct pebs_event pebs_events[] = {
    /* Skylake and its derivatives (formats 1-3; family 6 models 4EH, 5EH,
     * 55H, 8EH, 9EH: Linux intel/core.c intel_pmu_init takes
     * intel_skl_pebs_event_constraints there): the precise-distribution
     * event INST_RETIRED.PREC_DIST (C0H/01H), which counts on GP counter 1
     * alone (SDM Vol. 3B 20.3.8.1; Linux intel/ds.c
     * INTEL_UEVENT_CONSTRAINT(0x01c0, 0x2)). Any other event may record a
     * nearby instruction there, not the one after the overflow. */
    {1, 3, 0xc0, 0x01, 1, {0x4e, 0x5e, 0x55, 0x8e, 0x9e}, "INST_RETIRED.PREC_DIST"},
    /* Other formats 1-3: INST_RETIRED.ANY_P (C0H/00H) on GP0, a PEBS event
     * on GP0-3 (Linux INTEL_ALL_EVENT_CONSTRAINT(0, 0xf)); ours: the
     * precise distributions of earlier families are not modelled */
    {1, 3, 0xc0, 0x00, 0, {0}, "INST_RETIRED.ANY_P"},
    /* Ice Lake on (formats 4-6, adaptive PEBS): INST_RETIRED.ANY_P
     * (C0H/00H) on GP0, a PEBS event on every GP counter (Linux intel/ds.c
     * intel_icl_pebs_event_constraints: "Allow all events as PEBS"; Linux
     * takes INST_RETIRED.PREC_DIST on fixed counter 0 there, which ours
     * does not program) */
    {4, 6, 0xc0, 0x00, 0, {0}, "INST_RETIRED.ANY_P"},
};

/* Whether e is for the CPU's family and model. */
static bool fits(const struct pebs_event *e, const struct cpu_info *ci)
{
	if (!e->models[0])
		return true;
	for (unsigned i = 0; ci->family == 6 && i < sizeof(e->models) && e->models[i]; i++)
		if (ci->model == e->models[i])
			return true;
	return false;
}

static void both(struct pmu_ds *d, const char *why)
{
	pmh_fmt(d->why_bts, sizeof(d->why_bts), "%s", why);
	pmh_fmt(d->why_pebs, sizeof(d->why_pebs), "%s", why);
}

/* Why the CPU has no debug store the harness can use, or NULL. */
static const char *no_ds(const struct pmu *p)
{
	const struct cpu_info *ci = p->cpu;

	if (ci->vendor != VENDOR_INTEL)
		return "not an Intel processor: the debug store is Intel's (SDM Vol. 3B 18.6.3.4)";
	if (!p->ops || p->ops->id != PMU_DRV_INTEL_ARCH)
		return "not the arch perfmon PMU: Linux's debug store is its (intel_pmu_init "
		       "calls intel_ds_init)";
	if (!(ci->ids.leaf1.edx & CPUID_1_EDX_DS))
		return "CPUID.1:EDX[21] DS clear: no debug store";
	return 0;
}

/* PEBS from PERF_CAPABILITIES: format, trap-like, adaptive; the event. */
static void pebs(const struct pmu *p, struct pmu_ds *d)
{
	uint64_t caps = 0;

	if (!(p->cpu->ids.leaf1.ecx & CPUID_1_ECX_PDCM)) {
		pmh_fmt(d->why_pebs, sizeof(d->why_pebs),
			"no IA32_PERF_CAPABILITIES (CPUID.1:ECX[15] clear): PEBS format 0, "
			"not checked (formats %u-%u)",
			PEBS_FMT_MIN, PEBS_FMT_MAX);
		return;
	}
	if (hw_rdmsr(MSR_PERF_CAPABILITIES, &caps) != HW_OK) {
		pmh_fmt(d->why_pebs, sizeof(d->why_pebs),
			"IA32_PERF_CAPABILITIES (345H) raised #GP: no PEBS format");
		return;
	}
	d->pebs_fmt = (uint8_t)PERF_CAP_PEBS_FMT(caps);
	d->pebs_trap = (caps & PERF_CAP_PEBS_TRAP) != 0;
	d->pebs_baseline = (caps & PERF_CAP_PEBS_BASE) != 0;
	for (unsigned i = 0; i < sizeof(pebs_events) / sizeof(pebs_events[0]); i++) {
		const struct pebs_event *e = &pebs_events[i];
		if (d->pebs_fmt < e->fmt_min || d->pebs_fmt > e->fmt_max || e->ctr >= p->n_gp ||
		    !fits(e, p->cpu))
			continue;
		d->pebs = true;
		d->pebs_event = e->event;
		d->pebs_umask = e->umask;
		d->pebs_ctr = e->ctr;
		d->pebs_event_name = e->name;
		return;
	}
	pmh_fmt(d->why_pebs, sizeof(d->why_pebs), "PEBS format %u: not checked (formats %u-%u)",
		(unsigned)d->pebs_fmt, PEBS_FMT_MIN, PEBS_FMT_MAX);
}

void pmu_ds_detect(const struct pmu *p, struct pmu_ds *d)
{
	if (p->ops && p->ops->id == PMU_DRV_INTEL_NETBURST) {
		pmu_ds_detect_netburst(p, d); /* IQ_COUNTER4, no record format */
		return;
	}
	const char *why = no_ds(p);
	uint64_t misc = 0, area = 0;

	*d = (struct pmu_ds){0};
	if (why) {
		both(d, why);
		return;
	}
	d->ds64 = (p->cpu->ids.leaf1.ecx & CPUID_1_ECX_DTES64) != 0;
	if (hw_rdmsr(MSR_IA32_MISC_ENABLE, &misc) != HW_OK) {
		both(d,
		     "IA32_MISC_ENABLE (1A0H) raised #GP: whether BTS and PEBS exist is unknown");
		return;
	}
	if ((misc & (MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL)) !=
		(MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL) &&
	    hw_rdmsr(MSR_IA32_DS_AREA, &area) != HW_OK) {
		both(d, "IA32_DS_AREA (600H) raised #GP although CPUID.1:EDX[21] enumerates the "
			"debug store");
		return;
	}
	d->bts = !(misc & MISC_ENABLE_BTS_UNAVAIL);
	if (!d->bts)
		pmh_fmt(d->why_bts, sizeof(d->why_bts),
			"IA32_MISC_ENABLE[11] BTS_UNAVAILABLE set (SDM Vol. 4 Table 2-2)");
	if (misc & MISC_ENABLE_PEBS_UNAVAIL)
		pmh_fmt(d->why_pebs, sizeof(d->why_pebs),
			"IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE set (SDM Vol. 4 Table 2-2)");
	else if (p->status != PMU_FUNCTIONAL)
		pmh_fmt(d->why_pebs, sizeof(d->why_pebs), "the PMU is not functional: %s",
			p->reason);
	else
		pebs(p, d);
	d->ds = d->bts || d->pebs;
}
