/* Measurement helpers for checks: counting windows with the firmware's
 * interrupts kept out, N/2N differencing to remove the window's fixed cost,
 * repeats with min/median/max, and counter set-up through the driver ops. */
#ifndef PMH_TESTS_MEASURE_H
#define PMH_TESTS_MEASURE_H

#include "suite.h"
#include "../events/workload.h"

struct stat3 {
	uint64_t min, med, max;
};

/* The measurements' results are to be read as the ops' are. */
#define M_MUST_USE PMU_MUST_USE

/* Driver operations, judged. Every op returns an enum hw_err; a check runs
 * them through these and stops (after its clean-up) when one returns false:
 * the op failed and the check is FAILed naming the operation, the counter
 * and the error ("gp1: preload of -1000 failed: #GP"), or SKIPped when the
 * error says the family has no such register or path (HW_UNSUPPORTED).
 * A measurement goes on from a failed set-up to a misleading verdict ("PMI
 * lost", "did not count"): this is why no op result is left unread. */
enum m_op { MO_PROGRAM, MO_WRITE, MO_READ, MO_START, MO_STOP, MO_STATUS, MO_ACK, MO_PRELOAD };
/* Judges e, the result of op on the counters in mask (0: the PMU as a
 * whole) with its argument arg (the value written, the preload period). */
M_MUST_USE bool m_op(struct check_ctx *c, int e, enum m_op op, uint64_t mask, uint64_t arg);
/* The ops, run and judged. */
M_MUST_USE bool m_preload(struct check_ctx *c, unsigned ctr, uint64_t n);
M_MUST_USE bool m_write(struct check_ctx *c, unsigned ctr, uint64_t v, enum pmu_write_path path);
M_MUST_USE bool m_read(struct check_ctx *c, unsigned ctr, uint64_t *v);
/* A register a check reads or writes itself (a status, a control it
 * inspects): a fault FAILs naming the MSR and the error. */
M_MUST_USE bool m_rdmsr(struct check_ctx *c, uint32_t msr, uint64_t *v);
M_MUST_USE bool m_wrmsr(struct check_ctx *c, uint32_t msr, uint64_t v);
M_MUST_USE bool m_start(struct check_ctx *c, uint64_t mask);
M_MUST_USE bool m_stop(struct check_ctx *c, uint64_t mask);
M_MUST_USE bool m_ovf(struct check_ctx *c, uint64_t *mask);
M_MUST_USE bool m_ack(struct check_ctx *c, uint64_t mask);

/* Programs counter ctr with generic event g and flags (stopped, zeroed).
 * Returns M_OK; M_REFUSED when the family has no such event on that
 * counter or the driver refused the programming (the caller SKIPs, reports
 * the refusal or picks another counter); M_FAULT when an op failed (m_op
 * FAILed the check). */
M_MUST_USE int m_setup(struct check_ctx *c, unsigned ctr, enum pmu_generic g, uint32_t flags);
/* m_setup for a counter the check needs (one it already found the event
 * on): a refusal FAILs too. Returns whether the counter is set up. */
M_MUST_USE bool m_setup_or_fail(struct check_ctx *c, unsigned ctr, enum pmu_generic g,
				uint32_t flags);
/* Sets up each counter with g and flags (m_setup) and runs one(c, ctr,
 * arg) on it; a counter that refuses is passed over. Stops when a set-up
 * fails or one() returns false (an op failed: FAILed). Returns how many
 * counters were tested. */
typedef bool (*m_counter_fn)(struct check_ctx *c, unsigned ctr, void *arg);
unsigned m_each_counter(struct check_ctx *c, enum pmu_generic g, uint32_t flags, m_counter_fn one,
			void *arg);
/* The first counter >= from that can count g (or -1). */
int m_counter_for(struct check_ctx *c, enum pmu_generic g, unsigned from);

/* MSR_SMI_COUNT where it reads (Intel from Nehalem on); false elsewhere,
 * where an SMI in a window cannot be told. */
bool m_smi_count(const struct check_ctx *c, uint64_t *v);

/* What the measurements below return besides M_OK: negative, so that no
 * status reads as an hw_err (those are 0 and up). */
