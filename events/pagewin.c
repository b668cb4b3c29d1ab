/* The page window's tables (pagewin.h). Entry bits: SDM Vol. 3A 4.3
 * (32-bit paging, Tables 4-4 to 4-6) and 4.5 (IA-32e, Tables 4-15 to
 * 4-20): P, R/W, A and D where they exist; U/S, PWT, PCD, G and XD clear,
 * so the window is supervisor, write-back by the MTRRs, flushed by a CR3
 * load and executable. */
#include "pagewin.h"
#include "../lib/str.h"

#define E_P   0x1u
#define E_RW  0x2u
#define E_A   0x20u
#define E_D   0x40u
#define E_PS  0x80u /* a directory entry that maps a 4 MiB page */
#define LEAF  (E_P | E_RW | E_A | E_D)
#define TABLE (E_P | E_RW | E_A)

#define E64	  512u	 /* 8-byte entries in a table */
#define E32	  1024u	 /* 4-byte entries */
#define MAX_I386  64u	 /* page tables of a 32-bit window: 256 MiB */
#define I386_BASE 0x380u /* directory slot of 0xE000_0000, where paging is off */

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static unsigned levels_of(enum hw_paging_mode m)
{
	return m == HW_PG_LEVEL5 ? 5 : m == HW_PG_LEVEL4 ? 4 : 0;
}

/* Tables per level of an IA-32e window: n[0] page tables, n[k] tables
 * of level k above them, up to the level under the top table, which must
 * be one. Returns the count below the top table, 0 when it does not fit
 * one slot. */
static uint64_t counts64(unsigned levels, uint64_t pages, uint64_t n[5])
{
	uint64_t sum = 0;

	n[0] = div_up(pages, E64);
	for (unsigned k = 1; k + 1 < levels; k++)
		n[k] = div_up(n[k - 1], E64);
	for (unsigned k = 0; k + 1 < levels; k++)
		sum += n[k];
	return pages && n[levels - 2] == 1 ? sum : 0;
}

uint64_t pagewin_bytes(const struct hw_paging *cur, uint64_t pages)
{
	uint64_t n[5];
	unsigned l = levels_of(cur->mode);

	if (l) {
		uint64_t t = counts64(l, pages, n);
		return t ? (1 + t) * PW_PAGE : 0;
	}
	if (cur->mode != HW_PG_OFF && cur->mode != HW_PG_I386)
		return 0;
	uint64_t m = div_up(pages, E32);
	return pages && m <= MAX_I386 ? (1 + m) * PW_PAGE : 0;
}

static void *at(const struct pagewin *w, uint64_t phys)
{
	return (void *)(w->mem + (uintptr_t)phys);
}

static uint64_t frame_of(const struct pagewin *w, uint64_t i)
{
	return w->frames + (i % w->nframes) * PW_PAGE;
}

/* IA-32e: a copy of the top table with the window in its highest free
 * slot of the lower half, the tables below it built fresh. */
static const char *build64(struct pagewin *w, const struct hw_paging *cur, uint64_t tables)
{
	unsigned l = levels_of(cur->mode);
	uint64_t n[5], base[5];
	uint64_t *top = at(w, tables);

	counts64(l, w->pages, n);
	pmh_memcpy(top, at(w, cur->root), PW_PAGE);
	unsigned slot = E64 / 2;
	while (--slot && (top[slot] & E_P))
		;
	if (!slot)
		return "the top page table has no free slot in its lower half";
	base[l - 2] = tables + PW_PAGE;
	for (unsigned k = l - 2; k > 0; k--)
		base[k - 1] = base[k] + n[k] * PW_PAGE;
	for (uint64_t t = 0; t < n[0]; t++) {
		uint64_t *pt = at(w, base[0] + t * PW_PAGE);
		for (uint64_t j = 0; j < E64; j++) {
			uint64_t i = t * E64 + j;
			pt[j] = i < w->pages ? frame_of(w, i) | LEAF : 0;
		}
	}
	for (unsigned k = 1; k + 1 < l; k++)
		for (uint64_t t = 0; t < n[k]; t++) {
			uint64_t *d = at(w, base[k] + t * PW_PAGE);
			for (uint64_t j = 0; j < E64; j++) {
				uint64_t c = t * E64 + j;
				d[j] = c < n[k - 1] ? (base[k - 1] + c * PW_PAGE) | TABLE : 0;
			}
		}
	top[slot] = base[l - 2] | TABLE;
	w->va = (uint64_t)slot << (12 + 9 * (l - 1));
	w->on = (struct hw_paging){.mode = cur->mode, .root = tables, .pse = cur->pse};
	return 0;
}

