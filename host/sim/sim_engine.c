/* The workload engine of the simulator (sim.c is the rest of the seam):
 * counters advanced by whole iterations, stopping exactly at each overflow
 * point and where a skid runs out; the reference clock (the TSC's rate)
 * against the core clock; each iteration's vector from the workload's
 * construction and the micro-architecture's outcome (uarch.h). */
#include "sim.h"
#include "uarch.h"
#include "../../lib/str.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"

static uint64_t rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	struct workload_vector w = *v;

	if (s->fault == SF_STUCK_COUNTER && i == 0)
		return 0;
	if ((s->frozen >> i) & 1) /* overflow-freezes (add_events) */
		return 0;
	if (s->fault == SF_WRONG_EVENT) {
		w.instructions = v->branches;
		w.branches = v->instructions;
	}
	uint64_t r = s->m->rate(s, i, &w);
	/* A double-counting erratum: one extra event per iteration counted. */
	if (s->fault == SF_OVERCOUNT && r)
		r++;
	return r;
}

/* Adds add events to counter i; true when it wrapped and the model wants a PMI. */
static bool add_events(struct sim_cpu *s, unsigned i, uint64_t add)
{
	uint64_t mask = sim_width_mask(s, i);
	bool ovf = add > mask - s->ctr[i];
	s->ctr[i] = (s->ctr[i] + add) & mask;
	if (ovf && s->fault == SF_PMI_STORM && !s->storm_ctr)
		s->storm_ctr = (uint8_t)(i + 1);
	/* overflow-freezes: every other counter stops at the wrap, a freeze
	 * nobody asked for (DEBUGCTL.FREEZE_PERFMON_ON_PMI clear: SDM Vol. 3B
	 * "Freezing LBR and Performance Counters on PMI"), until software next
	 * writes a PMU register (sim.c hw_wrmsr) */
	if (ovf && s->fault == SF_OVERFLOW_FREEZES)
		s->frozen |= ~(1ull << i);
	if (!ovf || !s->m->overflow(s, i))
		return false;
	sim_smp_pmi_request(s); /* the LBR freeze on PMI (sim_lbr.c) */
	s->pmi_ovf++;
	return true;
}

void sim_ctr_bump(struct sim_cpu *s, unsigned i, uint64_t n)
{
	if (i < s->n_ctr && add_events(s, i, n))
		sim_real_overflow(s);
}

bool sim_flag_stuck(const struct sim_cpu *s, unsigned i)
{
	return s->fault == SF_PMI_STORM && s->storm_ctr == i + 1;
}

/* The reference clock (the TSC's rate) against the core clock: with
 * realism "turbo" the core runs turbo_x100 / 100 times faster, so an
 * iteration of c core cycles takes c * 100 / turbo_x100 reference ticks, a
 * fraction carried from one iteration to the next (sim_cpu.ref_carry).
 * Per iteration it is q or q + 1 ticks; extra(j) says how many of the first
 * j iterations take q + 1. */
struct refclk {
	uint64_t q, rem, den, carry;
};

static void refclk_init(const struct sim_cpu *s, struct refclk *r, uint64_t cycles)
{
	const struct sim_silicon *si = s->m->si;
	uint64_t t = si && sim_real(s, SE_TURBO) && si->turbo_x100
			 ? sim_k_turbo_x100(s, si->turbo_x100)
			 : 100;
	r->den = t;
	r->q = cycles * 100 / t;
	r->rem = cycles * 100 % t;
	r->carry = s->ref_carry % t;
}

static uint64_t extra(const struct refclk *r, uint64_t j)
{
	return (uint64_t)(((unsigned __int128)j * r->rem + r->carry) / r->den);
}

/* Events of the first j iterations of a counter at lo a step, d more on
 * an iteration of q + 1 reference ticks. */
static unsigned __int128 events(uint64_t j, uint64_t lo, uint64_t d, const struct refclk *r)
{
	return (unsigned __int128)j * lo + (unsigned __int128)d * extra(r, j);
}

/* The first of k iterations at which to_ovf events are reached; k + 1 if
 * none (the overflow point of counter i). */
