/* The sampling hardware of each model that has some (sim_smp.h), with the
 * sources of its numbers. A model not here has none the simulator models:
 * its CPUID and MSRs enumerate none, and every sampling check SKIPs. */
#include "sim.h"
#include "model_kvm.h"
#include "../../pmu/msr.h"

/* Skylake client (i7-6700): legacy LBRs, 32 entries at 680H/6C0H with
 * LBR_INFO (Linux intel/lbr.c intel_pmu_lbr_init_skl; PERF_CAPABILITIES
 * 0x33c5: LBR format 5, PEBS trap, format 3); the freeze of perfmon v4
 * (GLOBAL_STATUS.LBR_FRZ); BTS; PEBS on the four GP counters. A PEBS
 * assist costs about 200 cycles (ours; Intel does not publish it). */
const struct sim_smp_cfg sim_smp_skylake = {
    .lbr_kind = SIM_LBR_LEGACY,
    .lbr_depth = 32,
    .lbr_format = 5,
    .lbr_from = MSR_LBR_NHM_FROM,
    .lbr_to = MSR_LBR_NHM_TO,
    .lbr_info = true,
    .lbr_freeze = true,
    .lbr_callstack = true,
    .lbr_status_frz = true,
    .status_msr = MSR_PERF_GLOBAL_STATUS,
    .status_set_msr = MSR_PERF_GLOBAL_STATUS_SET,
    .status_clr_msr = MSR_PERF_GLOBAL_OVF_CTRL,
    .bts = true,
    .pebs_fmt = 3,
    .pebs_ctrs = 0xf,
    .pebs_assist = 200,
    /* INST_RETIRED.PREC_DIST on PMC1 alone is precise (Linux intel/core.c
     * intel_skl_pebs_event_constraints, 0x01c0 on counter mask 0x2); any
     * other PEBS event's record may land on a later instruction of the
     * event, the "shadow" (Intel's optimization manual on PEBS skid); up
     * to 4 events late is ours */
    .pdir_enc = 0x01c0,
    .pdir_ctr = 1,
    .pebs_shadow = 4,
};

/* A KVM guest on Skylake: the host's LBRs passed through once the guest
 * sets DEBUGCTL.LBR (Linux kvm/vmx/pmu_intel.c intel_pmu_create_guest_lbr_event,
 * 5.12), whose freeze on PMI KVM emulates the pre-v4 way, by clearing
 * DEBUGCTL.LBR as it injects the PMI (intel_pmu_legacy_freezing_lbrs_on_pmi);
 * no PEBS (guest PEBS needs an Ice Lake server host: vmx/capabilities.h
 * vmx_pebs_supported) and no BTS (KVM sets MISC_ENABLE's BTS unavailable,
 * vmx.c). */
const struct sim_smp_cfg sim_smp_skylake_kvm = {
    .lbr_kind = SIM_LBR_LEGACY,
    .lbr_depth = 32,
    .lbr_format = 5,
    .lbr_from = MSR_LBR_NHM_FROM,
    .lbr_to = MSR_LBR_NHM_TO,
    .lbr_info = true,
    .lbr_freeze = true,
    .lbr_callstack = true,
    .status_msr = MSR_PERF_GLOBAL_STATUS,
};

/* Sapphire Rapids: architectural LBRs, depths 8-32 (CPUID 1CH EAX 0xf),
 * CPL and branch filters, call-stack mode, the mispredicted bit; perfmon
 * v5's LBR_FRZ; BTS; adaptive PEBS (PERF_CAPABILITIES[14]) of format 4 on
 * the eight GP and four fixed counters (Linux intel/ds.c; format 4 as Ice
 * Lake's, ours). */
