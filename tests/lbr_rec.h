/* The last branch records as the LBR checks (tests/checks/lbr_*.c) use
 * them: the firmware's LBR registers saved and given back, the records
 * turned on for the sampling kernel's branches at CPL 3 (events/sample.h),
 * read back youngest first whatever the kind (pmu/sampling.h), and the
 * kernel's own branches from its walk to compare them with.
 *
 * The kernel runs at CPL 3 (hw_user_run) and every record filters out the
 * branches that end at CPL 0 and far branches (LBR_SELECT CPL_EQ_0 and
 * FAR_BRANCH, AMD's the same bits; arch LBR_CTL without OS and
 * OTHER_BRANCH: SDM Vol. 3B Table 18-2, 18.1.2.3): the harness's own code
 * around the window never enters the stack, so that its youngest record is
 * the kernel's final RET and the rest the kernel's branches before it,
 * exactly. */
#ifndef PMH_TESTS_LBR_REC_H
#define PMH_TESTS_LBR_REC_H

#include "suite.h"
#include "../events/sample.h"

#define LBR_REC_MAX 64

struct lbr_rec {
	uint64_t from, to;
	bool mispred;
};

/* The firmware's LBR control registers (those of the CPU's kind). */
struct lbr_fw {
	uint64_t debugctl, select, ctl, depth, extn;
};

/* A bit per enum smp_kind: which kinds a run records. */
#define LBR_KIND(k) (1u << (k))
/* With the kinds: call-stack mode (calls and returns only) */
#define LBR_CALL_STACK (1u << 31)
#define LBR_ALL_KINDS                                                                              \
	(LBR_KIND(SMP_JCC) | LBR_KIND(SMP_JMP) | LBR_KIND(SMP_JMP_IND) | LBR_KIND(SMP_CALL) |      \
	 LBR_KIND(SMP_CALL_IND) | LBR_KIND(SMP_RET))

/* Whether the CPU has LBRs the checks can use (a CPL filter, CPL 3);
 * SKIPs the check with the reason where not. */
bool lbr_usable(struct check_ctx *c);
/* Saves the firmware's registers; false when a read faulted (FAILed). */
bool lbr_save(struct check_ctx *c, struct lbr_fw *fw);
/* Writes them back; false when a write faulted (FAILed). */
bool lbr_restore(struct check_ctx *c, const struct lbr_fw *fw);
/* LBRs on for kinds at CPL > 0, DEBUGCTL = fw's | dbg (FREEZE_LBRS_ON_PMI
 * for lbr.freeze); the stack cleared first. False when a write faulted. */
bool lbr_on(struct check_ctx *c, const struct lbr_fw *fw, uint32_t kinds, uint64_t dbg);
/* LBRs off (DEBUGCTL, LBR_CTL, DBG_EXTN_CFG back to fw's values). */
bool lbr_off(struct check_ctx *c, const struct lbr_fw *fw);
/* The stack youngest first (*n = the depth); false on a fault (FAILed). */
bool lbr_read(struct check_ctx *c, struct lbr_rec *r, unsigned *n);
/* The kernel's taken branches of kinds in a call of iters iterations,
 * oldest first, at most max (the last max when there are more); returns
 * how many were stored. */
unsigned lbr_expect(uint64_t iters, uint32_t kinds, struct smp_step *out, unsigned max);
/* The records r[0..n) against the expected branches e[0..ne): r[k0] must
 * be e[ne-1] (the youngest the window kept), r[k0+i] e[ne-1-i] for every
 * record after it; r[0..k0) may be the platform's (outside the kernel),
 * k0 <= LBR_PLATFORM_MAX. *k0 where the kernel's records start. Returns
 * the index of the first record that differs (n when all agree), after
 * failing the check with it. */
#define LBR_PLATFORM_MAX 4
/* A window whose counter ctr of CPL-3 instructions (INT set) overflows at
 * the at-th of them in a call of iters iterations at CPL 3, the LBRs on for
 * kinds with FREEZE_LBRS_ON_PMI: what the freeze left in *st
 * (GLOBAL_STATUS where the freeze sets LBR_FRZ, else DEBUGCTL; LBR_FRZ
 * then cleared) and the records. False when it failed (FAILed). */
struct lbr_freeze {
	unsigned ctr;
	uint32_t kinds;
	uint64_t at, iters;
};
bool lbr_frozen_window(struct check_ctx *c, const struct lbr_fw *fw, struct lbr_freeze z,
		       uint64_t *st, struct lbr_rec *r, unsigned *n);
unsigned lbr_match(struct check_ctx *c, const struct lbr_rec *r, unsigned n,
		   const struct smp_step *e, unsigned ne, unsigned *k0);

#endif