static uint64_t overflow_at(uint64_t to_ovf, uint64_t lo, uint64_t d, const struct refclk *r,
			    uint64_t k)
{
	if (!d)
		return (to_ovf + lo - 1) / lo; /* lo > 0 */
	if (events(k, lo, d, r) < to_ovf)
		return k + 1;
	uint64_t a = 1, b = k;
	while (a < b) {
		uint64_t m = a + (b - a) / 2;
		if (events(m, lo, d, r) >= to_ovf)
			b = m;
		else
			a = m + 1;
	}
	return a;
}

/* Events per iteration of every counter (lo) and the more an iteration of
 * q + 1 reference ticks brings (d); *k lowered to the first overflow. */
static void rates(struct sim_cpu *s, const struct workload_vector *v, const struct refclk *rc,
		  uint64_t *lo, uint64_t *d, uint64_t *k)
{
	struct workload_vector vh = *v;
	vh.ref_cycles = rc->q + 1;
	for (unsigned i = 0; i < s->n_ctr; i++) {
		lo[i] = rate(s, i, v);
		uint64_t hi = rc->rem ? rate(s, i, &vh) : lo[i];
		d[i] = hi > lo[i] ? hi - lo[i] : 0;
		if (!lo[i] && !d[i])
			continue;
		s->counted |= 1u << i;
		uint64_t need =
		    overflow_at(sim_width_mask(s, i) - s->ctr[i] + 1, lo[i], d[i], rc, *k);
		if (need < *k)
			*k = need;
	}
}

/* The iterations of v (at most k) after which a pending skid runs out: its
 * instructions, or its branch bound if that comes first. */
static uint64_t skid_step(const struct sim_real *r, const struct workload_vector *v, uint64_t k)
{
	uint64_t need =
	    v->instructions ? (r->skid_left + v->instructions - 1) / v->instructions : 0;
	uint64_t need_br =
	    r->skid_br_left && v->branches ? (r->skid_br_left + v->branches - 1) / v->branches : 0;

	if (need && need < k)
		k = need;
	return need_br && need_br < k ? need_br : k;
}

/* Advances every counting counter by iters iterations of v, stopping at each
 * overflow point (and where a skid runs out) so that interrupts are raised
 * where they would be. The TSC and MPERF advance by the reference clock,
 * APERF by the core's: both count in C0 (SDM Vol. 3B 15.2), where the
 * simulated core is whenever it retires. */
static void steps(struct sim_cpu *s, const struct workload_vector *v0, uint64_t iters)
{
	struct workload_vector v = *v0;
	struct refclk rc;

	refclk_init(s, &rc, v.cycles);
	v.ref_cycles = rc.q;
	v.masked_cycles = s->irq_enabled ? 0 : v.cycles; /* the window's IF */
	while (iters) {
		uint64_t k = iters;
		uint64_t lo[SIM_MAX_CTRS], d[SIM_MAX_CTRS];

		if (s->real.latched)
			k = skid_step(&s->real, &v, k);
		rates(s, &v, &rc, lo, d, &k);
		if (s->m->retired) /* what the model derives besides its counters */
			s->m->retired(s, &v, k);
		/* Counters that overflow in the same step share one interrupt
		 * request, as on hardware where the PMU has one line to the APIC. */
		bool want_pmi = false;
		for (unsigned i = 0; i < s->n_ctr; i++)
			if ((lo[i] || d[i]) &&
			    add_events(s, i, (uint64_t)events(k, lo[i], d[i], &rc)))
				want_pmi = true;
		s->st.instructions += k * v.instructions;
		uint64_t x = extra(&rc, k), ref = v.cycles ? k * rc.q + x : k;
		s->tsc += ref;
		s->mperf += ref;
		s->aperf += k * v.cycles;
		rc.carry = (uint64_t)(((unsigned __int128)k * rc.rem + rc.carry) -
				      (unsigned __int128)x * rc.den);
		s->ref_carry = rc.carry;
		iters -= k;
		/* A request already on its way takes this step's overflows with
		 * it, even when its skid runs out at this very step: the PMI it
		 * raises collects them, so they must not raise another. */
		bool joins = s->real.latched;
		sim_real_retired(s, k * v.instructions, k * v.branches);
		if (want_pmi && !joins)
			sim_real_overflow(s);
		sim_deliver(s);
	}
}

/* cycles-slow: a core-cycle event counts every second cycle. An iteration
 * of an odd number of cycles is taken two at a time (a vector of twice its
 * fields), so that halving each step's cycles loses no half cycle per
 * iteration; a last odd one loses its half. */
