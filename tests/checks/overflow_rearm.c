/* overflow.rearm: a counter re-armed with -N by the PMI handler keeps
 * overflowing, every overflow delivered, one PMI each. How many overflows a
 * window of E events gives is not E/N on a real core: the events between an
 * overflow and its re-arm (the skid, which the handler reads from the
 * stopped counter) are lost, and the handler's own instructions before it
 * stops and after it restarts the counter are counted (h per PMI, measured
 * with one PMI and no re-arm) except for the L PMIs still in flight when
 * the window stopped the counter. Over K overflows the counter saw
 * E + (K-L)*h = K*N + sum(skid) + R (R: what it holds past its last
 * re-arm), so
 *     K = (E - sum(skid) - R - L*h) / (N - h).
 * Tolerance: +-1 overflow (see TOL_X10). A counter that wrapped after its
 * last re-arm without a PMI (R >= N) lost one. The skid each overflow
 * lost may not pass the family's limit (struct pmu_ops.skid_limit) and the
 * handler's own count h: what the handler reads is the skid and its own
 * path up to the stop, which no core's documented skid includes. */
#include "pmi_common.h"

/* The re-arm period, at least (a longer one keeps the handler's own
 * count well inside it: HANDLER_MARGIN), over a window of ITERS
 * iterations of wl_loop: 30000 instructions, some 30 overflows; longer
 * where the family's skid limit is (iters_of): a PMI as late as the
 * limit still comes inside the window, so its skid is measured, not cut
 * off at the window's end. */
#define N_MIN	       1000
#define ITERS	       10000
#define HANDLER_MARGIN 4  /* the period is at least 4 x the handler's count */
#define MAX_REP	       15 /* calibration windows at most */
#define TRIES	       3  /* windows, where an SMI cannot be told from a wrong count */
/* PMIs still in flight when the window stopped the counter (Linux p4_pmu_handle_irq),
 * waited for one by one, PMI_QUIET_US each, this many at most. */
#define LATE_PMIS 8
/* Overflow counts are computed in tenths; +-1 overflow: the count is exact
 * up to the handler's path varying between PMIs and AMD's few inexact
 * events per window (K8 BKDG §10.1). */
#define X10	10
#define TOL_X10 X10

/* What calibration comes to besides 0: an op failed (FAILed), the one
 * PMI did not come once, or an SMI was counted in every window. */
enum { STOPPED = -1, ONE_PMI_OFF = -2, ALL_SMI = -3 };
#define CAL_K 2 /* values per calibration sample: without and with one PMI */

struct win {
	uint64_t v;		 /* the counter after the window */
	uint64_t k, total, echo; /* overflows, PMIs, echoes */
	uint64_t late;		 /* PMIs after the window: no handler count */
	uint64_t skid;		 /* events lost between overflows and re-arms */
	uint64_t skid_max;	 /* the most one PMI lost (of those logged) */
	bool smi;		 /* an SMI was counted in the window */
};

static uint64_t iters_of(const struct check_ctx *c)
{
	uint64_t need =
	    (N_MIN + 2ull * c->pmu->ops->skid_limit) / wl_loop.per_iter.instructions + 1;
	return need > ITERS ? need : ITERS;
}

/* One window of iters_of() iterations; n = 0: INT clear, no PMI; else preload -n
 * with INT, re-armed with -n after every overflow when rearm is set.
 * Returns false when an op failed (FAILed). */
static bool window(struct check_ctx *c, unsigned i, uint64_t n, bool rearm, struct win *o)
{
	const volatile struct pmi_stats *s = pmi_stats();

	if (!m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | (n ? PMU_F_INT : 0)))
		return false;
	pmi_reset_stats();
	pmi_set_reload(i, rearm ? n : 0);
	int st = n && !m_preload(c, i, n) ? M_FAULT : pmi_run(c, 1ull << i, &wl_loop, iters_of(c));
	if (st == M_FAULT) {
		pmi_set_reload(i, 0);
		return false;
	}
	o->smi = st == M_SMI;
	/* the last overflow's PMI may come after the window: wait it out */
	for (unsigned k = 0; n && k < LATE_PMIS && pmi_wait(s->total + 1, PMI_QUIET_US); k++)
		;
	pmi_set_reload(i, 0);
	o->k = s->overflows[i];
	o->total = s->total;
	o->echo = s->echo;
	o->late = s->after_stop;
	o->skid = s->skid_sum;
	o->skid_max = 0;
	for (uint64_t k = 0; k < s->n_log && k < PMI_LOG; k++)
		o->skid_max = s->skid[k] > o->skid_max ? s->skid[k] : o->skid_max;
	return m_read(c, i, &o->v);
}

