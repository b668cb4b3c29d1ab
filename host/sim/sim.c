/* The simulator core: the hw.h seam on the host. The workload engine
 * (exact overflow points, the reference clock) is sim_engine.c, the local
 * APIC and PMI delivery sim_apic.c. */
#include <stdio.h>
#include <stdlib.h>
#include "sim.h"
#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../lib/str.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"

struct sim_cpu sim;
void (*sim_rdmsr_filter)(struct sim_cpu *s, uint32_t msr, uint64_t *val);

static const char *const fault_names[SF_COUNT] = {
    [SF_NONE] = "none",
    [SF_STUCK_COUNTER] = "stuck-counter",
    [SF_NARROW_COUNTER] = "narrow-counter",
    [SF_NO_SIGN_EXTEND] = "no-sign-extend",
    [SF_NO_OVERFLOW_STATUS] = "no-overflow-status",
    [SF_LOST_PMI] = "lost-pmi",
    [SF_SPURIOUS_PMI] = "spurious-pmi",
    [SF_ENABLE_IGNORED] = "enable-ignored",
    [SF_GLOBAL_CTRL_IGNORED] = "global-ctrl-ignored",
    [SF_WRONG_EVENT] = "wrong-event",
    [SF_MSR_FAULT] = "msr-fault",
    [SF_OVERCOUNT] = "overcount",
    [SF_LVT_STUCK_MASKED] = "lvt-stuck-masked",
    [SF_ACK_IGNORED] = "ack-ignored",
    [SF_PMI_STORM] = "pmi-storm",
    [SF_ENABLE_IGNORED_ONE] = "enable-ignored-one",
    [SF_WRONG_VECTOR] = "wrong-vector",
    [SF_GLOBAL_IGNORED_GP] = "global-ignored-gp",
    [SF_WIDTH_HIGH_BITS] = "width-high-bits",
    [SF_WRITE_DROPPED] = "write-dropped",
    [SF_DUPLICATE_PMI] = "duplicate-pmi",
    [SF_STATUS_NOT_STICKY] = "status-not-sticky",
    [SF_SKID_LONG] = "skid-long",
    [SF_OS_IGNORED] = "os-ignored",
    [SF_EDGE_IGNORED] = "edge-ignored",
    [SF_INV_IGNORED] = "inv-ignored",
    [SF_CMASK_IGNORED] = "cmask-ignored",
    [SF_EOI_IGNORED] = "eoi-ignored",
    [SF_NMI_LOST] = "nmi-lost",
    [SF_CYCLES_SLOW] = "cycles-slow",
    [SF_CYCLES_REF] = "cycles-ref",
    [SF_EVENT_DEAD] = "event-dead",
    [SF_EVENT_MISWIRED] = "event-miswired",
    [SF_UMASK_IGNORED] = "umask-ignored",
    [SF_MISS_COUNTS_HITS] = "miss-counts-hits",
    [SF_DOUBLE_COUNT] = "double-count",
    [SF_REFCYC_CORE] = "refcyc-core",
    [SF_USER_AS_OS] = "user-as-os",
    [SF_PCE_IGNORED] = "pce-ignored",
    [SF_TR_LEAKED] = "tr-leaked",
    [SF_WRITE_RESETS] = "write-resets",
    [SF_FAST_RDPMC_FULL] = "fast-rdpmc-full",
    [SF_FULL_WIDTH_NO_GP] = "full-width-no-gp",
    [SF_FREEZE_IGNORED] = "freeze-ignored",
    [SF_OVERFLOW_FREEZES] = "overflow-freezes",
    [SF_ALIAS_BROKEN] = "alias-broken",
    [SF_SPFLT_IGNORED] = "spflt-ignored",
    [SF_IN_TX_IGNORED] = "in-tx-ignored",
    [SF_EMULATED_UNCOUNTED] = "emulated-uncounted",
    [SF_METRICS_UNSCALED] = "metrics-unscaled",
    [SF_LBR_OFF_BY_ONE] = "lbr-off-by-one",
    [SF_LBR_FILTER_IGNORED] = "lbr-filter-ignored",
    [SF_LBR_FREEZE_IGNORED] = "lbr-freeze-ignored",
    [SF_LBR_CALLSTACK_IGNORED] = "lbr-callstack-ignored",
    [SF_PEBS_NEXT_IP] = "pebs-next-ip",
    [SF_PEBS_RESET_IGNORED] = "pebs-reset-ignored",
    [SF_DS_THRESHOLD_LOST] = "ds-threshold-lost",
    [SF_BTS_SKIPS_BRANCH] = "bts-skips-branch",
    [SF_IBS_RIP_OUTSIDE] = "ibs-rip-outside",
    [SF_IBS_LVT_IGNORED] = "ibs-lvt-ignored",
};

