/* The harness's run, shared by every platform (tests/platform.h): the
 * results files, identification, the event options, PMU attach, the suite
 * on the selected CPUs, the summary and verdict, the JSON document; and the
 * session around runs (options, countdown, leaving as on_finish says). */
#ifndef PMH_TESTS_HARNESS_H
#define PMH_TESTS_HARNESS_H

#include "../apic/apic.h"
#include "../events/events.h"
#include "../pmu/cpu.h"
#include "../pmu/pmu.h"
#include "options.h"
#include "platform.h"
#include "suite.h"

/* Why a run ended before the suite. */
enum harness_stop {
	HSTOP_NONE,
	HSTOP_LISTED,	/* list_events printed the event list */
	HSTOP_HELP,	/* help printed the options */
	HSTOP_PLATFORM, /* the platform's header said stop */
};

/* What runs report from; it lasts the whole session. */
struct harness {
	const struct platform *platform; /* the one the current run is on */
	struct options opt;
	struct cpu_info cpu;
	struct pmu pmu;
	struct apic_info apic;
	struct ev_result evr; /* the event option, resolved */
	struct suite *suite;
	enum harness_stop stop;
	bool error;	    /* the run could not complete (ERROR) */
	bool event_refused; /* this CPU refused the event option (said; the run went on) */
	bool session;	    /* a run of harness_main (see harness_run) */
	char results[64];   /* the results files as listed ("a.log a.json"); "" when none */
	bool saved;	    /* every results file written and verified */
	uint64_t t0;	    /* the run's start (platform now_us) */
};

/* One run with h->opt on the platform's current CPU (h->suite must point
 * at the results table); returns the verdict's exit value. In a session
 * every run ends with the summary and the results files, and prints
 * options.on_finish; alone (the simulator's command line) a run stopped
 * before the suite ends right there. */
enum pmh_exit harness_run(const struct platform *p, struct harness *h);

/* How a session ended, for the platform's own return value. */
enum harness_end {
	HARNESS_DONE,	   /* the last run's verdict was not ERROR */
	HARNESS_ERROR,	   /* the last run's verdict was ERROR */
	HARNESS_SKIPPED,   /* Esc during the countdown: no run */
	HARNESS_NO_MEMORY, /* no memory for the results table */
};

/* A session: default options, then the platform's; the countdown where
 * on_finish = wait; runs until the platform is left as on_finish says. */
enum harness_end harness_main(const struct platform *p);

#endif
