/* Exact per-iteration event counts of the kernels in x86/workload.S (x86-64)
 * and x86/workload_i386.S: counted by instruction from the assembly, not
 * measured. host/unit/test_workloads.c single-steps the x86-64 kernels and
 * checks every instruction count here against what they retire.
 *
 * Conventions. `loads` and `stores` count instructions that read or write
 * memory, the stack included (CALL and PUSH store, RET and POP load, LRET
 * is one load); prefetches and CLFLUSH are neither. `fixed` is the kernel's
 * own instructions outside its loop, from its first instruction to its RET
 * (the caller's CALL is the caller's). Every kernel but the first two has
 * one loop shape, exact for every iteration count N, 0 included:
 *	jmp 2f; 1: <body>; 2: sub $1, n; jae 1b; <tail>; ret
 * so per iteration the body plus "sub; jae" (a conditional branch, taken),
 * and in `fixed` the "jmp", the last "sub; jae" (not taken) and the "ret":
 * 3 branches, 2 taken, 1 conditional, 1 near return. A walking kernel runs
 * a pass of args->lines elements in the same shape inside its iteration:
 *	mov buf, p; mov lines, k; jmp 4f; 3: <elem>; 4: sub $1, k; jae 3b
 * per element <elem> plus "sub; jae" (taken); per iteration the two movs,
 * the jmp and the last "sub; jae" (not taken): 5 instructions, 2 branches,
 * 1 taken, 1 conditional. A pass of 0 elements touches no memory. */
#include <stddef.h>
#include "workload.h"

#ifdef PMH_HOST
#define KERNEL(fn) 0
#else
#define KERNEL(fn) fn
#endif

/* The kernels (the `run` of each workload). */
void pmh_wl_loop(uint64_t n, struct wl_args *a);
void pmh_wl_branchy(uint64_t n, struct wl_args *a);
void pmh_wl_calls(uint64_t n, struct wl_args *a);
void pmh_wl_recurse(uint64_t n, struct wl_args *a);
void pmh_wl_br_taken(uint64_t n, struct wl_args *a);
void pmh_wl_br_none(uint64_t n, struct wl_args *a);
void pmh_wl_br_random(uint64_t n, struct wl_args *a);
void pmh_wl_ind_random(uint64_t n, struct wl_args *a);
void pmh_wl_locked(uint64_t n, struct wl_args *a);
void pmh_wl_segload(uint64_t n, struct wl_args *a);
void pmh_wl_misaligned(uint64_t n, struct wl_args *a);
void pmh_wl_far(uint64_t n, struct wl_args *a);
void pmh_wl_cpuid(uint64_t n, struct wl_args *a);
void pmh_wl_clflush(uint64_t n, struct wl_args *a);
void pmh_wl_x87(uint64_t n, struct wl_args *a);
void pmh_wl_chase(uint64_t n, struct wl_args *a);
void pmh_wl_chase_dirty(uint64_t n, struct wl_args *a);
void pmh_wl_store_walk(uint64_t n, struct wl_args *a);
void pmh_wl_pf_t0(uint64_t n, struct wl_args *a);
void pmh_wl_pf_nta(uint64_t n, struct wl_args *a);
void pmh_wl_pf_w(uint64_t n, struct wl_args *a);
void pmh_wl_nt_store(uint64_t n, struct wl_args *a);
void pmh_wl_pages(uint64_t n, struct wl_args *a);
void pmh_wl_code(uint64_t n, struct wl_args *a);
void pmh_wl_tx_commit(uint64_t n, struct wl_args *a);
void pmh_wl_tx_abort(uint64_t n, struct wl_args *a);
void pmh_wl_kvm_fep(uint64_t n, struct wl_args *a);

/* The assembly reads struct wl_args at these offsets (WLA_* there). */
#ifdef __i386__
#define ARCH(x64, i386) (i386)
_Static_assert(offsetof(struct wl_args, lines) == 4 && offsetof(struct wl_args, stride) == 12 &&
		   offsetof(struct wl_args, state) == 20,
	       "x86/workload_i386.S WLA_* offsets");
