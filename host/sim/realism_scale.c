/* --realism-scale K: every realism effect's size and rate times K, to see
 * whether the checks hold on a machine K times worse than the models' own
 * numbers (those, at K = 1, with their sources, are beside each model's
 * struct sim_silicon and in realism.c). K = 1 draws exactly what a run
 * without the option draws. A scaled quantity is capped where it would stop
 * describing a core that runs code:
 *  - overhead: the harness's path lengths, interrupt entry/exit stubs and
 *    the cycles' jitter (drawn up to the path's length) times K; no cap.
 *  - skid: the drawn instructions times K, and never past the family's
 *    branch bound (sim_silicon.skid_cap_br: rr's skid_size, the most
 *    branches rr has seen a PMI come after its overflow on that core).
 *  - inexact: the events a window gains times K, their per-mille rate
 *    times K up to 1000 (a probability).
 *  - interrupts: the timer handler's and SMM's instructions and cycles
 *    times K, the timer's and SMIs' rates times K while the longest handler
 *    takes at most half the shortest period (sim_k_period).
 *  - turbo: the clock's excess over the TSC rate times K, (t - 1) * K + 1,
 *    capped at 4.4 (SIM_TURBO_MAX_X100).
 *  - prefetch: the streamer's share of a walk's misses times K, up to all.
 *  - firmware: NetBurst N15's lost-write rate (1 in 4) times K, up to every
 *    fresh write; the rest (leftover enables, LIMIT_CPUID, PMC3 and TSX)
 *    are states, with no size to scale.
 *  - late-ack: a rule (one PMI per unmask with a flag set), not a size.
 * Not scaled either, being exact by mechanism: the one instruction (and on
 * AMD one branch) an interrupt's delivery retires (sim_silicon.irq_insn),
 * and the one instruction a KVM guest's emulated instruction or VMRUN adds
 * (model_kvm.c): an event is counted once, not K times. Host-only,
 * freestanding. */
#include "sim.h"

/* Turbo's cap: the largest max-turbo/base ratio of a part we know, the Core
 * i5-1230U's P-cores, 1.0 to 4.4 GHz (Intel ARK). */
#define SIM_TURBO_MAX_X100 440

/* The error text, freestanding: "--realism-scale: " what " (got \"s\")". */
static void scale_error(char *err, unsigned len, const char *what, const char *s)
{
	static const char *const part[] = {"--realism-scale: ", 0, " (got \"", 0, "\")"};
	unsigned n = 0;

	if (!len)
		return;
	for (unsigned i = 0; i < 5; i++)
		for (const char *p = i == 1 ? what : i == 3 ? s : part[i]; *p && n + 1 < len; p++)
			err[n++] = *p;
	err[n] = 0;
}

int sim_realism_scale_parse(const char *s, unsigned *k, char *err, unsigned errlen)
{
	unsigned v = 0, digits = 0;

	for (const char *p = s; *p; p++, digits++) {
		if (*p < '0' || *p > '9' || digits >= 3) {
			scale_error(err, errlen, "needs a whole number from 1 to 16", s);
			return -1;
		}
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (!digits || v < SIM_SCALE_MIN || v > SIM_SCALE_MAX) {
		scale_error(err, errlen, "needs a whole number from 1 to 16", s);
		return -1;
	}
	*k = v;
	return 0;
}

unsigned sim_k(const struct sim_cpu *s)
{
	return s->real.scale ? s->real.scale : 1;
}

uint64_t sim_k_size(const struct sim_cpu *s, uint64_t v)
{
	return v * sim_k(s);
}

uint64_t sim_k_pm(const struct sim_cpu *s, uint64_t pm)
{
	uint64_t v = pm * sim_k(s);
	return v > 1000 ? 1000 : v; /* a probability: at most certain */
}

unsigned sim_k_turbo_x100(const struct sim_cpu *s, unsigned t)
{
	if (t <= 100)
		return t;
	unsigned v = 100 + (t - 100) * sim_k(s);
	return v > SIM_TURBO_MAX_X100 ? SIM_TURBO_MAX_X100 : v;
}

/* An interrupt source that fires every lo..hi us at K = 1, each time for up
 * to busy_us (already scaled): the period divided by K, but the shortest
 * at least twice the longest handler, so that the core still spends half
 * its time or more on what it was running. A source faster than its own
 * handler is an interrupt storm, not a healthy board. */
void sim_k_period(unsigned k, uint64_t lo, uint64_t hi, uint64_t busy_us, uint64_t *min,
		  uint64_t *max)
{
	uint64_t a = lo / k, b = hi / k;

	if (a < 2 * busy_us)
		a = 2 * busy_us;
	if (a < 1)
		a = 1; /* the deadline's unit */
	*min = a;
	*max = b > a ? b : a;
}
