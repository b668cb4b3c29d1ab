/* The architectural-perfmon models' definitions: their faults, their
 * realism numbers, the models "yonah", "core2", "skylake",
 * "sapphirerapids", "arrowlake" and "alderlake" (its core types in
 * model_hybrid.c) and their configurations
 * (CPUID values, counters, PERF_CAPABILITIES). The register file and the
 * behaviour they share are model_arch.c's (arch_sim_*). */
#include "../../pmu/msr.h"
#include "../../pmu/cpuid.h"
#include "model_arch.h"
#include "uarch.h"

#define ARCH_COMMON_FAULTS                                                                         \
	(SIM_F(SF_STUCK_COUNTER) | SIM_F(SF_SKID_LONG) | SIM_F(SF_NARROW_COUNTER) |                \
	 SIM_F(SF_NO_SIGN_EXTEND) | SIM_F(SF_LOST_PMI) | SIM_F(SF_SPURIOUS_PMI) |                  \
	 SIM_F(SF_ENABLE_IGNORED) | SIM_F(SF_WRONG_EVENT) | SIM_F(SF_MSR_FAULT) |                  \
	 SIM_F(SF_OVERCOUNT) | SIM_F(SF_LVT_STUCK_MASKED) | SIM_F(SF_ENABLE_IGNORED_ONE) |         \
	 SIM_F(SF_WIDTH_HIGH_BITS) | SIM_F(SF_WRITE_DROPPED) | SIM_F(SF_WRONG_VECTOR) |            \
	 SIM_F(SF_DUPLICATE_PMI) | SIM_FILTER_FAULTS | SIM_APIC_FAULTS | SIM_F(SF_CYCLES_SLOW) |   \
	 SIM_F(SF_WRITE_RESETS) | SIM_F(SF_OVERFLOW_FREEZES))
#define ARCH_V2_FAULTS                                                                             \
	(ARCH_COMMON_FAULTS | SIM_F(SF_NO_OVERFLOW_STATUS) | SIM_F(SF_GLOBAL_CTRL_IGNORED) |       \
	 SIM_F(SF_ACK_IGNORED) | SIM_F(SF_GLOBAL_IGNORED_GP) | SIM_F(SF_STATUS_NOT_STICKY) |       \
	 SIM_F(SF_PMI_STORM) | SIM_F(SF_CYCLES_REF))
/* The decode faults without a memory rule to catch them where the model
 * publishes no caches, and refcyc-core where the core clock is the TSC's. */
#define ARCH_BRANCH_FAULTS                                                                         \
	(SIM_F(SF_EVENT_DEAD) | SIM_F(SF_EVENT_MISWIRED) | SIM_F(SF_DOUBLE_COUNT))
#define NA_NO_CACHES                                                                               \
	"the model publishes no caches (CPUID 04H): the harness skips the memory rules that "      \
	"would catch it"
#define NA_ARCH_MEMORY [SF_UMASK_IGNORED] = NA_NO_CACHES, [SF_MISS_COUNTS_HITS] = NA_NO_CACHES
/* RDPMC's fast read is the non-architectural PMUs' (SDM Vol. 2B RDPMC):
 * here ECX[31] #GPs (rdpmc below), there is no fast read to break. */
#define NA_ARCH_FAST                                                                               \
	[SF_FAST_RDPMC_FULL] = "architectural perfmon reserves RDPMC ECX[31]: it #GPs (SDM Vol. "  \
			       "2B RDPMC; Linux 5728a4a0ea79), no fast read"
/* The full-width alias 0x4C1+i exists with PERF_CAPABILITIES[13] only. */
#define NA_ARCH_NO_FW                                                                              \
	[SF_FULL_WIDTH_NO_GP] = "no PERF_CAPABILITIES[13]: no full-width alias 0x4C1+i (SDM Vol. " \
				"3B 20.2.6) whose bits above the width could fault"

