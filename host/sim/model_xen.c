/* Models "xen-vpmu-off", "xen-vpmu-on", "xen-vpmu-ipc", "xen-vpmu-arch": an
 * HVM guest under Xen on the bare-metal "skylake" (model_arch.c), Xen booted
 * with the vpmu= option the name says (Xen docs/misc/xen-command-line.pandoc
 * "vpmu": off by default; "ipc" and "arch" imply it on; a domain has no
 * switch of its own on x86). From Xen's source (X: xen/arch/x86/):
 *  - CPUID: leaf 0AH empty with vpmu off (X:cpu-policy.c
 *    recalculate_cpuid_policy), the host's capped at version 3 with it on
 *    (X:cpuid.c guest_cpuid, "Report at most v3"); PDCM, DS, DTES64 and
 *    DS-CPL never offered (xen/include/public/arch-x86/cpufeatureset.h), leaf
 *    6 empty (X:cpu-policy.c recalculate_misc). Xen's leaves at 4000_0000h
 *    (xen/include/public/arch-x86/cpuid.h, X:cpuid.c cpuid_hypervisor_leaves),
 *    at 4000_0100h behind Viridian's where the domain has viridian=1
 *    (xen-vpmu-on; X:hvm/viridian/viridian.c cpuid_viridian_leaves).
 *  - MSRs (X:hvm/vmx/vmx.c vmx_msr_read_intercept, vmx_msr_write_intercept):
 *    PERFCTR0-7, EVNTSEL0-3 (read) or 0-7 (write), FIXED_CTR0-2, 38DH-390H,
 *    PEBS_ENABLE and DS_AREA go to the vPMU; any other unlisted MSR #GPs
 *    (GLOBAL_STATUS_SET, PERF_CAPABILITIES, the 4C1H aliases until the
 *    vPMU passes them through, MSR_SMI_COUNT, MPERF/APERF). vpmu off: the
 *    vPMU's "nop" (X:cpu/vpmu.c vpmu_do_msr): reads 0, writes dropped.
 *  - vpmu on (X:cpu/vpmu_intel.c): see vpmu_wrmsr and xen_pmi_sync below.
 *  - RDPMC is not intercepted (no CPU_BASED_RDPMC_EXITING outside nested
 *    VMX, X:hvm/vmx/vvmx.c): it reads the hardware counters. */
#include "model_hv.h"

/* Guest state beside the host model's registers. */
#define REG_XEN_STATUS	 REG_HV(0) /* the vPMU context's global_status */
#define REG_XEN_LOADED	 REG_HV(1) /* the context allocated and loaded */
#define REG_XEN_PMIS	 REG_HV(2) /* physical PMIs Xen has handled */
#define REG_XEN_DEBUGCTL REG_HV(3)

#define XEN_GP	  4 /* the host's counters, as core2_vpmu_init reads them */
#define XEN_FIXED 3
#define XEN_WIDTH 48
/* vpmu_intel.c masks for 4 GP and 3 fixed counters on a v4 host:
 * ARCH_CTRL_MASK (63:32, AnyThread 21, pin control 19), fixed_ctrl_mask
 * (AnyThread bits refused), global_ctrl_mask, global_ovf_ctrl_mask (62,
 * 63, and 61 on version > 2) */
#define XEN_SEL_RSVD   0xffffffff00280000ull
#define XEN_FIXED_OK   0xbbbull
#define XEN_GLOBAL_OK  (0xfull | 0x7ull << 32)
#define XEN_OVF_OK     (XEN_GLOBAL_OK | 7ull << 61)
#define XEN_VERSION    (4u << 16 | 17u) /* 4.17 */
#define XEN_VIRIDIAN   0x40000100u	/* Xen's base behind Viridian */
#define XEN_VMM_LEAVES 5		/* XEN_CPUID_MAX_NUM_LEAVES */
#define XEN_TSC_KHZ    3400000u		/* the host's i7-6700 */

enum xen_filter { XEN_ALL, XEN_IPC, XEN_ARCH };

struct xen_cfg {
	const struct sim_model *m;
	bool vpmu;
	enum xen_filter filter; /* XENPMU_FEATURE_IPC_ONLY, _ARCH_ONLY */
	bool viridian;
};

static const struct xen_cfg *cfg_of(const struct sim_cpu *s);

/* ---- CPUID ----------------------------------------------------------------- */

