/* A workload's outcome on a simulated CPU (uarch.h): its construction
 * (workload_iteration) plus what the memory hierarchy, the predictor and
 * the pipeline make of it.
 *  - Memory: a walking kernel's pass over args->buf is one iteration. The
 *    pass is emulated as the kernel does it (the chase follows the pointers
 *    the harness stored; the strided kinds compute buf + i * stride; the
 *    code walk fetches each block) through the TLBs, by virtual address,
 *    and the caches, by the physical address the harness's page tables
 *    give (sim_translate). A cache reaches its steady state after one
 *    pass, so a warm-up pass and a measured one are run per (workload,
 *    buffer, lines, stride, CR3) and the measured pass is remembered until
 *    another buffer is walked or CR3 is loaded.
 *  - Branches: deterministic patterns are run through the predictor until
 *    it has learnt them and the learnt iteration is remembered; random ones
 *    are run iteration by iteration, stepping the kernel's xorshift state.
 *  - Time: issue (the construction's cycles, else instructions over the
 *    width and one taken branch a cycle), memory latency (serial for the
 *    chase, overlapped mlp-fold for independent accesses), the serialising
 *    kinds and the misprediction penalty. stall_cycles is what exceeds the
 *    issue time, stall_runs the separate waits it comes in. Host-only,
 *    freestanding. */
#include "sim.h"
#include "uarch.h"
#include "../../lib/str.h"

/* The unpublished default: a generic modern core, all numbers ours. */
const struct uarch_cfg uarch_default = {
    .name = "default",
    .line = 64,
    .l1d = {32 * 1024, 8},
    .l2 = {256 * 1024, 8},
    .dtlb1 = {64, 4},
    .dtlb2 = {512, 4},
    .lat_l1 = 4,
    .lat_l2 = 12,
    .lat_mem = 200,
    .lat_walk = 20,
    .mlp = 8,
    .width = 4,
    .ras = 16,
    .mispredict = 15,
    .cpuid_cyc = 100,
    .lock_cyc = 20,
    .lock_spec_cyc = 4,
    .seg_cyc = 10,
    .far_cyc = 30,
    .clflush_cyc = 50,
    .x87_cyc = 3,
};

/* Micro-ops beyond one per instruction of the microcoded kinds (ours: the
 * order of Agner Fog's instruction tables). */
#define UOPS_CPUID 30
#define UOPS_FAR   10
#define UOPS_SEG   3
#define UOPS_LOCK  2
/* Instruction fetch: 16-byte blocks (K8 fetches 16 bytes a cycle, AMD
 * #25112), about 4 bytes an instruction (ours); a taken branch ends a
 * block, so at least one block per taken branch. */
#define FETCH_BLOCK 16
#define INSN_BYTES  4
#define WARM_ITERS  64 /* predictor warm-up of a deterministic pattern (ours) */
#define BR_MEMO	    8

static struct {
	const struct uarch_cfg *c; /* what the caches and predictor are built for */
	bool mem_ok;
	struct {
		const char *name; /* the workload (by name: the harness may copy it) */
		enum wl_mem kind;
		const void *buf;
		uint64_t lines, stride, cr3;
	} key;
	struct ua_pass mem;
	struct {
		const char *name;
		uint64_t lines; /* a walk's inner loop depends on them */
		struct ua_br b;
	} br[BR_MEMO];
	unsigned br_next;
	uint64_t state; /* a random pattern's state when the workload has no args */
} ua;

void uarch_setup(struct sim_cpu *s, const struct uarch_cfg *c)
{
	s->ua = c;
	uarch_publish(s, c);
}

const struct uarch_cfg *uarch_of(const struct sim_cpu *s)
{
	return s->ua ? s->ua : &uarch_default;
}

void uarch_power_on(void)
{
	ua.c = 0; /* rebuilt cold at the first workload */
}

/* CLFLUSH takes a linear address (SDM Vol. 2A CLFLUSH): the line it maps. */
static void flush_va(const struct sim_cpu *s, uint64_t va)
{
	uint64_t pa;
	if (ua_phys(s, va, &pa))
		ua_mem_flush(pa);
}

