/* count.cycles: core cycles over a window of wl_loop, against the best
 * clock the CPU enumerates:
 *  - IA32_APERF where CPUID.06H:ECX[0] says it exists (SDM Vol. 2A CPUID
 *    leaf 06H; AMD EffFreq, the same MSR from family 10h): it counts the
 *    actual core clock in C0 (SDM Vol. 3B 15.2 "IA32_APERF increments in
 *    proportion to actual performance"), as unhalted core cycles do, so
 *    the two agree over the same window within AGREE_DIV;
 *  - the TSC where the family's TSC is the core clock (KNC §1.4.3.1);
 *  - elsewhere a floor from the core's documented throughput on this very
 *    loop (floors[] below), and the TSC range 1/16..16 always, which the
 *    PASS message names when it is the only bound.
 * CPUID.15H/16H are not used: their nominal and maximum frequencies bound
 * the core clock from above only (the core may run at any lower P-state),
 * and a slow counter is below. */
#include "../../lib/fmt.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "../measure.h"

/* Cycles within RATIO_MAX times the TSC ticks either way: the harness's own
 * bound (no document gives one for core cycles against the TSC), wide
 * enough for turbo, power states and virtualisation. */
#define RATIO_MAX 16
/* The window: 3,000,000 instructions of wl_loop, at least WINDOW_ITERS
 * core cycles on every core floors[] lists. */
#define WINDOW_ITERS 1000000
/* Counter and reference clock (APERF, or KNC's TSC) may differ by 1/32 of
 * the reference either way. Below: the reference's reads bracket the
 * window, so they also count the harness's code between them outside it
 * (two RDMSRs and an RDTSC, the driver's start path before its enabling
 * write and its stop path after: a few hundred instructions and a few MSR
 * accesses, some thousand cycles) against 1/32 of >= 1,000,000, >= 31,250
 * cycles. Above: none is expected; RDMSR is not serializing (SDM Vol. 3A
 * 9.3), the same slack covers its reordering. A counter at half the rate is
 * 50 % low, one at the TSC's rate under turbo 1 - TSC/core (7 % at Core 2's
 * dynamic acceleration, 2.4 to 2.6 GHz). */
#define AGREE_DIV 32
/* Windows tried before a disagreement is judged: an SMI between a read of
 * APERF and the window counts in APERF alone; the next window is clean. */
#define TRIES 3
#define CENTI 100 /* ratios are printed with two decimals */

/* A floor from a core's documented throughput on wl_loop ("add; dec; jnz",
 * x86/workload.S): instructions retire `retire` a cycle at most (every
 * instruction is at least one micro-op), and where DEC's latency is one
 * cycle the DEC of one iteration waits for the last one's: one iteration a
 * cycle at most. A family not listed gets no floor. */
struct floor_rule {
	enum cpu_vendor vendor;
	uint8_t family, model_lo, model_hi;
	uint8_t retire; /* instructions retired per cycle at most; 0: unused */
	bool chain;	/* DEC latency 1: one iteration per cycle at most */
	const char *why;
};

/* Sources: P6 (Pentium Pro to Pentium M and Core Duo) retires three
 * micro-ops a clock (Intel Architecture Optimization Reference Manual,
 * 1999, ch. 2; Agner Fog, "The microarchitecture of Intel, AMD and VIA
 * CPUs", PPro/PII/PIII and Pentium M retirement); NetBurst three (Intel
 * Pentium 4 and Xeon Processor Optimization Reference Manual, ch. 1,
 * retirement); K7 and K8 three macro-ops (AMD Athlon x86 Code Optimization
 * Guide 22007 and Software Optimization Guide for AMD64 Processors 25112,
 * appendix A, "instruction control unit"). DEC r has a latency of one cycle
 * on each core listed with chain (Agner Fog, "Instruction tables"); not on
 * NetBurst, whose double-speed ALU takes half a cycle. */
