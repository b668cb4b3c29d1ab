/* lbr.freeze: IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI (bit 11) stops the last
 * branch records when a counter's overflow requests its PMI, so that a
 * handler reads the branches that led to the overflow (SDM Vol. 3B
 * "Freezing LBR and Performance Counters on PMI"; AMD: CPUID 8000_0022h
 * EAX[2], Linux amd/lbr.c amd_pmu_lbr_enable_all). Perfmon v4 and AMD's
 * PerfMonV2 say so in GLOBAL_STATUS.LBR_FRZ (bit 58), earlier cores (and
 * KVM's emulation, Linux kvm/vmx/pmu_intel.c
 * intel_pmu_legacy_freezing_lbrs_on_pmi) by clearing DEBUGCTL.LBR. A
 * counter of instructions at CPL 3 with INT set is preloaded to overflow
 * after FZ_AT of them, early in a call of the sampling kernel at CPL 3 of
 * FZ_ITERS iterations (LVTPC masked: the request, not its delivery,
 * freezes). Then:
 *  - the freeze is enumerated where it should be (status bit or DEBUGCTL);
 *  - every record is the kernel's, none its final RET: the records
 *    stopped inside the kernel, FZ_ITERS - FZ_AT / 21 iterations before
 *    its end;
 *  - the records are a run of the kernel's branches, exact, that ends where
 *    the overflow was: the youngest no earlier than FZ_AT - FZ_TRAMP
 *    instructions into the kernel (FZ_TRAMP: the platform's CALL into it
 *    at CPL 3, apic/user_x86.S; ours) and no more than FZ_SKID_BR
 *    branches past it (rr's skid_size bound on any core, the freeze taken
 *    no later than the PMI; ours to apply it here). */
#include "../lbr_rec.h"
#include "../measure.h"
#include "../../apic/apic.h"
#include "../../pmu/msr.h"
#include "../../lib/fmt.h"

#define FZ_ITERS   96
#define FZ_AT	   400
#define FZ_TRAMP   4
#define FZ_SKID_BR 125
#define FZ_MAX	   1024 /* the kernel's taken branches in FZ_ITERS: about 720 */

/* The kernel's taken branches, oldest first, with the instructions and
 * branches retired up to each (from its walk). */
static struct fz_br {
	uint64_t from, to, insn, br;
} brs[FZ_MAX];
static struct {
	unsigned n;
	uint64_t insn, br, br_at_ovf;
} walk;

static void take(void *ctx, const struct smp_step *st)
{
	(void)ctx;
	walk.insn++;
	walk.br += st->kind != SMP_NONE;
	if (walk.insn == FZ_AT)
		walk.br_at_ovf = walk.br;
	if (st->kind == SMP_NONE || !st->taken || walk.n == FZ_MAX)
		return;
	brs[walk.n++] = (struct fz_br){st->ip, st->next, walk.insn, walk.br};
}

/* Whether the records r[0..n), youngest first, are brs[y], brs[y-1], ...
 * for a y whose place agrees with the overflow. */
static bool aligned(const struct lbr_rec *r, unsigned n, unsigned *youngest)
{
	for (unsigned y = walk.n; y-- > n - 1;) {
		unsigned i = 0;
		while (i < n && r[i].from == brs[y - i].from && r[i].to == brs[y - i].to)
			i++;
		bool early = brs[y].insn + FZ_TRAMP < FZ_AT;
		bool late = brs[y].br > walk.br_at_ovf + FZ_SKID_BR;
		if (i == n && !early && !late) {
			*youngest = y;
			return true;
		}
	}
	return false;
}

/* The window: counter k armed, LBRs on with the freeze; what the freeze
 * left in st (GLOBAL_STATUS or DEBUGCTL) and the records. */
static bool window(struct check_ctx *c, const struct lbr_fw *fw, unsigned k, uint64_t *st,
		   struct lbr_rec *r, unsigned *n)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	uint64_t bit = 1ull << k;

	if (!m_setup_or_fail(c, k, GEN_INSTRUCTIONS, PMU_F_USR | PMU_F_INT) ||
	    !m_ack(c, pmu_all_mask(c->pmu)) || !m_preload(c, k, FZ_AT) ||
	    !lbr_on(c, fw, LBR_ALL_KINDS, DEBUGCTL_FREEZE_LBRS_ON_PMI) || !m_start(c, bit))
		return false;
	int e = hw_user_run(&wl_sample, FZ_ITERS);
	if (!m_stop(c, bit) ||
	    !m_rdmsr(c, l->status_frz ? c->pmu->global_status_msr : MSR_DEBUGCTL, st) ||
	    !lbr_off(c, fw) || !lbr_read(c, r, n))
		return false;
	if (e != HW_OK)
		check_fail(c, "the kernel at CPL 3 came back with %s", hw_err_name(e));
	if (l->status_frz && !m_wrmsr(c, c->pmu->global_ovf_msr, GLOBAL_STATUS_LBR_FRZ))
		return false;
	return e == HW_OK && m_ack(c, bit);
}

