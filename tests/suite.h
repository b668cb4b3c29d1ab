/* The validation suite: checks, their results and the runner. A check is a
 * function with an id, the capabilities it needs and one verdict per CPU:
 * PASS, FAIL (expected vs measured) or SKIP (with the reason). */
#ifndef PMH_TESTS_SUITE_H
#define PMH_TESTS_SUITE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "../pmu/pmu.h"
#include "smbios.h"
#include "../apic/apic.h"
#include "../apic/isr.h"
#include "options.h"

struct platform;

enum verdict { V_PASS, V_FAIL, V_SKIP, V_NONE };

#define FIG_SAMPLES 64 /* samples a figure keeps for the report's plots */
/* A measurement's samples: n kept of `of` taken, each less the median (n
 * 0: none kept, or one was more than 2^31 from the median). */
struct fig_samples {
	unsigned n, of;
	int32_t d[FIG_SAMPLES];
};
/* A second series a check measured besides its figure (skid's PMI
 * latency in cycles): unit NULL for none. */
struct fig_series {
	const char *name, *unit; /* static strings */
	int64_t min, med, max;
	struct fig_samples smp;
};
/* What a check measured, for the results JSON: the min/median/max of its
 * last measurement (measure.c m_diff, m_median_clean) with its name, unit
 * and samples, a second series where the check keeps one, the allowance
 * the check judged it with, and the counters it set up (bit i:
 * pmu->ctr[i]). */
struct figures {
	bool set; /* a measurement was taken */
	int64_t min, med, max;
	const char *unit;      /* "events", "instructions", "cycles": a static string */
	const char *tolerance; /* a static string the check sets, or NULL */
	uint64_t ctrs;
	const char *name; /* what was measured ("skid"), or NULL */
	struct fig_samples smp;
	struct fig_series also;
	bool to_also; /* check_figures_next: later figures go to also */
};

#define RESULT_MSG	 224 /* a verdict's message, with its terminating NUL */
#define RESULT_CTR_NAMES 64  /* "gp0,gp1,fixed0": the set-up counters' names */

struct result {
	char id[40];
	unsigned cpu;
	enum verdict v;
	char msg[RESULT_MSG];
	struct figures fig;		  /* fig.set false: no figures */
	char ctr_names[RESULT_CTR_NAMES]; /* fig.ctrs by name, comma-separated */
	/* A FAIL's further failures: suite.more[more_first .. + n_more], and
	 * how many did not fit there (named in every output, never silent). */
	unsigned more_first, n_more, more_lost;
};

/* One validated event of event.semantics (tests/checks/event_semantics.c):
 * the rule, what it expected and what was measured, for the log, the JSON's
 * `events` table, the report and LAVA. */
struct event_row {
	unsigned cpu;
	enum verdict v;
	char name[40];			  /* catalogue name */
	char enc[48];			  /* "event=0x24,umask=0x41" (events_format) */
	char ctr[16];			  /* the counter it ran on */
	char table[24];			  /* the catalogue ("amd-k8") */
	char workload[16];		  /* the workload's name */
	char footprint[16];		  /* "" or the buffer ("128 KiB") */
	uint64_t iterations;		  /* N of the N/2N difference */
	char rule[48];			  /* "exact", ">= 0.500 x loads", "sum" */
	int64_t expected_lo, expected_hi; /* the accepted range (lo == hi: exact) */
	int64_t measured;		  /* median N/2N difference */
	char note[120];			  /* the finding, the reason of a SKIP or FAIL */
	const char *source;		  /* the rule's source (static) */
};
/* One catalogue's coverage on one CPU: the line "K8: N of 87 events
 * validated, M not validatable" and the counts of its rows. */
struct event_coverage {
	unsigned cpu;
	char table[24];
	unsigned events, validated, not_validatable;
	unsigned passed, failed, skipped;
};
#define SUITE_MAX_EVENT_ROWS	 768
#define SUITE_MAX_EVENT_COVERAGE 64

/* What a run found its hypervisor withholding or doing (tests/hv_policy.c):
 * policy (an event filter, an allow-list), a known hypervisor bug, a
 * counter the host took. The groups sum up the restrictions in the
 * verdict line. */
