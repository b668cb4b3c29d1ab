/* The BIOS kernel's processor list from ACPI (pc/acpi.c) over typed
 * tables in a fake physical memory: the RSDP in the EBDA and in the BIOS
 * area, the MADT's enabled and disabled processors, and the refusals of a
 * bad checksum, a truncated table or entry, and a missing RSDP or MADT;
 * the same for the Intel MP table; the SMBIOS entry points. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* pc/ and bios/ are not in the host library (no shared source uses them) */
#include "../../pc/acpi.c"

#define MEM_SIZE 0x110000u
#define RSDP_AT	 0xf0010u
#define EBDA_SEG 0x9fc0u
#define RSDT_AT	 0x100000u
#define FACP_AT	 0x100100u
#define MADT_AT	 0x100200u

static uint8_t mem[MEM_SIZE];

static const uint8_t *map(void *ctx, uint32_t phys, uint32_t len)
{
	(void)ctx;
	return (uint64_t)phys + len <= MEM_SIZE ? mem + phys : NULL;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fix_sum(uint8_t *p, uint32_t n, uint32_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)-s;
}

static void put_rsdp(uint32_t at)
{
	memcpy(mem + at, "RSD PTR ", 8);
	put32(mem + at + 16, RSDT_AT);
	fix_sum(mem + at, 20, 8);
}

static void put_sdt(uint32_t at, const char *sig, uint32_t len)
{
	memcpy(mem + at, sig, 4);
	put32(mem + at + 4, len);
	fix_sum(mem + at, len, 9);
}

static void put_lapic(uint8_t *e, uint8_t uid, uint8_t id, uint32_t flags)
{
	e[0] = 0;
	e[1] = 8;
	e[2] = uid;
	e[3] = id;
	put32(e + 4, flags);
}

/* An RSDP at rsdp (0: none), an RSDT listing a FACP and the MADT, and a
 * MADT with four processors (APIC IDs 0, 1, 2, 3; 2 disabled) and an I/O
 * APIC between them. */
static int setup(uint32_t rsdp)
{
	memset(mem, 0, sizeof(mem));
	if (rsdp)
		put_rsdp(rsdp);
	put32(mem + 36 + RSDT_AT, FACP_AT);
	put32(mem + 40 + RSDT_AT, MADT_AT);
	put_sdt(RSDT_AT, "RSDT", 44);
	put_sdt(FACP_AT, "FACP", 36);
	uint8_t *e = mem + MADT_AT + 44;
	put_lapic(e, 0, 0, 1);
	put_lapic(e + 8, 1, 1, 1);
	e[16] = 1; /* I/O APIC, 12 bytes */
	e[17] = 12;
	put_lapic(e + 28, 2, 2, 0);
	put_lapic(e + 36, 3, 3, 1);
	put_sdt(MADT_AT, "APIC", 44 + 44);
	return 0;
}

static int cpus(struct acpi_cpu *out, unsigned max, const char **why)
{
	return acpi_madt_cpus(map, NULL, out, max, why);
}

static void good_bios_area(void **state)
{
	struct acpi_cpu c[8];
	const char *why = NULL;
	(void)state;
	setup(RSDP_AT);
	assert_int_equal(cpus(c, 8, &why), 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(c[i].apic_id, i);
		assert_int_equal(c[i].enabled, i != 2);
	}
}

static void good_ebda(void **state)
{
	struct acpi_cpu c[8];
	const char *why = NULL;
	(void)state;
	setup(0);
	mem[ACPI_EBDA_PTR] = (uint8_t)EBDA_SEG;
	mem[ACPI_EBDA_PTR + 1] = (uint8_t)(EBDA_SEG >> 8);
	put_rsdp(EBDA_SEG * 16u + 0x40);
	assert_int_equal(cpus(c, 8, &why), 4);
	/* at most max entries */
	assert_int_equal(cpus(c, 2, &why), 2);
	assert_int_equal(c[1].apic_id, 1);
}

static void refused(uint32_t rsdp, void (*spoil)(void), const char *want)
{
	struct acpi_cpu c[8];
	const char *why = NULL;
	setup(rsdp);
	if (spoil)
		spoil();
	assert_int_equal(cpus(c, 8, &why), -1);
	assert_non_null(why);
	assert_string_equal(why, want);
}

