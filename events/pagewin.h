/* A page window: a run of virtual 4 KiB pages the harness maps itself, for
 * the walks whose subject is translation or instruction fetch. Page i of
 * the window maps physical frame i % nframes of a run of contiguous
 * frames, present, writable and executable whatever the firmware made of
 * that memory (UEFI may map its data no-execute). So a TLB walk touches as
 * many pages as it likes over one frame (the data caches stay out of it),
 * and a code walk runs code the harness wrote.
 *
 * The tables are built beside the firmware's, never in them: a copy of the
 * top table with the window in one of its free slots (IA-32e paging, SDM
 * Vol. 3A 4.5), or, where bios/ runs with paging off, a 32-bit directory of
 * identity 4 MiB pages with the window in a range no memory of the
 * harness's lies in (SDM Vol. 3A 4.3). hw_paging_load(&w->on) turns the
 * window on, hw_paging_load(&w->off) puts the firmware's translation back.
 * Freestanding: the tables are plain memory; only hw_paging_* touch CR3. */
#ifndef PMH_EVENTS_PAGEWIN_H
#define PMH_EVENTS_PAGEWIN_H

#include <stdint.h>
#include "../pmu/hw.h"

#define PW_PAGE 4096u

struct pagewin {
	/* ---- in ---- */
	uint64_t pages;	  /* virtual pages */
	uint64_t frames;  /* physical address of the first frame (4 KiB aligned) */
	uint64_t nframes; /* page i maps frame i % nframes */
	bool cpu_pse;	  /* CPUID.1:EDX[3]: 4 MiB pages (needed where paging is off) */
	/* The pointer to physical address 0: 0 where memory is identity-mapped
	 * (the target); a host test's own "physical memory" otherwise. */
	uintptr_t mem;
	/* ---- out ---- */
	uint64_t va;		  /* the window's first byte */
	struct hw_paging on, off; /* with the window; as it was */
};

/* Bytes of tables pagewin_build needs for `pages` pages from translation
 * cur (4 KiB aligned memory); 0 where it builds none in cur's mode. */
uint64_t pagewin_bytes(const struct hw_paging *cur, uint64_t pages);

/* Builds w's tables in the `bytes` bytes at physical address tables from
 * translation cur. Returns 0, or why no window was built. */
const char *pagewin_build(struct pagewin *w, const struct hw_paging *cur, uint64_t tables,
			  uint64_t bytes);

#endif