/* TSX: Skylake's alone here. Core Duo and Core 2 predate it (Haswell
 * brought it, SDM Vol. 3B 20.3.6.5); the Alder Lake and Arrow Lake models
 * enumerate no RTM (ours: Intel's product pages list Intel TSX-NI as
 * absent from 12th-generation client parts on; no CPUID dump here). */
#define NA_ARCH_NO_TSX SIM_NA_TSX_FEP(SIM_NA_NO_RTM)

/* Realism (sim.h), at --realism-scale 1. Harness paths between two seam
 * accesses are 12-60 instructions in the target build (ours: objdump of
 * pmu/intel_arch.o, start 55, stop 32, read 24), the interrupt stubs 40
 * (ours), the CPI of that code ours. The PMI's skid in instructions is ours
 * (no public number per instruction); rr (src/PerfCounters.cc skid_size)
 * has never seen it pass 100 conditional branches from Merom to Rocket
 * Lake, 125 from Alder Lake on, and the drawn skid stops there
 * (skid_cap_br; rr counts conditional branches, the simulator every
 * branch, which stops it no later). Each hardware interrupt counts one
 * instruction more than its handler retires (Weaver and McKee, "Can
 * hardware performance counters be trusted?", IISWC 2008; their P6 and
 * Core 2 counts are high by the interrupts taken). SMM code is counted unless
 * FREEZE_WHILE_SMM is set (SDM Vol. 3B 17.4.7), which the harness does not
 * set; MSR_SMI_COUNT exists from Nehalem on (SDM Vol. 4) and Linux acks
 * late from Haswell on (Linux intel/core.c, late_ack). Turbo: Core Duo has
 * none; Core 2 (Merom) raises one core by a bin with Intel Dynamic
 * Acceleration (T7700: 2.4 to 2.6 GHz, 1.08); Skylake's i7-6700 turbos
 * from 3.4 to 4.0 GHz (1.18; 1.20 ours), and the later models take the
 * same ratio (ours). The reference clock stays at the TSC's rate (SDM Vol.
 * 3B, CPU_CLK_UNHALTED.REF_TSC). */
static const struct sim_silicon si_core = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 10,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 100, /* ours: rr's Merom bound for its predecessor */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
};
static const struct sim_silicon si_core2 = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 10,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 100, /* rr skid_size, Merom */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: Core 2 */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
    .turbo_x100 = 108,	/* T7700 with Intel Dynamic Acceleration */
};
static const struct sim_silicon si_skylake =
    SI_SKYLAKE(.late_ack = true,   /* Linux intel/core.c: Haswell and later */
	       .smi_count = true,  /* MSR_SMI_COUNT, Nehalem and later */
	       .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
	       .turbo_x100 = 120,  /* i7-6700: 1.18; 1.20 ours */
    );
/* Alder Lake and Arrow Lake: Skylake's numbers with rr's larger bound. */
const struct sim_silicon si_alderlake = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 8,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 125, /* rr skid_size, Alder Lake and later (P-cores) */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: every x86 but NetBurst */
    .late_ack = true,	/* Linux intel/core.c: Haswell and later */
    .smi_count = true,	/* MSR_SMI_COUNT, Nehalem and later */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
    .turbo_x100 = 120,	/* ours: Skylake's */
};
/* Sapphire Rapids: Golden Cove as Alder Lake's P-cores, the same numbers
 * (rr skid_size has 125 for IntelSapphireRapid too); its turbo the Xeon
 * Platinum 8480+'s all-core 3.0 GHz over its 2.0 GHz base (Intel ARK), at
 * which the TSC runs. */
static const struct sim_silicon si_sapphirerapids = {
    .insn_min = 12,	/* ours: objdump */
    .insn_max = 60,	/* ours: objdump */
    .cpi_x10 = 8,	/* ours */
    .skid_min = 10,	/* ours */
    .skid_max = 100,	/* ours */
    .skid_cap_br = 125, /* rr skid_size, IntelSapphireRapid */
    .entry_insn = 40,	/* ours: the stubs */
    .irq_insn = 1,	/* Weaver and McKee: every x86 but NetBurst */
    .late_ack = true,	/* Linux intel/core.c: Haswell and later */
    .smi_count = true,	/* MSR_SMI_COUNT, Nehalem and later */
    .smm_counts = true, /* SDM Vol. 3B 17.4.7 */
    .turbo_x100 = 150,	/* 8480+: 3.0 / 2.0 GHz all-core (Intel ARK) */
};