static void spoil_madt_sum(void)
{
	mem[MADT_AT + 50]++;
}
static void spoil_rsdp_sum(void)
{
	mem[RSDP_AT + 16]++;
}
static void spoil_rsdt_sum(void)
{
	mem[RSDT_AT + 40]++;
}
/* a MADT longer than memory */
static void spoil_madt_len(void)
{
	put32(mem + MADT_AT + 4, MEM_SIZE);
}
/* an entry whose length runs past the table (checksum kept right) */
static void spoil_entry_len(void)
{
	mem[MADT_AT + 44 + 36 + 1] = 40;
	fix_sum(mem + MADT_AT, 88, 9);
}
static void spoil_entry_zero(void)
{
	mem[MADT_AT + 44 + 1] = 0;
	fix_sum(mem + MADT_AT, 88, 9);
}
static void spoil_no_madt(void)
{
	put32(mem + RSDT_AT + 40, FACP_AT);
	fix_sum(mem + RSDT_AT, 44, 9);
}
static void spoil_madt_short(void)
{
	put_sdt(MADT_AT, "APIC", 40);
}

static void bad_tables(void **state)
{
	(void)state;
	refused(0, NULL, "no ACPI RSDP in the EBDA or 0xE0000-0xFFFFF");
	refused(RSDP_AT, spoil_rsdp_sum, "no ACPI RSDP in the EBDA or 0xE0000-0xFFFFF");
	refused(RSDP_AT, spoil_rsdt_sum, "a table's checksum is wrong");
	refused(RSDP_AT, spoil_madt_sum, "a table's checksum is wrong");
	refused(RSDP_AT, spoil_madt_len, "a table's length runs past memory");
	refused(RSDP_AT, spoil_entry_len, "an MADT entry runs past the table");
	refused(RSDP_AT, spoil_entry_zero, "an MADT entry runs past the table");
	refused(RSDP_AT, spoil_no_madt, "the RSDT lists no MADT");
	refused(RSDP_AT, spoil_madt_short, "the MADT is shorter than its header");
}

#define MPF_AT 0x9f900u /* in the last KiB of 639 KiB of base memory */
#define MPC_AT 0x100400u

/* An MP floating pointer at MPF_AT and a table with a bus entry and three
 * processors (APIC IDs 0, 1, 4; 1 disabled); no ACPI. */
static void setup_mps(void)
{
	uint8_t *f = mem + MPF_AT, *t = mem + MPC_AT, *e = t + 44;
	uint32_t len = 44 + 3 * 20 + 8;

	memset(mem, 0, sizeof(mem));
	mem[0x413] = 639 & 0xff; /* base memory in KiB, 40:13 */
	mem[0x414] = 639 >> 8;
	memcpy(f, "_MP_", 4);
	put32(f + 4, MPC_AT);
	f[8] = 1;
	f[9] = 4;
	fix_sum(f, 16, 10);
	memcpy(t, "PCMP", 4);
	t[4] = (uint8_t)len;
	t[34] = 4; /* entries */
	e[1] = 0;  /* processor, APIC ID 0, enabled and the BSP */
	e[3] = 3;
	e[20] = 1; /* a bus entry */
	e[28] = 0; /* processor, APIC ID 1, disabled */
	e[29] = 1;
	e[48] = 0; /* processor, APIC ID 4, enabled */
	e[49] = 4;
	e[51] = 1;
	fix_sum(t, len, 7);
}

static int mps(struct acpi_cpu *out, const char **why)
{
	return mps_cpus(map, NULL, out, 8, why);
}

static void mps_good(void **state)
{
	struct acpi_cpu c[8];
	const char *why = NULL;
	(void)state;
	setup_mps();
	assert_int_equal(cpus(c, 8, &why), -1); /* no ACPI here */
	assert_int_equal(mps(c, &why), 3);
	assert_int_equal(c[0].apic_id, 0);
	assert_true(c[0].enabled);
	assert_int_equal(c[1].apic_id, 1);
	assert_false(c[1].enabled);
	assert_int_equal(c[2].apic_id, 4);
	assert_true(c[2].enabled);
}

static void mps_refused(void (*spoil)(void), const char *want)
{
	struct acpi_cpu c[8];
	const char *why = NULL;
	setup_mps();
	spoil();
	assert_int_equal(mps(c, &why), -1);
	assert_string_equal(why, want);
}