enum hv_kind { HV_POLICY, HV_BUG, HV_HOST };
enum hv_group {
	HVG_EVENT_ZERO, /* an event that counts 0 where instructions count */
	HVG_EVENT_GP,	/* an event select refused with #GP */
	HVG_FIXED,	/* a fixed counter that does not count */
	HVG_OTHER,
	HVG_COUNT
};
struct hv_finding {
	unsigned cpu;
	enum hv_kind kind;
	enum hv_group group;
	char what[48];	      /* "BR_MISP_RETIRED", "fixed2" */
	char why[RESULT_MSG]; /* what was measured, and what it means */
};
#define SUITE_MAX_HV 64

struct check_ctx;

struct check {
	const char *id;
	const char *summary;
	int order;	     /* run order; lower first, ties by id */
	bool needs_pmu;	     /* SKIP unless pmu.status is functional */
	uint32_t needs_caps; /* PMU_CAP_* all required */
	void (*run)(struct check_ctx *c);
	/* Left out of the run and the counts unless the checks option names
	 * the id exactly (a test trigger, not a measurement). */
	bool only_when_named;
};

/* Registers a check in the "pmh_checks" section (no central table). */
#define PMH_CHECK(sym, ...)                                                                        \
	static const struct check sym##_check = {__VA_ARGS__};                                     \
	static const struct check *const sym##_ptr                                                 \
	    __attribute__((used, section("pmh_checks"), aligned(8))) = &sym##_check

/* Receives each output line (no newline); progress (optional): check i
 * of n (from 1) with its id is about to run on CPU cpu. */
struct sink {
	void (*line)(void *ctx, const char *s);
	void *ctx;
	void (*progress)(void *ctx, const char *id, unsigned i, unsigned n, unsigned cpu);
};

/* The check table's room (suite_checks' callers in suite.c). */
#define SUITE_MAX_CHECKS 256
/* CPUs one run reports on: the platforms' selection (docs/user-guide.md "Options",
 * cpus); every result of each is kept (suite_reserve). */
#define SUITE_MAX_CPUS 1024
/* Results a CPU's run may add besides its checks': "cpu.run" failures, at
 * most a failed run and a wrong IDTR after it (boot/mp.c run_ap). */
#define SUITE_CPU_RUN_RESULTS 2
/* The tables inside struct suite, used unless a run needs more (then the
 * platform's allocator gives them, suite_reserve): every result of one CPU
 * running the whole check table, a few CPUs' records, and the failures
 * after the first of each failed check (an allocated table keeps one per
 * result, never fewer than these). */
#define SUITE_OWN_RESULTS (SUITE_MAX_CHECKS + SUITE_CPU_RUN_RESULTS)
#define SUITE_OWN_CPUS	  8
#define SUITE_OWN_MORE	  256u

/* What a run decides a verdict from: a whole run or one CPU's share. */
struct run_counts {
	unsigned passed, failed, skipped, pmu_passed;
	bool pmu_usable; /* a driver and a functional probe */
	bool harness_error;
};

/* One CPU's identity and counts, as its suite_run found it. */
struct cpu_record {
	unsigned cpu;
	bool identified; /* false: a failure of a CPU that never ran a check */
	struct cpu_info ci;
	enum apic_mode apic_mode;
	uint32_t apic_id;
	enum pmu_status status;
	unsigned version, n_gp, gp_width, n_fixed, fixed_width;
	char reason[224]; /* as struct pmu's */
	struct run_counts n;
};

/* An unexpected exception that stopped the run (report_crash). */
#define CRASH_REGS 17 /* rax..r15 in the JSON's order, rsp, rflags */
struct crash_record {
	bool set;
	uint64_t vector, error, rip, regs[CRASH_REGS];
	char check[40]; /* the check that was running; "" none */
};

