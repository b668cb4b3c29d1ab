/* CPUID decoding and PMU driver choice (x86-pmu-facts.md §0). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "../../pmu/cpu.h"

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
	fms(VENDOR_INTEL, 0x000506e3, 0x6, 0x5e, 0x3);	/* Skylake: ext model folded in */
	fms(VENDOR_INTEL, 0x00000673, 0x6, 0x7, 0x3);	/* Pentium III */
	fms(VENDOR_INTEL, 0x00000f29, 0xf, 0x2, 0x9);	/* NetBurst: ext family 0 */
	fms(VENDOR_INTEL, 0x00000b10, 0xb, 0x1, 0x0);	/* KNC */
	fms(VENDOR_AMD, 0x00800f12, 0x17, 0x1, 0x2);	/* Zen: family 0xf + 0x8 */
	fms(VENDOR_AMD, 0x00a60f12, 0x19, 0x61, 0x2);	/* Zen 4: ext model with family 0xf */
	fms(VENDOR_AMD, 0x00000622, 0x6, 0x2, 0x2);	/* Athlon K7 */
	fms(VENDOR_AMD, 0x00010661, 0x6, 0x6, 0x1);	/* AMD family 6: ext model NOT folded */
	fms(VENDOR_INTEL, 0x00010661, 0x6, 0x16, 0x1);	/* Intel family 6: folded */
	fms(VENDOR_INTEL, 0x0fff0f00, 0xf + 0xff, 0xf0, 0x0); /* both extended fields at max */
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
		enum pmu_driver_id want = (m == 1 || m == 3 || m == 5 || m == 6 || m == 7 || m == 8 ||
					   m == 9 || m == 10 || m == 11 || m == 13)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_family_model),
		cmocka_unit_test(select_intel),
		cmocka_unit_test(select_amd),
		cmocka_unit_test(select_other),
		cmocka_unit_test(names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
