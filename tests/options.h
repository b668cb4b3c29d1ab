/* Harness options: defaults, the keys, the pmuharness.cfg parser and the
 * load-option (UEFI shell argument) parsers. Pure C so the host tests and
 * fuzz targets drive it. */
#ifndef PMH_TESTS_OPTIONS_H
#define PMH_TESTS_OPTIONS_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "../apic/pmi_mode.h"

enum on_finish { FINISH_WAIT, FINISH_RETURN, FINISH_POWEROFF, FINISH_QEMU_EXIT };
/* output: the lines alone, with LAVA's test signals (tests/report_lava.c),
 * or as kvm-unit-tests' runner reads a test (result lines "PASS: id ...",
 * a last "SUMMARY:" line, and its exit statuses under on_finish =
 * qemu-exit: report.c run_exit_kut). */
enum output { OUTPUT_TEXT, OUTPUT_LAVA, OUTPUT_KUT };

#define OPT_MAX_PRELOADS 8
#define OPT_MAX_CPUS	 64

struct options {
	enum on_finish on_finish;
	bool on_finish_set; /* given explicitly (file or argument) */
	char checks[128];   /* comma-separated id globs, "*" = all */
	bool all_cpus;	    /* cpus = all (or serial) */
	bool cpus_serial;   /* cpus = serial: every CPU, one after another */
	unsigned n_cpus;    /* cpus = 0,2,3 (when !all_cpus) */
	uint16_t cpus[OPT_MAX_CPUS];
	unsigned repeat; /* measurement repetitions (median of N) */
	enum pmi_delivery pmi;
	/* pmi_unmask = family: LVTPC unmasked after a PMI only where the
	 * family's local APIC masks it on delivery (default always) */
	bool pmi_unmask_family;
	unsigned n_preloads;
	uint64_t preloads[OPT_MAX_PRELOADS]; /* 0 = "the largest the width allows" */
	char event[96];			     /* raw or named event to validate */
	char event_at[40];		     /* where it was set: "pmuharness.cfg line 3" */
	char events[64];		     /* event.semantics: "" default, all, none, globs */
	enum output output;
	bool verbose;
	unsigned countdown; /* seconds before the run on real hardware */
	bool list_events;
	bool json_events;
	bool help; /* load option help, --help or -h: print the keys, run nothing */
};

typedef void (*options_err_fn)(void *ctx, const char *msg);

void options_default(struct options *o);
/* The config file's name, beside the binary (docs/user-guide.md "Options"). */
#define OPTIONS_CONFIG_NAME "pmuharness.cfg"

/* Sets one key; at says where the value came from ("pmuharness.cfg line
 * 3", "argument 2"), kept for the messages about it that come later.
 * Returns 0, or -1 with a message in err and the key unchanged. */
int options_set(struct options *o, const char *key, const char *val, const char *at, char *err,
		size_t errlen);
/* Parses pmuharness.cfg text ("key = value", '#' comments, blank lines).
 * Every bad line is reported through err as "line N: ..." and skipped; the
 * return value is the number of bad lines. */
int options_parse_config(struct options *o, const char *text, size_t len, options_err_fn err,
			 void *ctx);
/* The same for a file of which only the first len of its size bytes could
 * be read (size > len: larger than the platform reads): the line the cut
 * crosses is reported and not applied, nor is anything after it. */
int options_parse_config_cut(struct options *o, const char *text, size_t len, size_t size,
			     options_err_fn err, void *ctx);
/* Parses load options: "key=value" words or "--key value" / "--flag"; any
 * other word is an error. */
int options_parse_args(struct options *o, int argc, char *const argv[], options_err_fn err,
		       void *ctx);
/* The same for UCS-2 words (the UEFI shell's argv, without the image
 * name): a word with a character outside printable ASCII, or longer than
 * OPTIONS_ARG_MAX characters, is reported and skipped; the others apply. */
#define OPTIONS_ARG_MAX 255
int options_parse_wide_args(struct options *o, size_t argc, const uint16_t *const argv[],
			    options_err_fn err, void *ctx);
/* The same for a UCS-2 load-options string from a boot entry (no shell):
 * units up to the first NUL split at blanks, '"' grouping; a first word
 * that is not an option (no '=', no leading '-') is the image's path as a
 * loader passed it, and skipped. A string with control characters is a
 * binary blob: reported once and ignored as a whole. */
int options_parse_cmdline(struct options *o, const uint16_t *text, size_t units, options_err_fn err,
			  void *ctx);
const char *options_finish_name(enum on_finish f);
/* The keys, their values and defaults, a line at a time. */
void options_help(void (*line)(void *ctx, const char *s), void *ctx);
/* True when the check id is selected by the filter. */
bool options_check_selected(const struct options *o, const char *id);

#endif
