/* count.tsx: the Intel TSX qualifiers of an event select (SDM Vol. 3B
 * 20.3.6.5 "Performance Monitoring and Intel TSX", 18.11.5.1 in older
 * editions). IN_TX (bit 32) counts only what occurs inside RTM
 * transactional regions, committed or aborted; IN_TXCP (bit 33, on
 * IA32_PERFEVTSEL2 only) takes back what an aborted region counted: "the
 * value for that counter is restored to the value it had prior to the
 * aborted transactional region" (the same section; Linux
 * arch/x86/events/intel/core.c hsw_hw_config, counter2_constraint in
 * hsw_get_event_constraints). Instructions retired on three counters:
 *	gp0 IN_TX, gp1 no qualifier, gp2 IN_TX | IN_TXCP,
 * N/2N differences over two kernels whose transaction holds L steps of
 * "sub; jnz" (events/workloads.c wl_tx_commit, wl_tx_abort), at L = TX_L1
 * and TX_L2. Judged exactly, in a majority of the repeats (Intel counts
 * exactly):
 *  - committed: gp1 is the kernel's construction (the transactions
 *    committed), gp0 counts the 2L inside plus at most the boundary's
 *    XBEGIN and XEND, which the SDM places neither inside nor outside the
 *    region (that allowance of 2 is ours), and exactly 2 (TX_L2 - TX_L1)
 *    more at TX_L2; gp2 equals gp0 (nothing aborted);
 *  - aborted (XABORT): gp2 counts 0 (every count of the region taken
 *    back), gp0 again 2L plus at most 2 and 2 (TX_L2 - TX_L1) more at TX_L2.
 * SKIPs with the reason off Intel, without RTM (CPUID.(7,0):EBX[11]),
 * where the microcode aborts every transaction (CPUID.(7,0):EDX[11]
 * RTM_ALWAYS_ABORT, Intel article 000059422), or IA32_TSX_CTRL (MSR 122H)
 * has RTM_DISABLE set. Where the microcode has TSX_FORCE_ABORT
 * (CPUID.(7,0):EDX[13]) the driver keeps MSR 10FH bit 0 set to use PMC3,
 * and every transaction aborts: the check clears it while it measures on
 * gp0-gp2 and puts it back (Linux intel_tfa_pmu_enable_all clears it
 * while PMC3 is free). */
#include "../measure.h"
#include "../../lib/fmt.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"

#define TX_L1	 8  /* steps inside the transaction (ours) */
#define TX_L2	 24 /* and more of them: the difference is exactly 2 x 16 */
#define TX_EDGE	 2  /* XBEGIN and XEND, inside or not (ours: the SDM is silent) */
#define TX_CTRS	 3  /* gp0 IN_TX, gp1 plain, gp2 IN_TX | IN_TXCP */
#define TX_PLAIN 1
#define TX_CP	 2

/* One kernel at one length: its three counters' differences. */
struct tx_run {
	const struct workload *w;
	unsigned l;
	struct mdiff d[TX_CTRS];
};

/* Why the CPU cannot run or count transactions here, or NULL. */
static const char *tx_unusable(struct check_ctx *c)
{
	struct cpuid_regs r = {0};
	uint64_t cap = 0, ctl = 0;

	if (c->cpu->vendor != VENDOR_INTEL)
		return "not an Intel CPU: TSX and its IN_TX/IN_TXCP qualifiers are Intel's (SDM "
		       "Vol. 3B 20.3.6.5)";
	if (c->cpu->ids.max_leaf >= CPUID_LEAF_EXT_FEATURES)
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	if (!(r.ebx & CPUID_7_EBX_RTM))
		return "RTM not enumerated (CPUID.(7,0):EBX[11] clear): no transaction to count in";
	if (r.edx & CPUID_7_EDX_RTM_ALWAYS_ABORT)
		return "the microcode aborts every RTM transaction (CPUID.(7,0):EDX[11] "
		       "RTM_ALWAYS_ABORT; Intel article 000059422)";
	if ((r.edx & CPUID_7_EDX_ARCH_CAPS) &&
	    hw_rdmsr(MSR_IA32_ARCH_CAPABILITIES, &cap) == HW_OK && (cap & ARCH_CAP_TSX_CTRL_MSR) &&
	    hw_rdmsr(MSR_IA32_TSX_CTRL, &ctl) == HW_OK && (ctl & TSX_CTRL_RTM_DISABLE))
		return "TSX disabled: IA32_TSX_CTRL (MSR 122H) has RTM_DISABLE set (the firmware's "
		       "or the OS's choice, Linux arch/x86/kernel/cpu/tsx.c)";
	if (c->cpu->driver != PMU_DRV_INTEL_ARCH || c->pmu->n_gp < TX_CTRS)
		return "IN_TX and IN_TXCP need architectural perfmon with IA32_PERFEVTSEL0-2 (SDM "
		       "Vol. 3B 20.3.6.5)";
	return 0;
}

