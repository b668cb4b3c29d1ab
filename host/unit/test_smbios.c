/* The SMBIOS parser on good tables and on hostile ones: every buffer is
 * allocated to its exact size, so that a read past it stops ASan. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../tests/smbios.h"

/* BIOS (type 0), system (1), board (2), end (127). */
static const uint8_t good[] = {
    0,	 5,   0,   0,	1,   'F', 'W', 0,   0,	 1,   8,   1,	0, 1, 2, 3, 0, 'Q', 'E',
    'M', 'U', 0,   'S', 't', 'd', 0,   'p', 'c', '-', '9', 0,	0, 2, 8, 2, 0, 1,   2,
    0,	 0,   'A', 'c', 'm', 'e', 0,   'B', '1', 0,   0,   127, 4, 3, 0, 0, 0,
};

/* The table as a buffer of exactly n bytes. */
static struct smbios_info parse(const void *t, size_t n, bool *found)
{
	struct smbios_info si;
	uint8_t *b = malloc(n ? n : 1);

	assert_non_null(b);
	memcpy(b, t, n);
	*found = smbios_parse(b, n, &si);
	free(b);
	return si;
}

static void good_table(void **state)
{
	bool found;
	struct smbios_info si = parse(good, sizeof(good), &found);
	(void)state;
	assert_true(found);
	assert_true(si.system.found);
	assert_string_equal(si.system.manufacturer, "QEMU");
	assert_string_equal(si.system.product, "Std");
	assert_string_equal(si.system.version, "pc-9");
	assert_true(si.board.found);
	assert_string_equal(si.board.manufacturer, "Acme");
	assert_string_equal(si.board.product, "B1");
	assert_string_equal(si.board.version, ""); /* string number 0: none */
	assert_true(si.firmware.found);		   /* type 0, 5 bytes: the vendor alone */
	assert_string_equal(si.firmware.manufacturer, "FW");
	assert_string_equal(si.firmware.product, "");
}

/* Every prefix of the table: nothing read past it, and what lies wholly
 * inside is still found. */
static void every_prefix(void **state)
{
	(void)state;
	for (size_t n = 0; n <= sizeof(good); n++) {
		bool found;
		struct smbios_info si = parse(good, n, &found);
		assert_int_equal(si.system.found, n >= 32);
		assert_int_equal(si.board.found, n >= 49);
	}
}

/* A string number past the set, bytes outside printable ASCII, a string
 * longer than kept. */
static void hostile_strings(void **state)
{
	uint8_t t[8 + 2 + 200 + 2] = {1, 8, 0, 0, 9, 1, 2};
	bool found;
	(void)state;
	t[8] = 0x01;
	t[9] = 0xff;
	memset(t + 10, 'x', 200);
	/* t[210], t[211]: the double NUL */
	struct smbios_info si = parse(t, sizeof(t), &found);
	assert_true(found);
	assert_string_equal(si.system.manufacturer, "");
	assert_int_equal(strlen(si.system.product), SMBIOS_STR - 1);
	assert_memory_equal(si.system.product, "??xxx", 5);
	assert_string_equal(si.system.version, "");
}

/* Lengths that lie: below the header, past the table, a string set with
 * no end; a system structure too short to name its strings. */
static void hostile_lengths(void **state)
{
	static const uint8_t short_len[] = {1, 3, 0, 0, 0, 0};
	static const uint8_t past_end[] = {1, 200, 0, 0, 1, 2, 3, 0, 0};
	static const uint8_t no_end[] = {1, 8, 0, 0, 1, 2, 3, 0, 'a', 0, 'b'};
	static const uint8_t too_short[] = {1, 5, 0, 0, 1, 'a', 0, 0, 127, 4, 0, 0, 0, 0};
	bool found;
	(void)state;
	parse(short_len, sizeof(short_len), &found);
	assert_false(found);
	parse(past_end, sizeof(past_end), &found);
	assert_false(found);
	parse(no_end, sizeof(no_end), &found);
	assert_false(found);
	parse(too_short, sizeof(too_short), &found);
	assert_false(found);
	assert_false(smbios_parse(NULL, 10, &(struct smbios_info){0}));
}

/* Random bytes: whatever comes out, nothing is read outside them. */
static void random_bytes(void **state)
{
	uint32_t x = 12345;
	uint8_t t[96] = {0};
	(void)state;
	for (int k = 0; k < 20000; k++) {
		size_t n = (size_t)(x % sizeof(t));
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			t[i] = (uint8_t)(x >> 16);
			if (i % 7 == 1) /* plausible lengths now and then */
				t[i] = (uint8_t)(t[i] % 24);
		}
		bool found;
		struct smbios_info si = parse(t, n, &found);
		assert_true(strlen(si.system.manufacturer) < SMBIOS_STR);
		assert_true(strlen(si.board.version) < SMBIOS_STR);
		x = x * 1103515245u + 12345u;
	}
}

static void fix_sum(uint8_t *e, size_t n, size_t at)
{
	uint8_t s = 0;
	e[at] = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + e[i]);
	e[at] = (uint8_t)-s;
}

static void entry_points(void **state)
{
	uint8_t e3[0x18] = {'_', 'S', 'M', '3', '_', 0, 0x18, 3, 0};
	uint8_t e2[0x1f] = {'_', 'S', 'M', '_', 0, 0x1f};
	uint64_t addr;
	size_t len;
	(void)state;
	e3[0x0c] = 0x34, e3[0x0d] = 0x12;		   /* max size 0x1234 */
	e3[0x10] = 0x00, e3[0x11] = 0xf0, e3[0x14] = 0x01; /* 0x10000f000 */
	fix_sum(e3, sizeof(e3), 5);
	assert_true(smbios_entry(e3, sizeof(e3), &addr, &len));
	assert_int_equal(addr, 0x10000f000ull);
	assert_int_equal(len, 0x1234);
	assert_false(smbios_entry(e3, sizeof(e3) - 1, &addr, &len)); /* cut short */
	e3[0x0c] ^= 1;
	assert_false(smbios_entry(e3, sizeof(e3), &addr, &len)); /* checksum */

	memcpy(e2 + 0x10, "_DMI_", 5);
	e2[0x16] = 0x40, e2[0x18] = 0x00, e2[0x19] = 0x80, e2[0x1a] = 0x0f;
	fix_sum(e2, sizeof(e2), 4);
	assert_true(smbios_entry(e2, sizeof(e2), &addr, &len));
	assert_int_equal(addr, 0xf8000);
	assert_int_equal(len, 0x40);
	e2[0x10] = 'X';
	assert_false(smbios_entry(e2, sizeof(e2), &addr, &len)); /* no _DMI_ */
	assert_false(smbios_entry("_XX_ and more bytes than enough", 31, &addr, &len));
	assert_false(smbios_entry(NULL, 64, &addr, &len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(good_table),      cmocka_unit_test(every_prefix),
	    cmocka_unit_test(hostile_strings), cmocka_unit_test(hostile_lengths),
	    cmocka_unit_test(random_bytes),    cmocka_unit_test(entry_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