enum m_status {
	M_OK = 0,
	M_SMI = -1,	 /* an SMI in the window; in every try, for m_diff */
	M_FAULT = -2,	 /* a driver op failed: m_op FAILed (or SKIPped) the check */
	M_WRITE_GP = -3, /* the write of msr inside the window raised #GP */
	M_REFUSED = -4,	 /* m_setup: no such event on the counter, or refused */
};
/* One window: start mask, run w for iters, stop; interrupts off inside.
 * Counters must be programmed and preloaded by the caller. Returns M_SMI if
 * an SMI was seen during the window (where the CPU can tell), M_FAULT when
 * start or stop failed. */
M_MUST_USE int m_window(struct check_ctx *c, uint64_t mask, const struct workload *w,
			uint64_t iters);
/* The same window with one MSR written between start and the workload
 * (msr 0: none), for checks that override an enable the driver just set.
 * M_WRITE_GP when that write faults: the window ran without it, and what
 * the counters hold says nothing about the gate it was to set. */
M_MUST_USE int m_window_write(struct check_ctx *c, uint64_t mask, uint32_t msr, uint64_t val,
			      const struct workload *w, uint64_t iters);

/* N/2N differences over the repeats, signed (an SMI in the N window makes
 * one negative): the median, the extremes, and how many repeats equal the
 * median exactly (a majority of them makes it the mode). */
struct mdiff {
	int64_t med, min, max;
	unsigned agree, rep;
};
/* Events ctr counts per n iterations of w in windows that start the
 * counters in `start`, write msr = val (msr 0: none), run w and stop. The
 * harness's own code between start, the write and stop is the same path in
 * both windows and cancels; a window the CPU saw an SMI in is run again
 * (MSR_SMI_COUNT), elsewhere the median keeps a rare SMI out. ctr must be
 * programmed. Returns M_OK; M_SMI when one window saw an SMI in each of its
 * tries, M_FAULT, M_WRITE_GP (the write of msr faulted): *out not set. */
M_MUST_USE int m_diff(struct check_ctx *c, unsigned ctr, uint64_t start, uint32_t msr, uint64_t val,
		      const struct workload *w, uint64_t n, struct mdiff *out);
/* m_diff without a write in the window and with rep repeats (1 to the
 * repeat option's maximum) instead of the repeat option's: for
 * measurements whose windows are long (event.semantics' walks). smi_ok:
 * a window the CPU counted an SMI in is kept (a bounded measurement whose
 * bounds dwarf what SMM code adds), not run again. */
M_MUST_USE int m_diff_rep(struct check_ctx *c, unsigned ctr, uint64_t start,
			  const struct workload *w, uint64_t n, unsigned rep, bool smi_ok,
			  struct mdiff *out);
/* The N of the N/2N differences the counting, gate and filter checks
 * take: 10000 iterations of wl_loop, whose one extra event per iteration
 * (a leaking gate, a filter ignored, an event counted twice) stands far
 * above the jitter of the harness's own code and AMD's few events
 * (m_slack, K8 BKDG §10.1). */
#define M_N_ITERS 10000
/* A forced overflow whose flag a check reads: -M_OVF_PERIOD preloaded, a
 * window of M_OVF_ITERS iterations of wl_loop (300 instructions) takes the
 * counter past the wrap, whatever the harness's own code adds. */
#define M_OVF_PERIOD 10
#define M_OVF_ITERS  100
/* That overflow on ctr (programmed, interrupts off): an SMI in the window
 * does not matter, the wrap comes either way. False when an op failed
 * (FAILed). */
M_MUST_USE bool m_overflow(struct check_ctx *c, unsigned ctr);
/* A forced overflow with its PMI: -M_PMI_PERIOD over M_PMI_ITERS
 * iterations of wl_loop (3000 instructions) wraps a third of the way in,
 * and the window runs on while the PMI is delivered (SDM Vol. 3A 11.5.1). */
#define M_PMI_PERIOD 1000
#define M_PMI_ITERS  1000
/* Events ctr, started alone, counts per M_N_ITERS iterations of wl_loop
 * with msr = val written after start (msr 0: none): the median of the N/2N
 * differences into *out. Returns m_diff's status. */
M_MUST_USE int m_per_n(struct check_ctx *c, unsigned ctr, uint32_t msr, uint64_t val, int64_t *out);
/* Fails c for a measurement that returned st (not M_OK), naming what was
 * measured (what) and msr, the write inside the window: the gate write
 * raised #GP, SMIs kept disturbing the windows, or a driver op faulted
 * (M_FAULT: named by m_op already, so only a check without a verdict yet
 * gets the plain "faulted"). Nothing was measured then, and the check must
 * not pass or judge a count. */
