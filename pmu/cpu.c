/* CPU identification and PMU driver choice (Linux init_hw_perf_events,
 * intel_pmu_init, amd_pmu_init). */
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
	/* The core type where leaf 7 says the part is hybrid (Linux
	 * get_this_hybrid_cpu_type). */
	if (ids->max_leaf >= CPUID_LEAF_HYBRID) {
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
		if (r.edx & CPUID_7_EDX_HYBRID) {
			hw_cpuid(CPUID_LEAF_HYBRID, 0, &r);
			ids->core_type = CPUID_1A_EAX_CORE_TYPE(r.eax);
		}
	}
	/* Leaf 23H where CPUID.(7,1):EAX[8] says so (Linux intel_pmu_init,
	 * X86_FEATURE_ARCH_PERFMON_EXT); subleaf 1 where subleaf 0 lists it. */
	if (ids->max_leaf >= CPUID_LEAF_PERFMON_EXT) {
		hw_cpuid(CPUID_LEAF_EXT_FEATURES, 1, &r);
		if (r.eax & CPUID_7_1_EAX_PERFMON_EXT)
			hw_cpuid(CPUID_LEAF_PERFMON_EXT, 0, &ids->leaf23[0]);
		if (ids->leaf23[0].eax & CPUID_23_EAX_COUNTERS)
			hw_cpuid(CPUID_LEAF_PERFMON_EXT, CPUID_23_SUBLEAF_COUNTERS,
				 &ids->leaf23[1]);
	}
	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	ids->max_ext_leaf = (r.eax & CPUID_LEAF_EXT_MAX_VALID) == CPUID_LEAF_EXT_MAX ? r.eax : 0;
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_FEATURES)
		hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &ids->ext1);
	if (ids->max_ext_leaf >= CPUID_LEAF_AMD_PERFMON)
		hw_cpuid(CPUID_LEAF_AMD_PERFMON, 0, &ids->ext22);
}

const char *cpu_core_type_name(uint32_t core_type)
{
	return core_type == CPU_CORE_TYPE_CORE	 ? "core"
	       : core_type == CPU_CORE_TYPE_ATOM ? "atom"
						 : "";
}

/* Intel's hybrid models, display family 6 (Linux arch/x86/include/asm/
 * intel-family.h). shared: CPUID.0AH lists what both core types share and
 * Linux's intel_pmu_init gives the P-core two GP and one fixed counter more
 * (Alder Lake, Raptor Lake; pmu/intel_arch.c). A guest sees its host's
 * model, seldom leaf 7's hybrid bit. */
static const struct {
	uint8_t model;
	bool shared;
} hybrid_models[] = {
    {0x97, true},  {0x9a, true},		 /* Alder Lake, Alder Lake L */
    {0xb7, true},  {0xba, true},  {0xbf, true},	 /* Raptor Lake, P, S */
    {0xaa, false}, {0xac, false},		 /* Meteor Lake L, Meteor Lake */
    {0xb5, false}, {0xc5, false}, {0xc6, false}, /* Arrow Lake U, H, Arrow Lake */
    {0xbd, false},				 /* Lunar Lake M */
    {0xcc, false},				 /* Panther Lake L */
};

enum cpu_hybrid cpu_hybrid(const struct cpu_info *ci)
{
	if (ci->vendor != VENDOR_INTEL)
		return CPU_HYBRID_NO;
	for (unsigned i = 0;
	     ci->family == 6 && i < sizeof(hybrid_models) / sizeof(hybrid_models[0]); i++)
		if (ci->model == hybrid_models[i].model)
			return hybrid_models[i].shared ? CPU_HYBRID_0A_SHARED : CPU_HYBRID_YES;
	return ci->ids.core_type ? CPU_HYBRID_YES : CPU_HYBRID_NO;
}

bool cpu_perfmon_bitmaps(const struct cpu_ids *ids)
{
	return (ids->leaf23[0].eax & CPUID_23_EAX_COUNTERS) != 0;
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
	/* The extended model counts: Intel for base families 6 and 0Fh (SDM
	 * Vol. 2A CPUID, DisplayModel); AMD and Hygon only for base family 0Fh
	 * (AMD CPUID specification, Fn0000_0001); every other vendor (Centaur,
	 * Zhaoxin) for display family 6 and up, Linux's x86_model() in
	 * arch/x86/lib/cpu.c. */
	bool ext = base_family == 0xf;
	if (v == VENDOR_INTEL)
		ext = ext || base_family == 0x6;
	else if (v == VENDOR_OTHER)
		ext = *family >= 0x6;
	*model = ext ? (ext_model << 4) | base_model : base_model;
}

/* P6 models Linux's p6 driver accepts (arch/x86/events/intel/p6.c p6_pmu_init). */
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
 * family (Linux arch/x86/events/intel/core.c intel_pmu_init). */
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

