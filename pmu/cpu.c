/* CPU identification and PMU driver choice (x86-pmu-facts.md §0). */
#include "cpu.h"
#include "cpuid.h"
#include "msr.h"
#include "../lib/str.h"
#include "../lib/fmt.h"

static void regs_to_str(char *dst, uint32_t a, uint32_t b, uint32_t c)
{
	const uint32_t w[3] = {a, b, c};
	for (int i = 0; i < 12; i++)
		dst[i] = (char)(w[i / 4] >> (8 * (i % 4)));
	dst[12] = 0;
}

/* Firmware may set IA32_MISC_ENABLE[22] LIMIT_CPUID, which makes leaf 0
 * report 2 and hides leaf 0AH. Linux's early_init_intel clears it on family
 * 6 model >= 0xD and on later families, then reads leaf 0 again; so does the
 * harness, and cpu_restore() sets it back on the way out. */
static void unlimit_cpuid(struct cpu_ids *ids)
{
	uint32_t fam = CPUID_1_EAX_FAMILY(ids->leaf1.eax);
	uint32_t model =
	    CPUID_1_EAX_EXT_MODEL(ids->leaf1.eax) << 4 | CPUID_1_EAX_MODEL(ids->leaf1.eax);
	struct cpuid_regs r;
	uint64_t misc;

	if (pmh_strcmp(ids->vendor, "GenuineIntel") || !(fam > 6 || (fam == 6 && model >= 0xd)))
		return;
	if (hw_rdmsr(MSR_IA32_MISC_ENABLE, &misc) != HW_OK || !(misc & MISC_ENABLE_LIMIT_CPUID) ||
	    hw_wrmsr(MSR_IA32_MISC_ENABLE, misc & ~MISC_ENABLE_LIMIT_CPUID) != HW_OK)
		return;
	ids->limit_cpuid_cleared = true;
	hw_cpuid(CPUID_LEAF_MAX, 0, &r);
	ids->max_leaf = r.eax;
}

void cpu_restore(const struct cpu_info *ci)
{
	uint64_t misc;

	if (ci->ids.limit_cpuid_cleared && hw_rdmsr(MSR_IA32_MISC_ENABLE, &misc) == HW_OK)
		hw_wrmsr(MSR_IA32_MISC_ENABLE, misc | MISC_ENABLE_LIMIT_CPUID);
}

void cpu_read_ids(struct cpu_ids *ids)
{
	struct cpuid_regs r;

	pmh_memset(ids, 0, sizeof(*ids));
	hw_cpuid(CPUID_LEAF_MAX, 0, &r);
	ids->max_leaf = r.eax;
	regs_to_str(ids->vendor, r.ebx, r.edx, r.ecx);
	if (ids->max_leaf >= CPUID_LEAF_FEATURES) {
		hw_cpuid(CPUID_LEAF_FEATURES, 0, &ids->leaf1);
		unlimit_cpuid(ids);
	}
	if (ids->max_leaf >= CPUID_LEAF_PERFMON)
		hw_cpuid(CPUID_LEAF_PERFMON, 0, &ids->leaf0a);
	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	ids->max_ext_leaf = (r.eax & CPUID_LEAF_EXT_MAX_VALID) == CPUID_LEAF_EXT_MAX ? r.eax : 0;
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_FEATURES)
		hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &ids->ext1);
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_PERFMON)
		hw_cpuid(CPUID_LEAF_AMD_PERFMON, 0, &ids->ext22);
}

enum cpu_vendor cpu_vendor_from_string(const char *v)
{
	if (!pmh_strcmp(v, "GenuineIntel"))
		return VENDOR_INTEL;
	if (!pmh_strcmp(v, "AuthenticAMD"))
		return VENDOR_AMD;
	if (!pmh_strcmp(v, "HygonGenuine"))
		return VENDOR_HYGON;
	return VENDOR_OTHER;
}

const char *cpu_vendor_name(enum cpu_vendor v)
{
	switch (v) {
	case VENDOR_INTEL:
		return "Intel";
	case VENDOR_AMD:
		return "AMD";
	case VENDOR_HYGON:
		return "Hygon";
	default:
		return "other";
	}
}

const char *pmu_driver_name(enum pmu_driver_id d)
{
	static const char *const names[PMU_DRV_COUNT] = {
	    "none",	 "intel-p6",   "intel-arch", "intel-netburst",
	    "intel-knc", "amd-legacy", "amd-core",
	};
	return d < PMU_DRV_COUNT ? names[d] : "none";
}

