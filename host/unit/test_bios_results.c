/* The BIOS kernel's results log (bios/results.c) over a fake disk: the
 * log kept as large as its slot, and a log longer than its slot written
 * cut, ending in the cut line the user guide promises, never refused whole
 * and never past its slot. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* pc/ and bios/ are not in the host library (no shared source uses them) */
#include "../../pc/fat.c"
#include "../../bios/results.c"

#define LOG_SECTORS 128u /* a 64 KiB slot (usb-image.sh makes 128 KiB and more) */
#define JSN_SECTORS 128u
#define HEAP	    (1u << 24)

static uint32_t log_sectors = LOG_SECTORS; /* the LOG slot's size now */

static struct {
	char written[LOG_SECTORS * FAT_SECTOR + 1]; /* the LOG slot's bytes */
	size_t written_len;			    /* the text handed to the write */
	bool wrote;
	char last_line[1024]; /* the console's last line */
	size_t heap_room;
} fake;

void con_line(const char *s)
{
	snprintf(fake.last_line, sizeof(fake.last_line), "%s", s);
}

size_t bios_heap_room(void)
{
	return fake.heap_room;
}

void *bios_heap_alloc(size_t n)
{
	return n <= fake.heap_room ? calloc(1, n) : NULL; /* kept, as the kernel keeps it */
}

bool bios_mp_ap_busy(void)
{
	return false;
}

int acpi_madt_cpus(acpi_map_fn map, void *ctx, struct acpi_cpu *out, unsigned max, const char **why)
{
	(void)map, (void)ctx, (void)out, (void)max;
	*why = "none here";
	return -1;
}

int mps_cpus(acpi_map_fn map, void *ctx, struct acpi_cpu *out, unsigned max, const char **why)
{
	return acpi_madt_cpus(map, ctx, out, max, why);
}

bool disk_find_slots(struct disk *d, struct fat_slot *slot, unsigned n, char *why, size_t cap)
{
	(void)d, (void)why, (void)cap;
	assert_int_equal(n, 2);
	slot[SLOT_LOG].sectors = log_sectors;
	slot[SLOT_JSON].sectors = JSN_SECTORS;
	return true;
}

bool disk_write_slot(struct disk *d, const struct fat_slot *s, const char *text, size_t len,
		     char *why, size_t cap)
{
	(void)d, (void)why, (void)cap;
	if (s != &res.slot[SLOT_LOG])
		return true;
	assert_true(len < s->sectors * FAT_SECTOR);
	slot_fill((uint8_t *)fake.written, 0, s->sectors * FAT_SECTOR, text, len,
		  s->sectors * FAT_SECTOR);
	fake.written_len = len;
	fake.wrote = true;
	return true;
}

/* The log's text as written: up to the padding. */
static const char *log_text(void)
{
	fake.written[fake.written_len] = 0;
	return fake.written;
}

/* The log's last line (the text ends in a newline). */
static const char *last_log_line(void)
{
	const char *t = log_text();
	size_t n = strlen(t);
	assert_true(n > 1 && t[n - 1] == '\n');
	const char *p = t + n - 1;
	while (p > t && p[-1] != '\n')
		p--;
	return p;
}

static void line_of(char *buf, size_t n, unsigned i)
{
	memset(buf, 'x', n - 1);
	buf[n - 1] = 0;
	snprintf(buf, n, "line %06u ", i);
	buf[strlen(buf)] = 'x';
}

/* One run: lines of len bytes until bytes have been logged, then close. */
static bool run(size_t bytes, size_t len)
{
	char name[64], line[512];
	fake.wrote = false;
	assert_true(bios_results_open(NULL, name, sizeof(name)));
	for (unsigned i = 0; i * (len + 1) < bytes; i++) {
		line_of(line, len + 1, i);
		results_log_line(line);
	}
	return bios_results_close(NULL, "{}", 2);
}

