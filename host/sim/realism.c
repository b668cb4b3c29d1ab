/* Realism: the parts of real silicon an ideal model leaves out, each a
 * switchable effect drawn from a seeded generator (sim.h enum sim_effect).
 *  - overhead: every seam access and the harness code that leads to it
 *    retires instructions, branches and cycles into the counters enabled at
 *    that moment. The instruction count is a function of the site (the pair
 *    of accesses) and the seed: the same path retires the same instructions,
 *    as on a real core; cycles vary from one pass to the next.
 *  - skid: an overflow raises its PMI only after a drawn number of further
 *    instructions (facts §8; kvm-unit-tests x86/pmu.c allows for it too).
 *  - inexact: AMD counts vary by a few events between identical runs (K8
 *    BKDG §10.1: "identical measurements are not assured").
 *  - late-ack: unmasking LVTPC while an overflow bit is set raises another
 *    PMI on cores where Linux acks late (facts §8, intel_pmu_handle_irq).
 *  - interrupts: a firmware timer interrupt lands whenever IF=1 and the TPR
 *    lets it through; SMIs land anywhere (cycles jump, MSR 0x34 counts).
 *  - firmware: leftovers and platform quirks, applied by each model's reset.
 *  - turbo: the core clock runs above the TSC's rate (sim_silicon.turbo_x100),
 *    so reference cycles and the TSC fall behind core cycles (sim_engine.c advance).
 *  - prefetch: an L2 streamer serves a drawn share of a strided walk's
 *    misses (host/sim/uarch.c).
 * Host-only, freestanding. */
#include "sim.h"
#include "../../apic/apic.h"
#include "../../lib/str.h"

/* The firmware's timer vector: OVMF's 8254 tick arrives below the PMI's
 * priority class, so a TPR of 0xD0 or more holds it off (SDM Vol. 3A 11.8.3). */
#define SIM_TIMER_VECTOR 0x68
#define SIM_NEST_LIMIT	 8

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
	r->timer_pending = false;
	r->smi_count = 0;
	r->limit_cpuid = false;
	/* The firmware tick is 1-10 ms on real boards; the simulated one comes
	 * every 50-500 us so that it meets short windows within a few seeds.
	 * SMIs are rarer: every 2-20 ms of simulated time. */
	r->timer_min_us = 50;
	r->timer_max_us = 500;
	r->smi_min_us = 2000;
	r->smi_max_us = 20000;
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
	s->real.skid_left = fixed ? fixed : sim_rand(s, si->skid_min, si->skid_max);
	s->st.skid_total += s->real.skid_left;
}

void sim_real_retired(struct sim_cpu *s, uint64_t insn)
{
	if (!s->real.latched)
		return;
	if (insn < s->real.skid_left) {
		s->real.skid_left -= insn;
		return;
	}
	s->real.latched = false;
	s->real.skid_left = 0;
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

	if (!sim_real(s, SE_INTERRUPTS))
		return;
	if (s->tsc >= r->smi_next) {
		const struct sim_silicon *si = s->m->si;
		uint64_t cyc = sim_rand(s, 20000, 200000); /* 20-200 us in SMM */
		uint64_t insn = si->smm_counts ? sim_rand(s, 2000, 20000) : 0;
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
		uint64_t insn = sim_rand(s, 300, 3000);
		r->timer_pending = false;
		s->st.timer_irqs++;
		s->irq_enabled = false; /* the gate clears IF; IRET restores it */
		sim_retire(s, insn, insn / 5, insn * 2);
		s->irq_enabled = true;
	}
}

static void overhead(struct sim_cpu *s, uint32_t site)
{
	const struct sim_silicon *si = s->m->si;
	uint64_t h = mix(s->real.seed ^ ((uint64_t)s->real.last_site << 32 | site));
	uint64_t span = (uint64_t)si->insn_max - si->insn_min + 1;
	uint64_t insn = si->insn_min + h % span;
	uint64_t br = insn / 5 + (h >> 32) % 3;
	uint64_t cyc = insn * si->cpi_x10 / 10 + sim_rand(s, 0, insn);

	s->st.overhead_insn += insn;
	sim_retire(s, insn, br, cyc);
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
			sim_retire(s, si->entry_insn, 2, si->entry_insn * 2u);
		else
			overhead(s, site);
	} else {
		/* Without the overhead effect the code still takes time: a pending
		 * skid runs out, nothing is counted. */
		sim_real_retired(s, si->insn_min);
	}
	s->real.last_site = site;
	poll(s);
	s->real.busy--;
}

void sim_real_time(struct sim_cpu *s)
{
	/* A spin-wait step is microseconds: any skid has run out. */
	if (s->real.latched)
		sim_real_retired(s, s->real.skid_left);
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
		    sim_rand(s, 1, 1000) > si->inexact_pm)
			continue;
		uint64_t n = sim_rand(s, 1, si->inexact_max);
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