static void mps_no_pointer(void)
{
	mem[MPF_AT] = 0;
}
static void mps_float_sum(void)
{
	mem[MPF_AT + 4]++;
}
static void mps_table_sum(void)
{
	mem[MPC_AT + 50]++;
}
static void mps_default_config(void)
{
	mem[MPF_AT + 11] = 5;
	fix_sum(mem + MPF_AT, 16, 10);
}
/* one entry more than the table holds */
static void mps_count(void)
{
	mem[MPC_AT + 34] = 5;
	fix_sum(mem + MPC_AT, 44 + 3 * 20 + 8, 7);
}
static void mps_long(void)
{
	mem[MPC_AT + 5] = 0xff;
	put32(mem + MPF_AT + 4, MEM_SIZE - 100);
	memcpy(mem + MEM_SIZE - 100, "PCMP", 4);
	mem[MEM_SIZE - 100 + 4] = 0xff;
	mem[MEM_SIZE - 100 + 5] = 0xff;
	fix_sum(mem + MPF_AT, 16, 10);
}

static void mps_bad(void **state)
{
	(void)state;
	mps_refused(mps_no_pointer, "no Intel MP floating pointer");
	mps_refused(mps_float_sum, "no Intel MP floating pointer");
	mps_refused(mps_table_sum, "the MP table's checksum is wrong");
	mps_refused(mps_default_config,
		    "the MP table is a default configuration (no table to read)");
	mps_refused(mps_count, "an MP table entry runs past the table");
	mps_refused(mps_long, "the MP table's length runs past memory");
}

/* SMBIOS entry points in 0xF0000-0xFFFFF (DSP0134 5.2.1, 5.2.2): a 2.1
 * "_SM_" one at ep naming a table of len bytes at tab, its checksums. */
#define SM_TABLE_AT 0x100400u
static void put_sm2(uint32_t ep, uint32_t tab, uint16_t len)
{
	uint8_t *e = mem + ep;
	memcpy(e, "_SM_", 4);
	e[5] = 0x1f;
	memcpy(e + 0x10, "_DMI_", 5);
	e[0x16] = (uint8_t)len;
	e[0x17] = (uint8_t)(len >> 8);
	put32(e + 0x18, tab);
	fix_sum(e + 0x10, 0x0f, 0x05);
	fix_sum(e, 0x1f, 4);
}

static void put_sm3(uint32_t ep, uint32_t tab, uint32_t len)
{
	uint8_t *e = mem + ep;
	memcpy(e, "_SM3_", 5);
	e[6] = 0x18;
	put32(e + 0x0c, len);
	put32(e + 0x10, tab);
	fix_sum(e, 0x18, 5);
}

static void smbios_entry_points(void **state)
{
	size_t len = 0;
	(void)state;

	memset(mem, 0, sizeof(mem));
	assert_null(smbios_find(map, NULL, &len)); /* none */
	put_sm2(0xf5a10, SM_TABLE_AT, 0x120);
	assert_ptr_equal(smbios_find(map, NULL, &len), mem + SM_TABLE_AT);
	assert_int_equal(len, 0x120);
	/* a 3.x entry point wins over a 2.x one found first */
	put_sm3(0xf8000, SM_TABLE_AT + 0x200, 0x80);
	assert_ptr_equal(smbios_find(map, NULL, &len), mem + SM_TABLE_AT + 0x200);
	assert_int_equal(len, 0x80);
	/* a 3.x table past memory or a bad checksum: the 2.x one */
	put_sm3(0xf8000, MEM_SIZE - 0x40, 0x80);
	assert_ptr_equal(smbios_find(map, NULL, &len), mem + SM_TABLE_AT);
	mem[0xf8000 + 0x10] ^= 1;
	assert_ptr_equal(smbios_find(map, NULL, &len), mem + SM_TABLE_AT);
	/* off the 16-byte grid, or a bad checksum: not an entry point */
	memset(mem + 0xf0000, 0, 0x10000);
	put_sm2(0xf5a18, SM_TABLE_AT, 0x120);
	assert_null(smbios_find(map, NULL, &len));
	put_sm2(0xf5a10, SM_TABLE_AT, 0x120);
	mem[0xf5a10 + 0x18] ^= 1;
	assert_null(smbios_find(map, NULL, &len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(good_bios_area), cmocka_unit_test(good_ebda),
	    cmocka_unit_test(bad_tables),     cmocka_unit_test(mps_good),
	    cmocka_unit_test(mps_bad),	      cmocka_unit_test(smbios_entry_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
