/* count.filters: the privilege and threshold filters of the event select
 * change counts the documented way (Intel SDM Vol. 3B 18.2.1.1
 * IA32_PERFEVTSELx USR, OS, E, INV, CMASK; K8 BKDG 10.2 PerfEvtSel; KNC
 * table 1-5; NetBurst ESCR OS/USR and CCCR compare, complement, threshold,
 * edge, where "mask m" counts the cycles with more than m events: every
 * comparison below holds for both readings). Measured on the retired-
 * instructions counter, in N/2N differences (the harness's own code
 * cancels) unless said:
 *   OS only         = OS|USR; USR only = 0 from zero (the harness runs at
 *                     CPL 0, its own code included)
 *   mask 1          <= cycles, < instructions on wl_loop, which retires
 *                     3 instructions in about a cycle
 *   largest mask    = 0 where it is 15 or more (no core retires that many
 *                     a cycle); on K7/K8 (3; 4-255 reserved) <= mask 1
 *   mask 1 + mask 1 inverted = cycles: each cycle passes the comparison
 *                     or fails it (wl_loop, and the chase below)
 *   edge of mask 1 inverted, on a pointer chase that stalls at every
 *                     element: > 0 and at most half the cycles the
 *                     inverted condition holds (the SDM's E flag: "the
 *                     average length of time spent in such a state") */
#include "../measure.h"
#include "../platform.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"

/* The single windows from zero (USR-only): 60000 instructions of wl_loop,
 * so that a count that must be 0 is far from it. */
#define WINDOW_ITERS 20000
/* The largest counter mask there is where the driver names none: the
 * 8-bit CMASK field, bits 31:24 (SDM Vol. 3B 18.2.1.1). */
#define CMASK_FIELD_MAX 255
/* A counter mask from which nothing counts: no core retires 15
 * instructions a cycle, and NetBurst's 4-bit threshold (at most 15)
 * counts "more than". */
#define CMASK_NONE 15
/* Cycle counts are compared within 1/CYC_DIV of the cycles (ours): two
 * windows of the same loop differ by far less; a filter ignored moves the
 * figure by its whole size. */
#define CYC_DIV 8
/* The chase: 256 KiB, four times the largest L1D of these cores (64 KiB,
 * K7/K8), in 64-byte elements linked in a random cycle that no
 * prefetcher follows; N/2N over CHASE_PASSES passes. */
#define CHASE_BYTES  (256u << 10)
#define CHASE_STRIDE 64u
#define CHASE_LINES  (CHASE_BYTES / CHASE_STRIDE)
#define CHASE_PASSES 4u
/* A chase element waits for its load: the L2's load-to-use latency where
 * it misses the L1D, as most do here (several cycles more than the L1D's
 * 2-4 on every core here: Intel 64 and IA-32 Optimization Reference
 * Manual cache tables; AMD Software Optimization Guide #25112), less the
 * cycle its instructions retire in. So the stall condition holds
 * EDGE_DIV cycles or more per edge (ours: a margin well below that). */
#define EDGE_DIV 2

#define REFUSED INT64_MIN

/* One run of the check: the counters and what the windows need. */
struct filt {
	struct check_ctx *c;
	unsigned i;    /* counts instructions */
	int cyc;       /* counts cycles (-1: no such event) */
	const char *n; /* i's name */
	int64_t tol;   /* m_diff_slack */
	/* the last diff()'s spread over its repeats (max - min), and c1's */
	int64_t spread, c1_spread;
	struct workload chase;
	struct wl_args args;
	void *raw; /* the chase's memory (0: none) */
};

/* One window of WINDOW_ITERS from zero: ~0 when refused or when an op
 * failed (FAILed first). */
static uint64_t count(struct check_ctx *c, unsigned i, uint32_t flags)
{
	uint64_t v = 0;
	/* a window an SMI landed in is used as it is (not retried) */
	if (m_setup(c, i, GEN_INSTRUCTIONS, flags) ||
	    m_window(c, 1ull << i, &wl_loop, WINDOW_ITERS) == M_FAULT || !m_read(c, i, &v))
		return ~0ull;
	return v;
}

/* Events of g on counter ctr per n iterations of w (N/2N median); REFUSED
 * when the programming is refused or the measurement failed (which FAILs
 * first, naming why). */
static int64_t diff(struct filt *f, unsigned ctr, enum pmu_generic g, uint32_t flags,
		    const struct workload *w, uint64_t n)
{
	struct mdiff d;
	if (m_setup(f->c, ctr, g, flags) != M_OK)
		return REFUSED;
	int st = m_diff(f->c, ctr, 1ull << ctr, 0, 0, w, n, &d);
	if (st != M_OK) {
		m_fail_status(f->c, st, 0, f->c->pmu->ctr[ctr].name);
		return REFUSED;
	}
	f->spread = d.max - d.min;
	return d.med;
}

/* Instructions per M_N_ITERS of wl_loop with flags. */
static int64_t loop(struct filt *f, uint32_t flags)
{
	return diff(f, f->i, GEN_INSTRUCTIONS, flags, &wl_loop, M_N_ITERS);
}

