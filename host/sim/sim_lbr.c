/* Last branch records, the three kinds a model can have (sim_smp_cfg):
 *  - legacy (Intel, model-specific): DEBUGCTL.LBR (bit 0) records; the
 *    stack is a ring of lbr_depth FROM/TO pairs at the model's bases
 *    with LBR_TOS (1C9H) naming the youngest; LBR_SELECT (1C8H) suppresses
 *    the branch kinds and rings its set bits name (SDM Vol. 3B 18.4.8,
 *    Table 18-2). Format 5 keeps MISPRED in LBR_INFO[63] (0xDC0+i),
 *    formats 3 and 4 in FROM[63] (Linux intel/lbr.c lbr_desc).
 *  - architectural (SDM Vol. 3B 18.1.2; CPUID 1CH): LBR_CTL (14CEH)
 *    enables, admits CPL 0 (OS) and CPL > 0 (USR) and each branch type
 *    (bits 16-22); LBR_DEPTH (14CFH) takes a depth CPUID 1CH lists, and a
 *    write clears the records; entry 0 is the youngest; LBR_INFO[63]
 *    MISPRED, [59:56] the branch type.
 *  - AMD LBR v2 (AMD APM Vol. 2 13.1.1.9; Linux amd/lbr.c): DBG_EXTN_CFG
 *    bit 6 enables; entry 0 the youngest; FROM[63] mispredicted, TO[63]
 *    valid; LBR_SELECT (C000_010EH) as Intel's legacy filter.
 * The freeze on PMI (DEBUGCTL.FREEZE_LBRS_ON_PMI): an overflow that
 * requests a PMI stops the records there; perfmon v4 and AMD PerfMonV2
 * set GLOBAL_STATUS.LBR_FRZ (bit 58) and record again once software
 * clears it (SDM Vol. 3B 20.2.4.1; Linux amd_pmu_v2_handle_irq), earlier cores clear
 * DEBUGCTL.LBR (SDM Vol. 3B 18.4.7).
 * Faults: lbr-off-by-one pairs each FROM with the TO of the branch before;
 * lbr-filter-ignored records every branch kind; lbr-freeze-ignored records
 * on past the PMI. */
#include "sim.h"
#include "../../pmu/msr.h"
#include "../../events/sample.h"
#include "../../lib/str.h"

#define ARCH_BR_TYPE_SHIFT 56
#define LBR_SEL_RW	   0x3ffull /* the nine filters and EN_CALLSTACK */
#define ARCH_LBR_CTL_RW	   (0xfull | (0x7full << 16))

static const struct sim_smp_cfg *cfg(const struct sim_cpu *s)
{
	return s->m->smp;
}

static unsigned depth(const struct sim_cpu *s)
{
	if (cfg(s)->lbr_kind == SIM_LBR_ARCH)
		return (unsigned)s->smp.lbr.depth;
	return cfg(s)->lbr_depth;
}

/* The MSR's entry index in one of the stacks (from, to or info: *which
 * 0, 1, 2), or -1. */
static int entry_of(const struct sim_cpu *s, uint32_t msr, unsigned *which)
{
	const struct sim_smp_cfg *c = cfg(s);
	uint32_t base[3] = {c->lbr_from, c->lbr_to, c->lbr_info ? MSR_LBR_INFO_0 : 0};
	unsigned n = c->lbr_depth;

	if (c->lbr_kind == SIM_LBR_ARCH) {
		base[0] = MSR_ARCH_LBR_FROM;
		base[1] = MSR_ARCH_LBR_TO;
		base[2] = MSR_ARCH_LBR_INFO;
	} else if (c->lbr_kind == SIM_LBR_AMD_V2) {
		if (msr >= MSR_AMD_SAMP_BR_FROM && msr < MSR_AMD_SAMP_BR_FROM + 2 * n) {
			*which = (msr - MSR_AMD_SAMP_BR_FROM) & 1;
			return (int)((msr - MSR_AMD_SAMP_BR_FROM) / 2);
		}
		return -1;
	}
	for (unsigned k = 0; k < 3; k++)
		if (base[k] && msr >= base[k] && msr < base[k] + n) {
			*which = k;
			return (int)(msr - base[k]);
		}
	return -1;
}

