/* Shorthands for the families' rule tables (events/semantics.h). */
#ifndef PMH_EVENTS_SEM_MACROS_H
#define PMH_EVENTS_SEM_MACROS_H

#include "semantics.h"

#define OURS  "; bound ours"
#define NOMAX SEM_NO_MAX

/* count == q */
#define EXACT(ev, w, fp_, q_, src)                                                                 \
	{                                                                                          \
		.event = ev, .wl = &w, .fp = fp_, .kind = SEM_EXACT, .q = q_, .source = src        \
	}
/* lo/1000 x q <= count <= hi/1000 x q */
#define BOUND(ev, w, fp_, q_, lo, hi, src)                                                         \
	{                                                                                          \
		.event = ev, .wl = &w, .fp = fp_, .kind = SEM_BOUNDED, .q = q_, .lo_pm = lo,       \
		.hi_pm = hi, .source = src                                                         \
	}
/* the same against the sum of partner events on the same workload */
#define VS(ev, w, fp_, lo, hi, src, ...)                                                           \
	{                                                                                          \
		.event = ev, .wl = &w, .fp = fp_, .kind = SEM_BOUNDED, .q = SQ_EVENTS,             \
		.lo_pm = lo, .hi_pm = hi, .partner = {__VA_ARGS__}, .source = src                  \
	}
/* no designed workload fixes it: why */
#define NONE(ev, why)                                                                              \
	{                                                                                          \
		.event = ev, .kind = SEM_NONE, .source = why                                       \
	}

#endif