static int64_t cycles_of(struct filt *f, const struct workload *w, uint64_t n)
{
	if (f->cyc < 0)
		return REFUSED;
	return diff(f, (unsigned)f->cyc, GEN_CYCLES, PMU_F_OS | PMU_F_USR, w, n);
}

static int64_t abs64(int64_t x)
{
	return x < 0 ? -x : x;
}

/* Mask m and mask m inverted split the cycles between them: their sum is
 * the cycles, within 1/CYC_DIV and the counts' slack; an invert bit that
 * is ignored counts the mask's own cycles twice. */
static void inverted(struct filt *f, const char *wl, int64_t on, int64_t inv, int64_t cyc)
{
	int64_t tol = cyc / CYC_DIV + 3 * f->tol;
	if (on == REFUSED || inv == REFUSED || cyc == REFUSED)
		check_fail(f->c, "%s: counter mask 1 inverted on %s: not measured (refused)", f->n,
			   wl);
	else if (abs64(on + inv - cyc) > tol)
		check_fail(f->c,
			   "%s: counter mask 1 inverted on %s: expected %lld, the %lld cycles less "
			   "the %lld not inverted (+-%lld: 1/%u, ours), got %lld",
			   f->n, wl, (long long)(cyc - on), (long long)cyc, (long long)on,
			   (long long)tol, CYC_DIV, (long long)inv);
}

/* The largest mask the family documents: nothing (>= 15), or on K7/K8
 * at most the mask 1 count c1. */
static void largest(struct filt *f, int64_t c1)
{
	struct pmu *p = f->c->pmu;
	unsigned cm = p->cmask_max ? p->cmask_max : CMASK_FIELD_MAX;
	int64_t hi = loop(f, PMU_F_OS | PMU_F_USR | PMU_F_CMASK(cm)), tol = f->tol;
	/* two differences, each within tol of what counted, and as far apart
	 * again as their repeats spread (the events of VM exits under a
	 * hypervisor, which the family's slack does not bound) */
	int64_t tol2 = 2 * tol + f->c1_spread + f->spread;

	if (cm >= CMASK_NONE && (hi == REFUSED || abs64(hi) > tol))
		check_fail(f->c,
			   "%s: counter mask %u: expected 0 (+-%lld) per %u iterations, got %lld",
			   f->n, cm, (long long)tol, M_N_ITERS, (long long)hi);
	else if (cm < CMASK_NONE && (hi == REFUSED || c1 == REFUSED || hi > c1 + tol2))
		check_fail(f->c,
			   "%s: counter mask %u: expected at most the counter mask 1 count %lld "
			   "(+-%lld: twice the slack and the repeats' spread) per %u iterations, "
			   "got %lld",
			   f->n, cm, (long long)c1, (long long)tol2, M_N_ITERS, (long long)hi);
}

/* wl_loop: mask 1 counts cycles, at most the cycles and fewer than the
 * instructions (insn: OS|USR per M_N_ITERS); the largest mask; invert. */
static void masks_loop(struct filt *f, int64_t insn)
{
	const uint32_t all = PMU_F_OS | PMU_F_USR;
	int64_t c1 = loop(f, all | PMU_F_CMASK(1));
	f->c1_spread = f->spread;
	int64_t cyc = cycles_of(f, &wl_loop, M_N_ITERS);
	int64_t tol = cyc == REFUSED ? 0 : cyc / CYC_DIV + 2 * f->tol;

	/* retirement is in order and two or more wide on every core here
	 * (KNC pairs its U and V pipes, the rest retire three or more):
	 * wl_loop's add, dec and jnz complete within a cycle of each other
	 * and leave together, so fewer cycles retire than instructions */
	if (c1 == REFUSED || c1 + f->tol >= insn)
		check_fail(f->c,
			   "%s: counter mask 1: expected fewer cycles than the %lld instructions "
			   "(+-%lld) per %u iterations of wl_loop, got %lld",
			   f->n, (long long)insn, (long long)f->tol, M_N_ITERS, (long long)c1);
	else if (cyc != REFUSED && c1 > cyc + tol)
		check_fail(f->c,
			   "%s: counter mask 1: expected at most the %lld cycles (+%lld: 1/%u, "
			   "ours) per %u iterations, got %lld",
			   f->n, (long long)cyc, (long long)tol, CYC_DIV, M_N_ITERS, (long long)c1);
	largest(f, c1);
	if (cyc != REFUSED)
		inverted(f, "wl_loop", c1, loop(f, all | PMU_F_CMASK(1) | PMU_F_INV), cyc);
}

/* The chase's memory and chain; false when the platform gives none. */
static bool chase_on(struct filt *f)
{
	const struct platform *p = f->c->s ? f->c->s->platform : 0;

	if (!p || !p->alloc || !p->free)
		return false;
	f->raw = p->alloc(p->ctx, CHASE_BYTES + 4096);
	if (!f->raw)
		return false;
	f->args.buf = (void *)(((uintptr_t)f->raw + 4095) & ~(uintptr_t)4095);
	f->args.lines = CHASE_LINES;
	f->args.stride = CHASE_STRIDE;
	workload_chain(f->args.buf, CHASE_LINES, CHASE_STRIDE, 1);
	f->chase = wl_chase;
	f->chase.args = &f->args;
	hw_run_workload(&f->chase, 1); /* the caches' steady state */
	return true;
}