void uarch_flush(struct sim_cpu *s, const void *buf, uint64_t bytes)
{
	const struct uarch_cfg *c = uarch_of(s);
	uint64_t line = c->line ? c->line : 64, a = (uint64_t)(uintptr_t)buf;

	if (ua.c != c)
		return; /* nothing walked yet: nothing cached */
	/* The memoised pass stays when a flush cannot change it (the harness
	 * runs one pass after the flush before it measures): a walk that stores
	 * makes its lines Modified again in that pass, and a read-only walk
	 * that met no Modified line meets none after. A read-only walk that met
	 * lines stored to before meets them clean now: it is walked again. */
	const struct workload_vector *o = &ua.mem.o;
	bool met_m = o->l1d_evict_m || o->l2_evict_m;
	for (unsigned i = 0; i < 5; i++)
		met_m = met_m || o->l2[i][WL_L2_HIT_M];
	bool stores = ua.key.kind == WL_MEM_CHASE_DIRTY || ua.key.kind == WL_MEM_STRIDE_STORE ||
		      ua.key.kind == WL_MEM_STRIDE_NT;
	if (met_m && !stores)
		ua.mem_ok = false;
	if (!buf) {
		ua_mem_invalidate(); /* WBINVD: every line written back and invalidated */
		return;
	}
	for (uint64_t off = 0; off < bytes; off += line)
		flush_va(s, a + off);
}

void uarch_tlb_flush(void)
{
	ua.mem_ok = false; /* the pass was translated by the tables that were */
	ua_mem_tlb_flush();
}

/* The caches and predictor for c, cold if they were built for another. */
static void use(const struct uarch_cfg *c)
{
	if (ua.c == c)
		return;
	ua_mem_reset(c);
	ua_br_reset(c);
	pmh_memset(&ua, 0, sizeof(ua));
	ua.c = c;
}

/* The steady pass of w over its buffer: remembered while the caches hold
 * what it left. */
static const struct ua_pass *mem_pass(struct sim_cpu *s, const struct uarch_cfg *c,
				      const struct workload *w)
{
	const struct wl_args *a = w->args;

	if (ua.mem_ok && ua.key.name == w->name && ua.key.kind == w->mem && ua.key.buf == a->buf &&
	    ua.key.lines == a->lines && ua.key.stride == a->stride && ua.key.cr3 == s->cr3)
		return &ua.mem;
	pmh_memset(&ua.mem, 0, sizeof(ua.mem));
	ua_walk(s, c, w, &ua.mem); /* warm-up */
	pmh_memset(&ua.mem, 0, sizeof(ua.mem));
	ua_walk(s, c, w, &ua.mem);
	ua_prefetched(s, c, w, &ua.mem);
	ua.key.name = w->name;
	ua.key.kind = w->mem;
	ua.key.buf = a->buf;
	ua.key.lines = a->lines;
	ua.key.stride = a->stride;
	ua.key.cr3 = s->cr3;
	ua.mem_ok = true;
	return &ua.mem;
}

/* Memory cycles of a pass: the chase waits for each load in turn; the
 * other walks keep mlp misses in flight (fill buffers / miss address
 * buffers), at least a cycle an element. */
static uint64_t mem_cycles(const struct uarch_cfg *c, const struct workload *w,
			   const struct ua_pass *p, uint64_t lines)
{
	if (w->mem == WL_MEM_CHASE || w->mem == WL_MEM_CHASE_DIRTY)
		return p->lat;
	uint64_t t = p->lat / (c->mlp ? c->mlp : 1);
	return t > lines ? t : lines;
}

/* The waits of a pass, each a stretch in which nothing retires: every
 * element of a chase (its successor's address is its data, and its own
 * instructions retire when that comes), every fetch the L1I missed, and
 * for the other walks each group of mlp misses in flight together. */
static uint64_t episodes(const struct uarch_cfg *c, const struct workload *w,
			 const struct ua_pass *p, uint64_t lines)
{
	uint64_t far = p->n[UA_HIT_L2] + p->n[UA_HIT_L3] + p->n[UA_HIT_MEM];
	uint64_t mlp = c->mlp ? c->mlp : 1;

	if (w->mem == WL_MEM_CHASE || w->mem == WL_MEM_CHASE_DIRTY)
		return lines;
	return w->mem == WL_MEM_CODE ? far : (far + mlp - 1) / mlp;
}

static void add(struct workload_vector *v, const struct workload_vector *o)
{
	v->l1d_access += o->l1d_access;
	v->l1d_miss += o->l1d_miss;
	v->l1d_evict += o->l1d_evict;
	v->l1d_evict_m += o->l1d_evict_m;
	for (unsigned i = 0; i < 5; i++)
		for (unsigned r = 0; r < 3; r++)
			v->l2[i][r] += o->l2[i][r];
	v->l2_evict_m += o->l2_evict_m;
	v->llc_ref += o->llc_ref;
	v->llc_miss += o->llc_miss;
	v->dtlb_l1_miss += o->dtlb_l1_miss;
	v->dtlb_l2_miss += o->dtlb_l2_miss;
	v->itlb_l1_miss += o->itlb_l1_miss;
	v->itlb_l2_miss += o->itlb_l2_miss;
	v->ic_miss += o->ic_miss;
}

