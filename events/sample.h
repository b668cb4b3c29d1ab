/* The sampling kernel (x86/sample.S, x86/sample_i386.S): a loop whose
 * every instruction has a label, so that the harness knows the address of
 * each instruction it retires and of each branch it takes, in order, from
 * the code alone. The sampling checks (LBR, PEBS, BTS, IBS) compare what
 * the hardware recorded with smp_walk; the simulator never reads this
 * file: it decodes the kernel's bytes (host/sim/sim_trace.c). */
#ifndef PMH_EVENTS_SAMPLE_H
#define PMH_EVENTS_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include "workload.h"

/* The xorshift32 seed the kernel starts each call from (x86/sample.S). */
#define SMP_SEED 0x2545f491u

/* The kinds of branch the LBR filters tell apart (Intel SDM Vol. 3B
 * "Filtering of Last Branch Records"; IA32_LBR_CTL's branch-type bits;
 * AMD APM Vol. 2 13.1.1.9 LBR_SELECT). */
enum smp_kind {
	SMP_NONE,     /* not a branch */
	SMP_JCC,      /* conditional (taken or not) */
	SMP_JMP,      /* near relative jump */
	SMP_JMP_IND,  /* near indirect jump */
	SMP_CALL,     /* near relative call */
	SMP_CALL_IND, /* near indirect call */
	SMP_RET,      /* near return */
	SMP_KINDS
};

/* One retired instruction: its address, the address of the instruction
 * that retires after it (0 after the final RET: the caller's), its kind,
 * and for a branch whether it transferred control. */
struct smp_step {
	uint64_t ip, next;
	uint8_t kind;
	bool taken;
};

/* Calls f for each instruction one call of the kernel with `iterations`
 * retires, in order; returns how many. */
uint64_t smp_walk(uint64_t iterations, void (*f)(void *ctx, const struct smp_step *st), void *ctx);
/* Whether ip is the address of one of the kernel's instructions. */
bool smp_is_insn(uint64_t ip);
/* [lo, hi): the kernel's code. */
void smp_bounds(uint64_t *lo, uint64_t *hi);
/* The address of the final RET (the last branch of a call). */
uint64_t smp_exit_ip(void);
/* The kernel as a workload (WL_MEM_NONE: it runs at CPL 3 too); traced:
 * the simulator runs its code instruction by instruction. */
extern const struct workload wl_sample;
/* A name for a kind ("jcc", "call", ...). */
const char *smp_kind_name(unsigned k);

#endif