const char *sim_fault_name(enum sim_fault f)
{
	return f < SF_COUNT ? fault_names[f] : "?";
}

enum sim_fault sim_fault_from_name(const char *name)
{
	for (unsigned i = 0; i < SF_COUNT; i++)
		if (!pmh_strcmp(name, fault_names[i]))
			return (enum sim_fault)i;
	return SF_COUNT;
}

extern const struct sim_model *const __start_pmh_sim_models[];
extern const struct sim_model *const __stop_pmh_sim_models[];

const struct sim_model *const *sim_models(unsigned *n)
{
	/* cppcheck-suppress comparePointers ; the linker places both in one section */
	*n = (unsigned)(__stop_pmh_sim_models - __start_pmh_sim_models);
	return __start_pmh_sim_models;
}

const struct sim_model *sim_model_find(const char *name)
{
	unsigned n;
	const struct sim_model *const *m = sim_models(&n);
	for (unsigned i = 0; i < n; i++)
		if (!pmh_strcmp(m[i]->name, name))
			return m[i];
	return pmh_strcmp(name, sim_model_dump.name) ? 0 : &sim_model_dump;
}

int sim_start(const char *model, enum sim_fault fault)
{
	return sim_start_real(model, fault, 0, 0);
}

/* ---- CPUID ----------------------------------------------------------------- */

void sim_set_cpuid(struct sim_cpu *s, uint32_t leaf, uint32_t subleaf, uint32_t a, uint32_t b,
		   uint32_t c, uint32_t d)
{
	for (unsigned i = 0; i < s->n_cpuid; i++) {
		if (s->cpuid[i].leaf == leaf && s->cpuid[i].subleaf == subleaf) {
			s->cpuid[i].r = (struct cpuid_regs){a, b, c, d};
			return;
		}
	}
	if (s->n_cpuid < sizeof(s->cpuid) / sizeof(s->cpuid[0]))
		s->cpuid[s->n_cpuid++] = (struct sim_cpuid){leaf, subleaf, {a, b, c, d}};
}

static uint32_t word(const char *p)
{
	return (uint32_t)(unsigned char)p[0] | (uint32_t)(unsigned char)p[1] << 8 |
	       (uint32_t)(unsigned char)p[2] << 16 | (uint32_t)(unsigned char)p[3] << 24;
}

void sim_vendor(struct sim_cpu *s, uint32_t max_leaf, const char *v)
{
	sim_set_cpuid(s, 0, 0, max_leaf, word(v), word(v + 8), word(v + 4));
}

void sim_brand(struct sim_cpu *s, const char *brand)
{
	char b[48];
	pmh_memset(b, 0, sizeof(b));
	pmh_strlcpy(b, brand, sizeof(b));
	for (unsigned i = 0; i < 3; i++)
		sim_set_cpuid(s, 0x80000002u + i, 0, word(b + 16 * i), word(b + 16 * i + 4),
			      word(b + 16 * i + 8), word(b + 16 * i + 12));
}