void cpu_decode_fms(enum cpu_vendor v, uint32_t eax, uint32_t *family, uint32_t *model,
		    uint32_t *stepping)
{
	uint32_t base_family = CPUID_1_EAX_FAMILY(eax);
	uint32_t ext_family = CPUID_1_EAX_EXT_FAMILY(eax);
	uint32_t base_model = CPUID_1_EAX_MODEL(eax);
	uint32_t ext_model = CPUID_1_EAX_EXT_MODEL(eax);

	*stepping = CPUID_1_EAX_STEPPING(eax);
	*family = base_family == 0xf ? base_family + ext_family : base_family;
	/* Intel folds the extended model in for families 6 and 0Fh; AMD only
	 * when the base family is 0Fh (AMD CPUID specification, Fn0000_0001). */
	if (base_family == 0xf || (base_family == 0x6 && v != VENDOR_AMD && v != VENDOR_HYGON))
		*model = (ext_model << 4) | base_model;
	else
		*model = base_model;
}

/* P6 models Linux's p6 driver accepts (facts §3). */
static bool is_p6_model(uint32_t model)
{
	switch (model) {
	case 1:	 /* Pentium Pro */
	case 3:	 /* Pentium II Klamath */
	case 5:	 /* Pentium II Deschutes */
	case 6:	 /* Pentium II Mendocino */
	case 7:	 /* Pentium III Katmai */
	case 8:	 /* Pentium III Coppermine */
	case 9:	 /* Pentium M Banias */
	case 10: /* Pentium III Xeon */
	case 11: /* Pentium III Tualatin */
	case 13: /* Pentium M Dothan */
		return true;
	default:
		return false;
	}
}

/* Intel: architectural perfmon when CPUID.0AH reports a version, else by
 * family (facts §0). */
static enum pmu_driver_id select_intel(const struct cpu_ids *ids, uint32_t fam, uint32_t model,
				       char *why, size_t n)
{
	unsigned version = CPUID_0A_EAX_VERSION(ids->leaf0a.eax);

	if (ids->max_leaf >= CPUID_LEAF_PERFMON && version >= 1) {
		pmh_fmt(why, n, "Intel, CPUID.0AH architectural perfmon version %u", version);
		return PMU_DRV_INTEL_ARCH;
	}
	if (fam == 6) {
		if (is_p6_model(model)) {
			pmh_fmt(why, n,
				"Intel family 0x6 model 0x%x (P6) without CPUID.0AH perfmon",
				model);
			return PMU_DRV_INTEL_P6;
		}
		pmh_fmt(why, n,
			"Intel family 0x6 model 0x%x is not a P6 model and CPUID.0AH "
			"reports no architectural perfmon (version %u)",
			model, version);
		return PMU_DRV_NONE;
	}
	if (fam == 0xf) {
		pmh_fmt(why, n, "Intel family 0xf (NetBurst)");
		return PMU_DRV_INTEL_NETBURST;
	}
	if (fam == 0xb) {
		pmh_fmt(why, n, "Intel family 0xb (Xeon Phi Knights Corner)");
		return PMU_DRV_INTEL_KNC;
	}
	pmh_fmt(why, n, "Intel family 0x%x without architectural perfmon has no known PMU", fam);
	return PMU_DRV_NONE;
}

/* AMD and Hygon: K7 and later, the core extension by CPUID (facts §0). */
static enum pmu_driver_id select_amd(const struct cpu_ids *ids, enum cpu_vendor v, uint32_t fam,
				     char *why, size_t n)
{
	if (fam < 6) {
		pmh_fmt(why, n, "%s family 0x%x is older than K7 (family 6)", cpu_vendor_name(v),
			fam);
		return PMU_DRV_NONE;
	}
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_FEATURES &&
	    (ids->ext1.ecx & CPUID_AMD_ECX_PERFCTR_CORE)) {
		pmh_fmt(why, n,
			"%s family 0x%x with core performance counter extension "
			"(CPUID 8000_0001h ECX[23])%s",
			cpu_vendor_name(v), fam,
			(ids->ext22.eax & CPUID_AMD_PERFMON_EAX_V2)
			    ? " and PerfMonV2 (8000_0022h EAX[0])"
			    : "");
		return PMU_DRV_AMD_CORE;
	}
	pmh_fmt(why, n,
		"%s family 0x%x without the core extension (CPUID 8000_0001h ECX[23] clear)",
		cpu_vendor_name(v), fam);
	return PMU_DRV_AMD_LEGACY;
}

enum pmu_driver_id cpu_select_driver(const struct cpu_ids *ids, char *why, size_t n)
{
	enum cpu_vendor v = cpu_vendor_from_string(ids->vendor);
	uint32_t fam, model, step;

