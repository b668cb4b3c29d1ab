/* pmu.capabilities: IA32_PERF_CAPABILITIES (345H, there where CPUID.1:ECX[15]
 * PDCM is set) read and its fields reported on one line (SDM Vol. 3B
 * "IA32_PERF_CAPABILITIES MSR Enumeration"; Linux perf_event.h union
 * perf_capabilities), and cross-checked where they can be measured:
 *  - full-width write (bit 13): the alias 0x4C1+i of the first GP counter
 *    takes a value with bits above 31 inside the width and 0xC1+i reads it
 *    back; without the bit the alias is absent and the write raises #GP
 *    (SDM Vol. 3B 20.2.6 "Full-Width Writes to Performance Counter
 *    Registers": IA32_A_PMCx exists where FULL_WRITE is set).
 *  - PERF_METRICS (bit 15) with fixed counter 3 among the driver's counters
 *    (CPUID.0AH, or leaf 23H): TOPDOWN.SLOTS over a window of wl_loop with
 *    GLOBAL_CTRL.EN_PERF_METRICS (bit 48) set counts slots, "cycles
 *    multiplied by core issue width" (Linux tools/perf/Documentation/
 *    topdown.txt): more than 0 and at most 8 a core cycle (fixed counter 1;
 *    8 is the widest core's TMA Pipeline_Width, Lion Cove's, pmu-tools
 *    lnl_lnc_ratios.py; a thread whose sibling runs sees fewer: the count
 *    "is distributed among unhalted logical processors", Intel's
 *    TOPDOWN.SLOTS description). IA32_PERF_METRICS (329H) read after the
 *    window: its four level-1 8-bit fields are fractions of 0xFF that "add
 *    up to 0xff" (topdown.txt), within 3 (each rounded to a whole 1/255: an
 *    error under one unit each; ours), each level-2 field (bits 63:32,
 *    Sapphire Rapids and later, 0 elsewhere) is a part of the level-1 field
 *    below it (topdown.txt "Extension on Sapphire Rapids Server"), within
 *    one unit, and each metric's slots, slots * field / 0xFF (Linux
 *    intel/core.c icl_get_metrics_event_value), is at most the slots. */
#include "../measure.h"
#include "../../lib/fmt.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/intel_arch.h"

#define TD_ITERS      100000 /* wl_loop iterations of the topdown window */
#define TD_MAX_WIDTH  8	     /* slots a cycle at most: Lion Cove's Pipeline_Width */
#define TD_FIELDS     8
#define TD_LEVEL1     4
#define TD_FULL	      0xffu /* the level-1 fields' sum (topdown.txt) */
#define TD_SUM_SLACK  3	    /* four fields each rounded: under one unit each (ours) */
#define TD_PART_SLACK 1	    /* a level-2 field and its level-1 parent, each rounded */
#define FW_PROBE      0x0000123456789abcull /* bits above 31 set, inside 48 bits */

static const char *const td_names[TD_FIELDS] = {
    "retiring",	 "bad speculation",   "frontend bound", "backend bound",
    "heavy ops", "branch mispredict", "fetch latency",	"memory bound",
};

/* The one line of the fields. */
static void report_fields(struct check_ctx *c, uint64_t caps)
{
	if (!c->s)
		return;
	suite_emit(
	    c->s,
	    "  pmu.capabilities: IA32_PERF_CAPABILITIES 0x%llx: LBR format %u, PEBS trap %u, "
	    "PEBS arch regs %u, PEBS format %u, PEBS baseline %u, SMM freeze %u, full-width "
	    "write %u, PERF_METRICS %u, PEBS via PT %u",
	    (unsigned long long)caps, (unsigned)(caps & PERF_CAP_LBR_FMT),
	    (caps & PERF_CAP_PEBS_TRAP) != 0, (caps & PERF_CAP_PEBS_ARCH) != 0,
	    (unsigned)PERF_CAP_PEBS_FMT(caps), (caps & PERF_CAP_PEBS_BASE) != 0,
	    (caps & PERF_CAP_SMM_FRZ) != 0, (caps & PERF_CAP_FW_WRITE) != 0,
	    (caps & PERF_CAP_PERF_METRICS) != 0, (caps & PERF_CAP_PEBS_PT) != 0);
}

