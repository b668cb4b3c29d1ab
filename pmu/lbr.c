/* LBR detection: which kind of last branch records the CPU has, how deep,
 * and at which MSRs.
 *  - Architectural LBRs where CPUID.(7,0):EDX[19] says so: depth, filters
 *    and the mispredicted bit from leaf 1CH (SDM Vol. 3B 18.1.2).
 *  - AMD LBR v2 where CPUID 8000_0022h EAX[1] says so, EBX[9:4] entries
 *    (AMD APM Vol. 2 13.1.1.9; Linux amd/lbr.c amd_pmu_lbr_init).
 *  - Intel's model-specific stacks, which nothing enumerates but the
 *    format (PERF_CAPABILITIES[5:0]): depth and bases by family 6 model,
 *    as Linux intel/core.c intel_pmu_init picks intel_pmu_lbr_init_core,
 *    _atom, _nhm (Nehalem to Broadwell) and _skl (Skylake, Ice Lake
 *    client). Under a hypervisor a format of 0 means none: KVM clears
 *    PERF_CAPABILITIES[5:0] where it gives the guest no LBRs (Linux
 *    kvm/vmx/capabilities.h vmx_get_perf_capabilities). */
#include "pmu.h"
#include "cpu.h"
#include "cpuid.h"
#include "msr.h"
#include "hw.h"
#include "../lib/fmt.h"

struct lbr_model {
	uint8_t model, depth;
	uint32_t from, to;
	bool info;
};