/* Xen's leaves from base (X:cpuid.c cpuid_hypervisor_leaves): the
 * signature, the version, one hypercall page and the MSR base (4000_0200h
 * behind Viridian), the time leaf (subleaf 0: TSC reliable, RDTSCP; its
 * kHz), the HVM leaf (IOMMU mappings, vCPU and domain IDs present, upcall
 * vector; Skylake client has no APIC register virtualization), leaf 5
 * (PV only) empty. */
static void xen_leaves(struct sim_cpu *s, uint32_t base)
{
	hv_signature(s, base, base + XEN_VMM_LEAVES, "XenVMMXenVMM");
	sim_set_cpuid(s, base + 1, 0, XEN_VERSION, 0, 0, 0);
	sim_set_cpuid(s, base + 2, 0, 1, base == XEN_VIRIDIAN ? 0x40000200u : 0x40000000u, 0, 0);
	sim_set_cpuid(s, base + 3, 0, 1u << 1 | 1u << 2, 0, XEN_TSC_KHZ, 0);
	sim_set_cpuid(s, base + 3, 2, XEN_TSC_KHZ, 0, 0, 0);
	sim_set_cpuid(s, base + 4, 0, 1u << 2 | 1u << 3 | 1u << 4 | 1u << 6, 0, 1, 0);
	sim_set_cpuid(s, base + 5, 0, 0, 0, 0, 0);
}

/* Viridian with xl's viridian=1, the "defaults" group (xl.cfg(5): base,
 * freq, time_ref_count, apic_assist, crash_ctl, no_vp_limit, cpu_hotplug):
 * 4000_0002h (version) and 4000_0004h stay 0 until the guest writes its OS
 * identity, which the harness never does; 4000_0003h EAX: reference
 * counter, interrupt-control, hypercall, VP index and frequency MSRs; EDX:
 * CPU dynamic partitioning, crash MSRs; 4000_0005h: no VP limit;
 * 4000_0006h: APIC overlay, MSR bitmaps, nested paging. */
static void viridian_leaves(struct sim_cpu *s)
{
	hv_signature(s, 0x40000000u, 0x40000006u, "Microsoft Hv");
	sim_set_cpuid(s, 0x40000001u, 0, 0x31237648u /* "Hv#1" */, 0, 0, 0);
	sim_set_cpuid(s, 0x40000002u, 0, 0, 0, 0, 0);
	sim_set_cpuid(s, 0x40000003u, 0, 0x872u, 0, 0, 1u << 3 | 1u << 10);
	sim_set_cpuid(s, 0x40000004u, 0, 0, 0, 0, 0);
	sim_set_cpuid(s, 0x40000005u, 0, 0xffffffffu, 0, 0, 0);
	sim_set_cpuid(s, 0x40000006u, 0, 1u << 0 | 1u << 1 | 1u << 3, 0, 0, 0);
	xen_leaves(s, XEN_VIRIDIAN);
}

static void xen_reset(struct sim_cpu *s)
{
	const struct xen_cfg *c = cfg_of(s);

	sim_host_reset(s);
	hv_guest_identity(s, "Simulated Intel Core i7-6700 (Xen HVM guest)");
	if (c->vpmu) /* version 4 reported as 3 */
		hv_cpuid_edit(s, CPUID_LEAF_PERFMON, 0, 0xff, 3);
	else
		sim_set_cpuid(s, CPUID_LEAF_PERFMON, 0, 0, 0, 0, 0);
	if (c->viridian)
		viridian_leaves(s);
	else
		xen_leaves(s, 0x40000000u);
	/* What the host's firmware left in the PMU stays: Xen does not touch
	 * it with vpmu off, and with vpmu on the guest's first vPMU access
	 * loads a zeroed context over it (xen_load). Nor does Xen free PMC3
	 * from the TSX workaround with its default tsx=1 on Skylake (X:tsx.c,
	 * xen-command-line "tsx"). */
	s->reg[REG_XEN_STATUS] = 0;
	s->reg[REG_XEN_LOADED] = 0;
	s->reg[REG_XEN_PMIS] = 0;
	s->reg[REG_XEN_DEBUGCTL] = 0;
}

/* ---- the vPMU ------------------------------------------------------------- */

/* vmx.c's lists: the MSRs it hands to the vPMU. */
static bool vpmu_listed(uint32_t msr, bool write)
{
	if (msr >= MSR_P6_PERFCTR0 && msr < MSR_P6_PERFCTR0 + 8)
		return true;
	if (msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + (write ? 8u : 4u))
		return true;
	if (msr >= MSR_FIXED_CTR0 && msr < MSR_FIXED_CTR0 + 3)
		return true;
	if (msr >= MSR_FIXED_CTR_CTRL && msr <= MSR_PERF_GLOBAL_OVF_CTRL)
		return true;
	return msr == MSR_HV_PEBS_ENABLE || msr == MSR_HV_DS_AREA;
}

