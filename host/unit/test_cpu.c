/* CPUID decoding and PMU driver choice (Linux init_hw_perf_events,
 * intel_pmu_init, amd_pmu_init). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "../../pmu/cpu.h"
#include "../../pmu/pmu.h"
#include "../sim/sim.h"

static void fms(enum cpu_vendor v, uint32_t eax, uint32_t f, uint32_t m, uint32_t s)
{
	uint32_t ff, mm, ss;
	cpu_decode_fms(v, eax, &ff, &mm, &ss);
	assert_int_equal(ff, f);
	assert_int_equal(mm, m);
	assert_int_equal(ss, s);
}

static void decode_family_model(void **st)
{
	(void)st;
	fms(VENDOR_INTEL, 0x000506e3, 0x6, 0x5e, 0x3); /* Skylake: ext model folded in */
	fms(VENDOR_INTEL, 0x00000673, 0x6, 0x7, 0x3);  /* Pentium III */
	fms(VENDOR_INTEL, 0x00000f29, 0xf, 0x2, 0x9);  /* NetBurst: ext family 0 */
	fms(VENDOR_INTEL, 0x00000b10, 0xb, 0x1, 0x0);  /* KNC */
	fms(VENDOR_AMD, 0x00800f12, 0x17, 0x1, 0x2);   /* Zen: family 0xf + 0x8 */
	fms(VENDOR_AMD, 0x00a60f12, 0x19, 0x61, 0x2);  /* Zen 4: ext model with family 0xf */
	fms(VENDOR_AMD, 0x00000622, 0x6, 0x2, 0x2);    /* Athlon K7 */
	fms(VENDOR_AMD, 0x00010661, 0x6, 0x6, 0x1);    /* AMD family 6: ext model NOT folded */
	fms(VENDOR_INTEL, 0x00010661, 0x6, 0x16, 0x1); /* Intel family 6: folded */
	fms(VENDOR_INTEL, 0x0fff0f00, 0xf + 0xff, 0xf0, 0x0); /* both extended fields at max */
	/* SDM Vol. 2A CPUID DisplayModel and Linux intel-family.h */
	fms(VENDOR_INTEL, 0x00090672, 0x6, 0x97, 0x2); /* Alder Lake */
	fms(VENDOR_INTEL, 0x000b0671, 0x6, 0xb7, 0x1); /* Raptor Lake */
	fms(VENDOR_INTEL, 0x000a06a4, 0x6, 0xaa, 0x4); /* Meteor Lake */
	fms(VENDOR_INTEL, 0x000c0662, 0x6, 0xc6, 0x2); /* Arrow Lake */
	fms(VENDOR_HYGON, 0x00900f01, 0x18, 0x0, 0x1); /* Hygon Dhyana: family 0xf + 0x9 */
	/* Centaur and Zhaoxin: extended model for every family >= 6 (Linux
	 * x86_model(); the models of Linux's zhaoxin/core.c) */
	fms(VENDOR_OTHER, 0x000107b0, 0x7, 0x1b, 0x0); /* Zhaoxin KX-5000/6000 */
	fms(VENDOR_OTHER, 0x000307b0, 0x7, 0x3b, 0x0); /* Zhaoxin KX-7000 */
	fms(VENDOR_OTHER, 0x00010690, 0x6, 0x19, 0x0); /* Centaur model 0x19 */
	fms(VENDOR_OTHER, 0x000006f2, 0x6, 0xf, 0x2);  /* Centaur Nano */
	fms(VENDOR_OTHER, 0x00010592, 0x5, 0x9, 0x2);  /* below family 6: not folded */
}

static uint32_t w4(const char *p)
{
	return (uint32_t)(uint8_t)p[0] | (uint32_t)(uint8_t)p[1] << 8 |
	       (uint32_t)(uint8_t)p[2] << 16 | (uint32_t)(uint8_t)p[3] << 24;
}

/* Leaves 8000_0002h-4h from 48 raw bytes (NULs included). */
static void set_brand(const char *b48)
{
	for (uint32_t i = 0; i < 3; i++) {
		const char *p = b48 + 16 * i;
		sim_set_cpuid(&sim, 0x80000002u + i, 0, w4(p), w4(p + 4), w4(p + 8), w4(p + 12));
	}
}

