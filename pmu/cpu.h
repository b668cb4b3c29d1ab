/* CPU identification from CPUID (and the microcode MSR), and the choice of PMU
 * driver. cpu_select_driver() is a pure function of CPUID values so that the
 * host tests can drive it with any identity. */
#ifndef PMH_PMU_CPU_H
#define PMH_PMU_CPU_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "hw.h"

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
	struct cpuid_regs leaf0a;	/* zero when max_leaf < 0x0a */
	struct cpuid_regs leaf23[2];	/* 23H subleafs 0-1, zero when absent */
	uint32_t core_type;		/* 1AH EAX[31:24] on hybrid parts, else 0 */
	struct cpuid_regs ext1;		/* 8000_0001h */
	struct cpuid_regs ext22;	/* 8000_0022h, zero when absent */
	bool limit_cpuid_cleared;	/* MISC_ENABLE[22] was set, cleared to read 0AH */
};

/* The hypervisor the harness runs under (pmu/hypervisor.c), as Linux finds
 * it: the leaves 4000_0000h-4000_FF00h in steps of 100h, the one that is
 * not a Hyper-V interface preferred (Xen with Viridian and KVM with
 * Hyper-V enlightenments show "Microsoft Hv" at 4000_0000h first). */
enum hv_id {
	HV_NONE,    /* CPUID.1:ECX[31] clear: bare metal, as far as CPUID says */
	HV_UNKNOWN, /* the bit set, no signature the table knows */
	HV_KVM,
	HV_XEN,
	HV_HYPERV,
	HV_VMWARE,
	HV_BHYVE,
	HV_ACRN,
	HV_QNX,
	HV_PARALLELS,
	HV_VBOX,
	HV_TCG,
	HV_COUNT
};
struct hv_info {
	enum hv_id id;
	char name[24];	    /* "KVM", "Xen", "Hyper-V"; an unknown one's signature */
	char signature[13]; /* as it names itself (one repeated word once) */
	uint32_t base;	    /* the leaf it answered at (4000_0000h + k * 100h) */
	uint32_t max_leaf;  /* EAX of that leaf */
	char version[32];   /* "4.17", "10.0.20348"; "" where not enumerated */
	bool hyperv_face;   /* a Hyper-V interface at 4000_0000h in front of it */
};

struct cpu_info {
	struct cpu_ids ids;
	enum cpu_vendor vendor;
	uint32_t family, model, stepping; /* display values (extended fields folded in) */
	char brand[49];
	bool microcode_valid;
	uint32_t microcode;
	char microcode_note[48]; /* why microcode_valid is false */
	bool hypervisor; /* CPUID.1:ECX[31] */
	char hv_signature[13];
	uint32_t hv_max_leaf;
	struct hv_info hv;
	bool x2apic_capable;
	uint32_t initial_apic_id;
	enum pmu_driver_id driver;
	char driver_reason[160];
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
/* The driver rule of x86-pmu-facts.md §0 (Linux's dispatch); writes why. */
enum pmu_driver_id cpu_select_driver(const struct cpu_ids *ids, char *why, size_t n);
const char *cpu_vendor_name(enum cpu_vendor v);
/* "core" (P-core), "atom" (E-core), "" when not hybrid or unknown. */
const char *cpu_core_type_name(uint32_t core_type);
/* Whether leaf 23H enumerates the counters as bitmaps (perfmon v6). */
bool cpu_perfmon_bitmaps(const struct cpu_ids *ids);
const char *pmu_driver_name(enum pmu_driver_id d);

#endif