static bool is_sel(uint32_t msr)
{
	return msr >= MSR_P6_EVNTSEL0 && msr < MSR_P6_EVNTSEL0 + XEN_GP;
}

static bool is_fixed_ctr(uint32_t msr)
{
	return msr >= MSR_FIXED_CTR0 && msr < MSR_FIXED_CTR0 + XEN_FIXED;
}

/* is_core2_vpmu_msr: the registers of the host's counters (a counter at
 * C1H+i or its 4C1H+i alias). */
static bool core2_msr(uint32_t msr)
{
	uint32_t pmc = msr & ~(MSR_P6_PERFCTR0 ^ MSR_IA32_PMC0);
	return is_sel(msr) || is_fixed_ctr(msr) ||
	       (pmc >= MSR_P6_PERFCTR0 && pmc < MSR_P6_PERFCTR0 + XEN_GP) ||
	       (msr >= MSR_FIXED_CTR_CTRL && msr <= MSR_PERF_GLOBAL_OVF_CTRL) ||
	       msr == MSR_HV_PEBS_ENABLE || msr == MSR_HV_DS_AREA;
}

/* core2_vpmu_msr_common_check: the first vPMU access allocates a zeroed
 * context (GLOBAL_CTRL 0 in the guest's VM-entry load list, 0 on exit as
 * well, so nothing counts while Xen runs) and loads it into the hardware;
 * from then on the counters, and the 4C1H aliases, are not intercepted
 * (core2_vpmu_set_msr_bitmap). */
static void xen_load(struct sim_cpu *s)
{
	if (s->reg[REG_XEN_LOADED])
		return;
	s->reg[REG_XEN_LOADED] = 1;
	hv_host_pmu_idle(s, XEN_GP, XEN_FIXED);
}

/* handle_pmc_quirk, every Intel family 6 part: a flagged counter that
 * reads 0 is written 1 ("endless PMC interrupt loops", no erratum). */
static void pmc_quirk(struct sim_cpu *s, uint64_t status)
{
	for (unsigned i = 0; i < XEN_GP; i++)
		if ((status >> i & 1) && !sim_host_msr(s, MSR_P6_PERFCTR0 + i))
			sim_host_wrmsr(s, MSR_P6_PERFCTR0 + i, 1);
	for (unsigned i = 0; i < XEN_FIXED; i++)
		if ((status >> (32 + i) & 1) && !sim_host_msr(s, MSR_FIXED_CTR0 + i))
			sim_host_wrmsr(s, MSR_FIXED_CTR0 + i, 1);
}

/* core2_vpmu_do_interrupt, run when a physical PMI reached Xen (the LVTPC
 * Xen programs is masked when the guest's is, vpmu_lvtpc_update): the
 * hardware's GLOBAL_STATUS is ORed into the context's and acknowledged.
 * The guest's RDMSR of GLOBAL_STATUS returns the context's only
 * (core2_vpmu_do_rdmsr; HVM never saves the hardware's, __core2_vpmu_save):
 * an overflow without a PMI is never seen there. Done before each access,
 * for the PMIs raised since the last. */
static void xen_pmi_sync(struct sim_cpu *s)
{
	uint64_t n = s->st.pmi_raised - s->st.pmi_dropped;

	if (!cfg_of(s)->vpmu || n == s->reg[REG_XEN_PMIS])
		return;
	s->reg[REG_XEN_PMIS] = n;
	uint64_t st = sim_host_msr(s, MSR_PERF_GLOBAL_STATUS);
	if (!st)
		return;
	pmc_quirk(s, st);
	s->reg[REG_XEN_STATUS] |= st;
	sim_host_wrmsr(s, MSR_PERF_GLOBAL_OVF_CTRL, st & XEN_OVF_OK);
}

/* The ipc and arch filters on umask:event (core2_vpmu_do_wrmsr "PMC
 * filters"): ipc takes unhalted core cycles (003CH), reference cycles
 * (013CH) and instructions retired (00C0H); arch adds LLC references
 * (4F2EH) and misses (412EH), branches (00C4H) and mispredicted branches
 * (00C5H). Anything else, 0 included, is -EINVAL. */
static bool filtered(enum xen_filter f, uint64_t sel)
{
	uint16_t ue = (uint16_t)sel;

	if (f == XEN_ALL || ue == 0x003c || ue == 0x013c || ue == 0x00c0)
		return false;
	return f == XEN_IPC || !(ue == 0x4f2e || ue == 0x412e || ue == 0x00c4 || ue == 0x00c5);
}

