/* The memory side of the micro-architecture model (uarch.h): set-associative
 * LRU caches whose lines are clean (E) or Modified, an L2 that is either
 * non-inclusive with the L1's Modified victims written into it (Skylake
 * client, Core) or an exclusive victim cache (K7, K8: AMD Software
 * Optimization Guide #25112, "cache architecture"), an optional inclusive
 * L3, and two-level DTLB and ITLB of 4 KiB pages. The TLBs are looked up by
 * the virtual page, the caches by the physical line (the caller translates).
 * The L1I is fed like the L1D, with code reads (origin WL_L2_CODE_RD); its
 * lines are never Modified. Single core: a line read from memory arrives
 * Exclusive, a store makes it Modified.
 *
 * The caches are static arrays sized for the largest geometry a model
 * publishes; a power-on invalidates them by generation, not by clearing
 * megabytes. Host-only, freestanding. */
#include <stddef.h>
#include "uarch.h"

#define MAX_L1	(64u * 1024 / 64)	/* K7/K8: 64 KiB */
#define MAX_L2	(4u * 1024 * 1024 / 64) /* Core 2: 4 MiB */
#define MAX_L3	(8u * 1024 * 1024 / 64) /* Skylake client: 8 MiB */
#define MAX_TLB 1536			/* Skylake STLB */
#define PAGE	4096u

enum { ST_I, ST_E, ST_M };

struct line {
	uint64_t tag, lru;
	uint32_t gen;
	uint8_t st;
};

struct cache {
	struct line *l;
	uint32_t cap, sets, gen;
	uint16_t ways;
	uint64_t clock;
};

static struct line l1_lines[MAX_L1], i1_lines[MAX_L1], l2_lines[MAX_L2], l3_lines[MAX_L3];
static struct line t1_lines[MAX_TLB], t2_lines[MAX_TLB], it1_lines[MAX_TLB], it2_lines[MAX_TLB];
/* l1: the L1D; i1: the L1I; t1, t2: the DTLBs; it1, it2: the ITLBs. */
static struct {
	struct cache l1, i1, l2, l3, t1, t2, it1, it2;
	const struct uarch_cfg *c;
} mem = {
    .l1 = {.l = l1_lines, .cap = MAX_L1},
    .i1 = {.l = i1_lines, .cap = MAX_L1},
    .l2 = {.l = l2_lines, .cap = MAX_L2},
    .l3 = {.l = l3_lines, .cap = MAX_L3},
    .t1 = {.l = t1_lines, .cap = MAX_TLB},
    .t2 = {.l = t2_lines, .cap = MAX_TLB},
    .it1 = {.l = it1_lines, .cap = MAX_TLB},
    .it2 = {.l = it2_lines, .cap = MAX_TLB},
};

/* A cache of n entries in ways ways (n 0: none); every old line invalid. */
static void init(struct cache *c, uint32_t n, uint16_t ways)
{
	c->ways = ways ? ways : 1;
	if (n > c->cap)
		n = c->cap; /* a geometry beyond the arrays: fewer sets */
	c->sets = n / c->ways;
	c->gen++;
	c->clock = 0;
}

static bool valid(const struct cache *c, const struct line *l)
{
	return l->gen == c->gen && l->st != ST_I;
}

static struct line *set_of(struct cache *c, uint64_t tag)
{
	return c->l + (size_t)(tag % c->sets) * c->ways;
}

static struct line *find(struct cache *c, uint64_t tag, bool touch)
{
	if (!c->sets)
		return 0;
	struct line *s = set_of(c, tag);
	for (unsigned w = 0; w < c->ways; w++)
		if (valid(c, &s[w]) && s[w].tag == tag) {
			if (touch)
				s[w].lru = ++c->clock;
			return &s[w];
		}
	return 0;
}

/* Puts tag (not present) in with state st, in place of an invalid way or
 * the least recently used one; returns what it replaced (st ST_I: none). */
static struct line insert(struct cache *c, uint64_t tag, uint8_t st)
{
	struct line old = {0}, *s, *v = 0;
	if (!c->sets)
		return old;
	s = set_of(c, tag);
	for (unsigned w = 0; w < c->ways; w++) {
		if (!valid(c, &s[w])) {
			v = &s[w];
			break;
		}
		if (!v || s[w].lru < v->lru)
			v = &s[w];
	}
	if (valid(c, v))
		old = *v;
	*v = (struct line){.tag = tag, .lru = ++c->clock, .gen = c->gen, .st = st};
	return old;
}

