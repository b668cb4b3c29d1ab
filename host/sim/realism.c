/* Realism: the parts of real silicon an ideal model leaves out, each a
 * switchable effect drawn from a seeded generator (sim.h enum sim_effect).
 *  - overhead: every seam access and the harness code that leads to it
 *    retires instructions, branches and cycles into the counters enabled at
 *    that moment (as the WRMSR that enables a counter is counted in
 *    kvm-unit-tests x86/pmu.c's loops). The instruction count is a function
 *    of the site (the pair of accesses) and the seed: the same path retires
 *    the same instructions, as on a real core; cycles vary from one pass to
 *    the next. Interrupt delivery itself retires an instruction (and on AMD
 *    a branch) besides its stubs (sim_silicon.irq_insn).
 *  - skid: an overflow raises its PMI only after a drawn number of further
 *    instructions, never past the family's branch bound (rr's skid_size).
 *  - inexact: AMD counts vary by a few events between identical runs (K8
 *    BKDG §10.1: "not assured of producing identical measurements").
 *  - late-ack: unmasking LVTPC while an overflow bit is set raises another
 *    PMI on cores where Linux acks late (Linux intel/core.c, late_ack).
 *  - interrupts: a firmware timer interrupt lands whenever IF=1 and the TPR
 *    lets it through; SMIs land anywhere (cycles jump, MSR 0x34 counts).
 *  - firmware: leftovers and platform quirks, applied by each model's reset.
 *  - turbo: the core clock runs above the TSC's rate (sim_silicon.turbo_x100),
 *    so reference cycles and the TSC fall behind core cycles (sim_engine.c advance).
 *  - prefetch: an L2 streamer serves a drawn share of a strided walk's
 *    misses (host/sim/uarch.c).
 * --realism-scale multiplies each (realism_scale.c). Host-only, freestanding. */
#include "sim.h"
#include "../../apic/apic.h"
#include "../../lib/str.h"

/* The firmware's timer vector: OVMF's 8254 tick arrives below the PMI's
 * priority class, so a TPR of 0xD0 or more holds it off (SDM Vol. 3A 11.8.3). */
#define SIM_TIMER_VECTOR 0x68
#define SIM_NEST_LIMIT	 8

/* The interrupts effect at K = 1. EDK2's timer drivers tick every 10 ms
 * (DEFAULT_TIMER_TICK_DURATION); the simulated tick comes every 50-500 us
 * so that it meets short windows within a few seeds (ours). Its handler,
 * EDK2's timer driver and event dispatch, retires 300-3000 instructions at
 * two cycles each (ours). SMIs come every 2-20 ms (ours) and stay in SMM
 * 20-200 us (the Linux Foundation's real-time wiki, "Identifying SMI
 * related latencies": 10-15 us is common, over 100 us "generally bad"),
 * retiring 2000-20000 instructions where SMM is counted (ours). */
#define TIMER_MIN_US   50
#define TIMER_MAX_US   500
#define TIMER_INSN_MIN 300
#define TIMER_INSN_MAX 3000
#define TIMER_CPI      2
#define SMI_MIN_US     2000
#define SMI_MAX_US     20000
#define SMM_MIN_US     20
#define SMM_MAX_US     200
#define SMM_INSN_MIN   2000
#define SMM_INSN_MAX   20000

static const char *const effect_names[SE_COUNT] = {
    [SE_OVERHEAD] = "overhead",	    [SE_SKID] = "skid",
    [SE_INEXACT] = "inexact",	    [SE_LATE_ACK] = "late-ack",
    [SE_INTERRUPTS] = "interrupts", [SE_FIRMWARE] = "firmware",
    [SE_TURBO] = "turbo",	    [SE_PREFETCH] = "prefetch",
};

const char *sim_effect_name(enum sim_effect e)
{
	return e < SE_COUNT ? effect_names[e] : "?";
}

static int effect_of(const char *w, unsigned len)
{
	for (unsigned e = 0; e < SE_COUNT; e++)
		if (pmh_strlen(effect_names[e]) == len && !pmh_strncmp(w, effect_names[e], len))
			return (int)e;
	return -1;
}

