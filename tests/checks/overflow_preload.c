/* overflow.preload: a counter preloaded with -N overflows after exactly N
 * events. The reference is the count E of one measurement window (median of
 * the repeats). At the boundary the preset is one event past it, as the SDM
 * note kvm-unit-tests quotes asks before an interrupt is expected (the
 * overflow may take an event to propagate; x86/pmu.c measure_for_overflow):
 * -(E-1) must read 1 with the overflow flagged and raise one PMI with INT,
 * -(E+1) must read all ones, unflagged, and raise none; -E must wrap to 0
 * (flagged or not yet: the same note). A counter whose reference windows
 * cannot be used is named in the PASS line, not a SKIP of the check.
 * Then each configured N (1, 2, 1000, the largest the width allows, 2^31 on
 * sign-extending families) must read -N before counting and E - N after.
 * Tolerance: none on Intel; on AMD, whose counts vary by a few events
 * between identical runs (K8 BKDG §10.1), the harness's one bound for two
 * identical windows (m_slack: 8 events on K7-Fam16h, 4 from Zen) either
 * way, and the boundary presets move out by as much. (kvm-unit-tests'
 * -2..+5 after its preset is narrower than a K7 window was seen to vary
 * under the simulator's inexact counts: a false FAIL on a healthy core.) The flag must always agree
 * with whether the value read wrapped. */
#include "pmi_common.h"
#include "../../lib/fmt.h"
#include "../../pmu/percpu.h"

#define TRIES	3  /* windows per case: an SMI the CPU cannot count is one-off */
#define REF_MAX 31 /* reference windows at most (odd: the median is one) */
/* Every window: 100 iterations of wl_loop, a few hundred events with the
 * harness's own code; E, its count from zero, is the reference. */
#define WINDOW_ITERS 100
/* The -(E-1) preset, moved out by the tolerance, is a period of at least
 * OVER_MIN events, or the reference window is too short to judge. */
#define OVER_MIN 2
/* A second PMI right after the first: 1 ms (the check runs many windows). */
#define SECOND_PMI_US (PMI_QUIET_US / 10)
/* Where preloads take 32 bits (preload_bits), -2^31 is the largest period:
 * the sign-extension boundary (SDM Vol. 3B P6 section, 20.2.6). */
#define PRELOAD32_BITS 32
#define SIGN_BOUNDARY  (1ull << 31)

/* What a case or a counter comes to: STOP when an op failed, which FAILed
 * (or SKIPped) the check already: nothing after it is measured. ALL_SMI:
 * an SMI was counted in every window; TROUBLE: the PMI service's (FAILed,
 * the other counters are still measured). */
enum { TROUBLE = -3, ALL_SMI = -2, STOP = -1, HELD = 0, OFF = 1, UNUSED = 2, SHORT = 3 };

/* Events a window may be off E either way: where the family counts
 * inexactly (AMD: identical runs differ by an amount no document bounds,
 * K8 BKDG §10.1), the family's bound for two identical windows (m_slack)
 * plus the spread the counter's own reference windows showed (a window
 * outside that spread by more than the bound is off, not inexact); 0 on
 * exact families. Set per counter by reference(); per CPU (pmu/percpu.h). */
static uint64_t spread PMH_PERCPU;
static uint64_t tol(struct check_ctx *c)
{
	uint64_t t = m_slack(c);
	return t ? t + PCPU(spread) : 0;
}

/* Preloads -n; FAILs naming the period and the longest the driver takes. */
static bool preload(struct check_ctx *c, unsigned i, uint64_t n)
{
	int e = pmu_preload(c->pmu, i, n);

	if (e != HW_OK)
		check_fail(c, "%s: preload of -%llu refused (max period %llu): %s",
			   c->pmu->ctr[i].name, (unsigned long long)n,
			   (unsigned long long)pmu_max_period(c->pmu, i), hw_err_name(e));
	return e == HW_OK;
}

/* Whether the value v read after preloading -n and a window of e events,
 * and the flag, agree; the message in msg when not. */
