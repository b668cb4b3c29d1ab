/* knc.spflt: PERF_SPFLT_CONTROL (MSR 2CH, RW, KNC PMU guide #327357
 * §1.4.3.4, table 1-7): bit 63 USER_PREF, bits 1:0 put IA32_PerfCnt0/1
 * under it; a counter whose bit is set counts only while USER_PREF AND its
 * bit are 1, a counter whose bit is clear is not affected. The SPFLT
 * instruction sets and clears USER_PREF from any CPL (table 1-1), but its
 * encoding is in none of our sources: USER_PREF is written through the MSR
 * and the instruction itself is not executed. The driver says where the
 * register is (struct pmu spflt_msr). Measured: the register reads; bits
 * 63, 1 and 0 each take a write alone; with counter i's bit set, USER_PREF
 * 1 leaves it counting as with the register 0, USER_PREF 0 closes it (as
 * count.enable's gates: N/2N difference under 1/M_GATE_DIV of the open
 * one) while the other counter counts as before; the register is
 * restored. */
#include "../measure.h"
#include "../../lib/fmt.h"

#define BOTH 3u /* gp0 and gp1 */

/* USER_PREF and each counter's bit written alone read back as written;
 * the register left 0. False when an access faulted (FAILed). */
static bool bits(struct check_ctx *c)
{
	static const uint64_t one[] = {KNC_SPFLT_USER_PREF, 1, 2};
	uint32_t msr = c->pmu->spflt_msr;
	uint64_t v;

	for (unsigned k = 0; k < sizeof(one) / sizeof(one[0]); k++) {
		if (!m_wrmsr(c, msr, one[k]) || !m_rdmsr(c, msr, &v))
			return false;
		if (v != one[k])
			check_fail(c,
				   "PERF_SPFLT_CONTROL (0x%x): 0x%llx written reads 0x%llx (bits "
				   "63, 1 and 0 are read-write)",
				   msr, (unsigned long long)one[k], (unsigned long long)v);
	}
	return m_wrmsr(c, msr, 0);
}

/* Counter i's N/2N difference with gp0 and gp1 counting instructions and
 * PERF_SPFLT_CONTROL = spflt. False when it was not measured (FAILed). */
static bool per_n(struct check_ctx *c, uint64_t spflt, unsigned i, int64_t *out)
{
	struct pmu *p = c->pmu;
	struct mdiff d = {0, 0, 0, 0, 0};
	char what[64];

	if (!m_wrmsr(c, p->spflt_msr, spflt) ||
	    !m_setup_or_fail(c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR) ||
	    !m_setup_or_fail(c, 1, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR))
		return false;
	int st = m_diff(c, i, BOTH, 0, 0, &wl_loop, M_N_ITERS, &d);
	if (st != M_OK) {
		pmh_fmt(what, sizeof(what), "PERF_SPFLT_CONTROL=0x%llx: %s",
			(unsigned long long)spflt, p->ctr[i].name);
		m_fail_status(c, st, 0, what);
		return false;
	}
	*out = d.med;
	return true;
}

/* The same count as ref, within 1/M_GATE_DIV of it. */
static bool same(int64_t v, int64_t ref)
{
	int64_t d = v > ref ? v - ref : ref - v;
	return d * M_GATE_DIV < ref;
}

/* Counter i under its SPFLT bit: open with USER_PREF 1, closed with
 * USER_PREF 0 while the other counter counts on; ref: each counter's count
 * with the register 0. False when a measurement failed (FAILed). */
static bool gate(struct check_ctx *c, unsigned i, const int64_t *ref)
{
	const char *n = c->pmu->ctr[i].name, *on = c->pmu->ctr[1 - i].name;
	uint64_t ctl = 1ull << i;
	int64_t open, closed, other;

	if (!per_n(c, KNC_SPFLT_USER_PREF | ctl, i, &open) || !per_n(c, ctl, i, &closed) ||
	    !per_n(c, ctl, 1 - i, &other))
		return false;
	if (!same(open, ref[i]))
		check_fail(c,
			   "%s counted %lld per %u iterations with SPFLT bit %u and USER_PREF set, "
			   "%lld with the register 0: expected the same",
			   n, (long long)open, M_N_ITERS, i, (long long)ref[i]);
	if (m_leaks(closed, ref[i]))
		check_fail(
		    c,
		    "%s counted %lld per %u iterations with SPFLT bit %u set and USER_PREF 0 "
		    "(%lld with the register 0): expected ~0, USER_PREF does not gate it",
		    n, (long long)closed, M_N_ITERS, i, (long long)ref[i]);
	if (!same(other, ref[1 - i]))
		check_fail(c,
			   "%s (its SPFLT bit clear) counted %lld per %u iterations with SPFLT bit "
			   "%u set and USER_PREF 0, %lld with the register 0: expected the same",
			   on, (long long)other, M_N_ITERS, i, (long long)ref[1 - i]);
	return true;
}

/* Both counters count with the register 0 (the reference), then each
 * counter's gate. False when a measurement failed (FAILed). */
static bool measure(struct check_ctx *c)
{
	int64_t ref[2] = {0, 0};

	for (unsigned i = 0; i < 2; i++) {
		if (!per_n(c, 0, i, &ref[i]))
			return false;
		if (ref[i] <= 0) {
			check_fail(c, "%s did not count with PERF_SPFLT_CONTROL 0 (%lld per %u)",
				   c->pmu->ctr[i].name, (long long)ref[i], M_N_ITERS);
			return false;
		}
	}
	return gate(c, 0, ref) && gate(c, 1, ref);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	uint64_t orig;

	if (!p->spflt_msr) {
		check_skip(c,
			   "%s has no PERF_SPFLT_CONTROL: the SPFLT user filter (MSR 2CH) is "
			   "Knights Corner's (KNC PMU guide #327357 §1.4.3.4)",
			   p->name);
		return;
	}
	if (!m_rdmsr(c, p->spflt_msr, &orig))
		return;
	m_quiesce(c);
	if (bits(c))
		(void)measure(c);
	m_quiesce(c);
	if (!m_wrmsr(c, p->spflt_msr, orig))
		return;
	check_pass(c,
		   "PERF_SPFLT_CONTROL bits 63, 1, 0 take writes; USER_PREF 0 closes gp0, gp1 "
		   "under their bits (N/2N under 1/%u), the other counts on; restored. USER_PREF "
		   "set by WRMSR, SPFLT not executed (no encoding in our sources)",
		   M_GATE_DIV);
}

PMH_CHECK(knc_spflt, .id = "knc.spflt", .summary = "KNC SPFLT user filter gating", .order = 76,
	  .needs_pmu = true, .run = run);