static void brand_trimmed(void **st)
{
	(void)st;
	struct cpu_info ci;
	char b[48];

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	memset(b, ' ', sizeof(b)); /* Intel pads in front */
	memcpy(b + 16, "Intel(R) Core(TM) i9", 20);
	b[47] = 0;
	set_brand(b);
	cpu_identify(&ci);
	assert_string_equal(ci.brand, "Intel(R) Core(TM) i9");
	memset(b, 0, sizeof(b)); /* blanks after the name, then NULs */
	memcpy(b, "AMD Ryzen 9 7950X 16-Core Processor         ", 44);
	set_brand(b);
	cpu_identify(&ci);
	assert_string_equal(ci.brand, "AMD Ryzen 9 7950X 16-Core Processor");
	memset(b, 0, sizeof(b)); /* leading NULs */
	memcpy(b + 4, " Hygon C86 3185  8-core Processor  ", 35);
	set_brand(b);
	cpu_identify(&ci);
	assert_string_equal(ci.brand, "Hygon C86 3185  8-core Processor");
	memset(b, ' ', sizeof(b)); /* nothing but blanks */
	set_brand(b);
	cpu_identify(&ci);
	assert_string_equal(ci.brand, "(no brand string)");
}

static void hypervisor_sig(const char *sig12, const char *name, const char *sig)
{
	struct cpu_info ci;
	struct cpuid_regs r;

	hw_cpuid(1, 0, &r);
	sim_set_cpuid(&sim, 1, 0, r.eax, r.ebx, r.ecx | 1u << 31, r.edx);
	sim_set_cpuid(&sim, 0x40000000u, 0, 0x40000001u, w4(sig12), w4(sig12 + 4), w4(sig12 + 8));
	cpu_identify(&ci);
	assert_true(ci.hypervisor);
	assert_string_equal(ci.hv.name, name);
	assert_string_equal(ci.hv.signature, sig);
	assert_int_equal(ci.hv.base, 0x40000000u);
}

/* cpu_identify() names the hypervisor from its leaves (the scan and its
 * rules: test_hypervisor.c). */
static void hypervisor_named(void **st)
{
	(void)st;
	struct cpu_info ci;

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	cpu_identify(&ci); /* bare metal: not scanned */
	assert_false(ci.hypervisor);
	assert_int_equal(ci.hv.id, HV_NONE);
	assert_string_equal(ci.hv.name, "none");
	/* 4000_0000h EBX-ECX-EDX as the hypervisors give them (Linux kvm.c,
	 * hypervisor.c, vmware.c, mshyperv.c; QEMU's TCG) */
	hypervisor_sig("TCGTCGTCGTCG", "QEMU TCG", "TCGTCGTCGTCG");
	hypervisor_sig("KVMKVMKVM\0\0\0", "KVM", "KVMKVMKVM");
	hypervisor_sig("Microsoft Hv", "Hyper-V", "Microsoft Hv");
	hypervisor_sig("VMwareVMware", "VMware", "VMwareVMware");
	hypervisor_sig("XenVMMXenVMM", "Xen", "XenVMMXenVMM");
	hypervisor_sig("bhyve bhyve ", "bhyve", "bhyve bhyve ");
	hypervisor_sig("ACRNACRNACRN", "ACRN", "ACRNACRNACRN");
	hypervisor_sig("Jailhouse\0\0\0", "Jailhouse", "Jailhouse"); /* unknown: its signature */
	hypervisor_sig("\0\0\0\0\0\0\0\0\0\0\0\0", "unknown", "");
}

static void microcode_where_documented(void **st)
{
	(void)st;
	struct cpu_info ci;
	struct cpuid_regs r;

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	cpu_identify(&ci);
	assert_true(ci.microcode_valid); /* Intel family 6: IA32_BIOS_SIGN_ID */
	hw_cpuid(1, 0, &r);
	sim_set_cpuid(&sim, 1, 0, 0x00000543, r.ebx, r.ecx, r.edx); /* Pentium (P5) */
	cpu_identify(&ci);
	assert_false(ci.microcode_valid);
	assert_string_equal(ci.microcode_note, "not read: no documented MSR before family 6");

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	hw_cpuid(0, 0, &r);
	sim_vendor(&sim, r.eax, "CentaurHauls");
	cpu_identify(&ci);
	assert_false(ci.microcode_valid);
	assert_string_equal(ci.microcode_note, "not read: no documented MSR for CentaurHauls");
	sim_vendor(&sim, r.eax, "  Shanghai  ");
	cpu_identify(&ci);
	assert_string_equal(ci.microcode_note, "not read: no documented MSR for   Shanghai  ");

	assert_int_equal(sim_start("zen4", SF_NONE), 0); /* AMD: PATCH_LEVEL */
	cpu_identify(&ci);
	assert_true(ci.microcode_valid);
	assert_int_equal(sim_start("athlon", SF_NONE), 0); /* read, and it faults */
	cpu_identify(&ci);
	assert_false(ci.microcode_valid);
	assert_string_equal(ci.microcode_note, "unreadable: MSR 0x8b #GP");
}