/* The qualifiers q on gp counter i, set up with instructions retired. */
static bool tx_qualify(struct check_ctx *c, unsigned i, uint64_t q)
{
	uint32_t msr = c->pmu->ctr[i].ctl_msr;
	uint64_t sel = 0, back = 0;
	int e;

	if (!q)
		return true;
	if (!m_rdmsr(c, msr, &sel))
		return false;
	e = hw_wrmsr(msr, sel | q);
	if (e == HW_OK && !m_rdmsr(c, msr, &back))
		return false;
	if (e == HW_OK && (back & q) == q)
		return true;
	if (c->cpu->hypervisor)
		check_skip(c,
			   "%s: %s %s %s (MSR 0x%x = 0x%llx): the hypervisor withholds TSX's "
			   "qualifiers",
			   c->pmu->ctr[i].name, c->cpu->hv.name,
			   e == HW_OK ? "drops" : "refuses with #GP",
			   q & EVTSEL_IN_TXCP ? "IN_TX | IN_TXCP" : "IN_TX", (unsigned)msr,
			   (unsigned long long)(sel | q));
	else
		check_fail(c,
			   "%s: IN_TX%s in MSR 0x%x (0x%llx) %s where RTM is enumerated (SDM Vol. "
			   "3B 20.3.6.5)",
			   c->pmu->ctr[i].name, q & EVTSEL_IN_TXCP ? " | IN_TXCP" : "",
			   (unsigned)msr, (unsigned long long)(sel | q),
			   e == HW_OK ? "did not read back" : "raised #GP");
	return false;
}

/* gp0-gp2 counting instructions retired in ring 0 with their qualifiers. */
static bool tx_setup(struct check_ctx *c)
{
	static const uint64_t q[TX_CTRS] = {EVTSEL_IN_TX, 0, EVTSEL_IN_TX | EVTSEL_IN_TXCP};

	for (unsigned i = 0; i < TX_CTRS; i++) {
		int st = m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS);
		if (st == M_REFUSED)
			check_skip(c,
				   "%s cannot count instructions retired here (taken by the host, "
				   "or refused)",
				   c->pmu->ctr[i].name);
		if (st != M_OK || !tx_qualify(c, i, q[i]))
			return false;
	}
	return true;
}

/* TSX_FORCE_ABORT (MSR 10FH) where the microcode has it and can give RTM
 * back: its value into *was; bit 0 cleared. False when an access FAILed. */
static bool tfa_clear(struct check_ctx *c, bool *had, uint64_t *was)
{
	struct cpuid_regs r;

	*had = false;
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	if (!(r.edx & CPUID_7_EDX_TSX_FORCE_ABORT) || c->cpu->hypervisor)
		return true;
	if (!m_rdmsr(c, MSR_TSX_FORCE_ABORT, was))
		return false;
	*had = true;
	return !(*was & TFA_RTM_FORCE_ABORT) ||
	       m_wrmsr(c, MSR_TSX_FORCE_ABORT, *was & ~TFA_RTM_FORCE_ABORT);
}

