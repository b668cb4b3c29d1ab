/* events/pagewin.c: the tables are built in a block of host memory that
 * stands for physical memory (struct pagewin.mem), then walked here by a
 * page walker written from the SDM (Vol. 3A 4.3 for 32-bit paging, 4.5
 * for IA-32e), independently of the builder: every window page maps its
 * frame, present, writable, supervisor and executable; every address the
 * firmware mapped translates as before; the firmware's tables are not
 * written; and each refusal names its reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../events/pagewin.h"

#define RAM	 (8u << 20) /* the "physical memory" of a test */
#define FW_ROOT	 0x1000u    /* the firmware's top table */
#define TABLES	 0x100000u  /* the window's tables */
#define FRAMES	 0x400000u  /* the frames the window maps */
#define NOT_PRES UINT64_MAX

static uint8_t *ram;

static int setup(void **st)
{
	(void)st;
	ram = aligned_alloc(4096, RAM);
	return ram ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	free(ram);
	return 0;
}

static uint64_t rd64(uint64_t phys)
{
	uint64_t v;
	memcpy(&v, ram + phys, 8);
	return v;
}

static uint32_t rd32(uint64_t phys)
{
	uint32_t v;
	memcpy(&v, ram + phys, 4);
	return v;
}

/* IA-32e walk of va from root (levels 4 or 5); *flags: the leaf's. */
static uint64_t walk64(uint64_t root, unsigned levels, uint64_t va, uint64_t *flags)
{
	uint64_t t = root;
	for (int shift = 12 + 9 * ((int)levels - 1);; shift -= 9) {
		uint64_t e = rd64(t + ((va >> shift) & 511) * 8);
		if (!(e & 1))
			return NOT_PRES;
		if (shift == 12 || (e & 0x80)) {
			*flags = e & (0xfffull | 1ull << 63);
			return (e & 0x000ffffffffff000ull & ~((1ull << shift) - 1)) +
			       (va & ((1ull << shift) - 1));
		}
		assert_true(e & 2); /* writable all the way down */
		t = e & 0x000ffffffffff000ull;
	}
}

/* 32-bit walk (PSE on): 4 MiB pages or page tables. */
static uint64_t walk32(uint64_t root, uint64_t va, uint64_t *flags)
{
	uint32_t pde = rd32(root + (va >> 22) * 4);
	if (!(pde & 1))
		return NOT_PRES;
	if (pde & 0x80) {
		*flags = pde & 0xfff;
		return (pde & 0xffc00000u) + (va & 0x3fffff);
	}
	uint32_t pte = rd32((pde & 0xfffff000u) + ((va >> 12) & 1023) * 4);
	if (!(pte & 1))
		return NOT_PRES;
	*flags = pte & 0xfff;
	return (pte & 0xfffff000u) + (va & 0xfff);
}

static struct pagewin window(uint64_t pages, uint64_t nframes)
{
	return (struct pagewin){.pages = pages,
				.frames = FRAMES,
				.nframes = nframes,
				.cpu_pse = true,
				.mem = (uintptr_t)ram};
}

/* Every page of w (and the bytes inside one) maps its frame with P, R/W,
 * A, D set and U/S, XD clear. */
static void window_maps_frames(const struct pagewin *w, unsigned levels)
{
	for (uint64_t i = 0; i < w->pages; i++) {
		uint64_t f = 0, va = w->va + i * PW_PAGE + (i * 8 % PW_PAGE);
		uint64_t pa =
		    levels ? walk64(w->on.root, levels, va, &f) : walk32(w->on.root, va, &f);
		assert_true(pa == FRAMES + (i % w->nframes) * PW_PAGE + (i * 8 % PW_PAGE));
		assert_true((f & 0x67) == 0x63 && !(f & 1ull << 63));
	}
	uint64_t f, end = w->va + w->pages * PW_PAGE; /* the page after: not mapped */
	if (w->pages % 512)
		assert_true((levels ? walk64(w->on.root, levels, end, &f)
				    : walk32(w->on.root, end, &f)) == NOT_PRES);
}

/* IA-32e from the firmware's tables: its slots kept, the window in the
 * highest free slot of the lower half, the firmware's table untouched. */
static void level4_and_level5(void **st)
{
	(void)st;
	for (unsigned levels = 4; levels <= 5; levels++) {
		memset(ram, 0, RAM);
		/* firmware: slot 0 maps 0-1 GiB identity by a 1 GiB page in
		 * a PDPT at 0x2000 (4-level) or one level more */
		uint64_t next = 0x2000, top = FW_ROOT;
		for (unsigned l = levels; l > 3; l--) {
			memcpy(ram + top, &(uint64_t){next | 0x63}, 8);
			top = next;
			next += 0x1000;
		}
		memcpy(ram + top, &(uint64_t){0x83 | 0x20}, 8);		 /* 1 GiB page at 0 */
		memcpy(ram + FW_ROOT + 255 * 8, &(uint64_t){0x3003}, 8); /* slot 255 taken */
		uint8_t before[4096];
		memcpy(before, ram + FW_ROOT, 4096);
		struct hw_paging cur = {levels == 5 ? HW_PG_LEVEL5 : HW_PG_LEVEL4, FW_ROOT, true};
		struct pagewin w = window(1500, 1); /* three page tables */
		uint64_t need = pagewin_bytes(&cur, w.pages);
		assert_int_equal(need, (1 + 3 + 2 + (levels == 5)) * PW_PAGE);
		assert_null(pagewin_build(&w, &cur, TABLES, need));
		assert_true(w.va == 254ull << (12 + 9 * (levels - 1)));
		assert_true(w.on.mode == cur.mode && w.on.root == TABLES);
		assert_true(w.off.root == FW_ROOT && w.off.mode == cur.mode);
		window_maps_frames(&w, levels);
		uint64_t f;
		assert_true(walk64(TABLES, levels, 0x12345678, &f) == 0x12345678);
		assert_memory_equal(before, ram + FW_ROOT, 4096);
		for (unsigned s = 0; s < 512; s++)
			if (s != 254)
				assert_true(rd64(TABLES + s * 8) == rd64(FW_ROOT + s * 8));
	}
}

