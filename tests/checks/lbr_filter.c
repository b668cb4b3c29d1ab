/* lbr.filter: the LBR branch-type filters keep exactly the kinds selected.
 * The sampling kernel (x86/sample.S) takes one branch of each near kind
 * per iteration; with the records restricted to calls and returns, then to
 * conditional branches, then to jumps (LBR_SELECT's suppress bits on
 * Intel's model-specific LBRs and AMD's LBR v2, SDM Vol. 3B Table 18-2 and
 * AMD APM Vol. 2 13.1.1.9; LBR_CTL's admit bits 16-21 on architectural
 * LBRs, SDM Vol. 3B 18.1.2.3), the stack must hold exactly the kernel's
 * last branches of those kinds, FROM and TO, in order (tests/lbr_rec.h:
 * the kernel at CPL 3, CPL 0 and far branches filtered out in every
 * window). Exact: nothing else retires at CPL 3 in the window. */
#include "../lbr_rec.h"
#include "../measure.h"

#define FILTER_ITERS 96 /* calls and returns alone: 384, past any depth */

static const struct {
	const char *what;
	uint32_t kinds;
} sets[] = {
    {"calls and returns", LBR_KIND(SMP_CALL) | LBR_KIND(SMP_CALL_IND) | LBR_KIND(SMP_RET)},
    {"conditional branches", LBR_KIND(SMP_JCC)},
    {"jumps", LBR_KIND(SMP_JMP) | LBR_KIND(SMP_JMP_IND)},
};

/* One window recording set s; false when it failed (FAILed). */
static bool one(struct check_ctx *c, const struct lbr_fw *fw, unsigned s)
{
	struct lbr_rec r[LBR_REC_MAX];
	struct smp_step e[LBR_REC_MAX];
	unsigned n = 0, k0 = 0;

	if (!lbr_on(c, fw, sets[s].kinds, 0))
		return false;
	int st = hw_user_run(&wl_sample, FILTER_ITERS);
	if (!lbr_off(c, fw) || !lbr_read(c, r, &n))
		return false;
	if (st != HW_OK) {
		check_fail(c, "the kernel at CPL 3 came back with %s", hw_err_name(st));
		return false;
	}
	unsigned ne = lbr_expect(FILTER_ITERS, sets[s].kinds, e, LBR_REC_MAX);
	unsigned bad = lbr_match(c, r, n, e, ne, &k0);
	if (bad != n)
		check_note(c, "the LBR filter recorded %s only: record %u is not one", sets[s].what,
			   bad);
	return bad == n;
}

static void run(struct check_ctx *c)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	struct lbr_fw fw;
	unsigned done = 0;

	if (!lbr_usable(c))
		return;
	if (!l->filter) {
		check_skip(c, "the LBRs have no branch-type filter (no LBR_SELECT before Nehalem, "
			      "SDM Vol. 3B 18.4.8; arch LBRs without CPUID 1CH EBX[1])");
		return;
	}
	if (!lbr_save(c, &fw))
		return;
	while (done < sizeof(sets) / sizeof(sets[0]) && one(c, &fw, done))
		done++;
	bool back = lbr_restore(c, &fw);
	if (c->v == V_FAIL || !back)
		return;
	check_pass(c,
		   "%u LBR filters (calls and returns, conditionals, jumps): each window's %u "
		   "records exactly the kernel's last branches of those kinds",
		   done, l->depth);
}

PMH_CHECK(lbr_filter, .id = "lbr.filter", .summary = "LBR filters keep the kinds selected",
	  .order = 121, .run = run);