static int vpmu_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	*v = 0; /* vmx.c's starting value, which do_rdmsr leaves for others */
	if (!cfg_of(s)->vpmu || !core2_msr(msr))
		return HW_OK;
	xen_load(s);
	switch (msr) {
	case MSR_PERF_GLOBAL_OVF_CTRL:
	case MSR_HV_PEBS_ENABLE: /* the hardware's, never written */
	case MSR_HV_DS_AREA:
		return HW_OK;
	case MSR_PERF_GLOBAL_STATUS:
		*v = s->reg[REG_XEN_STATUS];
		return HW_OK;
	default:
		return sim_host_rdmsr(s, msr, v);
	}
}

/* core2_vpmu_do_wrmsr: -EINVAL is a #GP in the guest (vmx.c gp_fault). */
static int vpmu_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	const struct xen_cfg *c = cfg_of(s);
	bool first = !s->reg[REG_XEN_LOADED];

	if (!c->vpmu)
		return HW_OK; /* vpmu_do_msr's nop */
	if (!core2_msr(msr))
		return HW_FAULT_GP;
	xen_load(s);
	/* fixed counters are checked on the intercepted first access only */
	if (first && is_fixed_ctr(msr) && (v >> XEN_WIDTH))
		return HW_FAULT_GP;
	switch (msr) {
	case MSR_PERF_GLOBAL_OVF_CTRL:
		if (v & ~XEN_OVF_OK)
			return HW_FAULT_GP;
		s->reg[REG_XEN_STATUS] &= ~v;
		return sim_host_wrmsr(s, msr, v);
	case MSR_PERF_GLOBAL_STATUS:
	case MSR_HV_DS_AREA: /* no vpmu=bts */
		return HW_FAULT_GP;
	case MSR_HV_PEBS_ENABLE: /* PEBS_UNAVAIL: only 0, and not under ipc/arch */
		return v || c->filter != XEN_ALL ? HW_FAULT_GP : HW_OK;
	case MSR_PERF_GLOBAL_CTRL:
		return v & ~XEN_GLOBAL_OK ? HW_FAULT_GP : sim_host_wrmsr(s, msr, v);
	case MSR_FIXED_CTR_CTRL:
		return v & ~XEN_FIXED_OK ? HW_FAULT_GP : sim_host_wrmsr(s, msr, v);
	default:
		if (is_sel(msr) && ((v & XEN_SEL_RSVD) || filtered(c->filter, v)))
			return HW_FAULT_GP;
		return sim_host_wrmsr(s, msr, v);
	}
}

/* ---- the MSR file --------------------------------------------------------- */

/* IA32_MISC_ENABLE: the host's (Xen cleared LIMIT_CPUID at boot, X:cpu/
 * intel.c) with BTS and PEBS unavailable (vmx.c; core2_vpmu_do_rdmsr
 * clears BTS_UNAVAIL only under vpmu=bts). */
static uint64_t misc_enable(struct sim_cpu *s)
{
	return sim_host_msr(s, MSR_IA32_MISC_ENABLE) | MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL;
}

static int xen_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	xen_pmi_sync(s);
	if (vpmu_listed(msr, false))
		return vpmu_rdmsr(s, msr, v);
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + XEN_GP && s->reg[REG_XEN_LOADED])
		return sim_host_rdmsr(s, msr, v); /* passed through once loaded */
	switch (msr) {
	case MSR_IA32_MISC_ENABLE:
		*v = misc_enable(s);
		return HW_OK;
	case MSR_DEBUGCTL:
		*v = s->reg[REG_XEN_DEBUGCTL];
		return HW_OK;
	case MSR_IA32_BIOS_SIGN_ID: /* the host's microcode (X:msr.c) */
		return sim_host_rdmsr(s, msr, v);
	default:
		return HW_FAULT_GP;
	}
}

static int xen_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	xen_pmi_sync(s);
	if (vpmu_listed(msr, true))
		return vpmu_wrmsr(s, msr, v);
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + XEN_GP && s->reg[REG_XEN_LOADED])
		return sim_host_wrmsr(s, msr, v);
	switch (msr) {
	case MSR_IA32_MISC_ENABLE: /* the value read back, or #GP (vmx.c) */
		return v == misc_enable(s) ? HW_OK : HW_FAULT_GP;
	case MSR_DEBUGCTL:
		/* LBR and BTF; Skylake has model-specific LBRs, kept (vmx.c) */
		if (v & ~DEBUGCTL_LBR_BTF)
			return HW_FAULT_GP;
		s->reg[REG_XEN_DEBUGCTL] = v;
		return HW_OK;
	case MSR_IA32_BIOS_SIGN_ID: /* Intel: 0 only (X:msr.c guest_wrmsr) */
		return v ? HW_FAULT_GP : sim_host_wrmsr(s, msr, v);
	default:
		return HW_FAULT_GP;
	}
}