/* What the three models share: the register file above, and the local APIC
 * masks LVTPC on delivery (Linux's i386 watchdog). */
#define ARCH_MODEL                                                                                 \
	.driver = PMU_DRV_INTEL_ARCH, .reset = arch_sim_reset, .rdmsr = arch_sim_rdmsr,            \
	.wrmsr = arch_sim_wrmsr, .rdpmc = arch_sim_rdpmc, .rate = arch_sim_rate,                   \
	.overflow = arch_sim_overflow, .lvt_automask = true, .pending = arch_sim_pending,          \
	.retired = arch_td_retired
/* freeze-ignored where the freeze on PMI exists (v2+, model_arch_freeze.c),
 * metrics-unscaled where PERF_METRICS does (model_arch_topdown.c) */
#define ARCH_FREEZE_FAULTS SIM_F(SF_FREEZE_IGNORED)
#define ARCH_TD_FAULTS	   (SIM_F(SF_FREEZE_IGNORED) | SIM_F(SF_METRICS_UNSCALED))
#define NA_NO_METRICS                                                                              \
	[SF_METRICS_UNSCALED] = "PERF_CAPABILITIES[15] clear: no IA32_PERF_METRICS (329H) whose "  \
				"fields could be unscaled (the core has no fixed counter 3)"

static const struct sim_model yonah = {
    .name = "yonah",
    .doc = "SDM Vol. 3B 20.2.1 (arch perfmon v1: no fixed, no globals); Linux core_pmu, "
	   "x86_pmu_handle_irq",
    .faults = ARCH_COMMON_FAULTS | (SIM_EVENT_FAULTS & ~SIM_F(SF_REFCYC_CORE)),
    .fault_na =
	{
	    SIM_NA_TOPDOWN,
	    NA_ARCH_FAST,
	    NA_ARCH_NO_FW,
	    SIM_NA_FAMILY_REGS,
	    SIM_NA_NO_SMP,
	    NA_ARCH_NO_TSX,
	    [SF_CYCLES_REF] = SIM_NA_CYCLES_REF,
	    [SF_REFCYC_CORE] = "Core Duo has no turbo: its core clock runs at the TSC's "
			       "rate, reference and core cycles are the same",
	    [SF_NO_OVERFLOW_STATUS] = "arch perfmon v1 has no overflow status "
				      "register (SDM Vol. 3B 20.2.1)",
	    [SF_GLOBAL_CTRL_IGNORED] = "arch perfmon v1 has no global control "
				       "(Linux core_pmu)",
	    [SF_ACK_IGNORED] = "arch perfmon v1 has no overflow status to "
			       "acknowledge (SDM Vol. 3B 20.2.1)",
	    [SF_GLOBAL_IGNORED_GP] = "arch perfmon v1 has no global control "
				     "(Linux core_pmu)",
	    [SF_STATUS_NOT_STICKY] = "arch perfmon v1 has no overflow status register: "
				     "overflow is the counter's top bit (Linux x86_pmu_handle_irq)",
	    [SF_PMI_STORM] = "arch perfmon v1 has no overflow flag that could stick: "
			     "overflow is the counter's top bit, rewritten by the re-arm "
			     "(Linux x86_pmu_handle_irq)",
	},
    ARCH_MODEL,
    .si = &si_core,
};
SIM_MODEL(yonah);

static const struct sim_model core2 = {
    .name = "core2",
    .doc = "SDM Vol. 3B 20.2.2 (arch perfmon v2: 3 fixed, globals); Linux intel_pmu_handle_irq",
    .faults = ARCH_V2_FAULTS | SIM_EVENT_FAULTS | ARCH_FREEZE_FAULTS,
    .fault_na = {NA_NO_METRICS, NA_ARCH_FAST, NA_ARCH_NO_FW, SIM_NA_FAMILY_REGS, NA_ARCH_NO_TSX,
		 SIM_NA_NO_SMP},
    ARCH_MODEL,
    .si = &si_core2,
};
SIM_MODEL(core2);

