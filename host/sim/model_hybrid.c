/* Model "alderlake": a hybrid Intel client part (Alder Lake-S, family 6
 * model 0x97) with two core types on one machine, each CPU its own PMU.
 * CPUs 0-1 are Golden Cove P-cores, 2-3 Gracemont E-cores; leaf 1AH
 * EAX[31:24] says which (0x40 core, 0x20 atom, SDM Vol. 2A CPUID 1AH) and
 * CPUID.0AH lists on both what they share: 6 GP + 3 fixed counters. Linux
 * intel_pmu_init (intel/core.c, INTEL_ALDERLAKE) gives the P-core 8 GP + 4
 * fixed, the E-core 6 + 3. The register file is model_arch.c's. The
 * P-core's fourth fixed counter counts TOPDOWN.SLOTS, 6 a cycle (Golden
 * Cove's Pipeline_Width, pmu-tools adl_glc_ratios.py), with PERF_METRICS
 * (model_arch_topdown.c).
 * PERF_CAPABILITIES as Linux reports an i5-1250P: "PEBS fmt4+-baseline ...
 * full-width counters" (PEBS trap, format 4, baseline, bit 13), cpu_core
 * event mask 0001000f000000ff (bit 48: PERF_METRICS) and "cpu_atom PMU
 * driver: PEBS-via-PT" (bit 16, the E-core alone); SMM freeze, arch regs
 * and LBR format 5 as Skylake's (ours). */
#include "../../pmu/cpuid.h"
#include "model_arch.h"

#define ADL_ECX1 (0x7ffafbbfu & ~(1u << 15) & ~(1u << 21) & ~(1u << 31))
#define ADL_COMMON                                                                                 \
	.m = &arch_alderlake, .version = 5, .gp_width = 48, .fixed_width = 48, .max_leaf = 0x20,   \
	.leaf1_ecx = ADL_ECX1, .leaf1_edx = 0xbfebfbffu, .family = 6, .model = 0x97,               \
	.stepping = 2, .ucode = 0x2c, .x2apic = true, .shared_gp = 6, .shared_fixed = 3,           \
	.brand = "Simulated Intel Core i9-12900K (Alder Lake)"

#define ADL_FIRST_ATOM 2 /* CPUs 0-1 P-cores, 2-3 E-cores */

static const struct arch_cfg adl[] = {
    {
	ADL_COMMON,
	.n_gp = 8,
	.n_fixed = 4,
	.core_type = CPU_CORE_TYPE_CORE, /* Golden Cove */
	.perf_caps = 0xf4c5,
	.td_width = 6,
    },
    {
	ADL_COMMON,
	.n_gp = 6,
	.n_fixed = 3,
	.core_type = CPU_CORE_TYPE_ATOM, /* Gracemont */
	.perf_caps = 0x174c5,
    },
};

const struct arch_cfg *arch_hybrid_cfg(const struct sim_cpu *s)
{
	unsigned first_atom = s->hybrid_first_atom ? s->hybrid_first_atom : ADL_FIRST_ATOM;

	return &adl[s->cpu_no >= first_atom];
}
