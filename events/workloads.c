/* Exact per-iteration event counts of the kernels in workload.S: counted by
 * instruction from the assembly, not measured. */
#include "workload.h"

#ifdef PMH_HOST
#define KERNEL(fn) 0
#else
void pmh_wl_loop(uint64_t n);
void pmh_wl_branchy(uint64_t n);
#define KERNEL(fn) fn
#endif

/* pmh_wl_loop: per iteration "add; dec; jnz" = 3 instructions, 1 branch
 * (taken on all but the last iteration). Outside the loop: "test; jz", then
 * "ret" = 3 instructions, 2 branches (jz not taken, ret). */
const struct workload wl_loop = {
	.name = "loop",
	.per_iter = { .instructions = 3, .branches = 1, .cycles = 1 },
	.fixed = { .instructions = 3, .branches = 2 },
	.run = KERNEL(pmh_wl_loop),
};

/* pmh_wl_branchy: per iteration "test; jz; add|or; jmp; dec; jnz" = 6
 * instructions and 3 branches on either parity path; the jz direction
 * alternates, which a simple predictor may miss. */
const struct workload wl_branchy = {
	.name = "branchy",
	.per_iter = { .instructions = 6, .branches = 3, .cycles = 3 },
	.fixed = { .instructions = 3, .branches = 2 },
	.run = KERNEL(pmh_wl_branchy),
};