/* Where the records would align without the bounds: for the message. */
static const char *where(const struct lbr_rec *r, unsigned n)
{
	static char buf[64];
	for (unsigned y = walk.n; y-- > n - 1;) {
		unsigned i = 0;
		while (i < n && r[i].from == brs[y - i].from && r[i].to == brs[y - i].to)
			i++;
		if (i == n) {
			pmh_fmt(buf, sizeof(buf), "at the kernel's instruction %llu",
				(unsigned long long)brs[y].insn);
			return buf;
		}
	}
	return "the kernel never took in that order";
}

static void judge(struct check_ctx *c, uint64_t st, const struct lbr_rec *r, unsigned n)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	unsigned y = 0;

	if (l->status_frz && !(st & GLOBAL_STATUS_LBR_FRZ))
		check_fail(c, "LBR_FRZ (GLOBAL_STATUS bit 58) clear after the PMI request "
			      "(0x%llx): the LBRs were not frozen",
			   (unsigned long long)st);
	else if (!l->status_frz && (st & DEBUGCTL_LBR))
		check_fail(c, "DEBUGCTL.LBR still set after the PMI request (0x%llx): the LBRs "
			      "were not frozen",
			   (unsigned long long)st);
	for (unsigned i = 0; i < n; i++)
		if (r[i].from == smp_exit_ip()) {
			check_fail(c, "LBR entry %u is the kernel's final RET: the LBRs recorded on "
				      "past the PMI request %u instructions into it, frozen %s",
				   i, FZ_AT, i ? "late" : "never");
			return;
		}
	if (!aligned(r, n, &y))
		check_fail(c, "the frozen LBRs are not the kernel's branches that ran up to its "
			      "overflow at instruction %u (youngest FROM 0x%llx TO 0x%llx, a "
			      "branch %s)",
			   FZ_AT, (unsigned long long)r[0].from, (unsigned long long)r[0].to,
			   where(r, n));
	else
		check_note(c, "frozen at the kernel's taken branch %u, instruction %llu", y,
			   (unsigned long long)brs[y].insn);
}

static void run(struct check_ctx *c)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	struct lbr_rec r[LBR_REC_MAX];
	struct lbr_fw fw;
	unsigned n = 0;
	uint64_t st = 0;
	int k = m_counter_for(c, GEN_INSTRUCTIONS, 0);

	if (!lbr_usable(c))
		return;
	if (!l->freeze || k < 0) {
		check_skip(c, "%s", k < 0 ? "no counter counts instructions retired"
					  : "no LBR freeze on PMI (perfmon v1)");
		return;
	}
	walk.n = 0;
	walk.insn = walk.br = walk.br_at_ovf = 0;
	(void)smp_walk(FZ_ITERS, take, 0);
	uint32_t lvt = apic_lvt_pc_read();
	apic_lvt_pc_write(lvt | LVT_MASKED);
	bool ok = lbr_save(c, &fw) && window(c, &fw, (unsigned)k, &st, r, &n);
	ok = lbr_restore(c, &fw) && ok;
	m_quiesce(c);
	apic_lvt_pc_write(lvt);
	if (!ok || c->v == V_FAIL)
		return;
	judge(c, st, r, n);
	if (c->v != V_FAIL)
		check_pass(c,
			   "the %u LBRs froze at the PMI request %u instructions into the kernel "
			   "(%s): exact records of the branches up to it, within %u branches "
			   "(rr's skid bound)",
			   n, FZ_AT, l->status_frz ? "GLOBAL_STATUS.LBR_FRZ" : "DEBUGCTL.LBR cleared",
			   FZ_SKID_BR);
}

PMH_CHECK(lbr_freeze, .id = "lbr.freeze", .summary = "FREEZE_LBRS_ON_PMI stops the LBRs",
	  .order = 122, .needs_pmu = true, .run = run);