static const struct sim_model skylake = {
    .name = "skylake",
    .doc = "SDM Vol. 3B 20.2.4, 20.2.6 (arch perfmon v4, STATUS_SET, full-width writes); "
	   "Linux intel_pmu_handle_irq",
    .faults = ARCH_V2_FAULTS | SIM_EVENT_FAULTS | SIM_F(SF_FULL_WIDTH_NO_GP) |
	      SIM_F(SF_IN_TX_IGNORED) | ARCH_FREEZE_FAULTS | SIM_LBR_FAULTS | SIM_PEBS_FAULTS |
	      SIM_BTS_FAULTS,
    .fault_na = {NA_NO_METRICS, NA_ARCH_FAST,
		 SIM_NA_FAMILY_REGS, [SF_EMULATED_UNCOUNTED] = SIM_NA_NO_FEP,
		 SIM_NA_IBS(SIM_NA_IBS_AMD)},
    ARCH_MODEL,
    .si = &si_skylake,
    .smp = &sim_smp_skylake,
};
SIM_MODEL(skylake);

/* Sapphire Rapids: RTM is in its silicon, but the model leaves it out
 * (ours: a platform whose firmware turns TSX off, as many do, keeps
 * Skylake the one model with the TSX qualifiers; IN_TX bits reserved). */
#define NA_SPR_NO_TSX SIM_NA_TSX_FEP(SIM_NA_NO_RTM "; ours: this platform leaves TSX off")

/* Perfmon v5's CPUID.0AH:ECX lists the fixed counters as a bitmap, which
 * Linux takes as the fixed counters from v5 on (intel/core.c intel_pmu_init:
 * num_counters_fixed = fls(fixed_mask), ECX): all four here (ours). */
static void spr_reset(struct sim_cpu *s)
{
	arch_sim_reset(s);
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == CPUID_LEAF_PERFMON)
			s->cpuid[i].r.ecx = (1u << arch_cfg_of(s)->n_fixed) - 1;
}

/* ARCH_MODEL with the reset above. */
static const struct sim_model sapphirerapids = {
    .name = "sapphirerapids",
    .doc = "SDM Vol. 3B 20.2.5 (arch perfmon v5), 18.1.2 (architectural LBRs); Linux "
	   "intel/core.c intel_pmu_init INTEL_SAPPHIRERAPIDS_X (8 GP + 4 fixed, topdown, "
	   "adaptive PEBS); Linux intel_pmu_handle_irq",
    .driver = PMU_DRV_INTEL_ARCH,
    .faults = ARCH_V2_FAULTS | ARCH_BRANCH_FAULTS | SIM_F(SF_REFCYC_CORE) |
	      SIM_F(SF_FULL_WIDTH_NO_GP) | ARCH_TD_FAULTS | SIM_LBR_FAULTS | SIM_PEBS_FAULTS |
	      SIM_BTS_FAULTS,
    .fault_na = {NA_ARCH_MEMORY, NA_ARCH_FAST, SIM_NA_FAMILY_REGS, NA_SPR_NO_TSX,
		 SIM_NA_IBS(SIM_NA_IBS_AMD)},
    .reset = spr_reset,
    .rdmsr = arch_sim_rdmsr,
    .wrmsr = arch_sim_wrmsr,
    .rdpmc = arch_sim_rdpmc,
    .rate = arch_sim_rate,
    .overflow = arch_sim_overflow,
    .lvt_automask = true,
    .pending = arch_sim_pending,
    .retired = arch_td_retired,
    .si = &si_sapphirerapids,
    .smp = &sim_smp_spr,
};
SIM_MODEL(sapphirerapids);