/* The first general-purpose counter at 0xC1+i (the architectural layout,
 * whose full-width alias is 0x4C1+i), or -1. */
static int legacy_gp(const struct pmu *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct pmu_counter *k = &p->ctr[i];
		if (k->kind == PMU_CTR_GP && k->index < V6_LEGACY_GP &&
		    k->ctr_msr == MSR_P6_PERFCTR0 + (uint32_t)k->index && k->width > 32)
			return (int)i;
	}
	return -1;
}

/* Bit 13 against the alias: a write there is taken and read back through
 * 0xC1+i with the bit, refused with #GP without it. What was found goes
 * to fw. False when the check FAILed. */
static bool full_width(struct check_ctx *c, uint64_t caps, char *fw, size_t n)
{
	int i = legacy_gp(c->pmu);
	bool on = (caps & PERF_CAP_FW_WRITE) != 0;
	uint64_t back = 0;

	if (i < 0) {
		pmh_fmt(fw, n, "not tried (no GP counter at 0xC1+i wider than 32 bits)");
		return true;
	}
	const struct pmu_counter *k = &c->pmu->ctr[i];
	uint32_t alias = MSR_IA32_PMC0 + k->index;
	uint64_t v = FW_PROBE & pmu_width_mask(k->width);
	m_quiesce(c);
	int e = hw_wrmsr(alias, v);
	int r = e == HW_OK ? hw_rdmsr(k->ctr_msr, &back) : HW_OK;
	int z = hw_wrmsr(k->ctr_msr, 0);
	(void)z; /* m_quiesce zeroes it again; a fault there is msr.access's */
	if (on && e != HW_OK)
		check_fail(c,
			   "PERF_CAPABILITIES[13] (full-width write) set, but WRMSR 0x%x (%s's "
			   "alias) raised %s",
			   alias, k->name, hw_err_name(e));
	else if (on && (r != HW_OK || back != v))
		check_fail(c, "full-width write of 0x%llx to 0x%x read back 0x%llx from 0x%x (%s)",
			   (unsigned long long)v, alias, (unsigned long long)back, k->ctr_msr,
			   r == HW_OK ? "bits lost" : hw_err_name(r));
	else if (!on && e != HW_FAULT_GP)
		check_fail(c,
			   "PERF_CAPABILITIES[13] clear, but WRMSR 0x%x (the full-width alias of "
			   "%s) gave %s, not #GP",
			   alias, k->name, e == HW_OK ? "no fault" : hw_err_name(e));
	pmh_fmt(fw, n, on ? "0x%x takes 0x%llx" : "0x%x #GP as bit 13 says", alias,
		(unsigned long long)v);
	m_quiesce(c);
	return c->v != V_FAIL;
}

/* The flat counter of fixed counter f, or -1. */
static int fixed_ctr(const struct pmu *p, unsigned f)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->ctr[i].kind == PMU_CTR_FIXED && p->ctr[i].index == f)
			return (int)i;
	return -1;
}

/* Fixed counter 3 on TOPDOWN.SLOTS (Linux's pseudo-encoding 0x0400),
 * fixed counter 1 on core cycles, both zeroed, PERF_METRICS zeroed after
 * fixed counter 3 (topdown.txt). False when an op failed (FAILed). */