bool sim_lbr_msr(const struct sim_cpu *s, uint32_t msr)
{
	unsigned which;

	switch (cfg(s)->lbr_kind) {
	case SIM_LBR_LEGACY:
		if (msr == MSR_LBR_SELECT || msr == MSR_LBR_TOS)
			return true;
		break;
	case SIM_LBR_ARCH:
		if (msr == MSR_ARCH_LBR_CTL || msr == MSR_ARCH_LBR_DEPTH)
			return true;
		break;
	case SIM_LBR_AMD_V2:
		if (msr == MSR_AMD_LBR_SELECT || msr == MSR_AMD_DBG_EXTN_CFG)
			return true;
		break;
	default:
		return false;
	}
	return entry_of(s, msr, &which) >= 0;
}

int sim_lbr_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	struct sim_lbr *l = &s->smp.lbr;
	unsigned which;
	int i = entry_of(s, msr, &which);

	if (i >= 0) {
		*v = which == 0 ? l->from[i] : which == 1 ? l->to[i] : l->info[i];
		return HW_OK;
	}
	switch (msr) {
	case MSR_LBR_SELECT:
	case MSR_AMD_LBR_SELECT:
		*v = l->select;
		return HW_OK;
	case MSR_LBR_TOS:
		*v = l->tos;
		return HW_OK;
	case MSR_ARCH_LBR_CTL:
		*v = l->ctl;
		return HW_OK;
	case MSR_ARCH_LBR_DEPTH:
		*v = l->depth;
		return HW_OK;
	default: /* MSR_AMD_DBG_EXTN_CFG */
		*v = l->extn;
		return HW_OK;
	}
}

/* CPUID 1CH EAX[7:0]: bit n offers a depth of 8(n + 1). */
static bool arch_depth_ok(const struct sim_cpu *s, uint64_t d)
{
	return d && d % 8 == 0 && d <= cfg(s)->lbr_depth;
}

int sim_lbr_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	struct sim_lbr *l = &s->smp.lbr;
	unsigned which;
	int i = entry_of(s, msr, &which);

	if (i >= 0) {
		uint64_t *e = which == 0 ? l->from : which == 1 ? l->to : l->info;
		e[i] = v;
		return HW_OK;
	}
	switch (msr) {
	case MSR_LBR_SELECT:
	case MSR_AMD_LBR_SELECT:
		if (v & ~LBR_SEL_RW)
			return HW_FAULT_GP;
		l->select = v;
		return HW_OK;
	case MSR_LBR_TOS:
		l->tos = (unsigned)(v % cfg(s)->lbr_depth);
		return HW_OK;
	case MSR_ARCH_LBR_CTL:
		if (v & ~ARCH_LBR_CTL_RW)
			return HW_FAULT_GP;
		l->ctl = v;
		return HW_OK;
	case MSR_ARCH_LBR_DEPTH:
		if (!arch_depth_ok(s, v))
			return HW_FAULT_GP;
		l->depth = v; /* "a write ... resets all LBR records" (SDM 18.1.2.2) */
		pmh_memset(l->from, 0, sizeof(l->from));
		pmh_memset(l->to, 0, sizeof(l->to));
		pmh_memset(l->info, 0, sizeof(l->info));
		return HW_OK;
	default: /* MSR_AMD_DBG_EXTN_CFG */
		l->extn = v;
		return HW_OK;
	}
}

/* Whether the records are frozen (DEBUGCTL.FREEZE_LBRS_ON_PMI's doing). */
static bool frozen(struct sim_cpu *s)
{
	return cfg(s)->lbr_status_frz && s->smp.lbr.frozen;
}