static struct cpu_ids ids(const char *vendor, uint32_t eax1)
{
	struct cpu_ids i;
	memset(&i, 0, sizeof(i));
	strcpy(i.vendor, vendor);
	i.max_leaf = 0xd;
	i.max_ext_leaf = 0x80000008u;
	i.leaf1.eax = eax1;
	return i;
}

static enum pmu_driver_id pick(const struct cpu_ids *i)
{
	char why[160];
	enum pmu_driver_id d = cpu_select_driver(i, why, sizeof(why));
	assert_true(strlen(why) > 10); /* always says why */
	return d;
}

static void select_intel(void **st)
{
	(void)st;
	struct cpu_ids i = ids("GenuineIntel", 0x000506e3);
	i.leaf0a.eax = 0x08300804; /* v4, 8 GP x 48 bits */
	assert_int_equal(pick(&i), PMU_DRV_INTEL_ARCH);
	i.leaf0a.eax = 0x07280201; /* Yonah-style v1 */
	assert_int_equal(pick(&i), PMU_DRV_INTEL_ARCH);
	i.max_leaf = 9; /* leaf 0AH not reachable: no arch perfmon */
	assert_int_equal(pick(&i), PMU_DRV_NONE);
	i = ids("GenuineIntel", 0x000506e3); /* Skylake identity, 0AH zeroed (QEMU TCG) */
	assert_int_equal(pick(&i), PMU_DRV_NONE);

	for (uint32_t m = 0; m < 16; m++) {
		i = ids("GenuineIntel", 0x600 | (m << 4));
		enum pmu_driver_id want = (m == 1 || m == 3 || m == 5 || m == 6 || m == 7 ||
					   m == 8 || m == 9 || m == 10 || m == 11 || m == 13)
					      ? PMU_DRV_INTEL_P6
					      : PMU_DRV_NONE;
		assert_int_equal(pick(&i), want);
	}
	i = ids("GenuineIntel", 0x00000f29);
	assert_int_equal(pick(&i), PMU_DRV_INTEL_NETBURST);
	i = ids("GenuineIntel", 0x00000f41); /* Prescott family 0xf model 4 */
	assert_int_equal(pick(&i), PMU_DRV_INTEL_NETBURST);
	i = ids("GenuineIntel", 0x00000b10);
	assert_int_equal(pick(&i), PMU_DRV_INTEL_KNC);
	i = ids("GenuineIntel", 0x00000543); /* Pentium (P5): nothing */
	assert_int_equal(pick(&i), PMU_DRV_NONE);
}

static void select_amd(void **st)
{
	(void)st;
	struct cpu_ids i = ids("AuthenticAMD", 0x00000622);
	assert_int_equal(pick(&i), PMU_DRV_AMD_LEGACY); /* K7 */
	i = ids("AuthenticAMD", 0x00000f51);
	assert_int_equal(pick(&i), PMU_DRV_AMD_LEGACY); /* K8 */
	i = ids("AuthenticAMD", 0x00600f12);
	i.ext1.ecx = 1u << 23;
	assert_int_equal(pick(&i), PMU_DRV_AMD_CORE); /* Fam15h with core extension */
	i.max_ext_leaf = 0x80000000u; /* 8000_0001h unreachable: the bit is not read */
	assert_int_equal(pick(&i), PMU_DRV_AMD_LEGACY);
	i = ids("HygonGenuine", 0x00900f01);
	i.ext1.ecx = 1u << 23;
	assert_int_equal(pick(&i), PMU_DRV_AMD_CORE);
	i = ids("AuthenticAMD", 0x00000580); /* K6: family 5 */
	assert_int_equal(pick(&i), PMU_DRV_NONE);
}