int sim_realism_parse(const char *s, uint32_t *mask, char *bad, unsigned badlen)
{
	if (!pmh_strcmp(s, "all")) {
		*mask = SIM_REALISM_ALL;
		return 0;
	}
	*mask = 0;
	if (!pmh_strcmp(s, "none"))
		return 0;
	while (*s) {
		const char *w = s;
		while (*s && *s != ',')
			s++;
		int e = effect_of(w, (unsigned)(s - w));
		if (e < 0) {
			unsigned n =
			    (unsigned)(s - w) < badlen - 1 ? (unsigned)(s - w) : badlen - 1;
			pmh_memcpy(bad, w, n);
			bad[n] = 0;
			return -1;
		}
		*mask |= 1u << e;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* ---- the generator ---------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	/* splitmix64's finaliser: a bijection that spreads every input bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t next(struct sim_cpu *s)
{
	/* xorshift64* */
	uint64_t x = s->real.rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->real.rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint64_t sim_rand(struct sim_cpu *s, uint64_t lo, uint64_t hi)
{
	return hi <= lo ? lo : lo + next(s) % (hi - lo + 1);
}

static uint64_t deadline(struct sim_cpu *s, uint64_t lo_us, uint64_t hi_us)
{
	return s->tsc + sim_rand(s, lo_us, hi_us) * 1000; /* the simulated TSC: 1 GHz */
}

void sim_real_reset(struct sim_cpu *s)
{
	struct sim_real *r = &s->real;
	r->rng = mix(r->seed + 0x9e3779b97f4a7c15ull) | 1;
	r->last_site = 0;
	r->busy = 0;
	r->latched = false;
	r->skid_left = 0;
	r->skid_br_left = 0;
	r->timer_pending = false;
	r->smi_count = 0;
	r->limit_cpuid = false;
	/* the periods at the scale, the longest handler's time in us at 1 GHz */
	unsigned k = sim_k(s);
	sim_k_period(k, TIMER_MIN_US, TIMER_MAX_US, k * TIMER_INSN_MAX * TIMER_CPI / 1000,
		     &r->timer_min_us, &r->timer_max_us);
	sim_k_period(k, SMI_MIN_US, SMI_MAX_US, k * SMM_MAX_US, &r->smi_min_us, &r->smi_max_us);
	r->timer_next = deadline(s, r->timer_min_us, r->timer_max_us);
	r->smi_next = deadline(s, r->smi_min_us, r->smi_max_us);
}

/* ---- effects ---------------------------------------------------------------- */

static uint64_t skid_forced;

void sim_set_skid(uint64_t n)
{
	skid_forced = n;
}

/* A skid that does not depend on realism: --skid, or the skid-long
 * fault's 100x the model's longest; 0: none. */
static uint64_t skid_fixed(const struct sim_cpu *s, const struct sim_silicon *si)
{
	if (s->fault == SF_SKID_LONG)
		return 100 * (si && si->skid_max ? si->skid_max : 100);
	return skid_forced;
}

void sim_real_overflow(struct sim_cpu *s)
{
	const struct sim_silicon *si = s->m->si;
	uint64_t fixed = skid_fixed(s, si);

	if (!fixed && (!sim_real(s, SE_SKID) || !si || !si->skid_max)) {
		sim_pmi_request(s);
		return;
	}
	if (s->real.latched)
		return; /* one line to the APIC: a later overflow joins this PMI */
	if (s->lvt_pc & LVT_MASKED) {
		/* The APIC takes or drops the request when the PMU raises it:
		 * a masked LVTPC drops the edge now (KNC §1.4.3.9). The skid is
		 * the latency of a request it took, not a delay of the edge. */
		s->st.pmi_raised++;
		s->st.pmi_dropped++;
		return;
	}
	s->real.latched = true;
	s->real.skid_left =
	    fixed ? fixed : sim_rand(s, sim_k_size(s, si->skid_min), sim_k_size(s, si->skid_max));
	/* A drawn skid ends at the family's branch bound if it comes first: a
	 * real core has not been seen past it (rr's skid_size), whatever K
	 * makes of the draw. --skid and skid-long are not bounded. */
	s->real.skid_br_left = fixed ? 0 : si->skid_cap_br;
	s->st.skid_total += s->real.skid_left;
}

void sim_real_retired(struct sim_cpu *s, uint64_t insn, uint64_t br)
{
	struct sim_real *r = &s->real;

	if (!r->latched)
		return;
	bool bound = r->skid_br_left && br >= r->skid_br_left;
	if (insn < r->skid_left && !bound) {
		r->skid_left -= insn;
		r->skid_br_left -= r->skid_br_left ? br : 0;
		return;
	}
	if (insn < r->skid_left) /* the branch bound cut it short */
		s->st.skid_total -= r->skid_left - insn;
	r->latched = false;
	r->skid_left = 0;
	r->skid_br_left = 0;
	sim_pmi_request(s);
}

static bool timer_allowed(const struct sim_cpu *s)
{
	if (!s->irq_enabled || (SIM_TIMER_VECTOR >> 4) <= (s->tpr >> 4))
		return false;
	for (int v = 255; v >= SIM_TIMER_VECTOR; v--) /* a higher vector in service */
		if (s->isr[v / 8] & (1u << (v % 8)))
			return false;
	return true;
}

/* Firmware timer ticks and SMIs that came due. The timer handler is the
 * firmware's (OVMF's TimerDxe and its event dispatch): a few hundred to a few
 * thousand instructions, all counted by the counters that are enabled. */
static void poll(struct sim_cpu *s)
{
	struct sim_real *r = &s->real;
	const struct sim_silicon *si = s->m->si;

	if (!sim_real(s, SE_INTERRUPTS))
		return;
	if (s->tsc >= r->smi_next) {
		uint64_t k = sim_k(s);
		uint64_t cyc = sim_rand(s, k * SMM_MIN_US * 1000, k * SMM_MAX_US * 1000);
		uint64_t insn =
		    si->smm_counts ? sim_rand(s, k * SMM_INSN_MIN, k * SMM_INSN_MAX) : 0;
		r->smi_next = deadline(s, r->smi_min_us, r->smi_max_us) + cyc;
		s->st.smis++;
		if (si->smi_count)
			r->smi_count++;
		sim_retire(s, insn, insn / 6, cyc);
	}
	if (s->tsc >= r->timer_next) {
		r->timer_pending = true;
		r->timer_next = deadline(s, r->timer_min_us, r->timer_max_us);
	}
	if (r->timer_pending && timer_allowed(s)) {
		uint64_t k = sim_k(s);
		uint64_t insn = sim_rand(s, k * TIMER_INSN_MIN, k * TIMER_INSN_MAX);
		r->timer_pending = false;
		s->st.timer_irqs++;
		s->irq_enabled = false; /* the gate clears IF; IRET restores it */
		sim_retire(s, insn + si->irq_insn, insn / 5 + si->irq_br, insn * TIMER_CPI);
		s->irq_enabled = true;
	}
}

static void overhead(struct sim_cpu *s, uint32_t site)
{
	const struct sim_silicon *si = s->m->si;
	uint64_t h = mix(s->real.seed ^ ((uint64_t)s->real.last_site << 32 | site));
	uint64_t span = sim_k_size(s, (uint64_t)si->insn_max - si->insn_min + 1);
	uint64_t insn = sim_k_size(s, si->insn_min) + h % span;
	uint64_t br = insn / 5 + (h >> 32) % 3;
	uint64_t cyc = insn * si->cpi_x10 / 10 + sim_rand(s, 0, insn);

	s->st.overhead_insn += insn;
	sim_retire(s, insn, br, cyc);
}

/* An interrupt's entry or exit stub; the entry adds what the delivery
 * itself retires (not scaled: an interrupt is one event). */
static void stubs(struct sim_cpu *s, bool entry)
{
	const struct sim_silicon *si = s->m->si;
	uint64_t insn = sim_k_size(s, si->entry_insn);

	sim_retire(s, insn + (entry ? si->irq_insn : 0),
		   sim_k_size(s, 2) + (entry ? si->irq_br : 0), insn * 2u);
}

void sim_real_access(struct sim_cpu *s, enum sim_access kind, uint32_t key)
{
	const struct sim_silicon *si = s->m ? s->m->si : 0;
	uint32_t site = (uint32_t)mix((uint64_t)kind << 32 | key);

	if (!si || !s->real.on || s->real.busy >= SIM_NEST_LIMIT)
		return;
	s->real.busy++;
	if (sim_real(s, SE_OVERHEAD)) {
		if (kind == SA_ENTRY || kind == SA_EXIT)
			stubs(s, kind == SA_ENTRY);
		else
			overhead(s, site);
	} else {
		/* Without the overhead effect the code still takes time: a pending
		 * skid runs out, nothing is counted. */
		sim_real_retired(s, si->insn_min, 0);
	}
	s->real.last_site = site;
	poll(s);
	s->real.busy--;
}

void sim_real_time(struct sim_cpu *s)
{
	/* A spin-wait step is microseconds: any skid has run out. */
	if (s->real.latched)
		sim_real_retired(s, s->real.skid_left, 0);
	if (s->m && s->m->si && !s->real.busy) {
		s->real.busy++;
		poll(s);
		s->real.busy--;
	}
}

void sim_real_after_workload(struct sim_cpu *s)
{
	const struct sim_silicon *si = s->m->si;

	if (!sim_real(s, SE_INEXACT) || !si->inexact_max)
		return;
	/* The counters that counted the workload gain a few events now and
	 * then (K8 BKDG §10.1); a counter that did not count stays at rest.
	 * The probe keeps the draws of the counters it finds (instructions,
	 * branches, cycles) where they were; sim_cpu.counted adds the events
	 * of the memory and branch outcome. */
	struct workload_vector probe = {1, 1, 0, 1, 1, 1};
	for (unsigned i = 0; i < s->n_ctr; i++) {
		bool counted = i < 32 && ((s->counted >> i) & 1);
		if ((!counted && !s->m->rate(s, i, &probe)) ||
		    sim_rand(s, 1, 1000) > sim_k_pm(s, si->inexact_pm))
			continue;
		uint64_t n = sim_rand(s, 1, sim_k_size(s, si->inexact_max));
		s->st.inexact_events += n;
		sim_ctr_bump(s, i, n);
	}
}

void sim_real_lvt(struct sim_cpu *s, uint32_t old, uint32_t val)
{
	const struct sim_silicon *si = s->m->si;

	if (!sim_real(s, SE_LATE_ACK) || !si->late_ack || !s->m->pending)
		return;
	if ((old & LVT_MASKED) && !(val & LVT_MASKED) && s->m->pending(s)) {
		s->st.late_ack_pmis++;
		sim_pmi_request(s);
	}
}
