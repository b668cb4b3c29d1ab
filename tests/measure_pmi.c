/* PMI windows: a check's counters armed with the LVT performance-counter
 * interrupt, run, and the PMI statistics judged (a stuck or storming
 * overflow bit named by counter and bit). Split from measure.c, which
 * measures counts. */
#include "measure.h"
#include "hv_policy.h"
#include "../apic/apic.h"
#include "../pmu/msr.h"
#include "../lib/str.h"
#include "../lib/fmt.h"
#include "../apic/pmi.h"
#include "../pmu/intel_arch.h"

/* The status bit of counter i (pmu_global_bit). */
static unsigned status_bit(const struct pmu *p, unsigned i)
{
	return pmu_global_bit(p, i);
}

/* The lowest counter in mask (a nonzero mask within p->n). */
static unsigned lowest(const struct pmu *p, uint64_t mask)
{
	unsigned i = 0;
	while (i + 1 < p->n && !(mask & (1ull << i)))
		i++;
	return i;
}

/* The storm guard tripped: name the stuck flag (or the storm) rather than
 * the lost or spurious PMIs it leaves behind, and whether the reset took. */
static void fail_trip(struct check_ctx *c, const volatile struct pmi_stats *s)
{
	int e = (int)s->reset_err;
	const char *r = e == HW_OK ? ", PMU reset" : ", PMU reset failed: ";
	const char *why = e == HW_OK ? "" : hw_err_name(e);
	uint64_t m = s->stuck;

	if (!m) {
		check_fail(c, "PMI storm: %llu PMIs in one window%s%s",
			   (unsigned long long)s->storm_pmis, r, why);
		return;
	}
	unsigned i = lowest(c->pmu, m);
	check_fail(
	    c, "counter %s: overflow bit stuck (status bit %u did not clear in %u rounds)%s%s%s",
	    c->pmu->ctr[i].name, status_bit(c->pmu, i), PMU_PMI_MAX_ROUNDS, r, why,
	    m & ~(1ull << i) ? "; more counters stuck" : "");
}

/* LVTPC on a family whose local APIC never masks it (no PMU_PMI_AUTOMASK):
 * found masked at a PMI, something else masked it. The handler unmasks it
 * after every PMI by default (Linux's generic handler does the same), and
 * then it is a finding under the hypervisor known for it; left masked
 * (pmi_unmask = family), every later PMI is lost: a failure that names it.
 * True when c failed. */
static bool lvt_masked(struct check_ctx *c, const volatile struct pmi_stats *s, const char *what)
{
	char seen[96];
	bool now = c->opt->pmi_unmask_family && !(c->pmu->pmi_flags & PMU_PMI_AUTOMASK) &&
		   s->total && !s->storm && (apic_lvt_pc_read() & LVT_MASKED);
	const char *bug = hv_bug_text(c, HVB_LVTPC_MASKED);

	if (!s->lvt_masked_foreign && !now)
		return false;
	pmh_fmt(seen, sizeof(seen), "LVTPC found masked after %llu of %llu PMIs",
		(unsigned long long)(now ? s->total : s->lvt_masked_foreign),
		(unsigned long long)s->total);
	if (!now) { /* unmasked by the handler: the run goes on */
		if (!hv_bug_seen(c, HVB_LVTPC_MASKED, seen))
			check_fail(c,
				   "%s: %s, on a family whose local APIC does not mask it (facts "
				   "§8)",
				   what, seen);
		return !bug;
	}
	check_fail(c,
		   "%s: PMI lost: %s, on a family whose local APIC does not mask it, and "
		   "pmi_unmask = family left it masked%s%s",
		   what, seen, bug ? ": " : "", bug ? bug : "");
	return true;
}

bool pmi_trouble(struct check_ctx *c, const char *what)
{
	const volatile struct pmi_stats *s = pmi_stats();

	if (lvt_masked(c, s, what))
		return true;

	if (s->stuck || s->storm) {
		fail_trip(c, s);
		return true;
	}
	if (s->op_failed) {
		check_fail(c, "%s: %llu driver ops failed in the PMI handler, the last its %s: %s",
			   what, (unsigned long long)s->op_failed, s->op_what,
			   hw_err_name((int)s->op_err));
		return true;
	}
	if (s->wrong_vector) {
		check_fail(c,
			   "%s: %llu interrupts in LVTPC's class 0x%x-0x%x off its vector 0x%x, "
			   "the last on vector 0x%x (PMI on the wrong vector), %llu on 0x%x",
			   what, (unsigned long long)s->wrong_vector, PMI_STRAY_FIRST,
			   PMI_STRAY_LAST, VEC_PMI, s->stray_vector, (unsigned long long)s->total,
			   VEC_PMI);
		return true;
	}
	if (s->spurious) {
		const char *bug = hv_bug_text(c, HVB_DOUBLE_PMI);
		check_fail(c, "%s: %llu of %llu PMIs found no overflow pending (spurious PMI)%s%s",
			   what, (unsigned long long)s->spurious, (unsigned long long)s->total,
			   bug ? "; " : "", bug ? bug : "");
		if (bug)
			(void)hv_bug_seen(c, HVB_DOUBLE_PMI,
					  "a PMI that found no overflow pending");
		return true;
	}
	return false;
}

bool pmi_begin(struct check_ctx *c)
{
	const char *why = apic_lvt_pc_unusable(c->apic);
	int st;
	if (why) {
		check_skip(c, "%s", why);
		return false;
	}
	m_quiesce(c);
	/* The reset acked every flag: one still set will not clear, and on
	 * KNC's edge-triggered line it blocks every later PMI (§1.4.3.9). */
	uint64_t left = 0;
	if (!m_ovf(c, &left))
		return false;
	if (left) {
		unsigned i = lowest(c->pmu, left);
		check_fail(c,
			   "counter %s: overflow bit stuck (status bit %u still set after the PMU "
			   "reset acked it)%s",
			   c->pmu->ctr[i].name, status_bit(c->pmu, i),
			   left & ~(1ull << i) ? "; more counters stuck" : "");
		return false;
	}
	pmi_set_unmask_always(!c->opt->pmi_unmask_family);
	st = pmi_arm(c->pmu, c->opt->pmi);
	if (st && !(pmi_stats()->total && pmi_trouble(c, "arming the PMI")))
		check_fail(c,
			   "arming the PMI failed (%d): LVTPC did not take the %s delivery value",
			   st, c->opt->pmi == PMI_NMI ? "NMI" : "fixed-vector");
	return st == 0;
}

void pmi_end(struct check_ctx *c)
{
	m_quiesce(c);
	pmi_disarm();
}

int pmi_run(struct check_ctx *c, uint64_t mask, const struct workload *w, uint64_t iters)
{
	uint64_t smi0 = 0, smi1 = 0;
	bool smi = m_smi_count(c, &smi0);
	struct pmi_window win;

	pmi_window_open(&win);
	int on = c->pmu->ops->start(c->pmu, mask);
	hw_run_workload(w, iters);
	/* A fixed-vector PMI taken inside stop() would restart what stop()
	 * stopped so far: it waits until stop() is done. */
	hw_irq_disable();
	int off = c->pmu->ops->stop(c->pmu, mask);
	pmi_window_close(&win);
	if (!m_op(c, on, MO_START, mask, 0) || !m_op(c, off, MO_STOP, mask, 0))
		return M_FAULT;
	return smi && m_smi_count(c, &smi1) && smi1 != smi0 ? M_SMI : M_OK;
}