	cpu_decode_fms(v, ids->leaf1.eax, &fam, &model, &step);
	if (ids->max_leaf < CPUID_LEAF_FEATURES) {
		pmh_fmt(why, n, "CPUID leaf 1 not available (max leaf 0x%x)", ids->max_leaf);
		return PMU_DRV_NONE;
	}
	switch (v) {
	case VENDOR_INTEL:
		return select_intel(ids, fam, model, why, n);
	case VENDOR_AMD:
	case VENDOR_HYGON:
		return select_amd(ids, v, fam, why, n);
	default:
		pmh_fmt(why, n, "vendor \"%s\" has no supported PMU driver", ids->vendor);
		return PMU_DRV_NONE;
	}
}

/* The brand string of leaves 8000_0002h-4h, leading blanks trimmed (Intel
 * pads it). */
static void read_brand(struct cpu_info *ci)
{
	struct cpuid_regs r;
	size_t s = 0;

	if (ci->ids.max_ext_leaf >= CPUID_LEAF_BRAND_LAST) {
		for (uint32_t i = 0; i < 3; i++) {
			hw_cpuid(CPUID_LEAF_BRAND + i, 0, &r);
			const uint32_t w[4] = {r.eax, r.ebx, r.ecx, r.edx};
			for (int j = 0; j < 16; j++)
				ci->brand[i * 16 + j] = (char)(w[j / 4] >> (8 * (j % 4)));
		}
		ci->brand[48] = 0;
		while (ci->brand[s] == ' ')
			s++;
		if (s)
			pmh_memcpy(ci->brand, ci->brand + s, 49 - s);
	}
	if (!ci->brand[0])
		pmh_strlcpy(ci->brand, "(no brand string)", sizeof(ci->brand));
}

/* The hypervisor's signature (leaf 4000_0000h), kept printable. */
static void read_hypervisor(struct cpu_info *ci)
{
	struct cpuid_regs r;

	ci->hypervisor = (ci->ids.leaf1.ecx & CPUID_1_ECX_HYPERVISOR) != 0;
	if (!ci->hypervisor)
		return;
	hw_cpuid(CPUID_LEAF_HYPERVISOR, 0, &r);
	ci->hv_max_leaf = r.eax;
	regs_to_str(ci->hv_signature, r.ebx, r.ecx, r.edx);
	for (int i = 0; i < 12; i++)
		if (ci->hv_signature[i] &&
		    (ci->hv_signature[i] < 0x20 || ci->hv_signature[i] > 0x7e))
			ci->hv_signature[i] = '?';
}

/* Microcode revision: Intel writes 0 to 0x8B, runs CPUID(1) and reads EDX
 * (SDM Vol. 3A 9.11.7.1); AMD reports it in MSR 0x8B directly. */
static void read_microcode(struct cpu_info *ci)
{
	struct cpuid_regs r;
	uint64_t msr;

	if (ci->vendor == VENDOR_INTEL) {
		if (hw_wrmsr(MSR_IA32_BIOS_SIGN_ID, 0) != HW_OK)
			return;
		hw_cpuid(CPUID_LEAF_FEATURES, 0, &r);
		if (hw_rdmsr(MSR_IA32_BIOS_SIGN_ID, &msr) == HW_OK) {
			ci->microcode_valid = true;
			ci->microcode = (uint32_t)(msr >> 32);
		}
	} else if (ci->vendor == VENDOR_AMD || ci->vendor == VENDOR_HYGON) {
		if (hw_rdmsr(MSR_IA32_BIOS_SIGN_ID, &msr) == HW_OK) {
			ci->microcode_valid = true;
			ci->microcode = (uint32_t)msr;
		}
	}
}

void cpu_identify(struct cpu_info *ci)
{
	pmh_memset(ci, 0, sizeof(*ci));
	cpu_read_ids(&ci->ids);
	ci->vendor = cpu_vendor_from_string(ci->ids.vendor);
	cpu_decode_fms(ci->vendor, ci->ids.leaf1.eax, &ci->family, &ci->model, &ci->stepping);
	ci->x2apic_capable = (ci->ids.leaf1.ecx & CPUID_1_ECX_X2APIC) != 0;
	ci->initial_apic_id = CPUID_1_EBX_APIC_ID(ci->ids.leaf1.ebx);
	read_brand(ci);
	read_hypervisor(ci);
	read_microcode(ci);
	ci->driver = cpu_select_driver(&ci->ids, ci->driver_reason, sizeof(ci->driver_reason));
}