static const struct sim_model arrowlake = {
    .name = "arrowlake",
    .doc = "SDM Vol. 2A CPUID leaf 23H (perfmon v6 counter bitmaps), Linux msr-index.h "
	   "MSR_IA32_PMC_V6_* (10 GP counters, 8 and 9 at 0x1900+4n only); intel_pmu_handle_irq",
    .faults = ARCH_V2_FAULTS | ARCH_BRANCH_FAULTS | SIM_F(SF_REFCYC_CORE) |
	      SIM_F(SF_FULL_WIDTH_NO_GP) | ARCH_TD_FAULTS,
    .fault_na = {NA_ARCH_MEMORY, NA_ARCH_FAST, SIM_NA_FAMILY_REGS, NA_ARCH_NO_TSX, SIM_NA_NO_SMP},
    ARCH_MODEL,
    .si = &si_alderlake,
};
SIM_MODEL(arrowlake);

/* The hybrid machine: its CPUs' configurations are in model_hybrid.c. */
const struct sim_model arch_alderlake = {
    .name = "alderlake",
    .doc = "SDM Vol. 2A CPUID leaf 1AH (core type), 0AH (what both core types share); Linux "
	   "intel/core.c intel_pmu_init (P-core 8 GP + 4 fixed, E-core 6 + 3), "
	   "intel_pmu_handle_irq",
    .faults = ARCH_V2_FAULTS | ARCH_BRANCH_FAULTS | SIM_F(SF_REFCYC_CORE) |
	      SIM_F(SF_FULL_WIDTH_NO_GP) | ARCH_TD_FAULTS,
    .fault_na = {NA_ARCH_MEMORY, NA_ARCH_FAST, SIM_NA_FAMILY_REGS, NA_ARCH_NO_TSX, SIM_NA_NO_SMP},
    ARCH_MODEL,
    .si = &si_alderlake,
    .cpus = HYBRID_CPUS,
};
SIM_MODEL(arch_alderlake);