bool sim_lbr_on(struct sim_cpu *s)
{
	const struct sim_smp_cfg *c = cfg(s);

	if (!c || c->lbr_kind == SIM_LBR_NONE)
		return false;
	if (c->lbr_kind == SIM_LBR_ARCH)
		return (s->smp.lbr.ctl & ARCH_LBR_CTL_EN) && !frozen(s);
	if (c->lbr_kind == SIM_LBR_AMD_V2)
		return (s->smp.lbr.extn & AMD_DBG_EXTN_LBRV2EN) && !frozen(s);
	return (sim_smp_debugctl(s) & DEBUGCTL_LBR) && !frozen(s);
}

/* The LBR_SELECT bit that suppresses a kind, and LBR_CTL's that admits it. */
static uint64_t sel_bit(uint8_t kind)
{
	static const uint64_t bits[SMP_KINDS] = {
	    [SMP_JCC] = LBR_SEL_JCC,	       [SMP_JMP] = LBR_SEL_REL_JMP,
	    [SMP_JMP_IND] = LBR_SEL_IND_JMP,   [SMP_CALL] = LBR_SEL_REL_CALL,
	    [SMP_CALL_IND] = LBR_SEL_IND_CALL, [SMP_RET] = LBR_SEL_RET,
	};
	return kind < SMP_KINDS ? bits[kind] : 0;
}

static uint64_t ctl_bit(uint8_t kind)
{
	static const uint8_t k[SMP_KINDS] = {
	    [SMP_JCC] = 0,  [SMP_JMP] = 1,	[SMP_JMP_IND] = 2,
	    [SMP_CALL] = 3, [SMP_CALL_IND] = 4, [SMP_RET] = 5,
	};
	return kind < SMP_KINDS && kind != SMP_NONE ? ARCH_LBR_CTL_BR(k[kind]) : 0;
}

/* Whether the filters admit b. */
static bool admitted(const struct sim_cpu *s, const struct sim_branch *b)
{
	const struct sim_lbr *l = &s->smp.lbr;

	if (cfg(s)->lbr_kind == SIM_LBR_ARCH) {
		if (!(l->ctl & (b->cpl ? ARCH_LBR_CTL_USR : ARCH_LBR_CTL_OS)))
			return false;
		return sim_has_fault(s, SF_LBR_FILTER_IGNORED) || (l->ctl & ctl_bit(b->kind));
	}
	if (l->select & (b->cpl ? LBR_SEL_CPL_NEQ_0 : LBR_SEL_CPL_EQ_0))
		return false;
	return sim_has_fault(s, SF_LBR_FILTER_IGNORED) || !(l->select & sel_bit(b->kind));
}

/* The arch LBR_INFO branch types (SDM Vol. 3B Table 18-4; Linux intel/lbr.c
 * arch_lbr_br_type_map): JCC 0, NEAR_IND_JMP 1, NEAR_REL_JMP 2,
 * NEAR_IND_CALL 3, NEAR_REL_CALL 4, NEAR_RET 5. */
static uint64_t arch_type(uint8_t kind)
{
	static const uint8_t t[SMP_KINDS] = {
	    [SMP_JCC] = 0,	[SMP_JMP_IND] = 1, [SMP_JMP] = 2,
	    [SMP_CALL_IND] = 3, [SMP_CALL] = 4,	   [SMP_RET] = 5,
	};
	return (uint64_t)(kind < SMP_KINDS ? t[kind] : 8) << ARCH_BR_TYPE_SHIFT;
}