#else
#define ARCH(x64, i386) (x64)
_Static_assert(offsetof(struct wl_args, lines) == 8 && offsetof(struct wl_args, stride) == 16 &&
		   offsetof(struct wl_args, state) == 24,
	       "x86/workload.S WLA_* offsets");
#endif

/* The fixed part of the one loop shape: `i` instructions, `ld` loads and
 * `st` stores in all, 3 branches (jmp, jae, ret), 2 taken, 1 conditional. */
#define FIXED(i, ld, st)                                                                           \
	{                                                                                          \
		.instructions = (i), .branches = 3, .taken = 2, .cond = 1, .rets = 1,              \
		.loads = (ld), .stores = (st)                                                      \
	}

/* pmh_wl_loop: per iteration "add; dec; jnz" = 3 instructions, 1 branch
 * (conditional, taken on all but the last iteration). Outside the loop:
 * "test; jz", then "ret" = 3 instructions, 2 branches (jz not taken, ret);
 * taken 0 in all for N >= 1: the ret, less the last jnz that falls through.
 * Its instruction, branch and cycle counts are pinned by older code, which
 * leaves the ret's stack read out of `loads`. */
const struct workload wl_loop = {
    .name = "loop",
    .per_iter = {.instructions = 3, .branches = 1, .cycles = 1, .taken = 1, .cond = 1},
    .fixed = {.instructions = 3, .branches = 2, .cond = 1, .rets = 1},
    .run = KERNEL(pmh_wl_loop),
};

/* pmh_wl_branchy: per iteration "test; jz; add|or; jmp; dec; jnz" = 6
 * instructions and 3 branches (2 conditional) on either parity path; the jz
 * direction alternates, which a simple predictor may miss. Taken is 5 per
 * two iterations (jmp and jnz each time, jz every other), no whole number
 * per iteration: left 0, a taken-branch rule uses wl_br_taken. */
const struct workload wl_branchy = {
    .name = "branchy",
    .per_iter = {.instructions = 6, .branches = 3, .cycles = 3, .cond = 2},
    .fixed = {.instructions = 3, .branches = 2, .cond = 1, .rets = 1},
    .pattern = WL_BR_ALT,
    .run = KERNEL(pmh_wl_branchy),
};

/* pmh_wl_calls: per iteration "call 3f; 3: ret; sub; jae" = 4 instructions,
 * 3 branches, all taken, 1 conditional; the call stores and the ret loads
 * the return address. Fixed: x86-64 "jmp; sub; jae; ret" = 4; i386 adds
 * "mov 4(%esp), %ecx" = 5 (2 loads). */
const struct workload wl_calls = {
    .name = "calls",
    .per_iter = {.instructions = 4,
		 .branches = 3,
		 .taken = 3,
		 .cond = 1,
		 .calls = 1,
		 .rets = 1,
		 .loads = 1,
		 .stores = 1},
    .fixed = FIXED(ARCH(4, 5), ARCH(1, 2), 0),
    .run = KERNEL(pmh_wl_calls),
};

/* pmh_wl_recurse: per iteration "mov $24, c; call 3f", 24 levels of the
 * helper "3: dec c; jz 4f; call 3b; 4: ret" (the 24th level's jz is taken
 * and it makes no call), then "sub; jae": 2 + 24 x 2 (dec, jz) + 23 calls
 * + 24 rets + 2 = 99 instructions; branches 1 + 24 + 23 + 24 + 1 = 73;
 * taken 24 calls + 24 rets + 1 jz + 1 jae = 50; conditional 24 jz + 1 jae
 * = 25; 24 calls (stores) and 24 returns (loads), nested 24 deep. Fixed as
 * wl_calls. */
const struct workload wl_recurse = {
    .name = "recurse",
    .per_iter = {.instructions = 99,
		 .branches = 73,
		 .taken = 50,
		 .cond = 25,
		 .calls = 24,
		 .rets = 24,
		 .loads = 24,
		 .stores = 24},
    .fixed = FIXED(ARCH(4, 5), ARCH(1, 2), 0),
    .call_depth = 24,
    .run = KERNEL(pmh_wl_recurse),
};

