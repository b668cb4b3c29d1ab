/* Measurement helpers for checks: counting windows with the firmware's
 * interrupts kept out, N/2N differencing to remove the window's fixed cost,
 * repeats with min/median/max, and counter set-up through the driver ops. */
#ifndef PMH_TESTS_MEASURE_H
#define PMH_TESTS_MEASURE_H

#include "suite.h"
#include "../events/workload.h"

struct stat3 {
	uint64_t min, med, max;
};

/* Programs counter ctr with generic event g and flags (stopped, zeroed).
 * Returns 0, or -1 when the family has no such event on that counter (the
 * caller SKIPs or picks another counter). */
int m_setup(struct check_ctx *c, unsigned ctr, enum pmu_generic g, uint32_t flags);
/* The first counter >= from that can count g (or -1). */
int m_counter_for(struct check_ctx *c, enum pmu_generic g, unsigned from);

/* One window: start mask, run w for iters, stop; interrupts off inside.
 * Counters must be programmed and preloaded by the caller. Returns -1 if
 * an SMI was seen during the window (where the CPU can tell). */
int m_window(struct check_ctx *c, uint64_t mask, const struct workload *w, uint64_t iters);
/* The same window with one MSR written between start and the workload
 * (msr 0: none), for checks that override an enable the driver just set. */
int m_window_write(struct check_ctx *c, uint64_t mask, uint32_t msr, uint64_t val,
		   const struct workload *w, uint64_t iters);

/* Events counted by ctr per n iterations of w, by differencing windows of
 * n and 2n, repeated c->opt->repeat times. Counter must be programmed. */
int m_events(struct check_ctx *c, unsigned ctr, const struct workload *w, uint64_t n,
	     struct stat3 *out);
/* The exact count of one window of w x iters on ctr from zero (median of
 * repeats): the reference for exact-overflow checks. */
int m_window_count(struct check_ctx *c, unsigned ctr, const struct workload *w, uint64_t iters,
		   uint64_t *out);

void m_stat(uint64_t *v, unsigned n, struct stat3 *out);
/* Stops and zeroes every counter (between checks). */
void m_quiesce(struct check_ctx *c);
const char *m_gen_name(enum pmu_generic g);

#endif