static bool agrees(struct check_ctx *c, unsigned i, uint64_t n, uint64_t e, uint64_t v,
		   bool got_ovf, char *msg, size_t len)
{
	uint64_t mask = pmu_width_mask(c->pmu->ctr[i].width);
	const char *name = c->pmu->ctr[i].name;
	uint64_t t = tol(c);		/* events a window may be off E either way */
	uint64_t seen = (v + n) & mask; /* events counted, as the value tells */

	if (seen + t < e || seen > e + t) {
		pmh_fmt(msg, len, "%s: preload -%llu then %llu events: expected 0x%llx, got 0x%llx",
			name, (unsigned long long)n, (unsigned long long)e,
			(unsigned long long)((e - n) & mask), (unsigned long long)v);
		return false;
	}
	/* exactly at the wrap the flag may not have propagated yet: the SDM
	 * note kvm-unit-tests quotes (x86/pmu.c measure_for_overflow) presets
	 * one event more before it expects the overflow */
	if (seen != n && got_ovf != (seen >= n)) {
		pmh_fmt(msg, len,
			"%s: preload -%llu then %llu events (0x%llx): expected the overflow "
			"%s, got it %s",
			name, (unsigned long long)n, (unsigned long long)seen,
			(unsigned long long)v, seen >= n ? "flagged" : "not flagged",
			got_ovf ? "flagged" : "not flagged");
		return false;
	}
	return true;
}

/* Preload -n, run one window, compare with E: HELD, OFF (message in msg)
 * or STOP. */
static int one(struct check_ctx *c, unsigned i, uint64_t n, uint64_t e, char *msg, size_t len)
{
	uint64_t mask = pmu_width_mask(c->pmu->ctr[i].width), v = 0, m = 0;

	if (!m_ack(c, 1ull << i) || !preload(c, i, n) || !m_read(c, i, &v))
		return STOP;
	if (v != ((0 - n) & mask)) {
		pmh_fmt(msg, len, "%s: after preloading -%llu expected 0x%llx, read 0x%llx",
			c->pmu->ctr[i].name, (unsigned long long)n,
			(unsigned long long)((0 - n) & mask), (unsigned long long)v);
		return OFF;
	}
	/* an SMI in the window makes the case OFF: measured again below */
	if (m_window(c, 1ull << i, &wl_loop, WINDOW_ITERS) == M_FAULT || !m_read(c, i, &v) ||
	    !m_ovf(c, &m) || !m_ack(c, 1ull << i))
		return STOP;
	return agrees(c, i, n, e, v, (m >> i) & 1, msg, len) ? HELD : OFF;
}

/* A case that is off is measured again: a fault repeats, an SMI does not.
 * False on STOP. */
static bool check_one(struct check_ctx *c, unsigned i, uint64_t n, uint64_t e)
{
	char msg[200];
	int st = OFF;

	for (unsigned k = 0; k < TRIES && st == OFF; k++)
		st = one(c, i, n, e, msg, sizeof(msg));
	if (st == OFF)
		check_fail(c, "%s", msg);
	return st != STOP;
}

/* One preset of the PMI part, retried while an SMI was counted in its
 * window (its SMM code may have moved the wrap). Returns the PMIs taken,
 * STOP, ALL_SMI or TROUBLE. */
static int64_t boundary_one(struct check_ctx *c, unsigned i, uint64_t n)
{
	const volatile struct pmi_stats *s = pmi_stats();

	for (unsigned t = 0; t < TRIES; t++) {
		if (!m_ack(c, 1ull << i))
			return STOP;
		pmi_reset_stats();
		if (!preload(c, i, n))
			return STOP;
		int st = m_window(c, 1ull << i, &wl_loop, WINDOW_ITERS);
		if (st == M_FAULT)
			return STOP;
		pmi_wait(1, PMI_QUIET_US);
		pmi_wait(2, SECOND_PMI_US);
		if (pmi_trouble(c, c->pmu->ctr[i].name))
			return TROUBLE;
		/* a late PMI with nothing pending, where the family documents
		 * one (apic/pmi.c echo), is not a second PMI of this preset */
		if (st != M_SMI)
			return (int64_t)(s->total - s->echo);
	}
	return ALL_SMI;
}