/* pmh_wl_br_taken / pmh_wl_br_none: a register zeroed once ("xor"); per
 * iteration "test; jz" (always taken, over a ud2 that never runs) or
 * "test; jnz" (never taken), then "sub; jae" = 4 instructions, 2
 * conditional branches, 2 or 1 taken. Fixed: x86-64 "xor; jmp; sub; jae;
 * ret" = 5; i386 adds the count's "mov" = 6 (2 loads). */
const struct workload wl_br_taken = {
    .name = "br_taken",
    .per_iter = {.instructions = 4, .branches = 2, .taken = 2, .cond = 2},
    .fixed = FIXED(ARCH(5, 6), ARCH(1, 2), 0),
    .run = KERNEL(pmh_wl_br_taken),
};

const struct workload wl_br_none = {
    .name = "br_none",
    .per_iter = {.instructions = 4, .branches = 2, .taken = 1, .cond = 2},
    .fixed = FIXED(ARCH(5, 6), ARCH(1, 2), 0),
    .run = KERNEL(pmh_wl_br_none),
};

/* pmh_wl_br_random: per iteration one xorshift64 step of args->state (kept
 * in registers: x86-64 "mov; shl; xor; mov; shr; xor; mov; shl; xor" = 9;
 * i386 on a register pair, "mov; mov; shld|shrd; shl|shr; xor; xor" per
 * shift = 18), "test $1; jz 3f; jnc 2f; 3: jc 2f" and "sub; jae": x86-64
 * 14, i386 23 instructions. The pattern branch is the jz, taken when bit 0
 * of the new state is 0; CF is 0 after test, so either path retires 2
 * conditional branches of which 1 is taken (jz then jc not taken, or jz
 * not taken then jnc): 3 branches, 3 conditional, 2 taken per iteration.
 * Fixed: x86-64 "mov (state); jmp; sub; jae; mov (state); ret" = 6 (2
 * loads, 1 store); i386 "push x2; mov (count, args, state lo, hi); jmp;
 * sub; jae; mov (args, state lo, hi); pop x2; ret" = 15 (8 loads, 4
 * stores). */
const struct workload wl_br_random = {
    .name = "br_random",
    .per_iter = {.instructions = ARCH(14, 23), .branches = 3, .taken = 2, .cond = 3},
    .fixed = FIXED(ARCH(6, 15), ARCH(2, 8), ARCH(1, 4)),
    .pattern = WL_BR_RANDOM,
    .run = KERNEL(pmh_wl_br_random),
};

/* pmh_wl_ind_random: per iteration the xorshift step (9 | 18), "mov A, t;
 * test $1; cmovnz B, t; jmp *t" (target A when bit 0 of the new state is
 * 0, else B; CMOV is in every P6 and later CPU), the target's "jmp 2f" and
 * "sub; jae": x86-64 16, i386 25 instructions; 3 branches (the indirect
 * jump, a direct one, the jae), all taken, 1 conditional. Fixed: x86-64
 * "mov (state); lea A; lea B; jmp; sub; jae; mov (state); ret" = 8 (2
 * loads, 1 store); i386 "push x4; mov (count, args, lo, hi); mov $A; mov
 * $B; jmp; sub; jae; mov (args, lo, hi); pop x4; ret" = 21 (10 loads, 6
 * stores). */
const struct workload wl_ind_random = {
    .name = "ind_random",
    .per_iter = {.instructions = ARCH(16, 25), .branches = 3, .taken = 3, .cond = 1, .indirect = 1},
    .fixed = FIXED(ARCH(8, 21), ARCH(2, 10), ARCH(1, 6)),
    .pattern = WL_BR_IND_RANDOM,
    .run = KERNEL(pmh_wl_ind_random),
};

/* Fixed of the kernels that read args->buf once: x86-64 "mov (buf); jmp;
 * sub; jae; ret" = 5 (2 loads); i386 "mov (count); mov (args); mov (buf);
 * jmp; sub; jae; ret" = 7 (4 loads). */
#define FIXED_BUF FIXED(ARCH(5, 7), ARCH(2, 4), 0)

/* pmh_wl_locked: per iteration "lock addl $1, (buf); sub; jae" = 3
 * instructions, 1 branch (taken, conditional); the locked add reads and
 * writes the line: 1 load, 1 store. */