/* The three counters over N and 2N iterations of r's kernel at r->l. */
static bool tx_measure(struct check_ctx *c, struct tx_run *r)
{
	struct wl_args a = {0, r->l, 0, 1};
	struct workload w = *r->w;

	w.args = &a;
	for (unsigned i = 0; i < TX_CTRS; i++) {
		int st = m_diff(c, i, (1ull << TX_CTRS) - 1, 0, 0, &w, M_N_ITERS, &r->d[i]);
		if (st != M_OK) {
			m_fail_status(c, st, 0, c->pmu->ctr[i].name);
			return false;
		}
	}
	return true;
}

/* Per M_N_ITERS iterations of w at l: its instructions as built (all),
 * or the 2l of its transaction's steps (the boundary left out). */
static int64_t tx_built(const struct workload *w, unsigned l, bool steps)
{
	struct wl_args a = {0, l, 0, 1};
	struct workload x = *w;
	struct workload_vector v;

	if (steps)
		return (int64_t)(w->per_elem.tx_insn * l) * M_N_ITERS;
	x.args = &a;
	workload_iteration(&x, &v);
	return (int64_t)v.instructions * M_N_ITERS;
}

static long long per_it(int64_t n)
{
	return (long long)(n / M_N_ITERS);
}

/* gp0 (IN_TX) over r: the steps inside plus at most XBEGIN and XEND. */
static void judge_in_tx(struct check_ctx *c, const struct tx_run *r, const char *what)
{
	const struct mdiff *d = &r->d[0];
	int64_t lo = tx_built(r->w, r->l, true), hi = lo + TX_EDGE * M_N_ITERS;

	if (d->med >= lo && d->med <= hi && d->agree * 2 > d->rep)
		return;
	check_fail(c,
		   "%s with IN_TX counted %lld instructions over %u %s transactions of %u steps, "
		   "expected %lld to %lld: the %lld inside and at most XBEGIN and XEND (SDM Vol. "
		   "3B 20.3.6.5; %u of %u repeats)",
		   c->pmu->ctr[0].name, (long long)d->med, M_N_ITERS, what, r->l, (long long)lo,
		   (long long)hi, (long long)lo, d->agree, d->rep);
}

/* Every transaction of the committing kernel aborted (nothing inside). */
static void tx_never_committed(struct check_ctx *c, const struct tx_run *r)
{
	if (c->cpu->hypervisor)
		check_skip(c,
			   "every RTM transaction aborted under %s (IN_TX counted %lld): its host "
			   "forces aborts (TSX_FORCE_ABORT, Linux intel/core.c intel_set_tfa) or "
			   "withholds RTM",
			   c->cpu->hv.name, (long long)r->d[0].med);
	else
		check_fail(c,
			   "every RTM transaction aborted: IN_TX counted %lld instructions over "
			   "%u transactions of %u steps that commit as built, with TSX_FORCE_ABORT "
			   "clear and RTM enumerated (SDM Vol. 3B 20.3.6.5)",
			   (long long)r->d[0].med, M_N_ITERS, r->l);
}

/* The committing kernel: gp1 as built, gp0 the inside, gp2 as gp0. */
static bool judge_commit(struct check_ctx *c, const struct tx_run *r)
{
	const struct mdiff *p = &r->d[TX_PLAIN], *cp = &r->d[TX_CP];
	int64_t built = tx_built(r->w, r->l, false);

	if (!m_exact(p, built)) {
		if (r->d[0].med == 0 && cp->med == 0)
			tx_never_committed(c, r);
		else
			check_fail(c,
				   "%s counted %lld instructions over %u committed transactions "
				   "of %u steps, expected %lld as built (%u of %u repeats)",
				   c->pmu->ctr[TX_PLAIN].name, (long long)p->med, M_N_ITERS, r->l,
				   (long long)built, p->agree, p->rep);
		return false;
	}
	judge_in_tx(c, r, "committed");
	if (!m_exact(cp, r->d[0].med))
		check_fail(
		    c,
		    "%s with IN_TX | IN_TXCP counted %lld instructions over %u committed "
		    "transactions, %s with IN_TX %lld: nothing aborted, nothing to take back "
		    "(SDM Vol. 3B 20.3.6.5)",
		    c->pmu->ctr[TX_CP].name, (long long)cp->med, M_N_ITERS, c->pmu->ctr[0].name,
		    (long long)r->d[0].med);
	return true;
}

