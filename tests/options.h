/* Harness options: defaults, the pmuharness.cfg parser and load-option
 * (UEFI shell argument) parser. Pure C so the host tests drive it. */
#ifndef PMH_TESTS_OPTIONS_H
#define PMH_TESTS_OPTIONS_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "../apic/pmi_mode.h"

enum on_finish { FINISH_WAIT, FINISH_RETURN, FINISH_POWEROFF, FINISH_QEMU_EXIT };

#define OPT_MAX_PRELOADS 8
#define OPT_MAX_CPUS 64

struct options {
	enum on_finish on_finish;
	bool on_finish_set;	      /* given explicitly (file or argument) */
	char checks[128];	      /* comma-separated id globs, "*" = all */
	bool all_cpus;		      /* cpus = all */
	unsigned n_cpus;	      /* cpus = 0,2,3 (when !all_cpus) */
	uint16_t cpus[OPT_MAX_CPUS];
	unsigned repeat;	      /* measurement repetitions (median of N) */
	enum pmi_delivery pmi;
	unsigned n_preloads;
	uint64_t preloads[OPT_MAX_PRELOADS]; /* 0 = "the largest the width allows" */
	char event[96];		      /* raw or named event to validate */
	bool verbose;
	unsigned countdown;	      /* seconds before the run on real hardware */
	bool list_events;
	bool json_events;
};

typedef void (*options_err_fn)(void *ctx, const char *msg);

void options_default(struct options *o);
/* Sets one key; returns 0 or -1 with a message in err. */
int options_set(struct options *o, const char *key, const char *val, char *err, size_t errlen);
/* Parses pmuharness.cfg text ("key = value", '#' comments, blank lines).
 * Every bad line is reported through err as "line N: ..." and skipped; the
 * return value is the number of bad lines. */
int options_parse_config(struct options *o, const char *text, size_t len, options_err_fn err,
			 void *ctx);
/* Parses load options: "key=value" words or "--key value" / "--flag". */
int options_parse_args(struct options *o, int argc, char *const argv[], options_err_fn err,
		       void *ctx);
const char *options_finish_name(enum on_finish f);
/* True when the check id is selected by the filter. */
bool options_check_selected(const struct options *o, const char *id);

#endif