/* With INT: -over raises exactly one PMI, -under none. Returns HELD when
 * judged, OFF when an SMI was counted in every window of a preset (not
 * judged), STOP. */
static int boundary_pmi(struct check_ctx *c, unsigned i, uint64_t e, uint64_t over, uint64_t under)
{
	int64_t got[2] = {0, 0};
	uint64_t pre[2] = {over, under};
	int st = m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);

	if (st != M_OK)
		return st == M_REFUSED ? HELD : STOP;
	/* a pair that is off is measured again, as the cases without PMI: a
	 * fault repeats, a window AMD counted a few events off does not */
	for (unsigned try = 0; try < TRIES; try++) {
		for (unsigned k = 0; k < 2; k++) {
			got[k] = boundary_one(c, i, pre[k]);
			if (got[k] < 0)
				break;
		}
		if (got[0] < 0 || got[1] < 0 || (got[0] == 1 && got[1] == 0))
			break;
	}
	/* leave it zeroed without INT: on P6 it runs beside the next counter
	 * (EN lives in EVNTSEL0 only, SDM Vol. 3B P6 section) */
	if (!m_ack(c, 1ull << i) || !m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR))
		return STOP;
	if (got[0] == STOP || got[1] == STOP)
		return STOP;
	if (got[0] == ALL_SMI || got[1] == ALL_SMI)
		return OFF;
	if (got[0] < 0 || got[1] < 0)
		return HELD; /* failed above */
	if (got[0] != 1 || got[1] != 0)
		check_fail(c,
			   "%s: with INT, preset -%llu (past the window's %llu events) raised %llu "
			   "PMIs, -%llu (short of them) %llu: expected 1 and 0 (%s)",
			   c->pmu->ctr[i].name, (unsigned long long)over, (unsigned long long)e,
			   (unsigned long long)got[0], (unsigned long long)under,
			   (unsigned long long)got[1], got[0] ? "extra PMI" : "PMI lost");
	return HELD;
}

/* One window of counter i from zero; 1 when an SMI was counted in it, -1
 * when an op failed (FAILed). */
static int ref_sample(struct check_ctx *c, void *arg, uint64_t *v)
{
	unsigned i = *(const unsigned *)arg;

	if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
		return -1;
	int st = m_window(c, 1ull << i, &wl_loop, WINDOW_ITERS);
	if (st != M_OK)
		return st == M_SMI ? 1 : -1;
	return m_read(c, i, v) ? 0 : -1;
}

/* The window's count from zero: the median of the repeats without an SMI
 * (one the CPU cannot count makes an outlier, not the median). Returns
 * HELD, STOP or ALL_SMI. */
static int reference(struct check_ctx *c, unsigned i, uint64_t *e)
{
	unsigned rep = c->opt->repeat < REF_MAX ? c->opt->repeat : REF_MAX;
	struct stat3 st;
	int got = m_median_clean(c, rep, 1, ref_sample, &i, &st);

	c->fig.tolerance = m_slack_text(c); /* for the results JSON */
	if (got <= 0)
		return got < 0 ? STOP : ALL_SMI;
	*e = st.med;
	PCPU(spread) = st.max - st.min;
	return HELD;
}

/* The cases of counter i without PMI, each preset measured against E.
 * False on STOP. */
static bool cases(struct check_ctx *c, unsigned i, uint64_t e, uint64_t over, uint64_t under)
{
	struct pmu *p = c->pmu;
	uint64_t t = tol(c); /* events a window may be off E either way */

	if (!check_one(c, i, over, e) || !check_one(c, i, under, e))
		return false;
	if (!t && !check_one(c, i, e, e)) /* exact: wraps to exactly 0 */
		return false;
	for (unsigned k = 0; k < c->opt->n_preloads; k++) {
		uint64_t n = c->opt->preloads[k] ? c->opt->preloads[k] : pmu_max_period(p, i);
		if (n <= pmu_max_period(p, i) && !check_one(c, i, n, e))
			return false;
	}
	/* the sign-extension boundary */
	return p->ctr[i].preload_bits != PRELOAD32_BITS || check_one(c, i, SIGN_BOUNDARY, e);
}