/* A kernel without a walk touches one line, which stays in the L1D; with
 * CLFLUSH the line leaves every level each iteration, so the access after
 * the flush misses to memory and a dirty line is written back. */
static uint64_t one_line(const struct uarch_cfg *c, const struct workload_vector *k,
			 struct workload_vector *v)
{
	v->l1d_access += k->loads + k->stores + k->pf_load + k->pf_store + k->pf_nta;
	if (!k->clflush || !(k->loads + k->stores))
		return 0;
	v->l1d_miss++;
	v->l2[k->loads ? WL_L2_DATA_RD : WL_L2_RFO][WL_L2_MISS]++;
	v->llc_ref++;
	v->llc_miss++;
	if (k->stores)
		v->l2_evict_m++;
	v->stall_runs++;
	return c->lat_mem;
}

/* The memory outcome of one iteration into v; its memory cycles, which
 * overlap issue, and in *front the cycles the front end waited for fetches,
 * which do not: nothing is issued meanwhile (ours). */
static uint64_t memory(struct sim_cpu *s, const struct uarch_cfg *c, const struct workload *w,
		       struct workload_vector *v, uint64_t *front)
{
	const struct wl_args *a = w->args;
	uint64_t cyc = one_line(c, &w->per_iter, v);

	if (w->mem == WL_MEM_NONE && a && a->buf) {
		/* its line is one of a walk's buffer: that walk's pass is stale */
		ua.mem_ok = false;
		if (w->per_iter.clflush)
			flush_va(s, (uint64_t)(uintptr_t)a->buf);
	}
	if (w->mem == WL_MEM_NONE || !a || !a->buf || !a->lines)
		return cyc;
	const struct ua_pass *p = mem_pass(s, c, w);
	add(v, &p->o);
	v->stall_runs += episodes(c, w, p, a->lines);
	if (w->mem == WL_MEM_CODE) {
		*front = p->lat;
		return cyc;
	}
	return cyc + mem_cycles(c, w, p, a->lines);
}

/* The learnt iteration of a deterministic pattern. */
static struct ua_br learnt(const struct workload *w)
{
	struct ua_br b = {0};
	uint64_t lines = w->args ? w->args->lines : 0;
	for (unsigned i = 0; i < BR_MEMO; i++)
		if (ua.br[i].name == w->name && ua.br[i].lines == lines)
			return ua.br[i].b;
	for (unsigned i = 0; i < WARM_ITERS; i++)
		ua_br_iteration(w, i & 1, &b);
	pmh_memset(&b, 0, sizeof(b));
	ua_br_iteration(w, 0, &b); /* an alternating pattern's two phases */
	ua_br_iteration(w, 1, &b);
	b.misses = (b.misses + 1) / 2;
	b.taken_misses = (b.taken_misses + 1) / 2;
	b.ret_misses = (b.ret_misses + 1) / 2;
	b.ras_overflows = (b.ras_overflows + 1) / 2;
	b.indirect_misses = (b.indirect_misses + 1) / 2;
	ua.br[ua.br_next].name = w->name;
	ua.br[ua.br_next].lines = lines;
	ua.br[ua.br_next].b = b;
	ua.br_next = (ua.br_next + 1) % BR_MEMO;
	return b;
}

static bool random_pattern(const struct workload *w)
{
	return w->pattern == WL_BR_RANDOM || w->pattern == WL_BR_IND_RANDOM;
}

static void add_br(const struct uarch_cfg *c, struct workload_vector *v, const struct ua_br *b)
{
	v->branch_misses += b->misses;
	v->taken_misses += b->taken_misses;
	v->ret_misses += b->ret_misses;
	v->ras_overflows += b->ras_overflows;
	v->indirect_misses += b->indirect_misses;
	v->cycles += b->misses * c->mispredict;
	v->stall_cycles += b->misses * c->mispredict;
	v->stall_runs += b->misses; /* each refetch from the right path */
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;
	return m > c ? m : c;
}

/* Cycles, stalls, micro-ops and fetch blocks of an iteration (branch
 * penalties come with add_br); mem and front as memory() gives them. */