const struct workload wl_locked = {
    .name = "locked",
    .per_iter = {.instructions = 3,
		 .branches = 1,
		 .taken = 1,
		 .cond = 1,
		 .locked = 1,
		 .loads = 1,
		 .stores = 1},
    .fixed = FIXED_BUF,
    .run = KERNEL(pmh_wl_locked),
};

/* pmh_wl_segload: per iteration "mov %es, %eax; mov %eax, %es", the same
 * for DS and SS, "sub; jae" = 8 instructions, 1 branch; one load each of
 * ES, DS and SS. Fixed as wl_calls. */
const struct workload wl_segload = {
    .name = "segload",
    .per_iter = {.instructions = 8,
		 .branches = 1,
		 .taken = 1,
		 .cond = 1,
		 .seg_loads = {[WL_ES] = 1, [WL_DS] = 1, [WL_SS] = 1}},
    .fixed = FIXED(ARCH(4, 5), ARCH(1, 2), 0),
    .run = KERNEL(pmh_wl_segload),
};

/* pmh_wl_misaligned: per iteration "mov 4(buf), %rax" (x86-64, 8 bytes at
 * buf + 4) or "mov 6(buf), %eax" (i386, 4 bytes at buf + 6), each across an
 * 8-byte boundary in the line; "sub; jae" = 3 instructions, 1 load. */
const struct workload wl_misaligned = {
    .name = "misaligned",
    .per_iter =
	{.instructions = 3, .branches = 1, .taken = 1, .cond = 1, .loads = 1, .misaligned = 1},
    .fixed = FIXED_BUF,
    .run = KERNEL(pmh_wl_misaligned),
};

/* pmh_wl_far: per iteration "push CS; push 2f; lret" (x86-64: CS and the
 * address in registers, "push; push; lretq"), "2: sub; jae" = 5
 * instructions; 2 branches (the far return and jae), both taken, 1
 * conditional; 1 far transfer, which loads CS; 2 stores, 1 load. Fixed:
 * x86-64 "mov %cs; lea 2f; jmp; sub; jae; ret" = 6; i386 "mov (count);
 * jmp; sub; jae; ret" = 5 (2 loads). */
const struct workload wl_far = {
    .name = "far",
    .per_iter = {.instructions = 5,
		 .branches = 2,
		 .taken = 2,
		 .cond = 1,
		 .far = 1,
		 .seg_loads = {[WL_CS] = 1},
		 .loads = 1,
		 .stores = 2},
    .fixed = FIXED(ARCH(6, 5), ARCH(1, 2), 0),
    .run = KERNEL(pmh_wl_far),
};

/* pmh_wl_cpuid: per iteration "xor %eax, %eax; cpuid; sub; jae" = 4
 * instructions, 1 CPUID (leaf 0). Fixed: x86-64 "push %rbx; jmp; sub; jae;
 * pop %rbx; ret" = 6 (2 loads, 1 store); i386 pushes ebx and esi (the
 * count) and reads the count: 9 (4 loads, 2 stores). */
const struct workload wl_cpuid = {
    .name = "cpuid",
    .per_iter = {.instructions = 4, .branches = 1, .taken = 1, .cond = 1, .cpuid = 1},
    .fixed = FIXED(ARCH(6, 9), ARCH(2, 4), ARCH(1, 2)),
    .run = KERNEL(pmh_wl_cpuid),
};

/* pmh_wl_clflush: per iteration "clflush (buf); sub; jae" = 3
 * instructions, 1 CLFLUSH (neither a load nor a store here). */
const struct workload wl_clflush = {
    .name = "clflush",
    .per_iter = {.instructions = 3, .branches = 1, .taken = 1, .cond = 1, .clflush = 1},
    .fixed = FIXED_BUF,
    .needs = WL_NEEDS_CLFSH,
    .run = KERNEL(pmh_wl_clflush),
};

/* pmh_wl_x87: per iteration "fadd %st(1), %st; fmul %st(1), %st; fcomi
 * %st(1), %st; sub; jae" = 5 instructions, 3 x87 arithmetic of which 1
 * FCOMI and 1 FMUL. Fixed: "mov (buf); fnsave (buf); fninit; fld1; fld1; jmp; sub;
 * jae; fstp; fstp; frstor (buf); ret" = 12 (loads: buf, frstor, ret; the
 * fnsave stores; fld1 and fstp are not arithmetic); i386 reads the count
 * and args: 14 (5 loads). */