/* Counter i: HELD, OFF when the PMI part was not judged (an SMI in every
 * window), UNUSED (an SMI in every reference window) or SHORT (the window
 * counted too few events) when nothing was judged, STOP. */
static int one_counter(struct check_ctx *c, unsigned i, bool pmi, uint64_t *e)
{
	int st = reference(c, i, e);
	uint64_t t = tol(c); /* events a window may be off E either way */

	if (st == ALL_SMI)
		return UNUSED;
	if (st)
		return STOP;
	uint64_t over = *e - 1 - t, under = *e + 1 + t;
	if (*e < t + 1 + OVER_MIN)
		return SHORT;
	if (!cases(c, i, *e, over, under))
		return STOP;
	return pmi ? boundary_pmi(c, i, *e, over, under) : HELD;
}

/* The PASS line's note on the PMI part. */
static void pmi_note(const char *why, unsigned unjudged, unsigned tested, char *note, size_t len)
{
	if (why)
		pmh_fmt(note, len, "; PMI part not run: %s", why);
	else if (unjudged)
		pmh_fmt(note, len,
			"; PMI part not judged on %u of %u counters: an SMI was counted in "
			"every window",
			unjudged, tested);
	else
		pmh_fmt(note, len,
			"; 1 PMI for a preset one event past it (SDM note quoted by "
			"kvm-unit-tests), 0 one short");
}

/* What the counters come to over the check. */
struct tally {
	bool pmi;	   /* the PMI part runs */
	uint64_t e;	   /* the last counter's reference count */
	unsigned unjudged; /* counters whose PMI part was not judged */
	unsigned unused;   /* counters not judged at all; why, of the first */
	char why[96];
};

static bool counter(struct check_ctx *c, unsigned i, void *arg)
{
	struct tally *t = arg;
	uint64_t e = 0;
	int st = one_counter(c, i, t->pmi, &e);

	t->unjudged += st == OFF;
	if (st == UNUSED || st == SHORT) {
		if (!t->unused++)
			pmh_fmt(t->why, sizeof(t->why),
				st == UNUSED ? "%s: an SMI in every reference window"
					     : "%s: reference window of %llu events",
				c->pmu->ctr[i].name, (unsigned long long)e);
	} else
		t->e = e;
	return st != STOP;
}

static void run(struct check_ctx *c)
{
	const char *why = apic_lvt_pc_unusable(c->apic);
	struct tally y = {!why, 0, 0, 0, ""};
	char note[160], unused[128] = "";

	/* pmi_begin FAILs a flag the reset could not clear and LVTPC refusing
	 * the delivery value; an APIC without LVTPC leaves the PMI part out. */
	if (y.pmi && !pmi_begin(c))
		return;
	m_quiesce(c);
	unsigned tested = m_each_counter(c, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR, counter, &y);
	if (y.pmi)
		pmi_end(c);
	else
		m_quiesce(c);
	uint64_t t = tol(c); /* events a window may be off E either way */
	char tol[64] = "none";
	if (t)
		pmh_fmt(tol, sizeof(tol), "+-%llu, AMD: K8 BKDG §10.1", (unsigned long long)t);
	pmi_note(why, y.unjudged, tested, note, sizeof(note));
	if (y.unused)
		pmh_fmt(unused, sizeof(unused), "; %u not judged (%s)", y.unused, y.why);
	if (!tested)
		check_skip(c, "no counter can count instructions");
	else if (y.unused == tested)
		check_skip(c, "none of %u counters judged; the first: %s", tested, y.why);
	else
		check_pass(c,
			   "%u of %u counters overflow after exactly N events (window of %llu; "
			   "tolerance %s)%s%s",
			   tested - y.unused, tested, (unsigned long long)y.e, tol, note, unused);
}

PMH_CHECK(overflow_preload, .id = "overflow.preload", .summary = "-N preload overflows after N",
	  .order = 50, .needs_pmu = true, .run = run);