static bool td_setup(struct check_ctx *c, unsigned f3, unsigned f1)
{
	struct pmu_event ev = {.code = ARCH_FIXED3_EVENT & EVTSEL_EVENT_MAX,
			       .umask = (uint8_t)(ARCH_FIXED3_EVENT >> EVTSEL_UMASK_SHIFT),
			       .counters = 1u << f3,
			       .fixed_only = true,
			       .name = "TOPDOWN.SLOTS"};
	int e = c->pmu->ops->program(c->pmu, f3, &ev, PMU_F_OS | PMU_F_USR);

	return m_op(c, e, MO_PROGRAM, 1ull << f3, 0) && m_write(c, f3, 0, PMU_WRITE_PRELOAD) &&
	       m_setup_or_fail(c, f1, GEN_CYCLES, PMU_F_OS | PMU_F_USR) &&
	       m_wrmsr(c, MSR_PERF_METRICS, 0);
}

/* The window: fixed counters 3 and 1 with EN_PERF_METRICS written after
 * start; slots, cycles and PERF_METRICS after it. False when it FAILed. */
static bool td_window(struct check_ctx *c, unsigned f3, unsigned f1, uint64_t *slots, uint64_t *cyc,
		      uint64_t *met)
{
	struct pmu *p = c->pmu;
	uint64_t mask = (1ull << f3) | (1ull << f1);
	uint64_t on = intel_arch_global_bits(p, mask) | GLOBAL_CTRL_EN_PERF_METRICS;

	if (!td_setup(c, f3, f1))
		return false;
	int st = m_window_write(c, mask, p->global_ctrl_msr, on, &wl_loop, TD_ITERS);
	if (st == M_WRITE_GP) {
		check_fail(c,
			   "PERF_CAPABILITIES[15] (PERF_METRICS) set, but GLOBAL_CTRL 0x%llx with "
			   "bit 48 (EN_PERF_METRICS) raised #GP",
			   (unsigned long long)on);
		return false;
	}
	return st != M_FAULT && m_read(c, f3, slots) && m_read(c, f1, cyc) &&
	       m_rdmsr(c, MSR_PERF_METRICS, met);
}

/* The fields of PERF_METRICS judged; true when they hold. */
static bool td_fields(struct check_ctx *c, uint64_t slots, uint64_t met, unsigned *sum)
{
	unsigned f[TD_FIELDS];

	*sum = 0;
	for (unsigned i = 0; i < TD_FIELDS; i++) {
		f[i] = (unsigned)(met >> (8 * i)) & TD_FULL;
		*sum += i < TD_LEVEL1 ? f[i] : 0;
		if (slots * f[i] / TD_FULL > slots) /* icl_get_metrics_event_value */
			check_fail(c, "PERF_METRICS %s: %llu slots, above the %llu counted",
				   td_names[i], (unsigned long long)(slots * f[i] / TD_FULL),
				   (unsigned long long)slots);
	}
	if (*sum + TD_SUM_SLACK < TD_FULL || *sum > TD_FULL + TD_SUM_SLACK)
		check_fail(c,
			   "PERF_METRICS 0x%016llx: level-1 fields add up to %u, expected 255 +- "
			   "%u (fractions of 0xFF that add up to 0xff: Linux topdown.txt; each "
			   "rounded)",
			   (unsigned long long)met, *sum, TD_SUM_SLACK);
	for (unsigned i = TD_LEVEL1; i < TD_FIELDS; i++)
		if (f[i] > f[i - TD_LEVEL1] + TD_PART_SLACK)
			check_fail(c, "PERF_METRICS %s %u above its level-1 part, %s %u (+%u)",
				   td_names[i], f[i], td_names[i - TD_LEVEL1], f[i - TD_LEVEL1],
				   TD_PART_SLACK);
	if (c->s)
		suite_emit(c->s,
			   "  pmu.capabilities: PERF_METRICS 0x%016llx: %s %u, %s %u, %s %u, %s %u "
			   "(sum %u of 255); %s %u, %s %u, %s %u, %s %u",
			   (unsigned long long)met, td_names[0], f[0], td_names[1], f[1],
			   td_names[2], f[2], td_names[3], f[3], *sum, td_names[4], f[4],
			   td_names[5], f[5], td_names[6], f[6], td_names[7], f[7]);
	return c->v != V_FAIL;
}