static const struct arch_cfg cfgs[] = {
    {
	/* Core Duo: CPUID.0AH EAX 0x07280201 */
	.m = &yonah,
	.version = 1,
	.n_gp = 2,
	.gp_width = 40,
	.max_leaf = 0x0a,
	.leaf1_ecx = 0x0000c1a9u & ~CPUID1_ECX_PDCM,
	.leaf1_edx = 0xbfe9fbffu,
	.family = 6,
	.model = 0x0e,
	.stepping = 8,
	.brand = "Simulated Intel Core Duo (Yonah, arch perfmon v1)",
	.ucode = 0x39,
	.ua = &arch_ua_yonah,
    },
    {
	/* Core 2 (Merom): 0AH EAX 0x07280202, EDX 0x503 */
	.m = &core2,
	.version = 2,
	.n_gp = 2,
	.gp_width = 40,
	.n_fixed = 3,
	.fixed_width = 40,
	.max_leaf = 0x0a,
	.leaf1_ecx = 0x0000e39du & ~CPUID1_ECX_PDCM,
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0x0f,
	.stepping = 6,
	.brand = "Simulated Intel Core 2 (Merom, arch perfmon v2)",
	.ucode = 0xd0,
	.ua = &arch_ua_core2,
    },
    {
	/* Skylake client: 0AH EAX 0x07300404, EDX 0x603;
	 * PERF_CAPABILITIES with bit 13 (full-width write) */
	.m = &skylake,
	.version = 4,
	.n_gp = 4,
	.gp_width = 48,
	.n_fixed = 3,
	.fixed_width = 48,
	.max_leaf = 0x16,
	.leaf1_ecx = 0x7ffafbbfu & ~CPUID1_ECX_PDCM & ~CPUID1_ECX_X2APIC & ~(1u << 31),
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0x5e,
	.stepping = 3,
	.brand = "Simulated Intel Core i7-6700 (Skylake, arch perfmon v4)",
	.perf_caps = 0x33c5,
	.ucode = 0xf0,
	.x2apic = true,
	.tfa = true,
	.rtm = true,
	.ua = &arch_ua_skylake,
	.l2_rqsts = true,
    },
    {
	/* Sapphire Rapids (family 6 model 0x8F, Linux intel-family.h
	 * INTEL_SAPPHIRERAPIDS_X; stepping 8, CPUID 806F8h, ours), Golden
	 * Cove cores: perfmon v5, 8 GP and 4 fixed counters of 48 bits, the
	 * fourth TOPDOWN.SLOTS, 6 a cycle (Golden Cove's Pipeline_Width,
	 * pmu-tools adl_glc_ratios.py), PERF_METRICS with the level-2 fields
	 * (intel_pmu_init INTEL_SAPPHIRERAPIDS_X: intel_pmu_init_glc;
	 * topdown.txt "Extension on Sapphire Rapids Server"). CPUID leaf 20H
	 * the highest (ours). PERF_CAPABILITIES 0xF4FF: LBR format 0x3F
	 * (architectural LBRs, SDM Vol. 3B 18.1.2), PEBS trap, arch regs,
	 * format 4 and baseline (adaptive PEBS), SMM freeze,
	 * full-width write, PERF_METRICS, as Linux reports the part:
	 * "Architectural LBR, PEBS fmt4+-baseline, AnyThread deprecated,
	 * Sapphire Rapids events, 32-deep LBR, full-width counters". The LBRs,
	 * BTS and PEBS are sim_smp_spr's (CPUID.(7,0):EDX[19] and leaf 1CH
	 * added by sim_smp.c). CPUID.1 ECX as Arrow Lake's, the microcode
	 * revision ours. */
	.m = &sapphirerapids,
	.version = 5,
	.n_gp = 8,
	.gp_width = 48,
	.n_fixed = 4,
	.fixed_width = 48,
	.max_leaf = 0x20,
	.leaf1_ecx = 0x7ffafbbfu & ~CPUID1_ECX_PDCM & ~CPUID1_ECX_X2APIC & ~(1u << 31),
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0x8f,
	.stepping = 8,
	.brand = "Simulated Intel Xeon Platinum 8480+ (Sapphire Rapids, perfmon v5)",
	.perf_caps = 0xf4ff,
	.td_width = 6,
	.ucode = 0x2b000590,
	.x2apic = true,
    },
    {
	/* Arrow Lake P-core (family 6 model 0xC6) with 10 GP counters as
	 * leaf 23H lists them (EAX 0x3FF); 0AH says 8. Four fixed counters,
	 * the fourth TOPDOWN.SLOTS, 8 a cycle (Lion Cove's Pipeline_Width,
	 * pmu-tools lnl_lnc_ratios.py). PERF_CAPABILITIES as Linux reports a
	 * Core Ultra 7 265K: "PEBS fmt6+-baseline ... full-width counters"
	 * (PEBS trap, format 6, baseline, bit 13), PERF_METRICS (the topdown
	 * metrics of intel_pmu_init_glc on its P-cores); SMM freeze, arch
	 * regs and LBR format 5 as Skylake's (ours). */
	.m = &arrowlake,
	.version = 6,
	.n_gp = 10,
	.gp_width = 48,
	.n_fixed = 4,
	.fixed_width = 48,
	.max_leaf = 0x23,
	.leaf1_ecx = 0x7ffafbbfu & ~CPUID1_ECX_PDCM & ~CPUID1_ECX_X2APIC & ~(1u << 31),
	.leaf1_edx = 0xbfebfbffu,
	.family = 6,
	.model = 0xc6,
	.stepping = 2,
	.brand = "Simulated Intel Core Ultra 9 285K (perfmon v6)",
	.perf_caps = 0xf6c5,
	.td_width = 8,
	.ucode = 0x114,
	.x2apic = true,
	.v6 = true,
    },
};

const struct arch_cfg *arch_cfg_of(const struct sim_cpu *s)
{
	if (s->m == &arch_alderlake)
		return arch_hybrid_cfg(s);
	for (unsigned i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		if (cfgs[i].m == s->m)
			return &cfgs[i];
	return &cfgs[0];
}