struct suite {
	/* The results, the CPUs' records and the further failures: the own_
	 * tables below, or one block from the platform's allocator (mem, given
	 * back with mem_free) sized for the CPUs of a per-CPU run. */
	struct result *results;
	unsigned n_results, cap_results;
	struct cpu_record *cpus;
	unsigned n_cpus, cap_cpus;
	char (*more)[RESULT_MSG]; /* result.more_first's messages */
	unsigned n_more, cap_more;
	void *mem;
	void (*mem_free)(void *ctx, void *p);
	void *mem_ctx;
	/* event.semantics' rows and coverage lines; rows that did not fit are
	 * counted in ev_dropped and reported, never silent. */
	struct event_row ev_rows[SUITE_MAX_EVENT_ROWS];
	unsigned n_ev_rows, ev_dropped;
	struct event_coverage ev_cov[SUITE_MAX_EVENT_COVERAGE];
	unsigned n_ev_cov;
	unsigned passed, failed, skipped;
	unsigned pmu_passed; /* passes of checks that measured the PMU (needs_pmu) */
	/* results missing: those that did not fit, and those of the CPUs not
	 * run for want of memory for them (cpus_not_run); either makes the
	 * verdict ERROR, said in the log and the JSON */
	unsigned dropped, cpus_not_run;
	/* the hypervisor's restrictions, bugs and host conditions, once each;
	 * those that did not fit are counted, never silent */
	struct hv_finding hv[SUITE_MAX_HV];
	unsigned n_hv, hv_lost;
	/* appends to the tables every CPU shares in a parallel run (event
	 * rows and coverage, findings, the crash record): suite_lock */
	volatile int lock;
	bool harness_error; /* the harness could not run (set by the platform) */
	/* The run's platform and start, for the JSON (report_start). */
	const struct platform *platform;
	uint64_t t0_us;
	char started[32]; /* the firmware clock at the start; "" unknown */
	/* The platform's SMBIOS identity, parsed once at the start for the
	 * screen and the JSON; have_sys false without a table. */
	struct smbios_info sys;
	bool have_sys;
	struct crash_record crash;
	bool lava_open; /* LAVA's checks set started and not stopped */
	const struct options *opt;
	/* The CPU a run reports from, its sink, the check it runs, its
	 * hypervisor counters and its share of the tables are the running
	 * CPU's own (suite.c, per CPU): suite_bound, suite_running,
	 * suite_hv_state. */
	struct result own_results[SUITE_OWN_RESULTS];
	struct cpu_record own_cpus[SUITE_OWN_CPUS];
	char own_more[SUITE_OWN_MORE][RESULT_MSG];
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
	char msg[RESULT_MSG];
	struct figures fig;
	/* Failures after the first: kept in s->more from more_first on (or
	 * counted in more_lost where it is full or there is no suite). */
	unsigned more_first, n_more, more_lost;
	/* Where the measurement windows (measure.h) run their workload: false
	 * at CPL 0 with the harness, true at CPL 3 (hw_user_run); a check
	 * that sets it clears it again. */
	bool user;
};

