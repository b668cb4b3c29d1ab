/* ibs.sample's judgement of the samples it took (ibs_judge.c) against the
 * sampling kernel's walk (events/sample.h): where each sample's address
 * landed and, for op samples, IBS_OP_DATA's branch bits and IBS_BR_TARGET
 * (AMD APM Vol. 2 13.3; Linux arch/x86/include/asm/amd-ibs.h). The check
 * itself, its interrupts and what it puts back are ibs_sample.c's. */
#ifndef PMH_CHECKS_IBS_JUDGE_H
#define PMH_CHECKS_IBS_JUDGE_H

#include "../suite.h"
#include "../../events/sample.h"

#define IBS_TAB_MAX 48u /* the kernel's distinct instructions, with room */

/* One sample as the interrupt handler read it: IBS_OP_RIP or
 * IBS_FETCH_LINADDR, IBS_OP_DATA, IBS_BR_TARGET, the vector it came on. */
struct ibs_rec {
	uint64_t addr, data, target;
	unsigned vec;
};

/* The kernel's instructions as its walk retires them: each one's kind,
 * how often it ran and was taken, its taken target (0: more than one) and
 * the instruction after it. */
struct ibs_ins {
	uint64_t ip, target, next, n, taken;
	uint8_t kind;
};
struct ibs_tab {
	struct ibs_ins e[IBS_TAB_MAX];
	unsigned n;
};

/* smp_walk's callback: adds the step to the table ctx (struct ibs_tab). */
void ibs_tab_add(void *ctx, const struct smp_step *st);

/* Where n samples landed: inside the kernel an instruction (or, for
 * fetches, a 16-byte block), outside it at most a quarter, at most half
 * without an address; op samples' branch bits (IBS_BR_TARGET where target)
 * as the walk's instruction. reg names the address register. FAILs c. */
void ibs_judge_addrs(struct check_ctx *c, struct ibs_tab *t, const volatile struct ibs_rec *rec,
		     unsigned n, bool fetch, bool target, const char *reg);

#endif