const struct workload wl_x87 = {
    .name = "x87",
    .per_iter = {.instructions = 5,
		 .branches = 1,
		 .taken = 1,
		 .cond = 1,
		 .x87 = 3,
		 .x87_fastflag = 1,
		 .x87_mul = 1},
    .fixed = FIXED(ARCH(12, 14), ARCH(3, 5), 1),
    .needs = WL_NEEDS_FCOMI,
    .run = KERNEL(pmh_wl_x87),
};

/* The walking kernels (WALK in the assembly). Fixed: x86-64 "mov (buf);
 * mov (lines); mov (stride); jmp; sub; jae; ret" = 7 (4 loads); i386
 * "push x3; mov (count); mov (args); mov (buf, lines, stride); jmp; sub;
 * jae; pop x3; ret" = 15 (9 loads, 3 stores). Per iteration the pass's 5
 * instructions and the outer "sub; jae": 7 instructions, 3 branches, 2
 * taken, 2 conditional. Per element <elem> and "sub; jae": 1 branch,
 * taken, conditional. */
#define WALK_FIXED FIXED(ARCH(7, 15), ARCH(4, 9), ARCH(0, 3))
#define WALK_ITER                                                                                  \
	{                                                                                          \
		.instructions = 7, .branches = 3, .taken = 2, .cond = 2                            \
	}
#define WALK_ELEM .branches = 1, .taken = 1, .cond = 1

/* pmh_wl_chase: per element "mov (p), p; sub; jae" = 3 instructions, 1 load. The
 * last p is left in rax (eax): element 0 again after a whole pass. */
const struct workload wl_chase = {
    .name = "chase",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 3, WALK_ELEM, .loads = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_CHASE,
    .run = KERNEL(pmh_wl_chase),
};

/* pmh_wl_chase_dirty: per element "mov (p), q; mov q, 8(p); mov q, p"
 * (i386: 4(p)) and "sub; jae" = 5 instructions: the load, then a store of the next
 * pointer into the second word of the element just loaded (its line). */
const struct workload wl_chase_dirty = {
    .name = "chase_dirty",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 5, WALK_ELEM, .loads = 1, .stores = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_CHASE_DIRTY,
    .run = KERNEL(pmh_wl_chase_dirty),
};

/* pmh_wl_store_walk: per element "mov p, (p); add stride, p; sub;
 * jae" = 4 instructions, 1 store: p itself (8 bytes; i386 4) at buf + i x stride. */
const struct workload wl_store_walk = {
    .name = "store_walk",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 4, WALK_ELEM, .stores = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_STRIDE_STORE,
    .run = KERNEL(pmh_wl_store_walk),
};

/* pmh_wl_pf_t0, _nta, _w: per element "prefetcht0|prefetchnta|prefetchw
 * (p); add stride, p; sub; jae" = 4 instructions, 1 prefetch (not a load). */
const struct workload wl_pf_t0 = {
    .name = "pf_t0",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 4, WALK_ELEM, .pf_load = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_STRIDE_PF,
    .needs = WL_NEEDS_SSE,
    .run = KERNEL(pmh_wl_pf_t0),
};

const struct workload wl_pf_nta = {
    .name = "pf_nta",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 4, WALK_ELEM, .pf_nta = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_STRIDE_PF,
    .needs = WL_NEEDS_SSE,
    .run = KERNEL(pmh_wl_pf_nta),
};

const struct workload wl_pf_w = {
    .name = "pf_w",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 4, WALK_ELEM, .pf_store = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_STRIDE_PF,
    .needs = WL_NEEDS_PFW,
    .run = KERNEL(pmh_wl_pf_w),
};

/* pmh_wl_nt_store: per element "movnti p, (p); add $8, p; sub; jae"
 * = 4 instructions, 1 non-temporal store of p (8 bytes; i386 4) at buf + i x 8
 * (args->stride is not used). The fixed part has one more instruction,
 * the SFENCE after the loop that drains the write-combining buffers before
 * the kernel returns: 8 (i386 16). */