static void push(struct sim_cpu *s, uint64_t from, uint64_t to, const struct sim_branch *b)
{
	struct sim_lbr *l = &s->smp.lbr;
	const struct sim_smp_cfg *c = cfg(s);
	unsigned n = depth(s);
	uint64_t mis = b->mispred ? LBR_INFO_MISPRED : 0;

	if (c->lbr_kind == SIM_LBR_LEGACY) {
		l->tos = (l->tos + 1) % n;
		l->from[l->tos] = c->lbr_info ? from : from | mis;
		l->to[l->tos] = to;
		l->info[l->tos] = mis;
		return;
	}
	for (unsigned i = n - 1; i > 0; i--) { /* entry 0 the youngest */
		l->from[i] = l->from[i - 1];
		l->to[i] = l->to[i - 1];
		l->info[i] = l->info[i - 1];
	}
	if (c->lbr_kind == SIM_LBR_ARCH) {
		l->from[0] = from;
		l->to[0] = to;
		l->info[0] = mis | arch_type(b->kind);
	} else {
		l->from[0] = from | (b->mispred ? AMD_LBR_FROM_MISPRED : 0);
		l->to[0] = to | AMD_LBR_TO_VALID;
		l->info[0] = 0;
	}
}

/* Call-stack mode (SDM Vol. 3B 18.1.2.4 for architectural LBRs; LBR_SELECT
 * bit 9 EN_CALLSTACK from Haswell, Linux intel/lbr.c LBR_CALL_STACK): on
 * with calls and returns admitted, a near return pops the youngest record
 * (the call it returns from) instead of pushing one. */
static bool call_stack(const struct sim_cpu *s)
{
	const struct sim_lbr *l = &s->smp.lbr;

	if (!cfg(s)->lbr_callstack || sim_has_fault(s, SF_LBR_CALLSTACK_IGNORED))
		return false;
	return cfg(s)->lbr_kind == SIM_LBR_ARCH ? (l->ctl & ARCH_LBR_CTL_STACK) != 0
						: (l->select & LBR_SEL_CALLSTACK) != 0;
}

static void pop(struct sim_cpu *s)
{
	struct sim_lbr *l = &s->smp.lbr;
	unsigned n = depth(s);

	if (cfg(s)->lbr_kind == SIM_LBR_LEGACY) { /* TOS back; the entry stays */
		l->tos = (l->tos + n - 1) % n;
		return;
	}
	for (unsigned i = 0; i + 1 < n; i++) { /* entry 0 leaves, the rest move up */
		l->from[i] = l->from[i + 1];
		l->to[i] = l->to[i + 1];
		l->info[i] = l->info[i + 1];
	}
	l->from[n - 1] = l->to[n - 1] = l->info[n - 1] = 0;
}

void sim_lbr_branch(struct sim_cpu *s, const struct sim_branch *b)
{
	struct sim_lbr *l = &s->smp.lbr;

	if (!sim_lbr_on(s) || !depth(s) || !admitted(s, b))
		return;
	if (b->kind == SMP_RET && call_stack(s)) {
		pop(s);
		return;
	}
	/* lbr-off-by-one: each FROM paired with the TO of the branch before */
	uint64_t to = sim_has_fault(s, SF_LBR_OFF_BY_ONE) ? l->last_to : b->to;
	l->last_to = b->to;
	push(s, b->from, to, b);
}

void sim_lbr_pmi_request(struct sim_cpu *s)
{
	const struct sim_smp_cfg *c = cfg(s);

	if (c->lbr_kind == SIM_LBR_NONE || !c->lbr_freeze ||
	    sim_has_fault(s, SF_LBR_FREEZE_IGNORED))
		return;
	if (!(sim_smp_debugctl(s) & DEBUGCTL_FREEZE_LBRS_ON_PMI))
		return;
	if (c->lbr_status_frz) {
		sim_smp_status_set(s, GLOBAL_STATUS_LBR_FRZ);
		return;
	}
	/* SDM Vol. 3B 18.4.7: DEBUGCTL.LBR cleared, in the model's register
	 * (the write a hypervisor's emulation of it makes) */
	uint64_t d = sim_smp_debugctl(s) & ~DEBUGCTL_LBR;
	if (s->m->wrmsr(s, MSR_DEBUGCTL, d) == HW_OK)
		s->smp.debugctl = d;
}
