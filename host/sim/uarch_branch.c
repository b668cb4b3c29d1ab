/* The branch side of the micro-architecture model (uarch.h):
 *  - conditional branches: gshare, 2-bit saturating counters indexed by the
 *    branch address XOR the global history of directions (McFarling, "Combining
 *    Branch Predictors", DEC WRL TN-36, 1993); 4096 counters and 12 bits of
 *    history are ours. Counters start weakly taken.
 *  - near returns: a return-address stack of the model's depth. A call on a
 *    full stack overwrites its oldest entry (an overflow, K8 event 89h); a
 *    return on an empty one has no prediction and mispredicts.
 *  - indirect jumps: a last-target buffer (the BTB keeps the target the
 *    jump went to last time).
 * The branches of an iteration are the kernel's pattern branch, its calls
 * and returns, a walking kernel's inner loop (taken once an element, then
 * falling through: with more elements than the history holds, the exit
 * looks like every other iteration and mispredicts) and the loop branch;
 * the other conditionals of a kernel have fixed directions, which the
 * predictor learns (not simulated). Host-only, freestanding. */
#include "uarch.h"
#include "../../lib/str.h"

#define GS_BITS 12
#define GS_MASK ((1u << GS_BITS) - 1)
#define RAS_MAX 64
#define BTB_N	64

static struct {
	uint8_t ctr[1u << GS_BITS];
	uint32_t hist;
	uint64_t ras[RAS_MAX];
	unsigned ras_depth, ras_n, ras_top;
	uint64_t btb_pc[BTB_N], btb_to[BTB_N];
} bp;

void ua_br_reset(const struct uarch_cfg *c)
{
	pmh_memset(&bp, 0, sizeof(bp));
	pmh_memset(bp.ctr, 2, sizeof(bp.ctr));
	bp.ras_depth = c->ras < RAS_MAX ? c->ras : RAS_MAX;
}

/* A conditional branch at pc goes taken or not: true when mispredicted. */
static bool cond(uint64_t pc, bool taken)
{
	unsigned i = (unsigned)(pc ^ bp.hist) & GS_MASK;
	bool miss = (bp.ctr[i] >= 2) != taken;

	if (taken && bp.ctr[i] < 3)
		bp.ctr[i]++;
	else if (!taken && bp.ctr[i] > 0)
		bp.ctr[i]--;
	bp.hist = ((bp.hist << 1) | taken) & GS_MASK;
	return miss;
}

/* An indirect jump at pc to target: true when mispredicted. */
static bool indirect(uint64_t pc, uint64_t target)
{
	unsigned i = (unsigned)(pc % BTB_N);
	bool miss = bp.btb_pc[i] != pc || bp.btb_to[i] != target;
	bp.btb_pc[i] = pc;
	bp.btb_to[i] = target;
	return miss;
}

static void call(uint64_t ret, struct ua_br *b)
{
	if (!bp.ras_depth)
		return;
	if (bp.ras_n == bp.ras_depth)
		b->ras_overflows++; /* the oldest entry is overwritten */
	else
		bp.ras_n++;
	bp.ras_top = (bp.ras_top + 1) % bp.ras_depth;
	bp.ras[bp.ras_top] = ret;
}

/* A near return to ret: true when mispredicted. */
static bool ret(uint64_t to)
{
	if (!bp.ras_n)
		return true;
	uint64_t p = bp.ras[bp.ras_top];
	bp.ras_top = (bp.ras_top + bp.ras_depth - 1) % bp.ras_depth;
	bp.ras_n--;
	return p != to;
}

/* Addresses of the kernel's branches: the workload's own, from its name's
 * characters (the harness may run a copy; the string's address would
 * change with the host's address-space layout and, with it, which
 * branches share a predictor entry), spread (FNV-1a, then a multiply). */
static uint64_t pc_of(const struct workload *w, unsigned k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *c = w->name; c && *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return ((h * 0x9e3779b97f4a7c15ull) >> 20) + 4u * k;
}

static void miss(struct ua_br *b, bool taken)
{
	b->misses++;
	if (taken)
		b->taken_misses++;
}

/* call_depth nested calls and their returns (wl_recurse: the innermost
 * call sites return to the same address, the outermost to the loop), or
 * each call of the iteration returned from at once. */
static void calls(const struct workload *w, const struct workload_vector *k, struct ua_br *b)
{
	uint64_t outer = pc_of(w, 3), inner = pc_of(w, 4);
	uint64_t depth = w->call_depth;
	uint64_t pairs = k->calls < k->rets ? k->calls : k->rets;

	if (depth) {
		for (uint64_t d = 0; d < depth; d++)
			call(d ? inner : outer, b);
		for (uint64_t d = depth; d-- > 0;)
			if (ret(d ? inner : outer)) {
				miss(b, true);
				b->ret_misses++;
			}
		return;
	}
	for (uint64_t i = 0; i < pairs; i++) {
		call(outer + 8 * i, b);
		if (ret(outer + 8 * i)) {
			miss(b, true);
			b->ret_misses++;
		}
	}
}

/* The inner loop of a pass: taken once an element, then not. Past the
 * history's length every taken instance looks the same, so a few more
 * than it stand for the whole pass. */
static void inner_loop(const struct workload *w, struct ua_br *b)
{
	uint64_t n = w->args ? w->args->lines : 0;
	if (n > GS_BITS + 4)
		n = GS_BITS + 4;
	for (uint64_t i = 0; i < n; i++)
		if (cond(pc_of(w, 5), true))
			miss(b, true);
	if (cond(pc_of(w, 5), false))
		miss(b, false);
}

void ua_br_iteration(const struct workload *w, bool bit, struct ua_br *b)
{
	switch (w->pattern) {
	case WL_BR_ALT:
		if (cond(pc_of(w, 1), bit))
			miss(b, bit);
		break;
	case WL_BR_RANDOM: /* the jz of wl_br_random: taken when bit 0 is 0 */
		if (cond(pc_of(w, 1), !bit))
			miss(b, !bit);
		break;
	case WL_BR_IND_RANDOM:
		if (indirect(pc_of(w, 2), pc_of(w, bit ? 8 : 9))) {
			miss(b, true);
			b->indirect_misses++;
		}
		break;
	default:
		break;
	}
	if (w->call_depth || w->per_iter.calls)
		calls(w, &w->per_iter, b);
	if (w->mem != WL_MEM_NONE)
		inner_loop(w, b);
	if (cond(pc_of(w, 0), true)) /* the loop branch */
		miss(b, true);
}
