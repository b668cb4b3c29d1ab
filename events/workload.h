/* Calibrated workloads: loops whose retired instruction and branch counts
 * per iteration are known exactly from their assembly (events/workload.S).
 * On the host the simulator adds the same per-iteration vector to every
 * enabled counter instead of running code. */
#ifndef PMH_EVENTS_WORKLOAD_H
#define PMH_EVENTS_WORKLOAD_H

#include <stdint.h>

/* What one iteration of a workload does, by event kind. */
struct workload_vector {
	uint64_t instructions;
	uint64_t branches;	  /* retired branch instructions */
	uint64_t branch_misses;	  /* modelled as 0: the loop branch is predicted */
	uint64_t cycles;	  /* modelled: the simulator's cycles per iteration */
	uint64_t loads;
	uint64_t stores;
};

struct workload {
	const char *name;
	struct workload_vector per_iter;
	/* Fixed cost of one call outside the loop (call, setup, ret). */
	struct workload_vector fixed;
	void (*run)(uint64_t iterations); /* target: the assembly kernel */
};

extern const struct workload wl_loop;	/* tight dec/jnz loop */
extern const struct workload wl_branchy; /* alternating taken / not-taken branches */

#endif