void check_pass(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* The first failure is kept; later ones are counted ("and N more"). */
void check_fail(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
void check_skip(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* A measurement's min/median/max, in events unless check_figures_as says
 * otherwise, as the check's figures for the results JSON (the last one a
 * check takes is kept). */
void check_figures(struct check_ctx *c, int64_t min, int64_t med, int64_t max);
/* The figure just taken: its name and unit (static strings; measure.c
 * keeps its samples); check_figures_next: later figures go to the second
 * series. */
void check_figures_as(struct check_ctx *c, const char *name, const char *unit);
void check_figures_next(struct check_ctx *c);
/* Verbose-only detail line. */
void check_note(struct check_ctx *c, const char *f, ...) __attribute__((format(printf, 2, 3)));

/* All registered checks in run order; returns the count. */
size_t suite_checks(const struct check **out, size_t max);
/* A new run in s, its own tables in use. s is zeroed or was set up by an
 * earlier suite_init: the tables that run allocated are given back. */
void suite_init(struct suite *s, const struct options *o, const struct cpu_info *ci, struct pmu *p,
		const struct apic_info *ai, struct sink out);
/* Gives back what s allocated (its own tables in use again, emptied). */
void suite_release(struct suite *s);
/* An AP that may still run writes into s's tables: they are never given
 * back (the platform says so when one timed out). */
void suite_keep_tables(struct suite *s);
/* Room for every result of k more CPUs, from s->platform's allocator where
 * s's tables are too small: returns how many of the k fit (k, or fewer
 * where memory ran out: the caller runs those alone). */
unsigned suite_reserve(struct suite *s, unsigned k);
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
/* The check the running CPU is in (NULL between checks). */
const char *suite_running(const struct suite *s);
/* Under a hypervisor, the running CPU's counters (bit i: pmu->ctr[i])
 * that have counted in its run (one that stops counting later was taken
 * by the host: hv_failed), and those the census found moving while
 * disabled (the host's). */
struct suite_hv_state {
	uint64_t counted, taken;
};
struct suite_hv_state *suite_hv_state(const struct suite *s);
/* The lock of the tables every CPU of a parallel run appends to (event
 * rows and coverage, findings, the crash record). */
void suite_lock(struct suite *s);
void suite_unlock(struct suite *s);
/* A parallel run's share of the running CPU: its results go to
 * res[0..cap) and its further failures to more[0..cap_more) (NULL: the
 * run's tables, as in a serial run); suite_share_used says how many. */
void suite_share_begin(struct suite *s, struct result *res, unsigned cap, char (*more)[RESULT_MSG],
		       unsigned cap_more);
unsigned suite_share_end(struct suite *s);
/* After a parallel run: k shares of per results from base gathered after
 * the results so far, in order (n[i] results each), into new tables where
 * fresh (a CPU still running keeps writing the old ones, never given
 * back); the rows and findings sorted by CPU, as a serial run orders
 * them. */
void suite_gather_shares(struct suite *s, unsigned base, unsigned per, const unsigned *n,
			 unsigned k, bool fresh);
/* Between suite.c and suite_tables.c: the suite's own tables in use,
 * emptied; CPU cpu's record, a new one where it has none and make (a
 * parallel run's are all made before it starts: suite_note_cpu); NULL
 * when the table is full or make is false. */
void suite_own_tables(struct suite *s);
struct cpu_record *suite_cpu_rec(struct suite *s, unsigned cpu, bool make);
/* CPU cpu's record, made (not yet identified) where it has none, before a
 * parallel run starts; and the record (NULL: none). */
void suite_note_cpu(struct suite *s, unsigned cpu);
const struct cpu_record *suite_cpu_record(const struct suite *s, unsigned cpu);
/* A FAIL that is no check's, for a CPU's run as a whole (id "cpu.run"):
 * counted, kept in the results and printed as "FAIL cpu.N: msg". */
void suite_fail_cpu(struct suite *s, unsigned cpu, const char *msg);

/* The "cpu.N.identity:" line of CPU cpu's own run, from the bound CPU:
 * its APIC, PMU driver and status, and on a hybrid part its core type and
 * counters. */
void suite_cpu_identity(struct suite *s, unsigned cpu);
/* The run on a CPU other than the boot CPU, on that CPU: identifies it
 * into ci, ai and p, binds them with its sink, says its identity and runs
 * the checks. The caller releases p, restores ci and binds back. */
void suite_run_other(struct suite *s, unsigned cpu, struct cpu_info *ci, struct pmu *p,
		     struct apic_info *ai, struct sink out);

/* A platform's per-CPU run (platform.h run_cpus). one runs the suite on
 * CPU cpu (bsp: the boot CPU's own run) and returns the PMU its checks
 * measured; sel and runs have room for max CPUs; after (optional) runs
 * when every CPU has run, before the verdict lines. */
struct cpu_run;
typedef const struct pmu *(*suite_one_cpu)(void *ctx, unsigned cpu, bool bsp);
struct suite_cpus {
	uint16_t *sel;
	struct cpu_run *runs;
	unsigned max;
	void (*after)(void *ctx);
};
/* The cpus option resolved against n processors' status flags (warnings
 * and the error when none is left said), each selected CPU through one,
 * then one "cpu.N.verdict:" line per CPU. */
void suite_run_cpus(struct suite *s, const uint32_t *flags, unsigned n, struct suite_cpus *w,
		    suite_one_cpu one, void *ctx);
/* Its two halves, for a platform that prepares between them: the
 * selection into sel (warnings and the error said; room reserved for
 * every result of the selected CPUs, and where memory runs out the error
 * naming how many fit: only those are counted, in sel's order; returns
 * the count), and the runs of sel[0..k) with the verdict lines. */
unsigned suite_cpus_select(struct suite *s, const uint32_t *flags, unsigned n, uint16_t *sel,
			   unsigned max);
void suite_cpus_loop(struct suite *s, const uint32_t *flags, const uint16_t *sel, unsigned k,
		     struct cpu_run *runs, suite_one_cpu one, void (*after)(void *ctx), void *ctx);
/* The end of a per-CPU run, serial or parallel: "cpus.elapsed_us: T (k
 * CPUs how)", the CPUs' part since the TSC read t0 (none where the TSC
 * rate is unknown), then one "cpu.N.verdict:" line per CPU of runs. */
void suite_cpus_end(struct suite *s, uint64_t t0, const struct cpu_run *runs, unsigned k,
		    const char *how);

/* The run's one verdict (docs/user-guide.md "Output"), in order of precedence: ERROR
 * (the harness could not run), FAIL (a check failed), NO PMU (no usable
 * PMU: no driver, or the probe found it not functional), NO VERDICT (the
 * PMU was usable but no check measured it), PASS (the PMU was measured and
 * nothing failed). Each has its own exit value. */
enum run_verdict { RV_PASS, RV_FAIL, RV_ERROR, RV_NO_PMU, RV_NO_VERDICT };
enum run_verdict run_verdict_of(const struct run_counts *c);
/* The counts so far (pmu_usable from the bound PMU). A CPU's share is
 * the difference (suite_share) from those taken before its run, with
 * pmu_usable for the caller to set from that CPU's PMU. */
struct run_counts suite_counts(const struct suite *s);
struct run_counts suite_share(const struct suite *s, const struct run_counts *before);
enum run_verdict suite_verdict(const struct suite *s);
const char *run_verdict_name(enum run_verdict v);
/* Each verdict's exit value: the on_finish = qemu-exit value (docs/user-guide.md
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
/* The qemu-exit value kvm-unit-tests' runner reads (output =
 * kvm-unit-tests): 0 PASS, 1 FAIL and ERROR, 38 (QEMU's 77, SKIP) for NO
 * PMU and NO VERDICT, as its own tests end when every test skipped. */
unsigned run_exit_kut(enum pmh_exit e);

/* report.c */
#define PMH_VERSION "0.2.0"
/* The build's commit (git describe --always --dirty, from the Makefile);
 * "unknown" is null in the JSON. */
#ifndef PMH_COMMIT
#define PMH_COMMIT "unknown"
#endif
void report_identity(struct suite *s);
/* The closing line, the verdict line with its reason, and the banner. */
void report_summary(struct suite *s);
/* output = kvm-unit-tests: its runner's "SUMMARY:" line, the run's last. */
void report_kut_summary(struct suite *s);
/* The run's platform, its start on the platform's now_us clock (t0_us)
 * and the firmware's time, for the JSON; after suite_init. */
void report_start(struct suite *s, const struct platform *p, uint64_t t0_us);
/* The exception in f (NULL: not known) as the run's crash record, and a
 * line that says it into the log; the first of a run is kept (an AP's
 * does not stop the run, so more may follow). */
void report_crash(struct suite *s, const struct int_frame *f);
/* The same for an exception in check (NULL: none) on another CPU. */
void report_crash_in(struct suite *s, const struct int_frame *f, const char *check);
/* Why the run's verdict is what it is (the verdict line's reason). */
void report_verdict_reason(const struct suite *s, char *buf, size_t n);
/* The JSON results document (schema pmuharness-results/2,
 * host/report/pmuharness-results-2.schema.json) into buf; returns the
 * length it needs. */
size_t report_json(const struct suite *s, char *buf, size_t cap);
const char *verdict_name(enum verdict v);

#endif
