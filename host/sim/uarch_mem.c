/* The memory side of the micro-architecture model (uarch.h): set-associative
 * LRU caches whose lines are clean (E) or Modified, an L2 that is either
 * non-inclusive with the L1's Modified victims written into it (Skylake
 * client, Core) or an exclusive victim cache (K7, K8: AMD Software
 * Optimization Guide #25112, "cache architecture"), an optional inclusive
 * L3, and a two-level DTLB of 4 KiB pages. Single core: a line read from
 * memory arrives Exclusive, a store makes it Modified.
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

static struct line l1_lines[MAX_L1], l2_lines[MAX_L2], l3_lines[MAX_L3];
static struct line t1_lines[MAX_TLB], t2_lines[MAX_TLB];
static struct {
	struct cache l1, l2, l3, t1, t2;
	const struct uarch_cfg *c;
} mem = {
    .l1 = {.l = l1_lines, .cap = MAX_L1},
    .l2 = {.l = l2_lines, .cap = MAX_L2},
    .l3 = {.l = l3_lines, .cap = MAX_L3},
    .t1 = {.l = t1_lines, .cap = MAX_TLB},
    .t2 = {.l = t2_lines, .cap = MAX_TLB},
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
	init(&mem.l2, c->l2.size / line, c->l2.ways);
	init(&mem.l3, c->l3.size / line, c->l3.ways);
	init(&mem.t1, c->dtlb1.entries, c->dtlb1.ways);
	init(&mem.t2, c->dtlb2.entries, c->dtlb2.ways);
}

/* The L3 (inclusive) takes tag; what it evicts leaves the levels above. */
static void l3_fill(uint64_t tag, uint8_t st)
{
	struct line v = insert(&mem.l3, tag, st);
	if (v.st != ST_I && mem.c->l3_inclusive) {
		drop(&mem.l1, v.tag);
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

/* The L1D takes tag; its victim goes where the L2's policy says. */
static void l1_fill(uint64_t tag, uint8_t st, struct workload_vector *o)
{
	struct line v = insert(&mem.l1, tag, st);
	if (v.st == ST_I)
		return;
	o->l1d_evict++;
	if (v.st == ST_M)
		o->l1d_evict_m++;
	if (mem.c->l2_policy == UA_L2_EXCLUSIVE) {
		l2_fill(v.tag, v.st, o); /* K8: every L1 victim fills the L2 */
		return;
	}
	if (v.st != ST_M)
		return; /* a clean victim is dropped */
	struct line *l = find(&mem.l2, v.tag, true);
	if (l)
		l->st = ST_M;
	else
		l2_fill(v.tag, ST_M, o);
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

/* An L1D miss: the L2, then the L3 or memory. */
static enum ua_level below_l1(uint64_t tag, enum ua_op op, struct workload_vector *o)
{
	enum wl_l2_origin org = origin_of(op);
	bool excl = mem.c->l2_policy == UA_L2_EXCLUSIVE, l3 = mem.l3.sets != 0;
	uint8_t st = dirties(op) ? ST_M : ST_E;
	struct line *l = find(&mem.l2, tag, true);

	if (!l3)
		o->llc_ref++; /* the L2 is the last level: every request references it */
	if (l) {
		o->l2[org][l->st == ST_M ? WL_L2_HIT_M : WL_L2_HIT_ES]++;
		if (excl) { /* the line moves up with its state */
			if (l->st == ST_M)
				st = ST_M;
			l->st = ST_I;
		}
		l1_fill(tag, st, o);
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
	l1_fill(tag, st, o);
	return lv;
}

/* The DTLBs for addr: true when the page walk ran. */
static bool dtlb(uint64_t addr, struct workload_vector *o)
{
	uint64_t page = addr / PAGE;
	if (!mem.t1.sets || find(&mem.t1, page, true))
		return false;
	o->dtlb_l1_miss++;
	bool walk = !find(&mem.t2, page, true);
	if (walk) {
		o->dtlb_l2_miss++;
		insert(&mem.t2, page, ST_E);
	}
	insert(&mem.t1, page, ST_E);
	return walk;
}

void ua_mem_invalidate(void)
{
	mem.l1.gen++;
	mem.l2.gen++;
	mem.l3.gen++;
}

void ua_mem_flush(uint64_t addr)
{
	uint64_t tag = addr / (mem.c->line ? mem.c->line : 64);
	drop(&mem.l1, tag);
	drop(&mem.l2, tag);
	drop(&mem.l3, tag);
}

enum ua_level ua_mem_access(uint64_t addr, enum ua_op op, struct workload_vector *o, bool *walk)
{
	uint64_t tag = addr / (mem.c->line ? mem.c->line : 64);

	*walk = dtlb(addr, o);
	if (op == UA_NT_STORE) {
		/* MOVNTI goes round the caches through a write-combining buffer
		 * and takes any cached copy of the line out of them. */
		drop(&mem.l1, tag);
		drop(&mem.l2, tag);
		drop(&mem.l3, tag);
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