static void price(const struct uarch_cfg *c, struct workload_vector *v, uint64_t mem,
		  uint64_t front)
{
	uint64_t segs = 0, width = c->width ? c->width : 1;
	for (unsigned i = 0; i < WL_SEGS; i++)
		segs += v->seg_loads[i];
	uint64_t issue =
	    v->cycles ? v->cycles : max3(1, (v->instructions + width - 1) / width, v->taken);
	uint64_t serial = v->cpuid * c->cpuid_cyc + v->locked * c->lock_cyc + segs * c->seg_cyc +
			  v->far * c->far_cyc + v->clflush * c->clflush_cyc + v->x87 * c->x87_cyc;
	v->cycles = (mem > issue ? mem : issue) + serial + front;
	v->stall_cycles = v->cycles - issue;
	/* each serialising or long-latency kind waits on its own */
	v->stall_runs += v->cpuid + v->locked + segs + v->far + v->clflush + v->x87;
	if (!v->stall_cycles)
		v->stall_runs = 0;
	v->uops = v->instructions + v->cpuid * UOPS_CPUID + v->far * UOPS_FAR + segs * UOPS_SEG +
		  v->locked * UOPS_LOCK;
	uint64_t blocks = (v->instructions * INSN_BYTES + FETCH_BLOCK - 1) / FETCH_BLOCK;
	v->ic_fetch = blocks > v->taken ? blocks : v->taken;
}

/* One iteration of w in its steady state; a random pattern's branch is
 * left out (uarch_run adds it iteration by iteration). */
static void steady(struct sim_cpu *s, const struct workload *w, struct workload_vector *v)
{
	const struct uarch_cfg *c = uarch_of(s);

	use(c);
	workload_iteration(w, v);
	v->branch_misses = 0; /* an outcome: ours to say */
	uint64_t front = 0, mem = memory(s, c, w, v, &front);
	price(c, v, mem, front);
	if (!random_pattern(w)) {
		struct ua_br b = learnt(w);
		add_br(c, v, &b);
	}
}

/* Iterations of a random pattern priced together (ours): their branch
 * outcomes summed into one step, so that the engine's per-step work (every
 * counter's rate, the interrupt check) is not paid per iteration. An
 * overflow inside a batch is seen at its end: only event.semantics runs
 * random patterns, and its windows never overflow. */
#define RANDOM_BATCH 32

/* k iterations of base with the branch outcomes b of all of them, as one
 * step: every count of the vector is k times an iteration's. */
static void emit(struct sim_cpu *s, const struct workload_vector *base, const struct ua_br *b,
		 uint64_t k, uarch_advance_fn adv)
{
	struct workload_vector v = *base;
	uint64_t *f = (uint64_t *)(void *)&v;
	_Static_assert(sizeof(v) % sizeof(uint64_t) == 0, "a vector of 64-bit counts");
	for (size_t i = 0; i < sizeof(v) / sizeof(uint64_t); i++)
		f[i] *= k;
	add_br(uarch_of(s), &v, b);
	adv(s, &v, 1);
}

/* A random pattern: the kernel's xorshift stepped once an iteration, its
 * bit 0 the branch's direction (or the indirect jump's target); batches of
 * RANDOM_BATCH iterations go to adv as one step each. */
static void run_random(struct sim_cpu *s, const struct workload *w,
		       const struct workload_vector *base, uint64_t n, uarch_advance_fn adv)
{
	struct wl_args *a = w->args;
	uint64_t x = a ? a->state : ua.state, k = 0;
	struct ua_br acc = {0};

	if (!x)
		x = 1; /* the generator's state is never 0 */
	for (uint64_t i = 0; i < n; i++) {
		x = wl_xorshift(x);
		ua_br_iteration(w, x & 1, &acc);
		if (++k == RANDOM_BATCH) {
			emit(s, base, &acc, k, adv);
			pmh_memset(&acc, 0, sizeof(acc));
			k = 0;
		}
	}
	if (k)
		emit(s, base, &acc, k, adv);
	if (a)
		a->state = x;
	else
		ua.state = x;
}

void uarch_run(struct sim_cpu *s, const struct workload *w, uint64_t iterations,
	       uarch_advance_fn adv)
{
	struct workload_vector v = {0};

	if (!iterations)
		return;
	steady(s, w, &v);
	if (random_pattern(w))
		run_random(s, w, &v, iterations, adv);
	else
		adv(s, &v, iterations);
}