/* TOPDOWN.SLOTS and PERF_METRICS where both are there; what was found in
 * td. False when the check FAILed. */
static bool topdown(struct check_ctx *c, uint64_t caps, char *td, size_t n)
{
	int f3 = fixed_ctr(c->pmu, 3), f1 = fixed_ctr(c->pmu, 1);
	uint64_t slots = 0, cyc = 0, met = 0;
	unsigned sum = 0;

	if (!(caps & PERF_CAP_PERF_METRICS) || f3 < 0 || f1 < 0) {
		pmh_fmt(td, n, "no topdown (PERF_CAPABILITIES[15] %u, fixed counter 3 %s)",
			(caps & PERF_CAP_PERF_METRICS) != 0, f3 < 0 ? "absent" : "present");
		return true;
	}
	bool ok = td_window(c, (unsigned)f3, (unsigned)f1, &slots, &cyc, &met);
	int e = hw_wrmsr(MSR_PERF_METRICS, 0); /* Linux resets it after a read */
	(void)e;
	m_quiesce(c);
	if (!ok)
		return false;
	check_figures(c, (int64_t)slots, (int64_t)slots, (int64_t)slots);
	c->fig.tolerance = "slots 1 to 8 a core cycle (pmu-tools Pipeline_Width); PERF_METRICS "
			   "level 1 adds up to 255 +- 3 (Linux topdown.txt; rounding, ours)";
	if (!slots || !cyc || slots > TD_MAX_WIDTH * cyc) {
		check_fail(c,
			   "fixed counter 3 (TOPDOWN.SLOTS) counted %llu slots in %llu core cycles "
			   "of %u wl_loop iterations, expected 1 to %u a cycle (Lion Cove's 8: "
			   "pmu-tools lnl_lnc_ratios.py)",
			   (unsigned long long)slots, (unsigned long long)cyc, TD_ITERS,
			   TD_MAX_WIDTH);
		return false;
	}
	if (!td_fields(c, slots, met, &sum))
		return false;
	pmh_fmt(td, n, "%llu slots, %llu.%02llu a cycle (<= %u), level 1 sums to %u (255 +- %u)",
		(unsigned long long)slots, (unsigned long long)(slots / cyc),
		(unsigned long long)(slots * 100 / cyc % 100), TD_MAX_WIDTH, sum, TD_SUM_SLACK);
	return true;
}

static void run(struct check_ctx *c)
{
	uint64_t caps = 0;
	char fw[64], td[112];

	if (c->cpu->vendor != VENDOR_INTEL || !(c->cpu->ids.leaf1.ecx & CPUID_1_ECX_PDCM)) {
		check_skip(c,
			   "no IA32_PERF_CAPABILITIES: CPUID.1:ECX[15] (PDCM) clear (SDM Vol. 3B "
			   "\"IA32_PERF_CAPABILITIES MSR Enumeration\")");
		return;
	}
	int e = hw_rdmsr(MSR_PERF_CAPABILITIES, &caps);
	if (e != HW_OK) {
		check_fail(c,
			   "CPUID.1:ECX[15] (PDCM) set, but RDMSR 0x345 (IA32_PERF_CAPABILITIES) "
			   "raised %s",
			   hw_err_name(e));
		return;
	}
	report_fields(c, caps);
	if (!full_width(c, caps, fw, sizeof(fw)) || !topdown(c, caps, td, sizeof(td)))
		return;
	check_pass(c,
		   "0x%llx, its fields on the pmu.capabilities: line; full-width: %s; topdown: %s",
		   (unsigned long long)caps, fw, td);
}

PMH_CHECK(perf_capabilities, .id = "pmu.capabilities",
	  .summary = "IA32_PERF_CAPABILITIES fields, cross-checked", .order = 33, .needs_pmu = true,
	  .run = run);