/* The aborting kernel: gp0 the inside, gp2 nothing. */
static void judge_abort(struct check_ctx *c, const struct tx_run *r)
{
	const struct mdiff *cp = &r->d[TX_CP];

	judge_in_tx(c, r, "aborted");
	if (!m_exact(cp, 0))
		check_fail(c,
			   "%s with IN_TX | IN_TXCP counted %lld instructions over %u aborted "
			   "transactions of %u steps, expected 0: IN_TXCP restores the counter to "
			   "its value before an aborted region (SDM Vol. 3B 20.3.6.5)",
			   c->pmu->ctr[TX_CP].name, (long long)cp->med, M_N_ITERS, r->l);
}

/* gp0 (IN_TX) at TX_L2 against TX_L1: exactly the steps added inside. */
static void judge_steps(struct check_ctx *c, const struct tx_run *a, const struct tx_run *b)
{
	int64_t want = tx_built(b->w, b->l, true) - tx_built(a->w, a->l, true);
	int64_t got = b->d[0].med - a->d[0].med;

	if (got != want)
		check_fail(c,
			   "%s with IN_TX counted %lld more instructions over %u %s transactions "
			   "of %u steps than of %u, expected exactly %lld: the steps added inside "
			   "(SDM Vol. 3B 20.3.6.5)",
			   c->pmu->ctr[0].name, (long long)got, M_N_ITERS, a->w->name, b->l, a->l,
			   (long long)want);
}

static bool tx_measure_all(struct check_ctx *c, struct tx_run *r, unsigned n)
{
	bool had = false, ok = true;
	uint64_t was = 0;

	if (!tx_setup(c) || !tfa_clear(c, &had, &was))
		return false;
	for (unsigned k = 0; k < n && ok; k++)
		ok = tx_measure(c, &r[k]);
	if (had && !m_wrmsr(c, MSR_TSX_FORCE_ABORT, was))
		ok = false;
	return ok;
}

static void run(struct check_ctx *c)
{
	struct tx_run r[4] = {{&wl_tx_commit, TX_L1, {{0}}},
			      {&wl_tx_commit, TX_L2, {{0}}},
			      {&wl_tx_abort, TX_L1, {{0}}},
			      {&wl_tx_abort, TX_L2, {{0}}}};
	const char *why = tx_unusable(c);

	if (why) {
		check_skip(c, "%s", why);
		return;
	}
	bool ok = tx_measure_all(c, r, 4);
	m_quiesce(c);
	if (!ok)
		return;
	c->fig.tolerance = "IN_TX: XBEGIN and XEND, at most 2 an iteration (ours)";
	if (!judge_commit(c, &r[0]) || !judge_commit(c, &r[1]))
		return;
	judge_abort(c, &r[2]);
	judge_abort(c, &r[3]);
	judge_steps(c, &r[0], &r[1]);
	judge_steps(c, &r[2], &r[3]);
	check_pass(
	    c,
	    "IN_TX %lld and %lld a committed transaction (%u, %u steps), %lld and %lld an "
	    "aborted one, XBEGIN/XEND within +2 (ours); IN_TX|IN_TXCP on %s: as IN_TX, and 0 "
	    "aborted (SDM Vol. 3B 20.3.6.5)",
	    per_it(r[0].d[0].med), per_it(r[1].d[0].med), TX_L1, TX_L2, per_it(r[2].d[0].med),
	    per_it(r[3].d[0].med), c->pmu->ctr[TX_CP].name);
}

PMH_CHECK(tsx_qualifiers, .id = "count.tsx",
	  .summary = "IN_TX counts inside RTM transactions, IN_TXCP drops aborted ones",
	  .order = 47, .needs_pmu = true, .run = run);
