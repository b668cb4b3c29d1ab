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
 *    at CPL 3, x86/user_x86.S; ours) and no more than FZ_SKID_BR
 *    branches past it (rr's skid_size bound on any core, the freeze taken
 *    no later than the PMI; ours to apply it here). */
#include "../lbr_rec.h"
#include "../measure.h"
#include "../../apic/apic.h"
#include "../../pmu/msr.h"

#define FZ_ITERS   96
#define FZ_AT	   400
#define FZ_TRAMP   4
#define FZ_SKID_BR 125
/* The kernel's walk matched against the frozen records as it goes: the
 * last LBR_REC_MAX taken branches in a ring, and at each the records
 * compared with the ring's newest (no table of the whole walk: the image
 * keeps its zero-filled buffers small). */
struct fz_br {
	uint64_t from, to, insn;
};
struct fz_walk {
	const struct lbr_rec *r;
	unsigned n;
	struct fz_br ring[LBR_REC_MAX];
	uint64_t taken, insn, br, br_at_ovf;
	bool bounded;	   /* only where the overflow says it may be */
	uint64_t found;	   /* the instruction of the youngest record's match; 0 none */
	uint64_t found_br; /* the branches retired by then */
};

static bool ring_matches(const struct fz_walk *w)
{
	for (unsigned i = 0; i < w->n; i++) {
		const struct fz_br *b = &w->ring[(w->taken - 1 - i) % LBR_REC_MAX];
		if (w->r[i].from != b->from || w->r[i].to != b->to)
			return false;
	}
	return true;
}

static void take(void *ctx, const struct smp_step *st)
{
	struct fz_walk *w = ctx;

	w->insn++;
	w->br += st->kind != SMP_NONE;
	if (w->insn == FZ_AT)
		w->br_at_ovf = w->br;
	if (st->kind == SMP_NONE || !st->taken)
		return;
	w->ring[w->taken++ % LBR_REC_MAX] = (struct fz_br){st->ip, st->next, w->insn};
	if (w->taken < w->n || !ring_matches(w))
		return;
	bool early = w->insn + FZ_TRAMP < FZ_AT;
	bool late = w->br_at_ovf && w->br > w->br_at_ovf + FZ_SKID_BR;
	if (!w->bounded || (!early && !late)) {
		w->found = w->insn;
		w->found_br = w->br;
	}
}

/* Where the records r[0..n), youngest first, are a run of the kernel's
 * taken branches (the youngest's instruction, 0 where none); bounded: only
 * a run that ends where the overflow says. */
static uint64_t aligned(const struct lbr_rec *r, unsigned n, bool bounded)
{
	struct fz_walk w = {.r = r, .n = n, .bounded = bounded};

	(void)smp_walk(FZ_ITERS, take, &w);
	return w.found;
}

static void judge(struct check_ctx *c, uint64_t st, const struct lbr_rec *r, unsigned n)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	if (l->status_frz && !(st & GLOBAL_STATUS_LBR_FRZ))
		check_fail(c,
			   "LBR_FRZ (GLOBAL_STATUS bit 58) clear after the PMI request "
			   "(0x%llx): the LBRs were not frozen",
			   (unsigned long long)st);
	else if (!l->status_frz && (st & DEBUGCTL_LBR))
		check_fail(c,
			   "DEBUGCTL.LBR still set after the PMI request (0x%llx): the LBRs "
			   "were not frozen",
			   (unsigned long long)st);
	for (unsigned i = 0; i < n; i++)
		if (r[i].from == smp_exit_ip()) {
			check_fail(c,
				   "LBR entry %u is the kernel's final RET: the LBRs recorded on "
				   "past the PMI request %u instructions into it, frozen %s",
				   i, FZ_AT, i ? "late" : "never");
			return;
		}
	uint64_t at = aligned(r, n, true);
	if (!at) {
		uint64_t any = aligned(r, n, false);
		check_fail(c,
			   "the frozen LBRs are not the kernel's branches that ran up to its "
			   "overflow at instruction %u (youngest FROM 0x%llx TO 0x%llx, %s%llu)",
			   FZ_AT, (unsigned long long)r[0].from, (unsigned long long)r[0].to,
			   any ? "a run of the kernel's ending at its instruction "
			       : "no run of the kernel's branches: ",
			   (unsigned long long)any);
	} else {
		check_note(c, "frozen at the kernel's instruction %llu", (unsigned long long)at);
	}
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
		check_skip(c, "%s",
			   k < 0 ? "no counter counts instructions retired"
				 : "no LBR freeze on PMI (perfmon v1)");
		return;
	}
	uint32_t lvt = apic_lvt_pc_read();
	apic_lvt_pc_write(lvt | LVT_MASKED);
	bool ok = lbr_save(c, &fw) &&
		  lbr_frozen_window(
		      c, &fw, (struct lbr_freeze){(unsigned)k, LBR_ALL_KINDS, FZ_AT, FZ_ITERS}, &st,
		      r, &n);
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
			   n, FZ_AT,
			   l->status_frz ? "GLOBAL_STATUS.LBR_FRZ" : "DEBUGCTL.LBR cleared",
			   FZ_SKID_BR);
}

PMH_CHECK(lbr_freeze, .id = "lbr.freeze", .summary = "FREEZE_LBRS_ON_PMI stops the LBRs",
	  .order = 122, .needs_pmu = true, .run = run);
