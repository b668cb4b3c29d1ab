/* The LBR checks' access to the records (tests/lbr_rec.h). */
#include "lbr_rec.h"
#include "measure.h"
#include "../pmu/msr.h"
#include "../pmu/pmu.h"

/* LBR_SELECT's suppress bit of each kind (Intel legacy and AMD alike). */
static const uint64_t sel_bit[SMP_KINDS] = {
    [SMP_JCC] = LBR_SEL_JCC,	       [SMP_JMP] = LBR_SEL_REL_JMP,
    [SMP_JMP_IND] = LBR_SEL_IND_JMP,   [SMP_CALL] = LBR_SEL_REL_CALL,
    [SMP_CALL_IND] = LBR_SEL_IND_CALL, [SMP_RET] = LBR_SEL_RET,
};
/* LBR_CTL's admit bit of each kind (arch: bits 16 + JCC, REL_JMP, IND_JMP,
 * REL_CALL, IND_CALL, RET) */
static const uint8_t ctl_bit[SMP_KINDS] = {
    [SMP_JCC] = 0,  [SMP_JMP] = 1,	[SMP_JMP_IND] = 2,
    [SMP_CALL] = 3, [SMP_CALL_IND] = 4, [SMP_RET] = 5,
};

static const struct pmu_lbr *lbr(struct check_ctx *c)
{
	return &pmu_sampling(c->pmu)->lbr;
}

bool lbr_usable(struct check_ctx *c)
{
	const struct pmu_lbr *l = lbr(c);

	if (l->kind == PMU_LBR_NONE)
		check_skip(c, "no LBRs: %s", l->why);
	else if (!l->cpl_filter)
		check_skip(c,
			   "the %u-entry LBRs have no CPL filter (no LBR_SELECT before "
			   "Nehalem, SDM Vol. 3B 18.4.8): the platform's own branches after the "
			   "kernel would take the stack",
			   l->depth);
	else if (hw_user_run(&wl_sample, 0) == HW_UNSUPPORTED)
		check_skip(c, "the platform cannot enter CPL 3 here (hw_user_run: unsupported)");
	else
		return true;
	return false;
}

bool lbr_save(struct check_ctx *c, struct lbr_fw *fw)
{
	const struct pmu_lbr *l = lbr(c);

	*fw = (struct lbr_fw){0};
	if (l->kind != PMU_LBR_AMD_V2 || l->freeze)
		if (!m_rdmsr(c, MSR_DEBUGCTL, &fw->debugctl))
			return false;
	if (l->kind == PMU_LBR_ARCH)
		return m_rdmsr(c, MSR_ARCH_LBR_CTL, &fw->ctl) &&
		       m_rdmsr(c, MSR_ARCH_LBR_DEPTH, &fw->depth);
	if (l->kind == PMU_LBR_AMD_V2 && !m_rdmsr(c, MSR_AMD_DBG_EXTN_CFG, &fw->extn))
		return false;
	return !l->select || m_rdmsr(c, l->select, &fw->select);
}

bool lbr_restore(struct check_ctx *c, const struct lbr_fw *fw)
{
	const struct pmu_lbr *l = lbr(c);
	bool ok = true;

	if (l->kind == PMU_LBR_ARCH)
		ok = m_wrmsr(c, MSR_ARCH_LBR_CTL, fw->ctl) &&
		     m_wrmsr(c, MSR_ARCH_LBR_DEPTH, fw->depth);
	if (l->kind == PMU_LBR_AMD_V2)
		ok = m_wrmsr(c, MSR_AMD_DBG_EXTN_CFG, fw->extn);
	if (ok && l->select)
		ok = m_wrmsr(c, l->select, fw->select);
	if (ok && (l->kind != PMU_LBR_AMD_V2 || l->freeze))
		ok = m_wrmsr(c, MSR_DEBUGCTL, fw->debugctl);
	return ok;
}

/* Zeroes the records (a stale one from before cannot pass for the
 * kernel's); arch LBRs clear themselves on the LBR_DEPTH write. */
static bool clear(struct check_ctx *c)
{
	const struct pmu_lbr *l = lbr(c);

	if (l->kind == PMU_LBR_ARCH)
		return m_wrmsr(c, MSR_ARCH_LBR_DEPTH, l->depth);
	for (unsigned i = 0; i < l->depth; i++) {
		uint32_t f = l->kind == PMU_LBR_AMD_V2 ? l->from + 2 * i : l->from + i;
		uint32_t t = l->kind == PMU_LBR_AMD_V2 ? l->to + 2 * i : l->to + i;
		if (!m_wrmsr(c, f, 0) || !m_wrmsr(c, t, 0))
			return false;
	}
	return true;
}

