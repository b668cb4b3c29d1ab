/* The platform seam: everything the harness needs from what it runs on,
 * passed down as one table of functions (tests/harness.c calls them; no
 * link-time call goes up from tests/ into a platform). The UEFI image fills
 * it in boot/, the simulator program in host/sim_main.c; another platform
 * is another folder that fills it. Freestanding: no firmware types here.
 *
 * Optional members are NULL where the platform has no such service; each
 * says what the harness does then. */
#ifndef PMH_TESTS_PLATFORM_H
#define PMH_TESTS_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct harness;
struct options;
struct screen_event;

/* The keys the harness tells apart at its prompts. */
enum platform_key {
	PKEY_NONE,  /* the wait ended without a key (time up, or a read error) */
	PKEY_ESC,   /* skip the run / return to the firmware */
	PKEY_AGAIN, /* R or r: run again */
	PKEY_OTHER, /* any other key */
};

struct platform {
	void *ctx; /* handed back to every member */

	/* Output. line: a line to every output the results go to (the screen,
	 * the serial port, the log file). screen: a prompt for the person at
	 * the machine, to the screen and serial port only (never the log). */
	void (*line)(void *ctx, const char *s);
	void (*screen)(void *ctx, const char *s);

	/* The machine's screen (NULL: none; the simulator has none): the
	 * run's start, identification, progress and end as events for a
	 * layout (tests/screen.h); the lines reach it through line and
	 * screen as they do every output. */
	void (*status)(void *ctx, const struct screen_event *ev);

	/* Results files beside the binary (NULL: none, silently). open: a new
	 * log + JSON pair, their names as the results.files line lists them
	 * into name ("pmuharness-001.log pmuharness-001.json"); false
	 * after printing why not. flush: the log lines so far to the file.
	 * close, at the end of every run: writes the JSON document into an
	 * open JSON file (json NULL: there is no document to write, reported
	 * as a failed write), verifies and closes whatever is open, and says
	 * what was kept; true only when every results file was written and
	 * verified. */
	bool (*results_open)(void *ctx, char *name, size_t cap);
	void (*results_flush)(void *ctx);
	bool (*results_close)(void *ctx, const char *json, size_t len);

	/* Zeroed memory that outlives the run, and its release. */
	void *(*alloc)(void *ctx, size_t n);
	void (*free)(void *ctx, void *p);

	/* Options: the config file, then the command line, into o over its
	 * defaults; every bad entry printed and skipped (harness_main only). */
	void (*options)(void *ctx, struct options *o);

	/* Time. The platform calibrates the TSC before the harness starts and
	 * hw_tsc_per_us() (pmu/hw.h) returns the rate. now_us: a wall clock in
	 * microseconds for the harness.elapsed_us line (NULL: no wall clock,
	 * as in the simulator, and no such line). */
	uint64_t (*now_us)(void *ctx);
	/* clock: the firmware's calendar clock now, as ISO 8601
	 * ("2026-11-23T14:05:09Z") into buf, for the results JSON's start
	 * time; false when it cannot be read (NULL: no clock; null then). */
	bool (*clock)(void *ctx, char *buf, size_t n);

	/* The machine's identity for the results JSON (each NULL: unknown,
	 * null there). fw_vendor, fw_revision: the firmware's vendor and
	 * revision as ASCII ("EDK II", "0x10000"). smbios: the SMBIOS
	 * structure table (tests/smbios.h parses it, bounded by smbios_len). */
	const char *fw_vendor;
	const char *fw_revision;
	const void *smbios;
	size_t smbios_len;

	/* Keyboard (NULL: none; no countdown and no end prompt then). flush
	 * drops the keys typed so far; wait waits up to us microseconds (0:
	 * without limit) for the next one. */
	void (*key_flush)(void *ctx);
	enum platform_key (*key_wait)(void *ctx, uint64_t us);

	/* Exceptions. guard installs the harness's interrupt table and runs
	 * fn(arg) so that an unexpected exception inside is reported and
	 * abandons fn: true then. unguard puts the firmware's table back, the
	 * last thing of a run. NULL: no exception path (fn is called as is). */
	bool (*guard)(void *ctx, void (*fn)(void *arg), void *arg);
	void (*unguard)(void *ctx);

	/* Other CPUs: runs the suite on the CPUs the cpus option selects and
	 * prints one verdict line per CPU (NULL: the boot CPU alone). */
	void (*run_cpus)(void *ctx, struct harness *h);

	/* Lines of the platform's own between the identification and the
	 * suite's header (NULL: none); false stops the run there. */
	bool (*header)(void *ctx, struct harness *h);

	/* Exit. qemu_exit writes the value to QEMU's isa-debug-exit port and
	 * returns where there is none; power_off turns the machine off. */
	void (*qemu_exit)(void *ctx, unsigned value);
	void (*power_off)(void *ctx);
};

/* The words every platform's results_close says what was kept with
 * (tests/report.c), one spelling for all: results_file_outcome appends a
 * file's outcome to msg, "; " between files: "NAME written and verified"
 * (why NULL) or "NAME: why"; results_saved_line is the line after the
 * last: "results.saved: msg", or the error saying what is missing is on
 * the console and serial only. */
void results_file_outcome(char *msg, size_t cap, const char *name, const char *why);
void results_saved_line(char *line, size_t cap, bool ok, const char *msg);

#endif
