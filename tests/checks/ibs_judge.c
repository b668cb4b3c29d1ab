/* ibs.sample's judgement of its samples (ibs_judge.h): the addresses
 * against the kernel's instructions, IBS_OP_DATA's branch bits against
 * what the walk did at the sampled RIP (AMD APM Vol. 2 13.3, IBS_OP_DATA;
 * Linux arch/x86/include/asm/amd-ibs.h union ibs_op_data). The tolerances
 * are the check's, written at ibs_sample.c's top. */
#include <stdarg.h>
#include "ibs_judge.h"
#include "../../lib/fmt.h"
#include "../../lib/str.h"

/* IBS_OP_DATA bits 34-39 (Linux amd-ibs.h union ibs_op_data) */
#define D_RETURN      (1ull << 34)
#define D_TAKEN	      (1ull << 35)
#define D_MISP	      (1ull << 36)
#define D_BRN	      (1ull << 37)
#define D_RIP_INVALID (1ull << 38)
#define D_FUSE	      (1ull << 39)

static struct ibs_ins *find(struct ibs_tab *t, uint64_t ip)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->e[i].ip == ip)
			return &t->e[i];
	return 0;
}

void ibs_tab_add(void *ctx, const struct smp_step *st)
{
	struct ibs_tab *t = ctx;
	struct ibs_ins *e = find(t, st->ip);

	if (!e && t->n < IBS_TAB_MAX) {
		e = &t->e[t->n++];
		pmh_memset(e, 0, sizeof(*e));
		e->ip = st->ip;
		e->kind = st->kind;
	}
	if (!e)
		return;
	e->n++;
	if (!st->taken) {
		e->next = st->next;
	} else {
		e->target = e->taken && e->target != st->next ? 0 : st->next;
		e->taken++;
	}
}

/* A rule's failures: how many, and the first as a message. */
struct tally {
	unsigned n;
	char first[RESULT_MSG];
};

static void tally(struct tally *t, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void tally(struct tally *t, const char *f, ...)
{
	if (!t->n++) {
		va_list ap;
		va_start(ap, f);
		pmh_vfmt(t->first, sizeof(t->first), f, ap);
		va_end(ap);
	}
}

static void report(struct check_ctx *c, const struct tally *t, unsigned of)
{
	if (t->n)
		check_fail(c, "%s (%u of %u samples)", t->first, t->n, of);
}

/* The branch bits of one op sample against the walk's instruction e. */
static void judge_bits(struct ibs_tab *t, const volatile struct ibs_rec *r, const struct ibs_ins *e,
		       bool target, struct tally *bad)
{
	uint64_t d = r->data;
	unsigned long long a = r->addr, dd = d;
	const struct ibs_ins *j = e;
	if ((d & D_FUSE) && e->kind == SMP_NONE && find(t, e->next))
		j = find(t, e->next); /* a fused compare: judged as its branch */
	const char *k = smp_kind_name(j->kind);
	bool br = j->kind != SMP_NONE;

	if (!br && (d & (D_BRN | D_TAKEN | D_MISP | D_RETURN)))
		tally(bad,
		      "IBS_OP_DATA 0x%llx at RIP 0x%llx: branch bits set, the instruction is no "
		      "branch",
		      dd, a);
	else if (br && !(d & D_BRN))
		tally(bad, "IBS_OP_DATA 0x%llx at RIP 0x%llx: IbsOpBrnRet clear at a %s", dd, a, k);
	else if (br && j->taken == j->n && !(d & D_TAKEN))
		tally(bad,
		      "IBS_OP_DATA 0x%llx at RIP 0x%llx: IbsOpBrnTaken clear at a %s the "
		      "kernel always takes",
		      dd, a, k);
	else if (br && !j->taken && (d & D_TAKEN))
		tally(bad,
		      "IBS_OP_DATA 0x%llx at RIP 0x%llx: IbsOpBrnTaken set at a %s the kernel "
		      "never takes",
		      dd, a, k);
	else if (!(d & D_RETURN) != (j->kind != SMP_RET))
		tally(bad, "IBS_OP_DATA 0x%llx at RIP 0x%llx: IbsOpReturn %s at a %s", dd, a,
		      d & D_RETURN ? "set" : "clear", k);
	else if (target && (d & D_TAKEN) && j->target && r->target != j->target)
		tally(bad, "IBS_BR_TARGET 0x%llx at RIP 0x%llx, the %s's target is 0x%llx",
		      (unsigned long long)r->target, a, k, (unsigned long long)j->target);
}

void ibs_judge_addrs(struct check_ctx *c, struct ibs_tab *t, const volatile struct ibs_rec *rec,
		     unsigned n, bool fetch, bool target, const char *reg)
{
	uint64_t lo, hi;
	struct tally bad = {0}, bits = {0};
	unsigned out = 0, invalid = 0;
	uint64_t out_first = 0;

	smp_bounds(&lo, &hi);
	for (unsigned i = 0; i < n; i++) {
		const volatile struct ibs_rec *r = &rec[i];
		uint64_t a = r->addr;
		const struct ibs_ins *e = find(t, a);
		if (fetch ? !a : (r->data & D_RIP_INVALID) != 0) {
			/* IbsRipInvalid, a fetch address of 0 (erratum #1197):
			 * no address to judge (Linux ibs.c check_rip,
			 * fetch_ignore_if_zero_rip) */
			invalid++;
		} else if (a < lo || a >= hi) {
			out_first = out++ ? out_first : a;
		} else if (!e || !smp_is_insn(a)) {
			if (!fetch || (a & 0xf))
				tally(&bad,
				      "%s 0x%llx is inside the sampling kernel (kernel+0x%llx) "
				      "but no instruction of it starts there",
				      reg, (unsigned long long)a, (unsigned long long)(a - lo));
		} else if (!fetch) {
			judge_bits(t, r, e, target, &bits);
		}
	}
	report(c, &bad, n);
	report(c, &bits, n);
	if (invalid * 2 > n)
		check_fail(c, "IBS: %s invalid (IbsRipInvalid, or 0) in %u of %u samples", reg,
			   invalid, n);
	if (out * 4 > n - invalid)
		check_fail(c,
			   "IBS: %s outside the sampling kernel in %u of %u samples (first 0x%llx; "
			   "at most a quarter expected: the harness's own ops around it)",
			   reg, out, n - invalid, (unsigned long long)out_first);
}
