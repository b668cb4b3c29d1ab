/* CPU identification from CPUID (and the microcode MSR), and the choice of PMU
 * driver. cpu_select_driver() is a pure function of CPUID values so that the
 * host tests can drive it with any identity. */
#ifndef PMH_PMU_CPU_H
#define PMH_PMU_CPU_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "hw.h"
#include "hypervisor.h"

enum cpu_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD, VENDOR_HYGON };

enum pmu_driver_id {
	PMU_DRV_NONE,
	PMU_DRV_INTEL_P6,
	PMU_DRV_INTEL_ARCH,
	PMU_DRV_INTEL_NETBURST,
	PMU_DRV_INTEL_KNC,
	PMU_DRV_AMD_LEGACY,
	PMU_DRV_AMD_CORE,
	PMU_DRV_COUNT
};

/* Raw CPUID values that decide identification and driver choice. */
struct cpu_ids {
	char vendor[13];
	uint32_t max_leaf;
	uint32_t max_ext_leaf;
	struct cpuid_regs leaf1;
	struct cpuid_regs leaf0a;    /* zero when max_leaf < 0x0a */
	struct cpuid_regs leaf23[2]; /* 23H subleafs 0-1, zero when absent */
	uint32_t core_type;	     /* 1AH EAX[31:24] on hybrid parts, else 0 */
	struct cpuid_regs ext1;	     /* 8000_0001h */
	struct cpuid_regs ext22;     /* 8000_0022h, zero when absent */
	bool limit_cpuid_cleared;    /* MISC_ENABLE[22] was set, cleared to read 0AH */
};

struct cpu_info {
	struct cpu_ids ids;
	enum cpu_vendor vendor;
	uint32_t family, model, stepping; /* display values (extended fields folded in) */
	char brand[49];
	bool microcode_valid;
	uint32_t microcode;
	char microcode_note[48]; /* why microcode_valid is false */
	bool hypervisor;	 /* CPUID.1:ECX[31] */
	struct hv_info hv;	 /* which one, from its leaves (pmu/hypervisor.h) */
	bool x2apic_capable;
	uint32_t initial_apic_id;
	enum pmu_driver_id driver;
	char driver_reason[224]; /* under a hypervisor with the switch of its vPMU */
};

/* Reads the identifying CPUID leaves; on Intel parts where the firmware set
 * IA32_MISC_ENABLE LIMIT_CPUID it clears the bit first (Linux
 * early_init_intel), so that leaves above 2 (0AH among them) are seen. */
void cpu_read_ids(struct cpu_ids *ids);
/* Fills everything from CPUID and MSRs through the seam. */
void cpu_identify(struct cpu_info *ci);
/* Gives back what identification changed (LIMIT_CPUID set again): call
 * where the harness returns to the firmware. */
void cpu_restore(const struct cpu_info *ci);
/* Decodes CPUID.1:EAX into display family/model/stepping: family += extended
 * family only when base family is 0Fh; which vendors' models take the
 * extended model is written at the definition. */
void cpu_decode_fms(enum cpu_vendor v, uint32_t eax, uint32_t *family, uint32_t *model,
		    uint32_t *stepping);
enum cpu_vendor cpu_vendor_from_string(const char *v);
/* Linux's driver rule (init_hw_perf_events, intel_pmu_init); writes why. */
enum pmu_driver_id cpu_select_driver(const struct cpu_ids *ids, char *why, size_t n);
const char *cpu_vendor_name(enum cpu_vendor v);
/* "core" (P-core), "atom" (E-core), "" when not hybrid or unknown. */
const char *cpu_core_type_name(uint32_t core_type);
/* Intel hybrid parts (two core types) by display family and model, or
 * by the core type leaf 1AH gave; CPU_HYBRID_0A_SHARED: the models whose
 * CPUID.0AH lists only what both core types share (pmu/intel_arch.c). */
enum cpu_hybrid { CPU_HYBRID_NO, CPU_HYBRID_YES, CPU_HYBRID_0A_SHARED };
enum cpu_hybrid cpu_hybrid(const struct cpu_info *ci);
/* Whether leaf 23H enumerates the counters as bitmaps (perfmon v6). */
bool cpu_perfmon_bitmaps(const struct cpu_ids *ids);
const char *pmu_driver_name(enum pmu_driver_id d);

#endif
