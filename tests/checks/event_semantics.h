/* event.semantics: the shared state of one run of the check on one CPU and
 * the measurement of one rule (event_semantics_run.c). */
#ifndef PMH_TESTS_CHECKS_EVENT_SEMANTICS_H
#define PMH_TESTS_CHECKS_EVENT_SEMANTICS_H

#include "../measure.h"
#include "../../events/events.h"
#include "../../events/semantics.h"
#include "../../events/pagewin.h"
#include "../../pmu/cache.h"

/* Walks of four times the last level larger than this are left to
 * events = all (the budget of the default set: docs/reference.md "Event semantics"). */
#define SEM_MEM_CAP_DEFAULT (16ull << 20)
#define SEM_MEM_CAP_ALL	    (512ull << 20)
/* Every measurement takes at least this many events of its quantity
 * (elements of a walk, iterations of a loop): ours, far above the jitter
 * of the harness's own code. */
#define SEM_MIN_EVENTS 16384u
/* Rules of one catalogue at most (the K8 table has 106). */
#define SEM_RULES_MAX 256

struct sem_run {
	struct cpu_caches caches;
	bool have_caches;
	uint8_t *buf; /* platform memory, 4 KiB aligned */
	void *raw;
	uint64_t buf_size;
	uint64_t cap; /* the largest walk allowed */
	/* what the buffer holds now: a chain of `chain_lines` elements, or 0 */
	uint64_t chain_lines;
	struct wl_args args;
	unsigned cpu;
	/* the translation the CPU runs with, and the page window of the rule
	 * being measured (on: loaded now) */
	struct hw_paging paging;
	bool pse_cpu; /* CPUID.1:EDX[3] */
	struct pagewin win;
	bool win_on;
};

/* Bytes of a footprint on this CPU; 0 when its geometry is unknown. */
uint64_t sem_footprint_bytes(const struct sem_run *st, enum sem_footprint fp);
/* The page-window walks (event_semantics_win.c). Whether fp is one; the
 * memory a rule at fp needs (frames and tables for a window, else its
 * footprint); the pages of a TLB walk (0: geometry unknown). */
bool sem_windowed(enum sem_footprint fp);
uint64_t sem_memory_bytes(const struct sem_run *st, enum sem_footprint fp);
uint64_t sem_window_pages(const struct sem_run *st, enum sem_footprint fp);
/* Writes the code of w's walk, builds the window over st->buf and loads
 * it; st->args set for w. false (why says) when it cannot. */
bool sem_window_on(struct sem_run *st, const struct workload *w, enum sem_footprint fp, char *why,
		   size_t n);
/* The firmware's translation back, when a window is on. */
void sem_window_off(struct sem_run *st);
/* Measures rule r of table t into row (verdict, figures, note). */
void sem_measure(struct check_ctx *c, struct sem_run *st, const struct event_table *t,
		 const struct sem_rule *r, struct event_row *row);

#endif