static int xen_rdpmc(struct sim_cpu *s, uint32_t ecx, uint64_t *v)
{
	xen_pmi_sync(s);
	return sim_host_rdpmc(s, ecx, v);
}

/* A physical PMI: with vpmu off Xen never programs LVTPC for the guest
 * (its own stays masked), so none reaches it. */
static bool xen_overflow(struct sim_cpu *s, unsigned i)
{
	bool pmi = sim_host_overflow(s, i);
	return cfg_of(s)->vpmu && pmi;
}

/* Numbers: the bare-metal Skylake's (model_arch.c) but no late ack (and
 * no pending hook): nothing re-raises a PMI on an unmask, Xen acknowledged
 * the hardware's status in its handler and the virtual LAPIC raises one
 * per injection; and no MSR_SMI_COUNT (#GP in the guest). VM exits do not
 * count: GLOBAL_CTRL is 0 while Xen runs and an intercepted instruction
 * does not retire in the guest. SMIs in guest context count, as on the host
 * (Xen sets no FREEZE_WHILE_SMM). */
static const struct sim_silicon si_xen =
    SI_SKYLAKE(.smm_counts = true, /* SDM Vol. 3B 17.4.7; Xen sets no freeze */
	       .turbo_x100 = 120,  /* the host's core clock (model_arch.c si_skylake) */
    );

/* The local APIC is Xen's virtual one: a PMI is injected with
 * vlapic_set_irq and LVTPC is not masked on delivery (X:hvm/vlapic.c,
 * X:cpu/vpmu.c vpmu_do_interrupt). */
#define XEN_MODEL(nm, drv, text)                                                                   \
	.name = nm, .host = "skylake", .doc = text, .driver = drv, .faults = 0,                    \
	.fault_na = {SIM_NA_PINNED}, .reset = xen_reset, .rdmsr = xen_rdmsr, .wrmsr = xen_wrmsr,   \
	.rdpmc = xen_rdpmc, .rate = sim_host_rate, .overflow = xen_overflow,                       \
	.lvt_automask = false, .si = &si_xen, .pinned_by = SIM_PINNED_BY

static const struct sim_model xen_off = {XEN_MODEL(
    "xen-vpmu-off", PMU_DRV_NONE,
    "Xen 4.17 HVM guest on Skylake, vpmu=off (the default): Xen cpu-policy.c empties leaf "
    "0AH, vpmu.c reads PMU MSRs as 0 and drops writes; docs xen-command-line vpmu")};
SIM_MODEL(xen_off);

static const struct sim_model xen_on = {
    XEN_MODEL("xen-vpmu-on", PMU_DRV_INTEL_ARCH,
	      "Xen 4.17 HVM guest with viridian=1 on Skylake, vpmu=1: vpmu_intel.c core2 vPMU, "
	      "cpuid.c perfmon v3, Viridian leaves first (viridian.c)")};
SIM_MODEL(xen_on);

static const struct sim_model xen_ipc = {
    XEN_MODEL("xen-vpmu-ipc", PMU_DRV_INTEL_ARCH,
	      "Xen 4.17 HVM guest on Skylake, vpmu=ipc: vpmu_intel.c takes event selects 003CH, "
	      "013CH, 00C0H only")};
SIM_MODEL(xen_ipc);

static const struct sim_model xen_arch = {
    XEN_MODEL("xen-vpmu-arch", PMU_DRV_INTEL_ARCH,
	      "Xen 4.17 HVM guest on Skylake, vpmu=arch: vpmu_intel.c takes the architectural "
	      "event selects only")};
SIM_MODEL(xen_arch);

static const struct xen_cfg cfgs[] = {
    {.m = &xen_off},
    {.m = &xen_on, .vpmu = true, .viridian = true},
    {.m = &xen_ipc, .vpmu = true, .filter = XEN_IPC},
    {.m = &xen_arch, .vpmu = true, .filter = XEN_ARCH},
};

static const struct xen_cfg *cfg_of(const struct sim_cpu *s)
{
	for (unsigned i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		if (cfgs[i].m == s->m)
			return &cfgs[i];
	return &cfgs[0];
}
