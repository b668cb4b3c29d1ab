/* One pass of a walking kernel over its buffer (uarch.h), as the kernel
 * makes it: the chase follows the pointers the harness stored, the
 * strided kinds compute buf + i * stride, the code walk fetches each
 * block. Each address goes to the TLBs as it is (virtual) and to the
 * caches as the harness's page tables translate it (sim_translate); an
 * address they do not map ends the pass (the kernel would fault). The
 * caller (uarch.c) remembers the steady pass. Host-only, freestanding. */
#include "sim.h"
#include "uarch.h"

bool ua_phys(const struct sim_cpu *s, uint64_t va, uint64_t *pa)
{
	bool big;
	return sim_translate(s, va, pa, &big);
}

static uint64_t lat_of(const struct uarch_cfg *c, enum ua_level l)
{
	switch (l) {
	case UA_HIT_L1:
		return c->lat_l1;
	case UA_HIT_L2:
		return c->lat_l2;
	case UA_HIT_L3:
		return c->lat_l3;
	default:
		return c->lat_mem;
	}
}

/* One data access of a pass at va (physical pa); its latency. */
static uint64_t cost(struct ua_pass *p, const struct uarch_cfg *c, uint64_t va, uint64_t pa,
		     enum ua_op op)
{
	bool walk;
	enum ua_level l = ua_mem_access(va, pa, op, &p->o, &walk);
	p->n[l]++;
	/* a write-combined line costs one memory write for its eight MOVNTIs */
	uint64_t t = op == UA_NT_STORE ? c->lat_mem / 8 : lat_of(c, l);
	return t + (walk ? c->lat_walk : 0);
}

/* A strided access at va, its latency into the pass's; false when va is
 * not mapped (the walk ends there). */
static bool touch(struct ua_pass *p, const struct sim_cpu *s, const struct uarch_cfg *c,
		  uint64_t va, enum ua_op op)
{
	uint64_t pa;
	if (!ua_phys(s, va, &pa))
		return false;
	p->lat += cost(p, c, va, pa, op);
	return true;
}

/* A fetch of the block at va. A fetch that hits the L1I is pipelined: only
 * a miss's latency and a page walk stall the front end (ours). */
static bool fetch(struct ua_pass *p, const struct sim_cpu *s, const struct uarch_cfg *c,
		  uint64_t va)
{
	uint64_t pa;
	bool walk;
	if (!ua_phys(s, va, &pa))
		return false;
	enum ua_level l = ua_mem_fetch(va, pa, &p->o, &walk);
	p->n[l]++;
	p->lat += (l == UA_HIT_L1 ? 0 : lat_of(c, l)) + (walk ? c->lat_walk : 0);
	return true;
}

static enum ua_op pf_op(const struct workload *w)
{
	if (w->per_elem.pf_store)
		return UA_PF_W;
	return w->per_elem.pf_nta ? UA_PF_NTA : UA_PF_T0;
}

/* Whether a chain's pointer q lies in a's buffer (a chain the harness did
 * not build, or broke, ends the walk rather than the simulator). */
static bool in_buf(const struct wl_args *a, const void *q)
{
	uint64_t b = (uint64_t)(uintptr_t)a->buf, x = (uint64_t)(uintptr_t)q;
	uint64_t stride = a->stride ? a->stride : 8;
	return q && x >= b && x - b + 8 <= a->lines * stride;
}

/* One element of the chase at q: the load (and the dirty kind's store to
 * p[1], off the chain's critical path); the next element, read where q
 * lies in physical memory. 0 when q is not mapped or not in the buffer. */
static const void *chase(struct ua_pass *p, const struct sim_cpu *s, const struct uarch_cfg *c,
			 const struct workload *w, const void *q)
{
	uint64_t va = (uint64_t)(uintptr_t)q, pa;
	if (!in_buf(w->args, q) || !ua_phys(s, va, &pa))
		return 0;
	p->lat += cost(p, c, va, pa, UA_LOAD);
	if (w->mem == WL_MEM_CHASE_DIRTY)
		(void)cost(p, c, va + 8, pa + 8, UA_STORE);
	return *(const void *const *)(uintptr_t)pa;
}

void ua_walk(const struct sim_cpu *s, const struct uarch_cfg *c, const struct workload *w,
	     struct ua_pass *p)
{
	const struct wl_args *a = w->args;
	uint64_t b = (uint64_t)(uintptr_t)a->buf;
	const void *q = a->buf;
	bool ok = true;

	for (uint64_t i = 0; i < a->lines && ok; i++) {
		uint64_t at = b + i * a->stride;
		switch (w->mem) {
		case WL_MEM_CHASE:
		case WL_MEM_CHASE_DIRTY:
			ok = (q = chase(p, s, c, w, q)) != 0;
			break;
		case WL_MEM_STRIDE_STORE:
			ok = touch(p, s, c, at, UA_STORE);
			break;
		case WL_MEM_STRIDE_PF:
			ok = touch(p, s, c, at, pf_op(w));
			break;
		case WL_MEM_STRIDE_NT:
			ok = touch(p, s, c, b + i * 8, UA_NT_STORE);
			break;
		case WL_MEM_PAGES:
			ok = touch(p, s, c, at, UA_LOAD);
			break;
		case WL_MEM_CODE:
			ok = fetch(p, s, c, at);
			break;
		default:
			return;
		}
	}
}

/* Realism "prefetch": the L2 streamer follows a stride within a 4 KiB page
 * (Intel Optimization Reference Manual, "data prefetching": the streamer
 * detects ascending and descending accesses within a page) and brings a
 * drawn share of the walk's lines into the L2 before the demand: those
 * demand misses become hits, and the streamer's own requests (origin L2
 * prefetch) take the misses. It cannot follow a pointer chase. */
void ua_prefetched(struct sim_cpu *s, const struct uarch_cfg *c, const struct workload *w,
		   struct ua_pass *p)
{
	const struct wl_args *a = w->args;

	if (!sim_real(s, SE_PREFETCH) || !c->l2_streamer || a->stride >= 4096 ||
	    (w->mem != WL_MEM_STRIDE_STORE && w->mem != WL_MEM_STRIDE_PF))
		return;
	/* the share times --realism-scale, at most every miss */
	uint64_t pm = sim_rand(s, sim_k_pm(s, c->pf_min_pm), sim_k_pm(s, c->pf_max_pm));
	for (unsigned o = WL_L2_DATA_RD; o <= WL_L2_RFO; o++) {
		uint64_t n = p->o.l2[o][WL_L2_MISS] * pm / 1000;
		p->o.l2[o][WL_L2_MISS] -= n;
		p->o.l2[o][WL_L2_HIT_ES] += n;
		p->o.l2[WL_L2_L2PF][WL_L2_MISS] += n;
		for (unsigned l = UA_HIT_MEM; l > UA_HIT_L2 && n; l--) {
			uint64_t k = p->n[l] < n ? p->n[l] : n;
			p->n[l] -= k;
			p->n[UA_HIT_L2] += k;
			p->lat -= k * (lat_of(c, (enum ua_level)l) - c->lat_l2);
			n -= k;
		}
	}
}