uint32_t sim_fms(unsigned family, unsigned model, unsigned stepping)
{
	uint32_t base_family = family >= 0xf ? 0xf : family;
	uint32_t ext_family = family >= 0xf ? family - 0xf : 0;
	return (ext_family << 20) | ((model >> 4) << 16) | (base_family << 8) |
	       ((model & 0xf) << 4) | (stepping & 0xf);
}

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	sim_real_access(&sim, SA_CPUID, leaf);
	/* IA32_MISC_ENABLE[22] LIMIT_CPUID: leaf 0 reports 2 as the highest
	 * basic leaf and leaves above it return leaf 2's data (SDM Vol. 2A
	 * CPUID, "Limit CPUID Maxval"). */
	if (sim.real.limit_cpuid && leaf > 2 && leaf < 0x80000000u) {
		leaf = 2;
		subleaf = 0;
	}
	for (unsigned i = 0; i < sim.n_cpuid; i++) {
		if (sim.cpuid[i].leaf == leaf &&
		    (sim.cpuid[i].subleaf == subleaf || sim.cpuid[i].subleaf == 0xffffffffu)) {
			*r = sim.cpuid[i].r;
			if (sim.real.limit_cpuid && leaf == 0 && r->eax > 2)
				r->eax = 2;
			return;
		}
	}
	*r = (struct cpuid_regs){0, 0, 0, 0};
}

/* ---- counters -------------------------------------------------------------- */

