/* The sampling hardware's common part: the MSR dispatch to the LBRs, the
 * debug store and IBS, IA32_DEBUGCTL where the model has none of its own,
 * the global status through the model's own registers, and the harness's
 * branches (realism "overhead": every seam access retires branches of
 * harness code, which the LBRs and the BTS record like any other). */
#include "sim.h"
#include "../../lib/str.h"
#include "../../pmu/msr.h"
#include "../../pmu/cpuid.h"
#include "../../events/sample.h"

static const struct sim_smp_cfg *cfg(const struct sim_cpu *s)
{
	return s->m->smp;
}

/* Sets and clears bits of one register (0-3: EAX-EDX) of a CPUID entry
 * the model's reset made; adds the entry where it has none. */
static void cpuid_bits(struct sim_cpu *s, uint32_t leaf, unsigned reg, uint32_t set, uint32_t clr)
{
	for (unsigned i = 0; i < s->n_cpuid; i++) {
		struct sim_cpuid *e = &s->cpuid[i];
		if (e->leaf != leaf || e->subleaf != 0)
			continue;
		uint32_t *r[4] = {&e->r.eax, &e->r.ebx, &e->r.ecx, &e->r.edx};
		*r[reg] = (*r[reg] & ~clr) | set;
		return;
	}
	uint32_t v[4] = {0};
	v[reg] = set;
	sim_set_cpuid(s, leaf, 0, v[0], v[1], v[2], v[3]);
}

/* The enumeration of what cfg has, on top of the model's CPUID: the
 * architectural LBRs' leaf 1CH (depths up to lbr_depth, CPL and branch
 * filters and call-stack mode, the mispredicted bit, timed LBRs and branch
 * types: EBX and ECX 7), AMD's LBR v2 and its freeze (8000_0022h), IBS
 * (8000_0001h ECX[10], 8000_001Bh). */
static void enumerate(struct sim_cpu *s, const struct sim_smp_cfg *c)
{
	if (c->lbr_kind == SIM_LBR_ARCH) {
		cpuid_bits(s, 7, 3, CPUID_7_EDX_ARCH_LBR, 0);
		sim_set_cpuid(s, CPUID_LEAF_ARCH_LBR, 0, (1u << (c->lbr_depth / 8)) - 1, 7, 7, 0);
	}
	if (c->lbr_kind == SIM_LBR_AMD_V2)
		cpuid_bits(s, CPUID_LEAF_AMD_PERFMON, 0,
			   CPUID_AMD22_EAX_LBRV2 | (c->lbr_freeze ? CPUID_AMD22_EAX_LBR_FREEZE : 0),
			   0);
	if (c->lbr_kind == SIM_LBR_AMD_V2)
		cpuid_bits(s, CPUID_LEAF_AMD_PERFMON, 1, (uint32_t)c->lbr_depth << 4, 0x3f0);
	if (c->ibs_caps)
		sim_set_cpuid(s, CPUID_LEAF_AMD_IBS, 0, c->ibs_caps, 0, 0, 0);
	if (c->status_msr == MSR_AMD_GLOBAL_STATUS)
		cpuid_bits(s, CPUID_LEAF_AMD_FEATURES, 2, c->ibs_caps ? CPUID_AMD1_ECX_IBS : 0,
			   c->ibs_caps ? 0 : CPUID_AMD1_ECX_IBS);
}

void sim_smp_reset(struct sim_cpu *s)
{
	pmh_memset(&s->smp, 0, sizeof(s->smp));
	if (!cfg(s))
		return;
	enumerate(s, cfg(s));
	/* IA32_LBR_DEPTH's reset value is the deepest CPUID 1CH offers (SDM
	 * Vol. 3B 18.1.2.2) */
	if (cfg(s)->lbr_kind == SIM_LBR_ARCH)
		s->smp.lbr.depth = cfg(s)->lbr_depth;
}

bool sim_smp_msr(const struct sim_cpu *s, uint32_t msr)
{
	const struct sim_smp_cfg *c = cfg(s);

	if (!c)
		return false;
	if (msr == MSR_DEBUGCTL)
		return c->own_debugctl;
	return sim_lbr_msr(s, msr) || sim_ds_msr(s, msr) || sim_ibs_msr(s, msr);
}

/* DEBUGCTL bits a model that leaves it to sim_smp holds: LBR and BTF, and
 * the LBR freeze where it has one (AMD APM Vol. 2 13.1.1.6; Linux
 * amd/lbr.c amd_pmu_lbr_enable_all). */
static uint64_t debugctl_rw(const struct sim_smp_cfg *c)
{
	return DEBUGCTL_LBR | DEBUGCTL_BTF | (c->lbr_freeze ? DEBUGCTL_FREEZE_LBRS_ON_PMI : 0);
}