static uint8_t drop(struct cache *c, uint64_t tag)
{
	struct line *l = find(c, tag, false);
	uint8_t st = l ? l->st : ST_I;
	if (l)
		l->st = ST_I;
	return st;
}

void ua_mem_reset(const struct uarch_cfg *c)
{
	uint32_t line = c->line ? c->line : 64;
	mem.c = c;
	init(&mem.l1, c->l1d.size / line, c->l1d.ways);
	init(&mem.i1, c->l1i.size / line, c->l1i.ways);
	init(&mem.l2, c->l2.size / line, c->l2.ways);
	init(&mem.l3, c->l3.size / line, c->l3.ways);
	init(&mem.t1, c->dtlb1.entries, c->dtlb1.ways);
	init(&mem.t2, c->dtlb2.entries, c->dtlb2.ways);
	init(&mem.it1, c->itlb1.entries, c->itlb1.ways);
	init(&mem.it2, c->itlb2.entries, c->itlb2.ways);
}

/* The line leaves both L1s (the L1I holds it too when code was read from
 * it). */
static void drop_l1(uint64_t tag)
{
	drop(&mem.l1, tag);
	drop(&mem.i1, tag);
}

/* The L3 (inclusive) takes tag; what it evicts leaves the levels above. */
static void l3_fill(uint64_t tag, uint8_t st)
{
	struct line v = insert(&mem.l3, tag, st);
	if (v.st != ST_I && mem.c->l3_inclusive) {
		drop_l1(v.tag);
		drop(&mem.l2, v.tag);
	}
}

/* The L2 takes tag; a Modified victim is written back below it. */
static void l2_fill(uint64_t tag, uint8_t st, struct workload_vector *o)
{
	struct line v = insert(&mem.l2, tag, st);
	if (v.st != ST_M)
		return;
	o->l2_evict_m++;
	if (!mem.l3.sets)
		return; /* to memory */
	struct line *l = find(&mem.l3, v.tag, false);
	if (l)
		l->st = ST_M;
	else
		l3_fill(v.tag, ST_M);
}

/* An L1 victim goes where the L2's policy says: K8 fills the L2 with
 * every victim of either L1 (#25112, "cache architecture": the L2 is the
 * victim cache of the L1D and L1I); the non-inclusive L2 takes Modified
 * ones and drops clean ones. A line both L1s held is in the L2 already
 * when its second copy goes: that copy updates the state. */
static void l1_victim(const struct line *v, struct workload_vector *o)
{
	if (mem.c->l2_policy != UA_L2_EXCLUSIVE && v->st != ST_M)
		return;
	struct line *l = find(&mem.l2, v->tag, true);
	if (l && v->st == ST_M)
		l->st = ST_M;
	else if (!l)
		l2_fill(v->tag, v->st, o);
}

/* An L1 (the L1D, or the L1I for a fetch) takes tag; its victim goes to
 * l1_victim. */
static void l1_fill(struct cache *l1, uint64_t tag, uint8_t st, struct workload_vector *o)
{
	struct line v = insert(l1, tag, st);
	if (v.st == ST_I)
		return;
	if (l1 == &mem.l1) {
		o->l1d_evict++;
		if (v.st == ST_M)
			o->l1d_evict_m++;
	}
	l1_victim(&v, o);
}

/* The L2 request of each kind (Skylake L2_RQSTS origins): stores and
 * PREFETCHW ask for ownership, software load prefetches are L1 prefetches. */
static enum wl_l2_origin origin_of(enum ua_op op)
{
	switch (op) {
	case UA_STORE:
	case UA_PF_W:
		return WL_L2_RFO;
	case UA_PF_T0:
	case UA_PF_NTA:
		return WL_L2_L1PF;
	case UA_FETCH:
		return WL_L2_CODE_RD;
	default:
		return WL_L2_DATA_RD;
	}
}

/* Whether op leaves the line Modified: a store; PREFETCHW on AMD, which
 * marks the line modified (AMD 3DNow! Technology Manual #21928, PREFETCHW). */
static bool dirties(enum ua_op op)
{
	return op == UA_STORE || (op == UA_PF_W && mem.c->amd);
}

/* An L1 miss (the L1I's for a fetch, else the L1D's): the L2, then the L3
 * or memory. */