/* Distinct frames: page i maps frame i. */
static void frames_in_turn(void **st)
{
	(void)st;
	memset(ram, 0, RAM);
	struct hw_paging cur = {HW_PG_LEVEL4, FW_ROOT, true};
	struct pagewin w = window(64, 64);
	assert_null(pagewin_build(&w, &cur, TABLES, pagewin_bytes(&cur, 64)));
	window_maps_frames(&w, 4);
}

/* Paging off (bios/): identity 4 MiB pages everywhere but the window at
 * 0xE000_0000; from the firmware's 32-bit paging: its directory copied,
 * the window in its highest free run. */
static void i386_from_off_and_from_paging(void **st)
{
	(void)st;
	memset(ram, 0, RAM);
	struct hw_paging off = {HW_PG_OFF, 0, false};
	struct pagewin w = window(2048, 1);
	uint64_t need = pagewin_bytes(&off, w.pages);
	assert_int_equal(need, 3 * PW_PAGE);
	assert_null(pagewin_build(&w, &off, TABLES, need));
	assert_true(w.va == 0xe0000000u && w.on.mode == HW_PG_I386 && w.on.pse);
	assert_true(w.off.mode == HW_PG_OFF && !w.off.pse);
	window_maps_frames(&w, 0);
	uint64_t f;
	assert_true(walk32(TABLES, 0x00123456, &f) == 0x00123456);
	assert_true(walk32(TABLES, 0xfee00020u, &f) == 0xfee00020u); /* the local APIC */

	memset(ram, 0, RAM);
	for (unsigned i = 0; i < 1024; i++) /* firmware: identity but the top 16 MiB */
		if (i < 1020)
			memcpy(ram + FW_ROOT + i * 4, &(uint32_t){i << 22 | 0xe3}, 4);
	struct hw_paging pg = {HW_PG_I386, FW_ROOT, true};
	w = window(2048, 1);
	assert_null(pagewin_build(&w, &pg, TABLES, pagewin_bytes(&pg, w.pages)));
	assert_true(w.va == 0xff800000u); /* the highest run of two slots */
	window_maps_frames(&w, 0);
	assert_true(walk32(TABLES, 0x00123456, &f) == 0x00123456);
}

/* Each refusal says why; nothing is built then. */
static void refusals_name_their_reason(void **st)
{
	(void)st;
	memset(ram, 0, RAM);
	struct hw_paging pae = {HW_PG_PAE, FW_ROOT, true}, l4 = {HW_PG_LEVEL4, FW_ROOT, true},
			 off = {HW_PG_OFF, 0, false};
	struct pagewin w = window(16, 1);
	assert_non_null(strstr(pagewin_build(&w, &pae, TABLES, RAM), "PAE"));
	assert_int_equal(pagewin_bytes(&pae, 16), 0);
	assert_non_null(strstr(pagewin_build(&w, &l4, TABLES, PW_PAGE), "memory"));
	assert_non_null(strstr(pagewin_build(&w, &l4, TABLES + 8, RAM), "aligned"));
	for (unsigned s = 0; s < 256; s++) /* no free slot below the upper half */
		memcpy(ram + FW_ROOT + s * 8, &(uint64_t){0x3003}, 8);
	assert_non_null(strstr(pagewin_build(&w, &l4, TABLES, 2 * PW_PAGE * 2), "no free slot"));
	w.cpu_pse = false;
	assert_non_null(strstr(pagewin_build(&w, &off, TABLES, RAM / 2), "PSE"));
	w = window(16, 1);
	w.frames = 0xe0001000u; /* the frames where the window would go */
	assert_non_null(strstr(pagewin_build(&w, &off, TABLES, 2 * PW_PAGE), "0xE0000000"));
	w = window(1ull << 28, 1); /* more than one top-level slot's 512 GiB */
	assert_int_equal(pagewin_bytes(&l4, w.pages), 0);
	assert_non_null(strstr(pagewin_build(&w, &l4, TABLES, RAM), "larger"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(level4_and_level5),
	    cmocka_unit_test(frames_in_turn),
	    cmocka_unit_test(i386_from_off_and_from_paging),
	    cmocka_unit_test(refusals_name_their_reason),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