/* Family 6 models and their stacks (Linux intel/core.c intel_pmu_init). */
static const struct lbr_model legacy[] = {
    /* Core 2: intel_pmu_lbr_init_core, 4 entries */
    {0x0f, 4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, false},
    {0x16, 4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, false},
    {0x17, 4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, false},
    {0x1d, 4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, false},
    /* Bonnell: intel_pmu_lbr_init_atom, 8 */
    {0x1c, 8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, false},
    {0x26, 8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, false},
    /* Nehalem to Broadwell: intel_pmu_lbr_init_nhm / _snb, 16 */
    {0x1a, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x1e, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x1f, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x2e, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x25, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x2c, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x2f, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x2a, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x2d, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x3a, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x3e, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x3c, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x3f, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x45, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x46, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x3d, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x47, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x4f, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    {0x56, 16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, false},
    /* Skylake and its derivatives, Ice Lake client: intel_pmu_lbr_init_skl, 32 */
    {0x4e, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x5e, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x55, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x8e, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x9e, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0xa5, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0xa6, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x66, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x7d, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x7e, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x6a, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0x6c, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
    {0xa7, 32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, true},
};

static void arch_lbr(const struct pmu *p, struct pmu_lbr *l)
{
	struct cpuid_regs r;
	uint32_t depths;

	hw_cpuid(CPUID_LEAF_ARCH_LBR, 0, &r);
	depths = CPUID_1C_EAX_DEPTHS(r.eax);
	if (!depths) {
		pmh_fmt(l->why, sizeof(l->why), "CPUID 1CH lists no LBR depth");
		return;
	}
	l->kind = PMU_LBR_ARCH;
	l->depth = (uint8_t)(8 * (32 - __builtin_clz(depths)));
	l->cpl_filter = r.ebx & CPUID_1C_EBX_CPL;
	l->filter = r.ebx & CPUID_1C_EBX_FILTER;
	l->callstack = r.ebx & CPUID_1C_EBX_CALLSTACK;
	l->mispred = r.ecx & CPUID_1C_ECX_MISPRED;
	l->freeze = l->status_frz = p->version >= 4;
	l->from = MSR_ARCH_LBR_FROM;
	l->to = MSR_ARCH_LBR_TO;
	l->info_msr = MSR_ARCH_LBR_INFO;
	l->format = LBR_FMT_ARCH;
}

static void amd_lbr(const struct cpu_info *ci, struct pmu_lbr *l)
{
	const struct cpu_ids *id = &ci->ids;

	if (!(id->ext22.eax & CPUID_AMD22_EAX_LBRV2) || !CPUID_AMD22_EBX_LBR_DEPTH(id->ext22.ebx)) {
		pmh_fmt(l->why, sizeof(l->why),
			"no LBR v2: CPUID 8000_0022h EAX[1] clear or no entries");
		return;
	}
	l->kind = PMU_LBR_AMD_V2;
	l->depth = (uint8_t)CPUID_AMD22_EBX_LBR_DEPTH(id->ext22.ebx);
	l->mispred = l->filter = l->cpl_filter = true;
	l->freeze = l->status_frz = (id->ext22.eax & CPUID_AMD22_EAX_LBR_FREEZE) != 0;
	l->from = MSR_AMD_SAMP_BR_FROM;
	l->to = MSR_AMD_SAMP_BR_FROM + 1;
	l->select = MSR_AMD_LBR_SELECT;
}

static void legacy_lbr(const struct pmu *p, struct pmu_lbr *l)
{
	const struct cpu_info *ci = p->cpu;
	uint64_t caps = 0;

	if ((ci->ids.leaf1.ecx & CPUID_1_ECX_PDCM) &&
	    hw_rdmsr(MSR_PERF_CAPABILITIES, &caps) != HW_OK)
		caps = 0;
	l->format = (uint8_t)(caps & PERF_CAP_LBR_FMT);
	if (ci->hypervisor && !l->format) {
		pmh_fmt(l->why, sizeof(l->why),
			"the hypervisor reports no LBR format (PERF_CAPABILITIES[5:0] = 0)");
		return;
	}
	for (unsigned i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		const struct lbr_model *m = &legacy[i];
		if (ci->family != 6 || ci->model != m->model)
			continue;
		l->kind = PMU_LBR_LEGACY;
		l->depth = m->depth;
		l->from = m->from;
		l->to = m->to;
		l->info = m->info && l->format >= LBR_FMT_INFO;
		l->info_msr = l->info ? MSR_LBR_INFO_0 : 0;
		l->mispred = l->format >= LBR_FMT_EIP_FLAGS;
		l->tos = MSR_LBR_TOS;
		l->select = m->depth >= 16 ? MSR_LBR_SELECT : 0; /* Nehalem on */
		l->filter = l->cpl_filter = l->select != 0;
		/* EN_CALLSTACK from Haswell (LBR format 4) on: Linux intel/lbr.c
		 * hsw_lbr_sel_map */
		l->callstack = l->select && l->format >= 4;
		l->freeze = p->version >= 2;
		l->status_frz = p->version >= 4;
		return;
	}
	pmh_fmt(l->why, sizeof(l->why), "no LBR stack known for family %u model 0x%x",
		(unsigned)ci->family, (unsigned)ci->model);
}

void pmu_lbr_detect(const struct pmu *p, struct pmu_lbr *l)
{
	const struct cpu_info *ci = p->cpu;
	struct cpuid_regs r = {0};

	*l = (struct pmu_lbr){0};
	if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) {
		amd_lbr(ci, l);
		return;
	}
	if (ci->vendor != VENDOR_INTEL) {
		pmh_fmt(l->why, sizeof(l->why), "not an Intel or AMD processor");
		return;
	}
	if (ci->ids.max_leaf >= CPUID_LEAF_ARCH_LBR)
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	if (r.edx & CPUID_7_EDX_ARCH_LBR) {
		arch_lbr(p, l);
		return;
	}
	legacy_lbr(p, l);
}

const struct pmu_sampling *pmu_sampling(struct pmu *p)
{
	if (!p->smp.detected && p->cpu) {
		pmu_lbr_detect(p, &p->smp.lbr);
		pmu_ds_detect(p, &p->smp.ds);
		pmu_ibs_detect(p, &p->smp.ibs);
		p->smp.detected = true;
	}
	return &p->smp;
}
