/* A workload over a buffer the test owns, as event.semantics prepares one:
 * elements a line apart (MOVNTI walks every 8 bytes), a seeded chain for
 * the chase kinds. Shared by the simulated-event tests; free(k->mem) after. */
#ifndef PMH_HOST_UNIT_WALK_TEST_H
#define PMH_HOST_UNIT_WALK_TEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../events/workload.h"

struct walk {
	void *mem;
	struct wl_args a;
	struct workload w;
};

static inline const struct workload *walk_of(struct walk *k, const struct workload *proto,
					     uint64_t bytes, uint64_t line)
{
	k->mem = aligned_alloc(4096, (bytes + 4095) & ~4095ull);
	assert_non_null(k->mem);
	memset(k->mem, 0, bytes);
	uint64_t stride = proto->mem == WL_MEM_STRIDE_NT ? 8 : line;
	k->a =
	    (struct wl_args){.buf = k->mem, .lines = bytes / stride, .stride = stride, .state = 5};
	if (proto->mem == WL_MEM_CHASE || proto->mem == WL_MEM_CHASE_DIRTY)
		workload_chain(k->mem, k->a.lines, line, 11);
	k->w = *proto;
	k->w.args = &k->a;
	return &k->w;
}

#endif