/* AMD and Hygon: K7 and later, the core extension by CPUID (Linux
 * arch/x86/events/amd/core.c amd_pmu_init). */
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

/* Keeps s[0..n) from its first byte that is neither blank nor NUL up to
 * the next NUL, trailing blanks dropped (Linux get_model_name() in
 * arch/x86/kernel/cpu/common.c trims both ends); non-printable bytes show
 * as '?'. */
static void trim_text(char *s, size_t n)
{
	size_t b = 0, e;

	while (b < n && (s[b] == ' ' || !s[b]))
		b++;
	for (e = b; e < n && s[e]; e++)
		if (s[e] < 0x20 || s[e] > 0x7e)
			s[e] = '?';
	while (e > b && s[e - 1] == ' ')
		e--;
	for (size_t i = b; i < e; i++) /* moves down: forward copy is safe */
		s[i - b] = s[i];
	s[e - b] = 0;
}

/* The brand string of leaves 8000_0002h-4h. */
static void read_brand(struct cpu_info *ci)
{
	struct cpuid_regs r;

	if (ci->ids.max_ext_leaf >= CPUID_LEAF_BRAND_LAST) {
		for (uint32_t i = 0; i < 3; i++) {
			hw_cpuid(CPUID_LEAF_BRAND + i, 0, &r);
			regs_to_str(ci->brand + i * 16, r.eax, r.ebx, r.ecx);
			regs_to_str(ci->brand + i * 16 + 12, r.edx, 0, 0);
		}
		trim_text(ci->brand, 48);
	}
	if (!ci->brand[0])
		pmh_strlcpy(ci->brand, "(no brand string)", sizeof(ci->brand));
}

/* Under a hypervisor, an Intel identity from family 6 on without
 * architectural perfmon is the hypervisor's doing (a real part of those
 * families has CPUID.0AH): the reason names it and how its vPMU is turned
 * on. Bare metal keeps cpu_select_driver()'s reason. */
static void hv_driver_reason(struct cpu_info *ci)
{
	char what[48];

	if (ci->driver != PMU_DRV_NONE || ci->hv.id == HV_NONE || ci->vendor != VENDOR_INTEL ||
	    ci->family < 6)
		return;
	if (ci->ids.max_leaf < CPUID_LEAF_PERFMON)
		pmh_fmt(what, sizeof(what), "no CPUID.0AH, max leaf 0x%x", ci->ids.max_leaf);
	else
		pmh_fmt(what, sizeof(what), "CPUID.0AH version %u",
			CPUID_0A_EAX_VERSION(ci->ids.leaf0a.eax));
	hv_no_pmu_reason(&ci->hv, cpu_hybrid(ci) != CPU_HYBRID_NO, what, ci->driver_reason,
			 sizeof(ci->driver_reason));
}

/* Microcode revision where the vendor documents it: Intel from family 6
 * writes 0 to IA32_BIOS_SIGN_ID, runs CPUID(1) and reads EDX (SDM Vol. 3A
 * 9.11.7.1; Linux intel_get_microcode_revision); AMD and Hygon read
 * MSR_AMD64_PATCH_LEVEL, the same address (Linux microcode/amd.c). Every
 * other case says why it was not read. */
static void read_microcode(struct cpu_info *ci)
{
	struct cpuid_regs r;
	uint64_t msr = 0;
	bool intel = ci->vendor == VENDOR_INTEL;
	enum hw_err e = HW_OK;

	if (intel && ci->family < 6) {
		pmh_strlcpy(ci->microcode_note, "not read: no documented MSR before family 6",
			    sizeof(ci->microcode_note));
		return;
	}
	if (!intel && ci->vendor != VENDOR_AMD && ci->vendor != VENDOR_HYGON) {
		pmh_fmt(ci->microcode_note, sizeof(ci->microcode_note),
			"not read: no documented MSR for %s", ci->ids.vendor);
		return;
	}
	if (intel) {
		e = hw_wrmsr(MSR_IA32_BIOS_SIGN_ID, 0);
		hw_cpuid(CPUID_LEAF_FEATURES, 0, &r);
	}
	if (e == HW_OK)
		e = hw_rdmsr(MSR_IA32_BIOS_SIGN_ID, &msr);
	ci->microcode_valid = e == HW_OK;
	ci->microcode = (uint32_t)(intel ? msr >> 32 : msr);
	pmh_fmt(ci->microcode_note, sizeof(ci->microcode_note), "unreadable: MSR 0x%x %s",
		MSR_IA32_BIOS_SIGN_ID, hw_err_name(e));
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
	ci->hypervisor = (ci->ids.leaf1.ecx & CPUID_1_ECX_HYPERVISOR) != 0;
	hv_identify(&ci->hv, ci->hypervisor);
	read_microcode(ci);
	ci->driver = cpu_select_driver(&ci->ids, ci->driver_reason, sizeof(ci->driver_reason));
	hv_driver_reason(ci);
}
