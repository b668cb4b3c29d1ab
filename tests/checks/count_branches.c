/* count.branches: retired branches are exact on the branchy workload. */
#include "count_exact.h"

static void run(struct check_ctx *c)
{
	count_exact(c, GEN_BRANCHES, wl_branchy.per_iter.branches, &wl_branchy);
}

PMH_CHECK(count_branches, .id = "count.branches",
	  .summary = "retired branches exact on the calibrated workload", .order = 42,
	  .needs_pmu = true, .run = run);
