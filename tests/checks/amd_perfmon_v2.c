/* amd.perfmon-v2: PerfMonV2 globals (AMD APM Vol. 2 #24593 §13.2): the counter count of
 * CPUID 8000_0022h EBX[3:0], GlobalCtl gating each counter, GlobalStatus
 * flagging an overflow, GlobalStatusClr clearing it. */
#include "../measure.h"
#include "../../pmu/cpuid.h"

/* GlobalCtl gates counter i: the N/2N difference with its bit clear
 * against the one with it set. */
static void gate(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	int64_t on, off;
	/* GlobalCtl is cleared right after start(): the harness's code
	 * between the two counts, and cancels in the N/2N difference */
	int ston = m_per_n(c, i, 0, 0, &on);
	int stoff = m_per_n(c, i, p->global_ctrl_msr, pmu_all_mask(p) & ~(1ull << i), &off);

	if (ston != M_OK)
		m_fail_status(c, ston, 0, p->ctr[i].name);
	else if (stoff != M_OK)
		m_fail_status(c, stoff, p->global_ctrl_msr, p->ctr[i].name);
	else if (on <= 0)
		check_fail(c,
			   "%s did not count with its GlobalCtl bit set (%lld per %u iterations)",
			   p->ctr[i].name, (long long)on, M_N_ITERS);
	else if (m_leaks(off, on))
		check_fail(c,
			   "%s counted %lld per %u iterations with its GlobalCtl bit clear "
			   "(%lld with it set): expected ~0",
			   p->ctr[i].name, (long long)off, M_N_ITERS, (long long)on);
}

/* Counter i overflows: GlobalStatus flags it, GlobalStatusClr clears it.
 * False when an op failed (FAILed). */
static bool status(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	uint64_t st = 0;

	if (!m_overflow(c, i))
		return false;
	if (!m_rdmsr(c, p->global_status_msr, &st))
		return false;
	if (!((st >> i) & 1))
		check_fail(c, "%s overflowed: expected GlobalStatus bit %u, got 0x%llx",
			   p->ctr[i].name, i, (unsigned long long)st);
	if (!m_wrmsr(c, p->global_ovf_msr, 1ull << i) || !m_rdmsr(c, p->global_status_msr, &st))
		return false;
	if ((st >> i) & 1)
		check_fail(c, "%s: expected GlobalStatusClr to clear bit %u, still 0x%llx",
			   p->ctr[i].name, i, (unsigned long long)st);
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned want = CPUID_AMD_PERFMON_EBX_CORE_PMCS(c->cpu->ids.ext22.ebx);

	m_quiesce(c);
	if (want && p->n_gp != want)
		check_fail(c, "expected %u counters (CPUID 8000_0022h EBX[3:0]), driver has %u",
			   want, p->n_gp);
	for (unsigned i = 0; i < p->n_gp; i++) {
		bool ok = m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		if (ok) {
			gate(c, i);
			ok = status(c, i);
		}
		m_quiesce(c);
		if (!ok)
			break;
	}
	check_pass(c,
		   "%u counters: GlobalCtl gates (N/2N difference with the bit clear under 1/%u "
		   "of the set one), GlobalStatus flags, GlobalStatusClr clears",
		   p->n_gp, M_GATE_DIV);
}

PMH_CHECK(amd_perfmon_v2, .id = "amd.perfmon-v2", .summary = "PerfMonV2 global registers",
	  .order = 73, .needs_pmu = true, .needs_caps = PMU_CAP_PERFMON_V2, .run = run);