static void reset(void)
{
	if (res.log && res.log != early)
		free(res.log);
	log_sectors = LOG_SECTORS;
	memset(&res, 0, sizeof(res));
	res.log = early;
	res.cap = EARLY_CAP;
	memset(&fake, 0, sizeof(fake));
	fake.heap_room = HEAP;
}

/* A log that fits: written whole, no cut line. */
static void test_fits(void **state)
{
	(void)state;
	reset();
	assert_true(run(20000, 79));
	assert_true(fake.wrote);
	assert_non_null(strstr(log_text(), "line 000000 "));
	assert_null(strstr(log_text(), "(log cut here"));
}

/* A log twice its slot: its first lines, then the cut line, within the slot. */
static void test_cut(void **state)
{
	(void)state;
	reset();
	assert_true(run(2 * LOG_SECTORS * FAT_SECTOR, 79));
	assert_true(fake.wrote);
	assert_string_equal(fake.last_line, "results.saved: PMHBIOS.LOG written and verified; "
					    "PMHBIOS.JSN written and verified");
	assert_true(!strncmp(last_log_line(), "(log cut here: ", 15));
	assert_non_null(strstr(last_log_line(), "-byte slot holds; the rest is on the console"));
}

/* Every line length around the slot's end: the slot always ends in the
 * cut line once a line was left out. */
static void test_cut_every_length(void **state)
{
	(void)state;
	for (size_t len = 1; len < 400; len += 7) {
		reset();
		assert_true(run(LOG_SECTORS * FAT_SECTOR + 4 * len, len));
		assert_true(!strncmp(last_log_line(), "(log cut here: ", 15));
	}
}

/* A second run (R at the end prompt) after a cut one: still cut, still
 * with the line, still within the slot. */
static void test_second_run(void **state)
{
	(void)state;
	reset();
	assert_true(run(LOG_SECTORS * FAT_SECTOR + 1000, 100));
	assert_true(run(1000, 100));
	assert_true(!strncmp(last_log_line(), "(log cut here: ", 15));
}

/* A heap smaller than the slot: cut at what the heap gave, said so. */
static void test_heap_short(void **state)
{
	(void)state;
	reset();
	fake.heap_room = 2 * 40000; /* the log takes at most half */
	assert_true(run(LOG_SECTORS * FAT_SECTOR, 79));
	assert_true(!strncmp(last_log_line(), "(log cut here: ", 15));
	assert_non_null(strstr(last_log_line(), "than the heap gave for it"));
}

/* More lines before the slots are found than the early buffer holds (a
 * long list_events, say): cut, and the slot says so. */
static void test_early_full(void **state)
{
	char line[100];
	(void)state;
	reset();
	for (unsigned i = 0; i < 2 * EARLY_CAP / 80; i++) {
		line_of(line, 80, i);
		results_log_line(line);
	}
	assert_true(run(1000, 79));
	assert_true(!strncmp(last_log_line(), "(log cut here: ", 15));
}

/* A slot smaller than the lines before it was found (a slot file made by
 * hand, 8 KiB, after 12 KiB of options and warnings): cut to the slot at
 * open, with the cut line, not refused whole at the end. */
static void test_small_slot(void **state)
{
	char line[100];
	(void)state;
	reset();
	log_sectors = 16;
	for (unsigned i = 0; i < 12 * 1024 / 80; i++) {
		line_of(line, 80, i);
		results_log_line(line);
	}
	assert_true(run(1000, 79));
	assert_true(fake.wrote);
	assert_true(!strncmp(last_log_line(), "(log cut here: ", 15));
	assert_non_null(strstr(last_log_line(), "than the 8192-byte slot holds"));
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fits),
	    cmocka_unit_test(test_cut),
	    cmocka_unit_test(test_cut_every_length),
	    cmocka_unit_test(test_second_run),
	    cmocka_unit_test(test_heap_short),
	    cmocka_unit_test(test_early_full),
	    cmocka_unit_test(test_small_slot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