uint64_t sim_width_mask(const struct sim_cpu *s, unsigned i)
{
	unsigned w = s->width[i];
	if (s->fault == SF_NARROW_COUNTER && w > 32)
		w = 32;
	return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* Whether counter i counts now: its model's rate for one iteration in
 * which every event occurs once (each family's enables, global enable and
 * privilege filter, whatever its event). */
static bool ctr_running(struct sim_cpu *s, unsigned i)
{
	enum { WORDS = sizeof(struct workload_vector) / sizeof(uint64_t) };
	uint64_t w[WORDS];
	struct workload_vector v;

	for (unsigned k = 0; k < WORDS; k++)
		w[k] = 1;
	pmh_memcpy(&v, w, sizeof(v));
	return s->m->rate(s, i, &v) != 0;
}

void sim_ctr_set(struct sim_cpu *s, unsigned i, uint64_t v)
{
	if (i >= s->n_ctr)
		return;
	/* write-resets: a write to a running counter restarts it from 0
	 * instead of the value (kvm-unit-tests x86/pmu.c
	 * check_running_counter_wrmsr writes one while it counts) */
	if (s->fault == SF_WRITE_RESETS && ctr_running(s, i))
		v = 0;
	s->ctr[i] = v & sim_width_mask(s, i);
	/* width-high-bits: the bits above the implemented width keep what was
	 * written instead of reading 0 (widths: SDM Vol. 3B, APM Vol. 2 §13.2). */
	s->ctr_hi[i] = s->fault == SF_WIDTH_HIGH_BITS ? v & ~sim_width_mask(s, i) : 0;
}

uint64_t sim_ctr_read(const struct sim_cpu *s, unsigned i)
{
	return i < s->n_ctr ? s->ctr[i] | s->ctr_hi[i] : 0;
}

bool sim_counting(const struct sim_cpu *s, bool enabled, bool global_enabled)
{
	if (s->fault == SF_ENABLE_IGNORED)
		enabled = true;
	if (s->fault == SF_GLOBAL_CTRL_IGNORED)
		global_enabled = true;
	return enabled && global_enabled;
}

bool sim_ctr_counting(const struct sim_cpu *s, unsigned i, bool gp, bool enabled,
		      bool global_enabled)
{
	/* One counter without a working enable bit, as Core Duo erratum AE49
	 * "perfctr1 doesn't have a working enable bit" (Linux
	 * perfctr-watchdog.c). */
	if (s->fault == SF_ENABLE_IGNORED_ONE && i == 1)
		enabled = true;
	/* General-purpose counters that ignore the global enable while the
	 * fixed counters obey it (SDM Vol. 3B 20.2.2: GLOBAL_CTRL gates both kinds). */
	if (s->fault == SF_GLOBAL_IGNORED_GP && gp)
		global_enabled = true;
	return sim_counting(s, enabled, global_enabled);
}

/* The stall episodes of an iteration with `stall` stall and `busy` busy
 * cycles: what the workload engine counted (uarch.c), at least one when
 * it stalls at all, and no more than either kind of cycle allows (they
 * alternate). */
static uint64_t episodes(const struct workload_vector *v, uint64_t stall, uint64_t busy)
{
	uint64_t e = v->stall_runs ? v->stall_runs : 1;
	e = e < stall ? e : stall;
	return e < busy ? e : busy;
}

/* The filters as SDM Vol. 3B 18.2.1.1 (IA32_PERFEVTSELx CMASK, INV, E), K8
 * BKDG 10.2 (PerfEvtSel CNT_MASK, INV, EDGE), KNC table 1-5 and the
 * NetBurst CCCR (compare, complement, threshold, edge; the model maps them)
 * describe them: the mask compares each cycle's event count, invert
 * counts the cycles that fail the comparison, edge the false-to-true
 * transitions of the result. An iteration has two phases, as a core
 * has: busy cycles, over which its events retire evenly (q or q + 1 a
 * cycle), and stall cycles with none, in v->stall_runs stretches. A
 * steady loop never leaves its condition, so edge counts 0 there; a
 * workload that stalls counts one edge per stretch of the stall (or busy)
 * condition. */
uint64_t sim_filter(const struct sim_cpu *s, const struct workload_vector *v, uint64_t n,
		    bool each_cycle, unsigned cmask, bool inv, bool edge)
{
	uint64_t cyc = v->cycles;

	if (sim_has_fault(s, SF_CMASK_IGNORED))
		cmask = 0;
	if (sim_has_fault(s, SF_INV_IGNORED))
		inv = false;
	if (sim_has_fault(s, SF_EDGE_IGNORED))
		edge = false;
	if (!cmask && !inv && !edge)
		return n;
	if (!cyc) /* no time passed (a call's construction): no cycle to count */
		return 0;
	/* a clock ticks in stalls too; anything else waits them out */
	uint64_t stall = each_cycle || v->stall_cycles >= cyc ? 0 : v->stall_cycles;
	uint64_t busy = cyc - stall, q = n / busy, r = n % busy;
	unsigned m = cmask ? cmask : 1;
	uint64_t hit = m <= q ? busy : (m == q + 1 ? r : 0); /* cycles with >= m */
	uint64_t on = inv ? cyc - hit : hit;

	if (!edge)
		return on;
	if (!on || on == cyc)
		return 0;
	/* every busy cycle passes: the condition (or its inverse) is the busy
	 * phase, its edges the stall episodes that separate its stretches */
	if (hit == busy)
		return episodes(v, stall, busy);
	return on < cyc - on ? on : cyc - on; /* evenly spread: isolated cycles */
}

/* IA32_PKRS exists when CPUID.(7,0):ECX[31] says so (a model's table or a
 * real processor's dump). */
static bool sim_has_pks(void)
{
	uint32_t max = 0, ecx = 0;
	/* the table itself, not hw_cpuid: no simulated access of its own */
	for (unsigned i = 0; i < sim.n_cpuid; i++) {
		const struct sim_cpuid *e = &sim.cpuid[i];
		if (e->leaf == CPUID_LEAF_MAX)
			max = e->r.eax;
		if (e->leaf == CPUID_LEAF_EXT_FEATURES && (e->subleaf == 0 || e->subleaf == ~0u))
			ecx = e->r.ecx;
	}
	return max >= CPUID_LEAF_EXT_FEATURES && (ecx & CPUID_7_ECX_PKS) != 0;
}

static int pkrs_write(struct sim_cpu *s, uint64_t val)
{
	if ((val & PKRS_RESERVED_MASK) && !s->pkrs_gp_lost)
		return HW_FAULT_GP;
	s->pkrs = val;
	return HW_OK;
}

int hw_rdmsr(uint32_t msr, uint64_t *val)
{
	sim_par_tick(); /* another CPU of a parallel run may go first */
	sim_real_access(&sim, SA_RDMSR, msr);
	*val = 0;
	if (msr == MSR_SMI_COUNT && sim.m->si && sim.m->si->smi_count) {
		*val = sim.real.smi_count;
		return HW_OK;
	}
	if (msr == MSR_IA32_APIC_BASE) {
		*val = sim.apic_base;
		return HW_OK;
	}
	if (msr == MSR_IA32_TSC) {
		*val = sim.tsc;
		return HW_OK;
	}
	if (msr >= MSR_X2APIC_BASE && msr < MSR_X2APIC_BASE + 0x100)
		return sim_x2apic_rdmsr(&sim, msr, val);
	if (msr == MSR_IA32_PKRS && sim_has_pks()) {
		*val = sim.pkrs;
		return HW_OK;
	}
	if (sim_clock_msr(&sim, msr)) /* MPERF, APERF (sim_engine.c) */
		return sim_clock_rdmsr(&sim, msr, val);
	int st = sim_smp_msr(&sim, msr) ? sim_smp_rdmsr(&sim, msr, val) /* sampling */
					: sim.m->rdmsr(&sim, msr, val);
	if (st != HW_OK)
		*val = 0;
	else if (sim_rdmsr_filter)
		sim_rdmsr_filter(&sim, msr, val);
	return st;
}

/* write-dropped: one read-write register of each family ignores writes to
 * one bit, a bit the harness never needs to count (pin control, edge
 * detect, thread mode, event select bit 11, ESCR tag value), so that only a
 * read-back of that register sees it. Returns the value the register
 * takes. */
static uint64_t dropped(struct sim_cpu *s, uint32_t msr, uint64_t val)
{
	uint32_t target = 0;
	uint64_t bit = EVTSEL_PC, old = 0; /* PERFEVTSEL1 / PerfEvtSel1 pin control */

	switch (s->m->driver) {
	case PMU_DRV_INTEL_P6:
		target = MSR_P6_EVNTSEL0 + 1;
		break;
	case PMU_DRV_INTEL_ARCH: /* edge detect: pin control is reserved from Sandy Bridge on */
		target = MSR_P6_EVNTSEL0 + 1;
		bit = EVTSEL_EDGE;
		break;
	case PMU_DRV_AMD_LEGACY: /* K8 BKDG §10.2 */
		target = MSR_K7_EVNTSEL0 + 1;
		break;
	case PMU_DRV_INTEL_KNC: /* EVNTSEL1 bit 21, thread count mode (KNC table 1-5) */
		target = MSR_KNC_EVNTSEL0 + 1;
		bit = 1ull << 21;
		break;
	case PMU_DRV_AMD_CORE: /* PERF_CTL1 bit 35, event select bit 11 (APM Vol. 2 §13.2) */
		target = MSR_F15H_PERF_CTL0 + 2;
		bit = 1ull << 35;
		break;
	case PMU_DRV_INTEL_NETBURST: /* CRU_ESCR1 tag value bit 0 (SDM 'ESCR MSRs') */
		target = 0x3b9;
		bit = 1ull << 5;
		break;
	default:
		break;
	}
	if (s->fault != SF_WRITE_DROPPED || msr != target || s->m->rdmsr(s, msr, &old) != HW_OK)
		return val;
	return (val & ~bit) | (old & bit);
}

static bool refused(struct sim_cpu *s, uint32_t msr, uint64_t val)
{
	if (!s->refuse.msr || msr != s->refuse.msr || s->irq_enabled ||
	    (val & s->refuse.mask) != s->refuse.val)
		return false;
	s->refuse.hits++;
	return true;
}

int hw_wrmsr(uint32_t msr, uint64_t val)
{
	sim_par_tick();
	sim_real_access(&sim, SA_WRMSR, msr);
	if (refused(&sim, msr, val))
		return HW_FAULT_GP;
	val = dropped(&sim, msr, val);
	if (msr == MSR_IA32_APIC_BASE)
		return HW_OK; /* the harness never changes the APIC mode */
	if (msr >= MSR_X2APIC_BASE && msr < MSR_X2APIC_BASE + 0x100)
		return sim_x2apic_wrmsr(&sim, msr, val);
	if (msr == MSR_IA32_PKRS && sim_has_pks())
		return pkrs_write(&sim, val);
	if (sim_clock_msr(&sim, msr))
		return sim_clock_wrmsr(&sim, msr, val);
	sim.frozen = 0;		    /* overflow-freezes: a PMU register written (sim_engine.c) */
	if (sim_smp_msr(&sim, msr)) /* the sampling hardware's (sim_smp.c) */
		return sim_smp_wrmsr(&sim, msr, val);
	int st = sim.m->wrmsr(&sim, msr, val);
	if (st == HW_OK)
		sim_smp_wrote(&sim, msr, val);
	return st;
}

int hw_rdpmc(uint32_t ecx, uint64_t *val)
{
	sim_par_tick();
	sim_real_access(&sim, SA_RDPMC, ecx);
	*val = 0;
	if (!sim.m->rdpmc)
		return HW_FAULT_UD;
	return sim.m->rdpmc(&sim, ecx, val);
}

uint64_t hw_rdtsc(void)
{
	sim_real_access(&sim, SA_TSC, 0);
	return sim.tsc += 20;
}

void hw_irq_enable(void)
{
	sim.irq_enabled = true;
	sim_real_access(&sim, SA_IRQ, 1); /* a tick held off by IF=0 lands now */
	sim_deliver(&sim);
}

void hw_irq_disable(void)
{
	sim_real_access(&sim, SA_IRQ, 0);
	sim.irq_enabled = false;
}

bool hw_irq_enabled(void)
{
	return sim.irq_enabled;
}

void hw_relax(void)
{
	sim_par_tick(); /* a spin of a parallel run lets the others go */
	/* A spin-wait step is 10 us of simulated time; while nothing arrives
	 * the steps grow to 1 ms, so a bounded wait that runs out (a lost PMI)
	 * costs a few hundred steps on the host, not tens of thousands. */
	uint64_t seen = sim.st.pmi_delivered + sim.st.nmi_delivered + sim.st.eoi;
	if (!sim.relax_ns)
		sim.relax_ns = 10000;
	sim.tsc += sim.relax_ns;
	sim_real_time(&sim);
	sim_deliver(&sim);
	if (sim.st.pmi_delivered + sim.st.nmi_delivered + sim.st.eoi != seen)
		sim.relax_ns = 10000;
	else if (sim.relax_ns < 1000000)
		sim.relax_ns *= 2;
}

uint64_t hw_tsc_per_us(void)
{
	return 1000; /* the simulated TSC runs at 1 GHz */
}

/* Each simulated CPU keeps the block its parallel run gave it. */
void *hw_cpu_local(void)
{
	return sim.pcpu;
}

/* No real instructions run in the simulator, so no fault needs a fixup. */
uint64_t isr_fixup_for(uint64_t rip)
{
	(void)rip;
	return 0;
}

/* Nor does an exception come back through a recovery point: setting one
 * returns once (apic/isr.h pmh_setjmp), and a jump to it is a defect of
 * the simulator. */
int pmh_setjmp(struct pmh_jmpbuf *b)
{
	(void)b;
	return 0;
}

void hw_halt(void)
{
	sim_par_halt(); /* returns only outside a parallel run's share */
	fprintf(stderr, "pmuharness-sim: CPU %u halted for good\n", sim.cpu_no);
	abort();
}

void pmh_longjmp(struct pmh_jmpbuf *b, int v)
{
	(void)b;
	fprintf(stderr, "pmuharness-sim: pmh_longjmp(%d) without an exception\n", v);
	abort();
}