int sim_smp_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (msr == MSR_DEBUGCTL) {
		*v = s->smp.debugctl;
		return HW_OK;
	}
	if (sim_lbr_msr(s, msr))
		return sim_lbr_rdmsr(s, msr, v);
	if (sim_ds_msr(s, msr))
		return sim_ds_rdmsr(s, msr, v);
	return sim_ibs_rdmsr(s, msr, v);
}

int sim_smp_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (msr == MSR_DEBUGCTL) {
		if (v & ~debugctl_rw(cfg(s)))
			return HW_FAULT_GP;
		s->smp.debugctl = v;
		return HW_OK;
	}
	if (sim_lbr_msr(s, msr))
		return sim_lbr_wrmsr(s, msr, v);
	if (sim_ds_msr(s, msr))
		return sim_ds_wrmsr(s, msr, v);
	return sim_ibs_wrmsr(s, msr, v);
}

uint64_t sim_smp_debugctl(struct sim_cpu *s)
{
	return s->smp.debugctl;
}

/* A write the model took: DEBUGCTL as it now holds it (the model's own
 * register, read back without a second access), and the LBR freeze's
 * status bit set or cleared (the model's STATUS_SET / reset registers). */
void sim_smp_wrote(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	const struct sim_smp_cfg *c = cfg(s);

	if (!c)
		return;
	if (msr == MSR_DEBUGCTL && !c->own_debugctl)
		s->smp.debugctl = v;
	else if (msr == c->status_set_msr && (v & GLOBAL_STATUS_LBR_FRZ))
		s->smp.lbr.frozen = true;
	else if (msr == c->status_clr_msr && (v & GLOBAL_STATUS_LBR_FRZ))
		s->smp.lbr.frozen = false;
}

void sim_smp_status_set(struct sim_cpu *s, uint64_t bits)
{
	const struct sim_smp_cfg *c = cfg(s);

	if (c && c->status_set) {
		c->status_set(s, bits);
		if (bits & GLOBAL_STATUS_LBR_FRZ)
			s->smp.lbr.frozen = true;
	} else if (c && c->status_set_msr && s->m->wrmsr(s, c->status_set_msr, bits) == HW_OK) {
		sim_smp_wrote(s, c->status_set_msr, bits);
	}
}

bool sim_smp_per_insn(const struct sim_cpu *s)
{
	const struct sim_smp_ibs_bits {
		uint64_t op_en, fetch_en;
	} ibs = {1ull << 17, 1ull << 48}; /* IbsOpEn, IbsFetchEn (sim_ibs.c) */

	if (!cfg(s))
		return false;
	return s->smp.ds.pebs_enable || (s->smp.ibs.op_ctl & ibs.op_en) ||
	       (s->smp.ibs.fetch_ctl & ibs.fetch_en);
}

void sim_smp_branch(struct sim_cpu *s, uint64_t from, uint64_t to, uint8_t kind)
{
	struct sim_branch b = {.from = from, .to = to, .kind = kind, .cpl = (uint8_t)s->cpl};

	if (!cfg(s))
		return;
	sim_lbr_branch(s, &b);
	sim_ds_branch(s, &b);
}

void sim_smp_step(struct sim_cpu *s, const struct sim_step *st)
{
	if (!cfg(s))
		return;
	if (st->kind != SMP_NONE && st->taken) {
		struct sim_branch b = {.from = st->ip,
				       .to = st->next,
				       .kind = st->kind,
				       .mispred = st->mispred,
				       .cpl = (uint8_t)s->cpl};
		sim_lbr_branch(s, &b);
		sim_ds_branch(s, &b);
	}
	sim_ds_step(s, st);
	sim_p4_pebs_step(s, st); /* NetBurst PEBS (sim_pebs_p4.c; pebs.netburst's task) */
	sim_ibs_step(s, st);
}

/* The harness's branches: from and to addresses in its own code (this
 * file's functions stand for it), near jumps and calls and returns in
 * turn, as compiled C has them; predicted. */
void sim_smp_harness(struct sim_cpu *s, uint64_t br)
{
	static const uint8_t kinds[] = {SMP_JCC, SMP_CALL, SMP_JMP, SMP_RET};
	uint64_t base = (uint64_t)(uintptr_t)sim_smp_harness;

	if (!cfg(s) || !br || !(sim_lbr_on(s) || sim_ds_bts_on(s)))
		return;
	if (br > SIM_LBR_MAX * 2) /* older ones leave the stack anyway */
		br = SIM_LBR_MAX * 2;
	for (uint64_t i = 0; i < br; i++) {
		struct sim_branch b = {.from = base + 16 * (i % 8),
				       .to = base + 16 * (i % 8) + 8,
				       .kind = kinds[i % 4],
				       .cpl = (uint8_t)s->cpl};
		sim_lbr_branch(s, &b);
		sim_ds_branch(s, &b);
	}
}

void sim_smp_pmi_request(struct sim_cpu *s)
{
	if (cfg(s))
		sim_lbr_pmi_request(s);
}