const struct sim_smp_cfg sim_smp_spr = {
    .lbr_kind = SIM_LBR_ARCH,
    .lbr_depth = 32,
    .lbr_format = LBR_FMT_ARCH,
    .lbr_freeze = true,
    .lbr_callstack = true,
    .lbr_status_frz = true,
    .status_msr = MSR_PERF_GLOBAL_STATUS,
    .status_set_msr = MSR_PERF_GLOBAL_STATUS_SET,
    .status_clr_msr = MSR_PERF_GLOBAL_OVF_CTRL,
    .bts = true,
    .pebs_fmt = 4,
    .pebs_adaptive = true,
    .pebs_ctrs = 0xffull | (0xfull << 32),
    .pebs_assist = 200,
};

/* A KVM guest on Sapphire Rapids: guest PEBS, adaptive, on the GP and
 * fixed counters (Linux 5.16, kvm/vmx/pmu_intel.c intel_pmu_refresh with
 * PERF_CAP_PEBS_BASELINE; its three fixed counters); no architectural LBRs (KVM's cpuid.c does not
 * advertise ARCH_LBR: ours, from the kernels this models) and no BTS. */
const struct sim_smp_cfg sim_smp_spr_kvm = {
    .status_msr = MSR_PERF_GLOBAL_STATUS,
    .status_set = kvm_spr_status_set, /* a v2 guest: no STATUS_SET of its own */
    .status_clr_msr = MSR_PERF_GLOBAL_OVF_CTRL,
    .pebs_fmt = 4,
    .pebs_adaptive = true,
    .pebs_ctrs = 0xffull | (0x7ull << 32),
    .pebs_assist = 200,
};

/* Zen 4: LBR v2 of 16 entries with the LBR and PMC freeze (CPUID
 * 8000_0022h EAX 0x7, EBX[9:4] 16: Linux amd/lbr.c); DEBUGCTL is this
 * part's; IBS with the Zen 4 feature bits (CPUID 8000_001Bh EAX 0x3ff;
 * Linux amd/ibs.c) through extended LVT entry 0 (ours: firmware picks it). */
const struct sim_smp_cfg sim_smp_zen4 = {
    .lbr_kind = SIM_LBR_AMD_V2,
    .lbr_depth = 16,
    .lbr_freeze = true,
    .lbr_status_frz = true,
    .status_msr = MSR_AMD_GLOBAL_STATUS,
    .status_set_msr = MSR_AMD_GLOBAL_STATUS_SET,
    .status_clr_msr = MSR_AMD_GLOBAL_STATUS_CLR,
    .own_debugctl = true,
    .ibs_caps = 0x3ff,
    .ibs_lvt = 0,
};

/* A KVM guest on Zen 4: KVM clears LbrExtV2 from 8000_0022h and IBS from
 * 8000_0001h (Linux kvm/cpuid.c kvm_set_cpu_caps): no sampling hardware. */
const struct sim_smp_cfg sim_smp_zen4_kvm = {
    .status_msr = MSR_AMD_GLOBAL_STATUS,
};

/* Bulldozer (family 15h): IBS as its CPUID 8000_0001h ECX[10] says, the
 * family 10h-15h features (8000_001Bh EAX 0xff: ours), extended LVT entry
 * 0; no LBR v2 (Zen 4's) and no debug store (Intel's). */
const struct sim_smp_cfg sim_smp_bulldozer = {
    .ibs_caps = 0xff,
    .ibs_lvt = 0,
};

/* Pentium 4 (NetBurst, models "pentium4" and "pentium4-ht"): PEBS on
 * IQ_COUNTER4, IQ_COUNTER5 for logical processor 1 (SDM Vol. 3B 18.15.7,
 * 18.16.3; sim_pebs_p4.c), the models' MSR files handing its MSRs over. No
 * LBR stack or BTS modelled (the harness knows family 6 stacks only,
 * pmu/lbr.c; NetBurst's MSR_DEBUGCTLA has its BTS bits elsewhere, SDM Vol.
 * 3B 18.5.1), no global status. An assist costs about 200 cycles (ours, as
 * the later cores': Intel does not publish it). */
const struct sim_smp_cfg sim_smp_pentium4 = {
    .pebs_p4 = true,
    .pebs_assist = 200,
};