bool lbr_on(struct check_ctx *c, const struct lbr_fw *fw, uint32_t kinds, uint64_t dbg)
{
	const struct pmu_lbr *l = lbr(c);
	uint64_t sel = LBR_SEL_CPL_EQ_0 | LBR_SEL_FAR, ctl = ARCH_LBR_CTL_EN | ARCH_LBR_CTL_USR;

	for (unsigned k = SMP_JCC; k < SMP_KINDS; k++) {
		if (!(kinds & LBR_KIND(k)))
			sel |= sel_bit[k];
		else
			ctl |= ARCH_LBR_CTL_BR(ctl_bit[k]);
	}
	if (kinds & LBR_CALL_STACK) { /* SDM Vol. 3B 18.1.2.4; LBR_SELECT[9] */
		sel |= LBR_SEL_CALLSTACK;
		ctl |= ARCH_LBR_CTL_STACK;
	}
	if (!clear(c))
		return false;
	switch (l->kind) {
	case PMU_LBR_ARCH:
		return (!dbg || m_wrmsr(c, MSR_DEBUGCTL, fw->debugctl | dbg)) &&
		       m_wrmsr(c, MSR_ARCH_LBR_CTL, ctl);
	case PMU_LBR_AMD_V2:
		return m_wrmsr(c, l->select, sel) &&
		       (!dbg || m_wrmsr(c, MSR_DEBUGCTL, fw->debugctl | dbg)) &&
		       m_wrmsr(c, MSR_AMD_DBG_EXTN_CFG, fw->extn | AMD_DBG_EXTN_LBRV2EN);
	default:
		return (!l->select || m_wrmsr(c, l->select, sel)) &&
		       m_wrmsr(c, MSR_DEBUGCTL, fw->debugctl | dbg | DEBUGCTL_LBR);
	}
}

bool lbr_off(struct check_ctx *c, const struct lbr_fw *fw)
{
	const struct pmu_lbr *l = lbr(c);

	if (l->kind == PMU_LBR_ARCH)
		return m_wrmsr(c, MSR_ARCH_LBR_CTL, fw->ctl & ~ARCH_LBR_CTL_EN);
	if (l->kind == PMU_LBR_AMD_V2)
		return m_wrmsr(c, MSR_AMD_DBG_EXTN_CFG, fw->extn & ~AMD_DBG_EXTN_LBRV2EN);
	return m_wrmsr(c, MSR_DEBUGCTL, fw->debugctl & ~DEBUGCTL_LBR);
}

/* A 48-bit linear address from a record field whose top bits are flags:
 * sign-extended from bit 47 (Linux intel/lbr.c and amd/lbr.c do the same
 * with the CPU's virtual-address width, 48 on the parts modelled). */
static uint64_t canon(uint64_t v)
{
	return (uint64_t)((int64_t)(v << 16) >> 16);
}

/* Entry i (youngest 0) of a legacy stack at TOS. */
static bool legacy_one(struct check_ctx *c, unsigned tos, unsigned i, struct lbr_rec *r)
{
	const struct pmu_lbr *l = lbr(c);
	unsigned k = (tos + l->depth - i) % l->depth;
	uint64_t from = 0, to = 0, info = 0;

	if (!m_rdmsr(c, l->from + k, &from) || !m_rdmsr(c, l->to + k, &to) ||
	    (l->info_msr && !m_rdmsr(c, l->info_msr + k, &info)))
		return false;
	r->mispred =
	    l->info ? (info & LBR_INFO_MISPRED) != 0 : l->mispred && (from & LBR_INFO_MISPRED);
	/* formats 3 and 4 keep flags in FROM's top bits (Linux lbr_desc) */
	r->from = canon(l->info || !l->mispred ? from : from & ~LBR_INFO_MISPRED);
	r->to = canon(to);
	return true;
}