/* Whether [a, a + n) and [b, b + m) share a byte. */
static bool overlap(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
	return a < b + m && b < a + n;
}

/* The first of m free directory slots: at 0xE000_0000 where the harness
 * made the directory (no memory of the harness's may lie there: bios/
 * loads at 1 MiB and allocates below the top of low RAM), else the
 * highest run the firmware left non-present. ~0u: none. */
static unsigned slots32(const struct pagewin *w, const uint32_t *pd, bool own, uint64_t tables,
			uint64_t bytes, unsigned m)
{
	if (own) {
		uint64_t va = (uint64_t)I386_BASE << 22, len = (uint64_t)m << 22;
		bool clash = overlap(va, len, tables, bytes) ||
			     overlap(va, len, w->frames, w->nframes * PW_PAGE);
		return clash ? ~0u : I386_BASE;
	}
	for (unsigned s = E32 - m; s > 0; s--) {
		unsigned k = 0;
		while (k < m && !(pd[s + k] & E_P))
			k++;
		if (k == m)
			return s;
	}
	return ~0u;
}

/* 32-bit paging: the firmware's directory copied, or (paging off) one of
 * identity 4 MiB pages; the window's page tables in free slots. */
static const char *build32(struct pagewin *w, const struct hw_paging *cur, uint64_t tables,
			   uint64_t bytes)
{
	bool own = cur->mode == HW_PG_OFF;
	uint32_t *pd = at(w, tables);
	unsigned m = (unsigned)div_up(w->pages, E32);

	if (tables + bytes > (1ull << 32) || w->frames + w->nframes * PW_PAGE > (1ull << 32))
		return "the window's memory lies above 4 GiB, beyond 32-bit paging";
	if (own && !w->cpu_pse)
		return "no 4 MiB pages (CPUID.1:EDX[3] PSE) for the identity map";
	if (own)
		for (uint32_t i = 0; i < E32; i++)
			pd[i] = i << 22 | LEAF | E_PS;
	else
		pmh_memcpy(pd, at(w, cur->root), PW_PAGE);
	unsigned s = slots32(w, pd, own, tables, bytes, m);
	if (s == ~0u)
		return own ? "the harness's memory lies where the window would go (0xE0000000)"
			   : "the page directory has no free run of slots for the window";
	for (unsigned t = 0; t < m; t++) {
		uint32_t *pt = at(w, tables + (1 + t) * PW_PAGE);
		for (uint32_t j = 0; j < E32; j++) {
			uint64_t i = (uint64_t)t * E32 + j;
			pt[j] = i < w->pages ? (uint32_t)frame_of(w, i) | LEAF : 0;
		}
		pd[s + t] = (uint32_t)(tables + (1 + t) * PW_PAGE) | TABLE;
	}
	w->va = (uint64_t)s << 22;
	w->on = (struct hw_paging){.mode = HW_PG_I386, .root = tables, .pse = own || cur->pse};
	return 0;
}

const char *pagewin_build(struct pagewin *w, const struct hw_paging *cur, uint64_t tables,
			  uint64_t bytes)
{
	uint64_t need = pagewin_bytes(cur, w->pages);

	w->off = *cur;
	w->va = 0;
	if (cur->mode == HW_PG_PAE)
		return "the firmware runs PAE paging, for which the harness builds no tables";
	if (!need)
		return "the window is larger than one slot of the top table holds";
	if (bytes < need || (tables & (PW_PAGE - 1)) || (w->frames & (PW_PAGE - 1)) || !w->nframes)
		return "no aligned memory for the window's tables";
	return levels_of(cur->mode) ? build64(w, cur, tables) : build32(w, cur, tables, bytes);
}