static enum ua_level below_l1(uint64_t tag, enum ua_op op, struct workload_vector *o)
{
	struct cache *l1 = op == UA_FETCH ? &mem.i1 : &mem.l1;
	enum wl_l2_origin org = origin_of(op);
	bool excl = mem.c->l2_policy == UA_L2_EXCLUSIVE, l3 = mem.l3.sets != 0;
	uint8_t st = dirties(op) ? ST_M : ST_E;
	struct line *l = find(&mem.l2, tag, true);

	if (!l3)
		o->llc_ref++; /* the L2 is the last level: every request references it */
	if (l) {
		o->l2[org][l->st == ST_M ? WL_L2_HIT_M : WL_L2_HIT_ES]++;
		/* The line moves up with its state; the L1I holds no Modified
		 * line, so a fetch leaves a Modified one in the L2 (ours). */
		if (excl && !(op == UA_FETCH && l->st == ST_M)) {
			if (l->st == ST_M)
				st = ST_M;
			l->st = ST_I;
		}
		l1_fill(l1, tag, st, o);
		return UA_HIT_L2;
	}
	o->l2[org][WL_L2_MISS]++;
	enum ua_level lv = UA_HIT_MEM;
	if (l3) {
		o->llc_ref++;
		if (find(&mem.l3, tag, true))
			lv = UA_HIT_L3;
		else
			l3_fill(tag, ST_E);
	}
	if (lv == UA_HIT_MEM)
		o->llc_miss++;
	/* PREFETCHNTA on Intel fills the L1 and not the L2 (Intel Optimization
	 * Reference Manual, "prefetch instructions"); K8 fills the L1 only. */
	if (!excl && !(op == UA_PF_NTA && !mem.c->amd))
		l2_fill(tag, ST_E, o);
	l1_fill(l1, tag, st, o);
	return lv;
}

/* A two-level TLB (l1, l2: the DTLBs or the ITLBs) for the virtual
 * address va: true when the page walk ran. No L1 TLB: nothing misses; no
 * L2 TLB: every L1 miss walks. */
static bool tlb(struct cache *l1, struct cache *l2, uint64_t va, uint64_t *l1_miss,
		uint64_t *l2_miss)
{
	uint64_t page = va / PAGE;
	if (!l1->sets || find(l1, page, true))
		return false;
	(*l1_miss)++;
	bool walk = !find(l2, page, true);
	if (walk) {
		(*l2_miss)++;
		insert(l2, page, ST_E);
	}
	insert(l1, page, ST_E);
	return walk;
}

void ua_mem_tlb_flush(void)
{
	mem.t1.gen++;
	mem.t2.gen++;
	mem.it1.gen++;
	mem.it2.gen++;
}

void ua_mem_invalidate(void)
{
	mem.l1.gen++;
	mem.i1.gen++;
	mem.l2.gen++;
	mem.l3.gen++;
}

void ua_mem_flush(uint64_t pa)
{
	uint64_t tag = pa / (mem.c->line ? mem.c->line : 64);
	drop_l1(tag);
	drop(&mem.l2, tag);
	drop(&mem.l3, tag);
}

enum ua_level ua_mem_access(uint64_t va, uint64_t pa, enum ua_op op, struct workload_vector *o,
			    bool *walk)
{
	uint64_t tag = pa / (mem.c->line ? mem.c->line : 64);

	*walk = tlb(&mem.t1, &mem.t2, va, &o->dtlb_l1_miss, &o->dtlb_l2_miss);
	if (op == UA_NT_STORE) {
		/* MOVNTI goes round the caches through a write-combining buffer
		 * and takes any cached copy of the line out of them. */
		ua_mem_flush(pa);
		return UA_HIT_MEM;
	}
	o->l1d_access++;
	struct line *l = find(&mem.l1, tag, true);
	if (l) {
		if (dirties(op))
			l->st = ST_M;
		return UA_HIT_L1;
	}
	o->l1d_miss++;
	return below_l1(tag, op, o);
}

enum ua_level ua_mem_fetch(uint64_t va, uint64_t pa, struct workload_vector *o, bool *walk)
{
	uint64_t tag = pa / (mem.c->line ? mem.c->line : 64);

	*walk = tlb(&mem.it1, &mem.it2, va, &o->itlb_l1_miss, &o->itlb_l2_miss);
	if (!mem.i1.sets || find(&mem.i1, tag, true))
		return UA_HIT_L1; /* no L1I geometry: no misses modelled */
	o->ic_miss++;
	return below_l1(tag, UA_FETCH, o);
}