bool lbr_read(struct check_ctx *c, struct lbr_rec *r, unsigned *n)
{
	const struct pmu_lbr *l = lbr(c);
	uint64_t tos = 0, from = 0, to = 0, info = 0;

	*n = l->depth < LBR_REC_MAX ? l->depth : LBR_REC_MAX;
	if (l->kind == PMU_LBR_LEGACY && !m_rdmsr(c, MSR_LBR_TOS, &tos))
		return false;
	for (unsigned i = 0; i < *n; i++) {
		if (l->kind == PMU_LBR_LEGACY) {
			if (!legacy_one(c, (unsigned)tos, i, &r[i]))
				return false;
			continue;
		}
		bool amd = l->kind == PMU_LBR_AMD_V2;
		if (!m_rdmsr(c, amd ? l->from + 2 * i : l->from + i, &from) ||
		    !m_rdmsr(c, amd ? l->to + 2 * i : l->to + i, &to) ||
		    (!amd && !m_rdmsr(c, l->info_msr + i, &info)))
			return false;
		r[i].mispred = amd ? (from & AMD_LBR_FROM_MISPRED) != 0 : (info & LBR_INFO_MISPRED);
		r[i].from = canon(from);
		r[i].to = amd && !(to & AMD_LBR_TO_VALID) ? 0 : canon(to);
	}
	return true;
}

struct expect {
	uint32_t kinds;
	struct smp_step *out;
	unsigned max, n;
	uint64_t seen;
};

static void take(void *ctx, const struct smp_step *st)
{
	struct expect *x = ctx;

	if (st->kind == SMP_NONE || !st->taken || !(x->kinds & LBR_KIND(st->kind)))
		return;
	x->out[x->seen++ % x->max] = *st; /* a ring: the last max stay */
}

unsigned lbr_expect(uint64_t iters, uint32_t kinds, struct smp_step *out, unsigned max)
{
	struct smp_step ring[4 * LBR_REC_MAX] = {0};
	struct expect x = {.kinds = kinds, .out = ring, .max = 4 * LBR_REC_MAX};
	unsigned n, first;

	(void)smp_walk(iters, take, &x);
	n = x.seen < x.max ? (unsigned)x.seen : x.max;
	if (n > max)
		n = max;
	first = (unsigned)((x.seen - n) % x.max);
	for (unsigned i = 0; i < n; i++)
		out[i] = ring[(first + i) % x.max];
	return n;
}

static bool in_kernel(uint64_t a)
{
	uint64_t lo, hi;
	smp_bounds(&lo, &hi);
	return a >= lo && a < hi;
}

unsigned lbr_match(struct check_ctx *c, const struct lbr_rec *r, unsigned n,
		   const struct smp_step *e, unsigned ne, unsigned *k0)
{
	unsigned k = 0;

	while (k < n && k < LBR_PLATFORM_MAX && !in_kernel(r[k].from))
		k++;
	*k0 = k;
	for (unsigned i = 0; k + i < n; i++) {
		const struct lbr_rec *g = &r[k + i];
		const struct smp_step *w = i < ne ? &e[ne - 1 - i] : 0;
		/* the kernel's final RET goes to the platform: any TO outside it */
		bool to_ok = w && (w->next ? g->to == w->next : !in_kernel(g->to));
		if (w && g->from == w->ip && to_ok)
			continue;
		if (!w)
			check_fail(c,
				   "LBR entry %u (0 the youngest): FROM 0x%llx TO 0x%llx where the "
				   "kernel had no more branches of the kinds recorded",
				   k + i, (unsigned long long)g->from, (unsigned long long)g->to);
		else
			check_fail(
			    c,
			    "LBR entry %u (0 the youngest): FROM 0x%llx TO 0x%llx, expected "
			    "the kernel's %s FROM 0x%llx TO %s0x%llx (%u branches before its "
			    "end)",
			    k + i, (unsigned long long)g->from, (unsigned long long)g->to,
			    smp_kind_name(w->kind), (unsigned long long)w->ip,
			    w->next ? "" : "its caller, not ", (unsigned long long)w->next, i);
		return k + i;
	}
	return n;
}

/* lbr.freeze's window (and lbr.callstack's): counter z.ctr armed, LBRs on
 * with the freeze; what the freeze
 * left in st (GLOBAL_STATUS or DEBUGCTL) and the records. */
bool lbr_frozen_window(struct check_ctx *c, const struct lbr_fw *fw, struct lbr_freeze z,
		       uint64_t *st, struct lbr_rec *r, unsigned *n)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	uint64_t bit = 1ull << z.ctr;

	if (!m_setup_or_fail(c, z.ctr, GEN_INSTRUCTIONS, PMU_F_USR | PMU_F_INT) ||
	    !m_ack(c, pmu_all_mask(c->pmu)) || !m_preload(c, z.ctr, z.at) ||
	    !lbr_on(c, fw, z.kinds, DEBUGCTL_FREEZE_LBRS_ON_PMI) || !m_start(c, bit))
		return false;
	int e = hw_user_run(&wl_sample, z.iters);
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