void m_fail_status(struct check_ctx *c, int st, uint32_t msr, const char *what);
/* Events by which two identical windows may differ on this CPU: 0 on Intel
 * (exact), a few on AMD, whose counts are "not assured of producing
 * identical measurements" (K8 BKDG §10.1). */
unsigned m_slack(const struct check_ctx *c);
/* m_slack as the results JSON's tolerance of a figure (a static string). */
const char *m_slack_text(const struct check_ctx *c);
/* The same for an N/2N difference, which spans two windows. */
static inline int64_t m_diff_slack(const struct check_ctx *c)
{
	return 2 * (int64_t)m_slack(c);
}
/* An N/2N difference that is exactly e in a majority of the repeats (where
 * the CPU counts exactly: Intel). */
static inline bool m_exact(const struct mdiff *d, int64_t e)
{
	return d->med == e && d->agree * 2 > d->rep;
}
/* A closed gate (an enable bit or a global enable cleared) leaks when its
 * N/2N difference reaches 1/M_GATE_DIV of the open one: a working gate
 * leaves ~0 (what remains is the jitter of the harness's cycles and AMD's
 * few events), a broken one the whole workload. */
#define M_GATE_DIV 8
static inline bool m_leaks(int64_t closed, int64_t open)
{
	return closed * M_GATE_DIV >= open;
}
/* The median of v[0..n-1] (n >= 1; v sorted in place) and, where agree
 * is not NULL, how many of the n equal it. */
int64_t m_median(int64_t *v, unsigned n, unsigned *agree);
/* One sample of a calibration: fills v[0..k-1] from one window and returns
 * 0, 1 when an SMI was counted in that window (no sample), or a negative
 * error. It must not call m_diff (they share one buffer). */
typedef int (*m_sample_fn)(struct check_ctx *c, void *arg, uint64_t *v);
#define M_CLEAN_MAX 64 /* samples kept */
#define M_CLEAN_K   2  /* values per sample */
/* min/median/max (out[0..k-1]) of each of k values over rep samples
 * (1..M_CLEAN_MAX) from windows without an SMI: a window the CPU counted an
 * SMI in is sampled again, 2 * rep + 3 windows at most; where SMIs cannot
 * be counted a rare one makes an outlier, not the median. Returns the
 * samples kept (0: an SMI in every window) or fn's error. */
int m_median_clean(struct check_ctx *c, unsigned rep, unsigned k, m_sample_fn fn, void *arg,
		   struct stat3 *out);

/* Stops and zeroes every counter: the clean-up between and around checks.
 * It judges nothing, on purpose: on the way out the verdict is taken, and
 * before a measurement every counter it uses is set up again through
 * m_setup or m_write, which judge the same registers and name the one that
 * fails; a reset that faulted on a counter no check uses must not fail
 * them all. */
void m_quiesce(struct check_ctx *c);
const char *m_gen_name(enum pmu_generic g);

/* ---- PMI windows: the checks that take real PMIs (checks/pmi_common.h).
 * LVTPC must exist, the PMI service is armed with the configured delivery,
 * and the counting window runs with interrupts enabled so a fixed-vector
 * PMI can arrive, the TPR holding off every lower-priority interrupt (the
 * firmware's timer) so that nothing but the PMI lands in the window. */

/* SKIPs without LVTPC; FAILs a flag the reset could not clear or LVTPC
 * refusing the delivery value. Arms the service; true when armed. */
bool pmi_begin(struct check_ctx *c);
/* Stops and zeroes the counters and disarms the service. */
void pmi_end(struct check_ctx *c);
/* Start mask, run w x iters in a PMI window (interrupts on, TPR at
 * PMI_TPR), stop with interrupts off. Returns M_SMI when an SMI was counted
 * during the window (only where MSR_SMI_COUNT reads): its SMM code may have
 * been counted; M_FAULT when start or stop failed (m_op FAILed the check). */
M_MUST_USE int pmi_run(struct check_ctx *c, uint64_t mask, const struct workload *w,
		       uint64_t iters);
/* FAILs (and returns true) for what the service saw that no healthy PMU
 * does: a driver op that failed in the handler, an overflow flag that will
 * not clear, a PMI storm, interrupts on the wrong vector, PMIs that found
 * nothing pending (spurious). `what` names the counter(s) for the
 * message. Echoes are not failures (apic/pmi.h). */
bool pmi_trouble(struct check_ctx *c, const char *what);

#endif
