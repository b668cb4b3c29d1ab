/* event.semantics: the walks that run through a page window
 * (events/pagewin.h). A TLB walk touches one line in each of `pages`
 * pages that all map one frame, so it misses the TLBs as its page count
 * says and never the data or instruction caches; a code walk runs blocks
 * of wl_code a line apart over frames of its own, so it misses the L1I as
 * its size says. The sizes come from the CPU's CPUID TLB and cache leaves
 * (pmu/cache.h); the window's tables sit after the frames in the check's
 * buffer. */
#include "event_semantics.h"
#include "../../lib/fmt.h"

bool sem_windowed(enum sem_footprint fp)
{
	return fp >= FP_DTLB_L1 && fp <= FP_CODE_MEM;
}

static bool tlb_walk(enum sem_footprint fp)
{
	return fp >= FP_DTLB_L1 && fp <= FP_ITLB_L2;
}

/* 4x the first level's entries, at most half the second's (and then at
 * least twice the first's, or the walk would fit the first); 4x the
 * second (the first's where there is none). */
static uint64_t tlb_pages(const struct tlb_level *t1, const struct tlb_level *t2, bool second)
{
	uint64_t e1 = t1->entries, e2 = t2->entries;

	if (second)
		return 4 * (e2 ? e2 : e1);
	if (!e1)
		return 0;
	uint64_t p = 4 * e1;
	if (e2 && p > e2 / 2)
		p = e2 / 2;
	return p >= 2 * e1 ? p : 0;
}

uint64_t sem_window_pages(const struct sem_run *st, enum sem_footprint fp)
{
	const struct cpu_caches *k = &st->caches;
	const struct cache_level *llc = cpu_caches_llc(k);
	uint64_t b = 0;

	switch (fp) {
	case FP_DTLB_L1:
	case FP_DTLB_L2:
		return tlb_pages(&k->dtlb_l1, &k->dtlb_l2, fp == FP_DTLB_L2);
	case FP_ITLB_L1:
	case FP_ITLB_L2:
		return tlb_pages(&k->itlb_l1, &k->itlb_l2, fp == FP_ITLB_L2);
	case FP_CODE_L1:
		b = k->l1i.size / 2;
		break;
	case FP_CODE_L2:
		if (!k->l1i.size || !k->l2.size)
			return 0;
		b = 4ull * k->l1i.size;
		b = b < k->l2.size / 2 ? b : k->l2.size / 2;
		break;
	case FP_CODE_MEM:
		b = llc && k->l1i.size ? 4ull * llc->size : 0;
		break;
	default:
		return 0;
	}
	return (b + PW_PAGE - 1) / PW_PAGE;
}

/* The frames under a window of `pages` pages: one for a TLB walk. */
static uint64_t frames_of(enum sem_footprint fp, uint64_t pages)
{
	return tlb_walk(fp) ? 1 : pages;
}

uint64_t sem_memory_bytes(const struct sem_run *st, enum sem_footprint fp)
{
	if (!sem_windowed(fp))
		return sem_footprint_bytes(st, fp);
	uint64_t pages = sem_window_pages(st, fp);
	uint64_t tables = pages ? pagewin_bytes(&st->paging, pages) : 0;
	return tables ? frames_of(fp, pages) * PW_PAGE + tables : 0;
}

/* The code line: the L1I's, else the L1D's, else 64 bytes. */
static uint64_t code_line(const struct sem_run *st)
{
	uint64_t l = st->caches.l1i.line ? st->caches.l1i.line : st->caches.l1d.line;
	return l >= 16 ? l : 64; /* a block is 9 bytes */
}

bool sem_window_on(struct sem_run *st, const struct workload *w, enum sem_footprint fp, char *why,
		   size_t n)
{
	uint64_t pages = sem_window_pages(st, fp), frames = frames_of(fp, pages);
	uint64_t mem = sem_memory_bytes(st, fp), line = code_line(st);

	if (!pages || !mem || mem > st->buf_size) {
		pmh_fmt(why, n, "no memory for a window of %llu pages", (unsigned long long)pages);
		return false;
	}
	if (w->mem == WL_MEM_CODE) /* one block per page, or one per line */
		workload_code(st->buf, tlb_walk(fp) ? 1 : frames * PW_PAGE / line,
			      tlb_walk(fp) ? PW_PAGE : line);
	st->chain_lines = 0; /* the frames are written over */
	st->win = (struct pagewin){
	    .pages = pages,
	    .frames = (uint64_t)(uintptr_t)st->buf,
	    .nframes = frames,
	    .cpu_pse = st->pse_cpu,
	};
	uint8_t *tables = st->buf + frames * PW_PAGE;
	const char *e = pagewin_build(&st->win, &st->paging, (uint64_t)(uintptr_t)tables,
				      mem - frames * PW_PAGE);
	if (e) {
		pmh_fmt(why, n, "no page window: %s", e);
		return false;
	}
	int rc = hw_paging_load(&st->win.on);
	if (rc != HW_OK) {
		pmh_fmt(why, n, "the page window could not be loaded (%s)", hw_err_name(rc));
		return false;
	}
	st->win_on = true;
	st->args.buf = (void *)(uintptr_t)st->win.va;
	st->args.lines = tlb_walk(fp) ? pages : frames * PW_PAGE / line;
	st->args.stride = tlb_walk(fp) ? PW_PAGE : line;
	return true;
}

void sem_window_off(struct sem_run *st)
{
	if (st->win_on)
		(void)hw_paging_load(&st->win.off);
	st->win_on = false;
}