const struct workload wl_nt_store = {
    .name = "nt_store",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 4, WALK_ELEM, .nt_stores = 1, .stores = 1},
    .fixed = FIXED(ARCH(8, 16), ARCH(4, 9), ARCH(0, 3)),
    .mem = WL_MEM_STRIDE_NT,
    .needs = WL_NEEDS_SSE2,
    .run = KERNEL(pmh_wl_nt_store),
};

/* pmh_wl_pages: per element "cmp (p), p; add stride, p; sub; jae" = 4
 * instructions,
 * 1 load at buf + i x stride (CMP: on i386 no register is left to load
 * into; x86-64 does the same). */
const struct workload wl_pages = {
    .name = "pages",
    .per_iter = WALK_ITER,
    .per_elem = {.instructions = 4, WALK_ELEM, .loads = 1},
    .fixed = WALK_FIXED,
    .mem = WL_MEM_PAGES,
    .run = KERNEL(pmh_wl_pages),
};

/* pmh_wl_code: per iteration "mov lines, ecx; call *buf" (the call reads
 * its target from args: a load, and pushes: a store; an indirect call),
 * the written code, and "sub; jae"; the code is per block "dec ecx; jnz"
 * (2 instructions, a conditional branch taken to the next block) except
 * that the last jnz falls through to a RET (1 instruction, a load). So per
 * iteration 5 instructions, 3 branches (call, ret, jae), of which taken:
 * call, ret and jae, less the last block's jnz: 2; 3 loads, 1 store.
 * Fixed: "jmp; sub; jae; ret" (4, 1 load); i386 "push; mov; mov; jmp;
 * sub; jae; pop; ret" (8, 4 loads, 1 store). */
const struct workload wl_code = {
    .name = "code",
    .per_iter = {.instructions = 5,
		 .branches = 3,
		 .taken = 2,
		 .cond = 1,
		 .calls = 1,
		 .rets = 1,
		 .indirect = 1,
		 .loads = 3,
		 .stores = 1},
    .per_elem = {.instructions = 2, WALK_ELEM},
    .fixed = FIXED(ARCH(4, 8), ARCH(1, 4), ARCH(0, 1)),
    .mem = WL_MEM_CODE,
    .run = KERNEL(pmh_wl_code),
};

/* pmh_wl_tx_commit, pmh_wl_tx_abort (RTM, SDM Vol. 2A XBEGIN, XEND,
 * XABORT): per iteration "mov lines, c; xbegin", the inside, per element
 * "sub $1, c; jnz" (a conditional branch, taken but for the last), then
 * "xend" or "xabort", and "sub; jae". The SDM counts "inside a
 * transactional region" (Vol. 3B 20.3.6.5) without saying where XBEGIN,
 * XEND and XABORT fall: ours, XBEGIN before the region, XEND its last
 * instruction, XABORT not retired (it aborts); count.tsx judges nothing
 * that depends on it. Commit: 2L + 5 instructions, 2L + 1 inside; abort:
 * 2L + 4, 2L inside, all aborted (lines L >= 1). Branches L + 1, L inside
 * (XBEGIN not a branch: ours), taken L, conditional L + 1. Fixed: x86-64
 * "mov (lines); jmp; sub; jae; ret" = 5 (2 loads); i386 "push; mov x3;
 * jmp; sub; jae; pop; ret" = 9 (5 loads, 1 store). */
#define TX_ELEM .instructions = 2, .branches = 1, .taken = 1, .cond = 1, .tx_insn = 2, .tx_br = 1
const struct workload wl_tx_commit = {
    .name = "tx_commit",
    .per_iter = {.instructions = 5, .branches = 1, .cond = 1, .tx_insn = 1},
    .per_elem = {TX_ELEM},
    .fixed = FIXED(ARCH(5, 9), ARCH(2, 5), ARCH(0, 1)),
    .needs = WL_NEEDS_RTM,
    .run = KERNEL(pmh_wl_tx_commit),
};

