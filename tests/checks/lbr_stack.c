/* lbr.stack: the last branch records hold exactly the last branches a
 * known workload took, in order. The sampling kernel (x86/sample.S)
 * runs at CPL 3 with the records on for every near branch kind and off for
 * CPL 0 and far branches (tests/lbr_rec.h); its walk (events/sample.h),
 * taken from the code's labels, says which branches it took. The stack's
 * youngest record must be the kernel's final RET (after at most
 * LBR_PLATFORM_MAX of the platform's own near branches at CPL 3) and every
 * older record, to the depth the CPU enumerates, the kernel's branch
 * before it: FROM and TO exact (Intel SDM Vol. 3B 18.1.2 and 18.4.8; AMD
 * APM Vol. 2 13.1.1.9). Where the records carry a mispredicted flag (LBR
 * format 3 on, LBR_INFO, arch CPUID 1CH ECX[0], AMD FROM[63]) it is judged
 * over LBR_REPEATS windows of different lengths against what every predictor does on this
 * kernel: its pseudo-random conditional (b4) is mispredicted in at least
 * one record and predicted in at least one (a miss rate near 1/2: the
 * chance of a false FAIL is 2^-(its records), its records about 30 here), and of
 * its other branches, all predictable (direct, a loop back edge taken,
 * returns to their calls, indirect branches with one target), at most one
 * in LBR_OTHER_MISS records is flagged (ours: one for the predictor's
 * state after the entry to CPL 3). */
#include "../lbr_rec.h"
#include "../measure.h"

/* Windows of LBR_ITERS + LBR_STEP i iterations, i < LBR_REPEATS: 480
 * branches and more each, so that every record is the kernel's, and each
 * window's last branches (a 32-deep stack holds four iterations) a
 * stretch of the pseudo-random sequence no other window ends in. */
#define LBR_ITERS      64
#define LBR_STEP       5
#define LBR_REPEATS    16
#define LBR_OTHER_MISS 8

extern const char pmh_smp_b4[];

struct tally {
	unsigned rnd, rnd_mis, other, other_mis, windows;
};

/* One window: the records against the walk; the flags tallied. False when
 * it failed or an op did (FAILed). */
static bool one(struct check_ctx *c, const struct lbr_fw *fw, uint64_t iters, struct tally *t)
{
	struct lbr_rec r[LBR_REC_MAX];
	struct smp_step e[LBR_REC_MAX];
	unsigned n = 0, k0 = 0;

	if (!lbr_on(c, fw, LBR_ALL_KINDS, 0))
		return false;
	int st = hw_user_run(&wl_sample, iters);
	if (!lbr_off(c, fw) || !lbr_read(c, r, &n))
		return false;
	if (st != HW_OK) {
		check_fail(c, "the kernel at CPL 3 came back with %s", hw_err_name(st));
		return false;
	}
	unsigned ne = lbr_expect(iters, LBR_ALL_KINDS, e, LBR_REC_MAX);
	if (lbr_match(c, r, n, e, ne, &k0) != n)
		return false;
	for (unsigned i = k0; i < n; i++) {
		bool rnd = r[i].from == (uint64_t)(uintptr_t)pmh_smp_b4;
		t->rnd += rnd;
		t->rnd_mis += rnd && r[i].mispred;
		t->other += !rnd;
		t->other_mis += !rnd && r[i].mispred;
	}
	t->windows++;
	return true;
}

static void judge_flags(struct check_ctx *c, const struct tally *t)
{
	if (!pmu_sampling(c->pmu)->lbr.mispred)
		return;
	if (!t->rnd_mis || t->rnd_mis == t->rnd)
		check_fail(c,
			   "LBR mispredicted flags: %u of the %u records of the kernel's "
			   "pseudo-random conditional flagged, expected some but not all",
			   t->rnd_mis, t->rnd);
	if (t->other_mis * LBR_OTHER_MISS > t->other)
		check_fail(c,
			   "LBR mispredicted flags: %u of %u records of predictable branches "
			   "flagged (at most 1 in %u)",
			   t->other_mis, t->other, LBR_OTHER_MISS);
}

static void run(struct check_ctx *c)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	struct lbr_fw fw;
	struct tally t = {0};

	if (!lbr_usable(c) || !lbr_save(c, &fw))
		return;
	for (unsigned i = 0; i < LBR_REPEATS && one(c, &fw, LBR_ITERS + LBR_STEP * i, &t); i++)
		;
	bool back = lbr_restore(c, &fw);
	if (c->v == V_FAIL || !back)
		return;
	judge_flags(c, &t);
	if (c->v == V_FAIL)
		return;
	check_pass(c,
		   "%u-deep %s LBRs: %u windows, every record the kernel's branch FROM and TO "
		   "exactly, youngest its final RET; mispredicted flags %s (%u of %u on the "
		   "random conditional, %u of %u elsewhere)",
		   l->depth,
		   l->kind == PMU_LBR_ARCH     ? "architectural"
		   : l->kind == PMU_LBR_AMD_V2 ? "AMD v2"
					       : "model-specific",
		   t.windows, l->mispred ? "judged" : "absent", t.rnd_mis, t.rnd, t.other_mis,
		   t.other);
}

PMH_CHECK(lbr_stack, .id = "lbr.stack", .summary = "LBRs hold the kernel's last branches exactly",
	  .order = 120, .run = run);