/* One calibration sample: v[0] the reference window (no PMI), v[1] the
 * window with one PMI and no re-arm. 1 when an SMI was counted in either,
 * STOPPED, ONE_PMI_OFF. */
static int cal_sample(struct check_ctx *c, void *arg, uint64_t *v)
{
	unsigned i = *(const unsigned *)arg;
	struct win wr, wo;

	if (!window(c, i, 0, false, &wr) || !window(c, i, N_MIN, false, &wo))
		return STOPPED;
	if (wo.k != 1)
		return ONE_PMI_OFF;
	v[0] = wr.v;
	v[1] = wo.v;
	return wr.smi || wo.smi;
}

/* The reference (no PMI) and the handler's own count (one PMI, no re-arm),
 * each the median of the configured repeats (AMD adds a few events to a
 * window now and then, K8 BKDG §10.1); a window with an SMI counted is not
 * used. Returns 0, cal_sample's error, or ALL_SMI. */
static int calibrate(struct check_ctx *c, unsigned i, uint64_t *e, int64_t *h)
{
	uint64_t mask = pmu_width_mask(c->pmu->ctr[i].width);
	unsigned rep = c->opt->repeat < MAX_REP ? c->opt->repeat : MAX_REP;
	struct stat3 st[CAL_K];
	int got = m_median_clean(c, rep, CAL_K, cal_sample, &i, st);

	if (got <= 0)
		return got < 0 ? got : ALL_SMI;
	*e = st[0].med;
	*h = (int64_t)((st[1].med + N_MIN - st[0].med) & mask);
	if (*h > (int64_t)(mask >> 1))
		*h -= (int64_t)mask + 1; /* fewer than E: a negative difference */
	return 0;
}

static int64_t expect_x10(uint64_t e, const struct win *w, uint64_t r, uint64_t n, int64_t h)
{
	int64_t left = (int64_t)e - (int64_t)w->skid - (int64_t)r - (int64_t)w->late * h;
	return left * X10 / ((int64_t)n - h);
}

static void verdict(struct check_ctx *c, unsigned i, uint64_t n, uint64_t e, int64_t h,
		    const struct win *w, unsigned tries)
{
	const char *name = c->pmu->ctr[i].name;
	uint64_t r = (w->v + n) & pmu_width_mask(c->pmu->ctr[i].width);
	int64_t x10 = expect_x10(e, w, r, n, h), k10 = (int64_t)w->k * X10;
	const char *again = tries > 1 ? "; re-measured" : "";

	uint64_t lim = c->pmu->ops->skid_limit;

	if (r >= n)
		check_fail(c,
			   "%s: re-armed with -%llu, it holds %llu events past its last re-arm: an "
			   "overflow raised no PMI (PMIs lost)",
			   name, (unsigned long long)n, (unsigned long long)r);
	else if (lim && w->skid_max > lim + (uint64_t)(h > 0 ? h : 0))
		/* the expectation below takes the skid as measured: a PMI
		 * late by any amount would fit it */
		check_fail(c,
			   "%s: a PMI came %llu events after its overflow (skid), over this "
			   "family's limit of %llu (the skid check's: its documented skid) and "
			   "the handler's own %lld",
			   name, (unsigned long long)w->skid_max, (unsigned long long)lim,
			   (long long)h);
	else if (k10 < x10 - TOL_X10 || k10 > x10 + TOL_X10)
		check_fail(
		    c,
		    "%s re-armed with -%llu over %llu events: expected %lld.%lld +-1 "
		    "overflows (%llu events of skid lost, handler %lld per PMI), got %llu (%s)%s",
		    name, (unsigned long long)n, (unsigned long long)e, (long long)(x10 / X10),
		    (long long)(x10 % X10), (unsigned long long)w->skid, (long long)h,
		    (unsigned long long)w->k, k10 < x10 ? "PMIs lost" : "too many", again);
	else if (w->total - w->echo != w->k)
		check_fail(c, "%s: expected one PMI per overflow (%llu), got %llu PMIs", name,
			   (unsigned long long)w->k, (unsigned long long)(w->total - w->echo));
	else
		check_pass(
		    c,
		    "%s: %llu overflows of -%llu over %llu events, each delivered; expected "
		    "%lld.%lld+-1 from the skid (%llu events lost) and the handler's own %lld "
		    "per PMI (+-1: handler path, AMD's K8 BKDG §10.1)%s",
		    name, (unsigned long long)w->k, (unsigned long long)n, (unsigned long long)e,
		    (long long)(x10 / X10), (long long)(x10 % X10), (unsigned long long)w->skid,
		    (long long)h, again);
}