static void chase_off(struct filt *f)
{
	const struct platform *p = f->c->s ? f->c->s->platform : 0;
	if (f->raw && p && p->free)
		p->free(p->ctx, f->raw);
	f->raw = 0;
}

/* The chase: every element a stall (its successor's address is its
 * data), so that edge detect has episodes to count. */
static void masks_chase(struct filt *f, int64_t *edges, int64_t *stalls)
{
	const uint32_t m1 = PMU_F_OS | PMU_F_USR | PMU_F_CMASK(1);
	const struct workload *w = &f->chase;
	int64_t on = diff(f, f->i, GEN_INSTRUCTIONS, m1, w, CHASE_PASSES);
	int64_t inv = diff(f, f->i, GEN_INSTRUCTIONS, m1 | PMU_F_INV, w, CHASE_PASSES);
	int64_t e = diff(f, f->i, GEN_INSTRUCTIONS, m1 | PMU_F_INV | PMU_F_EDGE, w, CHASE_PASSES);
	int64_t cyc = cycles_of(f, w, CHASE_PASSES);

	if (cyc != REFUSED)
		inverted(f, "the chase", on, inv, cyc);
	*edges = e;
	*stalls = inv;
	if (e == REFUSED || inv == REFUSED || e <= f->tol || e * EDGE_DIV > inv + f->tol)
		check_fail(f->c,
			   "%s: edge detect of counter mask 1 inverted on a chase of %u elements: "
			   "expected more than 0, at most 1/%u of the %lld stall cycles (+-%lld), "
			   "got %lld",
			   f->n, CHASE_LINES * CHASE_PASSES, EDGE_DIV, (long long)inv,
			   (long long)f->tol, (long long)e);
}

/* OS only = OS|USR, USR only = 0; OS|USR per M_N_ITERS (REFUSED, or <= 0
 * when it failed). */
static int64_t privilege(struct filt *f, int64_t *os)
{
	int64_t both = loop(f, PMU_F_OS | PMU_F_USR);
	uint64_t usr = count(f->c, f->i, PMU_F_USR);

	*os = loop(f, PMU_F_OS);
	if (both <= 0)
		check_fail(f->c, "%s: expected instructions with OS|USR, counted %s", f->n,
			   both == REFUSED ? "nothing (programming refused)" : "0");
	else if (abs64(*os - both) > f->tol)
		check_fail(f->c,
			   "%s: OS-only filter in ring 0: expected %lld (OS|USR) +-%lld per %u "
			   "iterations, got %lld",
			   f->n, (long long)both, (long long)f->tol, M_N_ITERS, (long long)*os);
	/* nothing the harness runs is at CPL > 0, its own code included */
	if (usr != 0)
		check_fail(f->c, "%s: USR-only filter in ring 0: expected 0, got %llu", f->n,
			   (unsigned long long)usr);
	return both;
}

/* The threshold filters; what was not measured into why (the PASS
 * message says it). */
static void thresholds(struct filt *f, int64_t insn, char *why, size_t n)
{
	int64_t e = 0, st = 0;

	masks_loop(f, insn);
	if (f->cyc < 0)
		pmh_fmt(why, n, "; no cycles event: mask <= cycles, invert not compared");
	if (!chase_on(f)) {
		size_t k = pmh_strlen(why);
		pmh_fmt(why + k, n - k, "; SKIP edge: no memory for the chase");
		return;
	}
	masks_chase(f, &e, &st);
	chase_off(f);
	if (!*why)
		pmh_fmt(why, n, "; mask, invert as documented; edge %lld in %lld stall cycles",
			(long long)e, (long long)st);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	int i = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	struct filt f = {.c = c, .tol = m_diff_slack(c), .cyc = m_counter_for(c, GEN_CYCLES, 0)};
	char why[96] = "";
	int64_t os;

	if (i < 0 || (unsigned)i >= p->n_gp) {
		check_skip(c, "%s has no general-purpose instructions event", p->name);
		return;
	}
	f.i = (unsigned)i;
	f.n = p->ctr[i].name;
	m_quiesce(c);
	int64_t both = privilege(&f, &os);
	if (both > 0 && (p->caps & PMU_CAP_EDGE_INV_CMASK))
		thresholds(&f, both, why, sizeof(why));
	m_quiesce(c);
	check_pass(c, "%s: OS %lld = OS|USR %lld (+-%lld) per %u iterations, USR 0%s", f.n,
		   (long long)os, (long long)both, (long long)f.tol, M_N_ITERS, why);
}

PMH_CHECK(count_filters, .id = "count.filters", .summary = "OS/USR, edge, invert, counter mask",
	  .order = 45, .needs_pmu = true, .run = run);