const struct workload wl_tx_abort = {
    .name = "tx_abort",
    .per_iter = {.instructions = 4, .branches = 1, .cond = 1},
    .per_elem = {TX_ELEM, .tx_abort_insn = 2, .tx_abort_br = 1},
    .fixed = FIXED(ARCH(5, 9), ARCH(2, 5), ARCH(0, 1)),
    .needs = WL_NEEDS_RTM,
    .run = KERNEL(pmh_wl_tx_abort),
};

/* pmh_wl_kvm_fep: per iteration "cmp; FEP jne; FEP jne; sub; jae" = 5
 * instructions, of which KVM emulates the two JNEs (the prefix is a #UD KVM
 * intercepts and skips, no instruction: kvm-unit-tests x86/pmu.c counts
 * each 'KVM_FEP "jne"' as one in KVM_FEP_INSNS); 3 branches, all
 * conditional, 2 emulated (not taken), the jae taken. Fixed: x86-64 "jmp;
 * sub; jae; ret" = 4; i386 with the count's "mov" = 5 (2 loads). */
const struct workload wl_kvm_fep = {
    .name = "kvm_fep",
    .per_iter =
	{.instructions = 5, .branches = 3, .taken = 1, .cond = 3, .emulated = 2, .emulated_br = 2},
    .fixed = FIXED(ARCH(4, 5), ARCH(1, 2), 0),
    .needs = WL_NEEDS_FEP,
    .run = KERNEL(pmh_wl_kvm_fep),
};

/* The bytes of one block (SDM Vol. 2A DEC: FF /1, here ModRM C9 = ecx,
 * the one encoding of DEC ECX in both modes; Vol. 2A Jcc: 0F 85 rel32,
 * relative to the next instruction; Vol. 2B RET: C3). */
void workload_code(void *mem, uint64_t blocks, uint64_t stride)
{
	uint32_t rel = (uint32_t)(stride - 8); /* from the jnz's end to the next block */

	for (uint64_t i = 0; i < blocks; i++) {
		uint8_t *b = (uint8_t *)mem + i * stride;
		b[0] = 0xff;
		b[1] = 0xc9;
		b[2] = 0x0f;
		b[3] = 0x85;
		for (unsigned k = 0; k < 4; k++)
			b[4 + k] = (uint8_t)(rel >> (8 * k));
		b[8] = 0xc3;
	}
}

/* The vector is all uint64_t: an iteration is a sum word by word. */
#define WV_WORDS (sizeof(struct workload_vector) / sizeof(uint64_t))
_Static_assert(sizeof(struct workload_vector) == WV_WORDS * sizeof(uint64_t),
	       "struct workload_vector holds only uint64_t");

void workload_iteration(const struct workload *w, struct workload_vector *v)
{
	const uint64_t *it = (const uint64_t *)&w->per_iter;
	const uint64_t *el = (const uint64_t *)&w->per_elem;
	uint64_t *out = (uint64_t *)v;
	uint64_t lines = w->args ? w->args->lines : 0;

	for (size_t i = 0; i < WV_WORDS; i++)
		out[i] = it[i] + el[i] * lines;
}

/* Sattolo's variant of the Fisher-Yates shuffle (j < i, never j = i) turns
 * the identity into one cycle through all `lines` elements, every cyclic
 * order equally likely: read from element 0, a shuffle of 1..lines-1. It
 * runs on the elements' first words themselves, as indices first and then
 * turned into addresses, so it needs no memory of its own. */
void *workload_chain(void *buf, uint64_t lines, uint64_t stride, uint64_t seed)
{
	unsigned char *b = buf;
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull; /* xorshift stays at 0 */

#define NEXT(k) (*(uintptr_t *)(void *)(b + (k)*stride))
	for (uint64_t k = 0; k < lines; k++)
		NEXT(k) = (uintptr_t)k;
	for (uint64_t i = lines; i > 1; i--) {
		x = wl_xorshift(x);
		uint64_t j = x % (i - 1); /* swap element i - 1's successor with one below */
		uintptr_t t = NEXT(i - 1);
		NEXT(i - 1) = NEXT(j);
		NEXT(j) = t;
	}
	for (uint64_t k = 0; k < lines; k++)
		NEXT(k) = (uintptr_t)(b + NEXT(k) * stride);
#undef NEXT
	return buf;
}
