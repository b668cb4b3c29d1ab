/* The validation suite: checks, their results and the runner. A check is a
 * function with an id, the capabilities it needs and one verdict per CPU:
 * PASS, FAIL (expected vs measured) or SKIP (with the reason). */
#ifndef PMH_TESTS_SUITE_H
#define PMH_TESTS_SUITE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "../pmu/pmu.h"
#include "../apic/apic.h"
#include "options.h"

enum verdict { V_PASS, V_FAIL, V_SKIP, V_NONE };

struct result {
	char id[40];
	unsigned cpu;
	enum verdict v;
	char msg[224];
};

struct check_ctx;

struct check {
	const char *id;
	const char *summary;
	int order;	    /* run order; lower first, ties by id */
	bool needs_pmu;	    /* SKIP unless pmu.status is functional */
	uint32_t needs_caps; /* PMU_CAP_* all required */
	void (*run)(struct check_ctx *c);
	/* Left out of the run and the counts unless the checks option names
	 * the id exactly (a test trigger, not a measurement). */
	bool only_when_named;
};

/* Registers a check in the "pmh_checks" section (no central table). */
#define PMH_CHECK(sym, ...)                                                                 \
	static const struct check sym##_check = { __VA_ARGS__ };                              \
	static const struct check *const sym##_ptr                                            \
		__attribute__((used, section("pmh_checks"), aligned(8))) = &sym##_check

/* Receives each output line (no newline); progress (optional): check i
 * of n (from 1) with its id is about to run on CPU cpu. */
struct sink {
	void (*line)(void *ctx, const char *s);
	void *ctx;
	void (*progress)(void *ctx, const char *id, unsigned i, unsigned n, unsigned cpu);
};

#define SUITE_MAX_RESULTS 512

struct suite {
	struct result results[SUITE_MAX_RESULTS];
	unsigned n_results;
	unsigned passed, failed, skipped;
	unsigned pmu_passed; /* passes of checks that measured the PMU (needs_pmu) */
	unsigned dropped; /* results that did not fit (reported, never silent) */
	bool harness_error; /* the harness could not run (set by the platform) */
	struct sink out;
	const struct options *opt;
	const struct cpu_info *cpu;
	struct pmu *pmu;
	const struct apic_info *apic;
};

struct check_ctx {
	struct suite *s;
	const struct check *chk;
	struct pmu *pmu;
	const struct cpu_info *cpu;
	const struct options *opt;
	const struct apic_info *apic;
	unsigned cpu_index;
	enum verdict v;
	unsigned n_fail;
	char msg[224];
};

void check_pass(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* The first failure is kept; later ones are counted ("and N more"). */
void check_fail(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
void check_skip(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* Verbose-only detail line. */
void check_note(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));

/* All registered checks in run order; returns the count. */
size_t suite_checks(const struct check **out, size_t max);
void suite_init(struct suite *s, const struct options *o, const struct cpu_info *ci,
		struct pmu *p, const struct apic_info *ai, struct sink out);
/* How many registered checks the checks option selects. */
unsigned suite_selected(const struct options *o);
/* Runs the selected checks on the current CPU (index cpu_index). */
void suite_run(struct suite *s, unsigned cpu_index);
void suite_emit(struct suite *s, const char *f, ...) __attribute__((format(printf, 2, 3)));

/* The CPU a run reports from and the sink it prints to. A run on another
 * CPU binds that CPU's (suite_bind_cpu) and binds back the one that
 * suite_bound returned before it. */
struct suite_cpu {
	const struct cpu_info *cpu;
	struct pmu *pmu;
	const struct apic_info *apic;
	struct sink out;
};
struct suite_cpu suite_bound(const struct suite *s);
void suite_bind_cpu(struct suite *s, const struct suite_cpu *c);
/* A FAIL that is no check's, for a CPU's run as a whole (id "cpu.run"):
 * counted, kept in the results and printed as "FAIL cpu.N: msg". */
void suite_fail_cpu(struct suite *s, unsigned cpu, const char *msg);

/* The run's one verdict (README "Output"), in order of precedence: ERROR
 * (the harness could not run), FAIL (a check failed), NO PMU (no usable
 * PMU: no driver, or the probe found it not functional), NO VERDICT (the
 * PMU was usable but no check measured it), PASS (the PMU was measured and
 * nothing failed). Each has its own exit value. */
enum run_verdict { RV_PASS, RV_FAIL, RV_ERROR, RV_NO_PMU, RV_NO_VERDICT };
/* What a verdict is decided from: a whole run or one CPU's share of it. */
struct run_counts {
	unsigned passed, failed, skipped, pmu_passed;
	bool pmu_usable; /* a driver and a functional probe */
	bool harness_error;
};
enum run_verdict run_verdict_of(const struct run_counts *c);
/* The counts so far (pmu_usable from the bound PMU). A CPU's share is
 * the difference (suite_share) from those taken before its run, with
 * pmu_usable for the caller to set from that CPU's PMU. */
struct run_counts suite_counts(const struct suite *s);
struct run_counts suite_share(const struct suite *s, const struct run_counts *before);
enum run_verdict suite_verdict(const struct suite *s);
const char *run_verdict_name(enum run_verdict v);
/* Each verdict's exit value: the on_finish = qemu-exit value (README
 * "Exit codes"; QEMU exits with it doubled plus one) and the platform's
 * exit status. */
enum pmh_exit {
	PMH_EXIT_PASS = 0,
	PMH_EXIT_FAIL = 1,
	PMH_EXIT_ERROR = 2,
	PMH_EXIT_NO_PMU = 3,
	PMH_EXIT_NO_VERDICT = 4,
};
enum pmh_exit run_verdict_exit(enum run_verdict v);

/* report.c */
void report_identity(struct suite *s);
/* The closing line, the verdict line with its reason, and the banner. */
void report_summary(struct suite *s);
/* The JSON results document into buf; returns the length it needs. */
size_t report_json(const struct suite *s, char *buf, size_t cap);
const char *verdict_name(enum verdict v);

#endif