static void advance(struct sim_cpu *s, const struct workload_vector *v, uint64_t iters)
{
	enum { WORDS = sizeof(struct workload_vector) / sizeof(uint64_t) };
	_Static_assert(sizeof(struct workload_vector) % sizeof(uint64_t) == 0,
		       "a workload vector is made of 64-bit counts");

	if (s->fault == SF_CYCLES_SLOW && (v->cycles & 1) && iters >= 2) {
		uint64_t w[WORDS];
		struct workload_vector two;
		pmh_memcpy(w, v, sizeof(w));
		for (unsigned i = 0; i < WORDS; i++)
			w[i] *= 2;
		pmh_memcpy(&two, w, sizeof(two));
		steps(s, &two, iters / 2);
		iters &= 1;
	}
	if (iters)
		steps(s, v, iters);
}

/* ---- IA32_MPERF / IA32_APERF ------------------------------------------------ */

void sim_aperfmperf(struct sim_cpu *s, uint32_t eax)
{
	sim_set_cpuid(s, CPUID_LEAF_POWER, 0, eax, 0, CPUID_6_ECX_APERFMPERF, 0);
	s->aperfmperf = true;
}

bool sim_clock_msr(const struct sim_cpu *s, uint32_t msr)
{
	return s->aperfmperf && (msr == MSR_IA32_MPERF || msr == MSR_IA32_APERF);
}

int sim_clock_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	*v = msr == MSR_IA32_APERF ? s->aperf : s->mperf;
	return HW_OK;
}

int sim_clock_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (msr == MSR_IA32_APERF)
		s->aperf = v;
	else
		s->mperf = v;
	return HW_OK;
}

void sim_retire(struct sim_cpu *s, uint64_t insn, uint64_t branches, uint64_t cycles)
{
	struct workload_vector v = {.instructions = insn,
				    .branches = branches,
				    .cycles = cycles ? cycles : 1,
				    .uops = insn};
	advance(s, &v, 1);
	sim_smp_harness(s, branches); /* the harness's branches into the LBRs */
}

void sim_workload_at(struct sim_cpu *s, const struct workload *w, uint64_t iterations, unsigned cpl)
{
	struct workload tw; /* what RTM makes of it (sim_tx.c) */
	w = sim_tx_outcome(s, w, &tw);
	struct workload_vector fixed = w->fixed;
	unsigned was = s->cpl;

	s->relax_ns = 0; /* a new window: waits start with short steps */
	/* the harness's code that calls it; inside hw_user_run the
	 * platform's trampoline calls it, which sim_user.c retires */
	if (!cpl)
		sim_real_access(s, SA_WORKLOAD, (uint32_t)w->per_iter.instructions);
	s->counted = 0;
	if (s->fault == SF_SPURIOUS_PMI)
		sim_pmi_request(s);
	s->cpl = cpl;
	if (w->traced) { /* instruction by instruction from its code */
		sim_trace_run(s, w, iterations, advance);
		s->cpl = was;
		sim_real_after_workload(s);
		return;
	}
	/* the call around the loop: its construction as it stands */
	fixed.uops = fixed.instructions;
	advance(s, &fixed, 1);
	/* each iteration: construction plus what the micro-architecture makes
	 * of it (host/sim/uarch.h) */
	uarch_run(s, w, iterations, advance);
	s->cpl = was;
	sim_real_after_workload(s);
}

void hw_run_workload(const struct workload *w, uint64_t iterations)
{
	sim_par_tick();
	sim_workload_at(&sim, w, iterations, 0);
}

/* ---- caches ------------------------------------------------------------------ */

/* CLFLUSH of each line where CPUID.1:EDX[19] says the CPU has it (its line
 * size in EBX[15:8]), else WBINVD, as x86/hw_x86.c does; the CPUIDs around
 * it are the target's too. */
void hw_cache_flush(void *buf, uint64_t bytes)
{
	struct cpuid_regs r;
	hw_cpuid(1, 0, &r);
	bool clflush = (r.edx & (1u << 19)) && ((r.ebx >> 8) & 0xff);
	uarch_flush(&sim, clflush ? buf : 0, bytes);
	hw_cpuid(0, 0, &r);
}