static const struct floor_rule floors[] = {
    {VENDOR_INTEL, 6, 0x01, 0x0e, 3, true, "P6: 3 uops retire a clock, DEC latency 1"},
    {VENDOR_INTEL, 6, 0x0f, 0x0f, 0, true, "Core 2: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x16, 0x17, 0, true, "Core 2: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x1d, 0x1d, 0, true, "Core 2: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x4e, 0x4e, 0, true, "Skylake: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x55, 0x55, 0, true, "Skylake: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x5e, 0x5e, 0, true, "Skylake: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x8e, 0x8e, 0, true, "Skylake: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x9e, 0x9e, 0, true, "Skylake: DEC latency 1"},
    {VENDOR_INTEL, 6, 0x8f, 0x8f, 0, true, "Golden Cove (Sapphire Rapids): DEC latency 1"},
    {VENDOR_INTEL, 6, 0xa5, 0xa6, 0, true, "Skylake: DEC latency 1"},
    {VENDOR_INTEL, 0xf, 0x00, 0xff, 3, false, "NetBurst: 3 uops retire a clock"},
    {VENDOR_AMD, 6, 0x00, 0xff, 3, true, "K7: 3 macro-ops retire a clock, DEC latency 1"},
    {VENDOR_AMD, 0xf, 0x00, 0xff, 3, true, "K8: 3 macro-ops retire a clock, DEC latency 1"},
    {VENDOR_AMD, 0x10, 0x00, 0xff, 0, true, "family 10h: DEC latency 1"},
    {VENDOR_AMD, 0x15, 0x00, 0xff, 0, true, "family 15h: DEC latency 1"},
    {VENDOR_AMD, 0x17, 0x00, 0xff, 0, true, "Zen: DEC latency 1"},
    {VENDOR_AMD, 0x19, 0x00, 0xff, 0, true, "Zen 3/4: DEC latency 1"},
};

/* The floor of iters iterations of wl_loop on ci's core: false when its
 * family has none listed. */
static bool floor_of(const struct cpu_info *ci, uint64_t iters, uint64_t *min, const char **why)
{
	for (unsigned k = 0; k < sizeof(floors) / sizeof(floors[0]); k++) {
		const struct floor_rule *r = &floors[k];
		if (r->vendor != ci->vendor || r->family != ci->family || ci->model < r->model_lo ||
		    ci->model > r->model_hi)
			continue;
		uint64_t by_retire =
		    r->retire ? iters * wl_loop.per_iter.instructions / r->retire : 0;
		uint64_t by_chain = r->chain ? iters : 0;
		*min = by_retire > by_chain ? by_retire : by_chain;
		*why = r->why;
		return true;
	}
	return false;
}

/* KNC's TSC counts core clocks (KNC §1.4.3.1): there it is the reference. */
static bool tsc_is_core(const struct cpu_info *ci)
{
	return ci->vendor == VENDOR_INTEL && ci->family == 0xb;
}

enum ref { REF_NONE, REF_APERF, REF_TSC };

struct sample {
	uint64_t cyc, tsc, aperf, mperf;
	int gp; /* the fault reading APERF or MPERF raised (HW_OK: read) */
};

/* IA32_APERF where CPUID.06H:ECX[0] enumerates it; KNC's TSC; else none. */
static enum ref ref_of(const struct check_ctx *c)
{
	struct cpuid_regs r;

	if (c->cpu->ids.max_leaf >= CPUID_LEAF_POWER) {
		hw_cpuid(CPUID_LEAF_POWER, 0, &r);
		if (r.ecx & CPUID_6_ECX_APERFMPERF)
			return REF_APERF;
	}
	return tsc_is_core(c->cpu) ? REF_TSC : REF_NONE;
}

/* APERF and MPERF, or the fault the first failing read raised. */
static int read_clocks(uint64_t *aperf, uint64_t *mperf)
{
	int e = hw_rdmsr(MSR_IA32_APERF, aperf);
	return e == HW_OK ? hw_rdmsr(MSR_IA32_MPERF, mperf) : e;
}

/* One window of ctr (programmed) with the clocks read around it, all with
 * interrupts off so that no firmware tick lands between the reads. */
static int sample(struct check_ctx *c, unsigned ctr, bool aperf, struct sample *o)
{
	uint64_t a0 = 0, a1 = 0, m0 = 0, m1 = 0, t0, t1;
	bool irq = hw_irq_enabled();

	if (!m_write(c, ctr, 0, PMU_WRITE_PRELOAD))
		return M_FAULT;
	hw_irq_disable();
	o->gp = aperf ? read_clocks(&a0, &m0) : HW_OK;
	t0 = hw_rdtsc();
	/* an SMI in the window is let through: it counts in both clocks */
	int st = m_window(c, 1ull << ctr, &wl_loop, WINDOW_ITERS);
	t1 = hw_rdtsc();
	if (aperf && o->gp == HW_OK)
		o->gp = read_clocks(&a1, &m1);
	if (irq)
		hw_irq_enable();
	if (st == M_FAULT || !m_read(c, ctr, &o->cyc))
		return M_FAULT;
	o->tsc = t1 - t0;
	/* both MSRs restart at 0 when either wraps (SDM Vol. 3B 15.2) */
	o->aperf = a1 >= a0 ? a1 - a0 : 0;
	o->mperf = m1 >= m0 ? m1 - m0 : 0;
	return M_OK;
}

static uint64_t ref_ticks(enum ref ref, const struct sample *s)
{
	return ref == REF_APERF ? s->aperf : s->tsc;
}

static bool agrees(enum ref ref, const struct sample *s)
{
	uint64_t r = ref_ticks(ref, s), slack = r / AGREE_DIV;
	return r && s->cyc + slack >= r && s->cyc <= r + slack;
}

/* x as a ratio of y with two decimals, for "%llu.%02llu". */
static unsigned long long whole(uint64_t x, uint64_t y)
{
	return y ? (unsigned long long)(x / y) : 0;
}

static unsigned long long cent(uint64_t x, uint64_t y)
{
	return y ? (unsigned long long)(x * CENTI / y % CENTI) : 0;
}

static void fail_ref(struct check_ctx *c, const char *ctr, enum ref ref, const struct sample *s)
{
	uint64_t r = ref_ticks(ref, s);
	check_fail(c,
		   "%s: expected cycles within 1/%u of %s's %llu ticks over the window (%s), got "
		   "%llu (%llu.%02llu x)",
		   ctr, AGREE_DIV, ref == REF_APERF ? "APERF" : "the TSC", (unsigned long long)r,
		   ref == REF_APERF ? "the core clock in C0, SDM Vol. 3B 15.2"
				    : "KNC's TSC is the core clock, KNC §1.4.3.1",
		   (unsigned long long)s->cyc, whole(s->cyc, r), cent(s->cyc, r));
}

/* The bounds that held when neither APERF nor the TSC is the reference:
 * the family's floor, or the TSC range alone; gp: APERF was enumerated but
 * its read faulted. */
static void pass_plain(struct check_ctx *c, const char *n, const struct sample *s, int gp,
		       uint64_t min, const char *why)
{
	unsigned long long cyc = s->cyc, tsc = s->tsc;
	char bound[96];

	if (why)
		pmh_fmt(bound, sizeof(bound), "floor %llu (%s)", (unsigned long long)min, why);
	else
		pmh_fmt(bound, sizeof(bound), "no documented floor: 1/%u to %u x the TSC only",
			RATIO_MAX, RATIO_MAX);
	check_pass(c, "%s: %llu cycles over %llu TSC ticks (ratio %llu.%02llu); %s%s%s", n, cyc,
		   tsc, whole(cyc, tsc), cent(cyc, tsc), bound,
		   gp ? "; APERF enumerated, its read raised " : "", gp ? hw_err_name(gp) : "");
}

/* Judges s against ref, the TSC range and the family's floor. */
static void judge(struct check_ctx *c, unsigned ctr, enum ref ref, const struct sample *s)
{
	const char *n = c->pmu->ctr[ctr].name, *why = 0;
	unsigned long long cyc = s->cyc, tsc = s->tsc;
	uint64_t min = 0;

	if (!floor_of(c->cpu, WINDOW_ITERS, &min, &why))
		why = 0;
	if (!s->cyc)
		check_fail(c, "%s: expected cycles, counted 0 over %llu TSC ticks", n, tsc);
	else if (ref != REF_NONE && !agrees(ref, s))
		fail_ref(c, n, ref, s);
	else if (s->cyc > s->tsc * RATIO_MAX || s->cyc * RATIO_MAX < s->tsc)
		check_fail(c, "%s: expected cycles within %ux of the TSC (%llu ticks), got %llu", n,
			   RATIO_MAX, tsc, cyc);
	else if (why && s->cyc < min)
		check_fail(c,
			   "%s: expected at least %llu cycles for %u iterations of the loop (%s), "
			   "got %llu",
			   n, (unsigned long long)min, WINDOW_ITERS, why, cyc);
	if (c->v == V_FAIL)
		return;
	if (ref == REF_APERF)
		check_pass(c,
			   "%s: %llu cycles, APERF %llu (within 1/%u), core clock %llu.%02llu x "
			   "MPERF; %llu TSC ticks",
			   n, cyc, (unsigned long long)s->aperf, AGREE_DIV,
			   whole(s->aperf, s->mperf), cent(s->aperf, s->mperf), tsc);
	else if (ref == REF_TSC)
		check_pass(c, "%s: %llu cycles over %llu TSC ticks, the core clock (within 1/%u)",
			   n, cyc, tsc, AGREE_DIV);
	else
		pass_plain(c, n, s, s->gp, min, why);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int i = m_counter_for(c, GEN_CYCLES, 0);
	enum ref ref = ref_of(c);
	struct sample s;

	if (i < 0) {
		check_skip(c, "%s has no cycles event", p->name);
		return;
	}
	m_quiesce(c);
	if (!m_setup_or_fail(c, (unsigned)i, GEN_CYCLES, PMU_F_OS | PMU_F_USR))
		return;
	for (unsigned t = 0; t < TRIES; t++) {
		if (sample(c, (unsigned)i, ref == REF_APERF, &s) != M_OK) {
			m_quiesce(c);
			return;
		}
		/* enumerated yet absent (a hypervisor's CPUID): not available */
		if (s.gp != HW_OK)
			ref = REF_NONE;
		if (ref == REF_NONE || agrees(ref, &s))
			break;
	}
	m_quiesce(c);
	judge(c, (unsigned)i, ref, &s);
}

PMH_CHECK(
    count_cycles, .id = "count.cycles",
    .summary = "cycles agree with APERF (or a core-clock TSC), else plausible against the TSC",
    .order = 43, .needs_pmu = true, .run = run);