static void select_other(void **st)
{
	(void)st;
	struct cpu_ids i = ids("CentaurHauls", 0x000006f2);
	assert_int_equal(pick(&i), PMU_DRV_NONE);
	i = ids("GenuineIntel", 0x000506e3);
	i.max_leaf = 0;
	assert_int_equal(pick(&i), PMU_DRV_NONE);
}

static void names(void **st)
{
	(void)st;
	assert_string_equal(pmu_driver_name(PMU_DRV_INTEL_P6), "intel-p6");
	assert_string_equal(pmu_driver_name(PMU_DRV_INTEL_ARCH), "intel-arch");
	assert_string_equal(pmu_driver_name(PMU_DRV_INTEL_NETBURST), "intel-netburst");
	assert_string_equal(pmu_driver_name(PMU_DRV_INTEL_KNC), "intel-knc");
	assert_string_equal(pmu_driver_name(PMU_DRV_AMD_LEGACY), "amd-legacy");
	assert_string_equal(pmu_driver_name(PMU_DRV_AMD_CORE), "amd-core");
	assert_string_equal(pmu_driver_name(PMU_DRV_NONE), "none");
	assert_int_equal(cpu_vendor_from_string("HygonGenuine"), VENDOR_HYGON);
	assert_int_equal(cpu_vendor_from_string("AuthenticAMD"), VENDOR_AMD);
	assert_int_equal(cpu_vendor_from_string("GenuineIntel"), VENDOR_INTEL);
	assert_int_equal(cpu_vendor_from_string("GenuineIotel"), VENDOR_OTHER);
}

/* A real part's CPUID through the cpuid-dump model, as pmuharness-sim
 * --cpuid-dump gives it; every MSR absent, so the counters are CPUID's. */
static void replay(const struct sim_cpuid *t, unsigned n, struct cpu_info *ci, struct pmu *p)
{
	sim_dump_load(t, n);
	assert_int_equal(sim_start("cpuid-dump", SF_NONE), 0);
	cpu_identify(ci);
	pmu_attach(p, ci);
}

#define ANY_SUB 0xffffffffu /* a dump line without [SL nn] */

/* Raptor Lake P-core i5-1350P with its E-cores off (InstLatx64 dump
 * GenuineIntel00B06A2_RaptorLakeP_02): leaf 7 EDX[15] still says hybrid,
 * 1AH says core, and 0AH lists the P-core's own 8 GP + 4 fixed (EAX
 * 0x08300805, ECX 0xF, EDX 0x8604): nothing is added to them. With the
 * E-cores on (RaptorLakeP_03), 0AH lists the shared 6 + 3, and the P-core
 * has two GP and one fixed more (Linux intel_pmu_init, cpu_core). */
static void hybrid_p_core_alone(void **st)
{
	static struct cpu_info ci;
	static struct pmu p;
	struct sim_cpuid t[] = {
	    {0, ANY_SUB, {0x00000020, 0x756E6547, 0x6C65746E, 0x49656E69}},
	    {1, ANY_SUB, {0x000B06A2, 0x00800800, 0x7FFAFBBF, 0xBFEBFBFF}},
	    {7, 0, {0x00000002, 0x239C27EB, 0x98C027AC, 0xFC1CC410}},
	    {0x0A, ANY_SUB, {0x08300805, 0x00000000, 0x0000000F, 0x00008604}},
	    {0x1A, ANY_SUB, {0x40000001, 0, 0, 0}},
	};
	(void)st;
	replay(t, sizeof(t) / sizeof(t[0]), &ci, &p);
	assert_int_equal(ci.model, 0xba);
	assert_string_equal(cpu_core_type_name(ci.ids.core_type), "core");
	assert_int_equal(ci.driver, PMU_DRV_INTEL_ARCH);
	assert_int_equal(p.n_gp, 8);
	assert_int_equal(p.n_fixed, 4);
	t[3].r = (struct cpuid_regs){0x07300605, 0, 0x00000007, 0x00008603};
	replay(t, sizeof(t) / sizeof(t[0]), &ci, &p);
	assert_int_equal(p.n_gp, 8);
	assert_int_equal(p.n_fixed, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(decode_family_model),
	    cmocka_unit_test(select_intel),
	    cmocka_unit_test(select_amd),
	    cmocka_unit_test(select_other),
	    cmocka_unit_test(names),
	    cmocka_unit_test(brand_trimmed),
	    cmocka_unit_test(hypervisor_named),
	    cmocka_unit_test(microcode_where_documented),
	    cmocka_unit_test(hybrid_p_core_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