/* calibrate(), with its verdict where it did not come to E and h: false
 * then (FAILed or SKIPped). */
static bool calibrated(struct check_ctx *c, unsigned i, uint64_t *e, int64_t *h)
{
	const char *name = c->pmu->ctr[i].name;
	int st = calibrate(c, i, e, h);

	if (st == ONE_PMI_OFF && !pmi_trouble(c, name))
		check_fail(c,
			   "%s: one overflow of -%u: %llu PMIs collecting %llu overflows, "
			   "expected 1 (PMI lost)",
			   name, N_MIN, (unsigned long long)pmi_stats()->total,
			   (unsigned long long)pmi_stats()->overflows[i]);
	else if (st == ALL_SMI)
		check_skip(c, "an SMI was counted in every reference window");
	return st == 0;
}

static void run(struct check_ctx *c)
{
	int i = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	const char *name;
	uint64_t e = 0, n = N_MIN;
	int64_t h = 0;
	struct win w;
	unsigned t, smis = 0;
	bool ok = false, read = true;

	if (i < 0) {
		check_skip(c, "no counter can count instructions");
		return;
	}
	name = c->pmu->ctr[i].name;
	if (!pmi_begin(c))
		return;
	if (!calibrated(c, (unsigned)i, &e, &h)) {
		pmi_end(c);
		return;
	}
	if (h > 0 && (uint64_t)h * HANDLER_MARGIN > n)
		n = (uint64_t)h * HANDLER_MARGIN;
	for (t = 1; t <= TRIES && !ok; t++) {
		read = window(c, (unsigned)i, n, true, &w);
		if (!read || pmi_trouble(c, name))
			break;
		if (w.smi) {
			smis++;
			continue; /* SMM code counted (MSR_SMI_COUNT): measure again */
		}
		uint64_t r = (w.v + n) & pmu_width_mask(c->pmu->ctr[i].width);
		int64_t x10 = expect_x10(e, &w, r, n, h), k10 = (int64_t)w.k * X10;
		/* where SMIs cannot be counted one looks like a wrong count:
		 * another window decides (a fault gives the same count each time) */
		ok = r < n && k10 >= x10 - TOL_X10 && k10 <= x10 + TOL_X10;
	}
	pmi_end(c);
	if (!read)
		return; /* an op failed: FAILed (or SKIPped) by m_op */
	if (!c->n_fail && smis == TRIES)
		check_skip(c,
			   "%s: an SMI was counted in every window (%u): its SMM code may have "
			   "been counted",
			   name, TRIES);
	else if (!c->n_fail)
		verdict(c, (unsigned)i, n, e, h, &w, t > TRIES ? TRIES : t - 1);
}

PMH_CHECK(overflow_rearm, .id = "overflow.rearm", .summary = "repeated overflows all delivered",
	  .order = 54, .needs_pmu = true, .run = run);
