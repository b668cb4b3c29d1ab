/* count.instructions: retired instructions are exact on the calibrated loop. */
#include "count_exact.h"

static void run(struct check_ctx *c)
{
	count_exact(c, GEN_INSTRUCTIONS, wl_loop.per_iter.instructions, &wl_loop);
}

PMH_CHECK(count_instructions, .id = "count.instructions",
	  .summary = "retired instructions exact on the calibrated workload", .order = 41,
	  .needs_pmu = true, .run = run);
