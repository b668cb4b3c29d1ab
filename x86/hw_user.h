/* The pieces of the ring-3 excursion (pmu/hw.h "Ring 3") that x86/hw_user.c
 * shares with its assembly halves (x86/user_x86.S, x86/user_i386.S) and,
 * on x86-64, with the page tables of x86/hw_user_pg.c. Target only. */
#ifndef PMH_BOOT_HW_USER_H
#define PMH_BOOT_HW_USER_H

#include <stdint.h>
#include "../pmu/hw.h"

/* Where CPL 3 starts and what it hands back; the .S files read it by the
 * offsets in the comments (uint64_t everywhere: i386 uses the low dwords). */
struct user_ctx {
	uint64_t rip, rsp, cs, ss; /* 0, 8, 16, 24: the IRET frame to CPL 3 */
	/* 32, 40, 48: x86-64 rdi, rsi, rdx at entry; i386 ebx:ecx = a0,
	 * esi = a1, eax = a2 */
	uint64_t a0, a1, a2;
	uint64_t out;	  /* 56: EDX:EAX of the INT HW_USER_VECTOR */
	uint64_t rsp0_at; /* 64: address of the TSS's RSP0 (ESP0) field */
	/* 72, 80, 88: the CPL-0 side, written by pmh_user_enter: its stack
	 * (every callee-saved register pushed there), CS and SS */
	uint64_t k_rsp, k_cs, k_ss;
};

/* x86/user_*.S. pmh_user_enter saves the CPL-0 context, writes RSP0 and
 * IRETs to u->rip at CPL 3; it returns 0 when CPL 3 did INT HW_USER_VECTOR
 * (u->out holds its EDX:EAX) or the vector that pmh_user_fault_landing was
 * given in EAX. The trampolines run at CPL 3 (see the .S files). */
int pmh_user_enter(struct user_ctx *u);
extern char pmh_user_gate[], pmh_user_fault_landing[];
extern char pmh_user_text[], pmh_user_text_end[];
extern char pmh_user_run_tramp[], pmh_user_rdpmc_tramp[];

/* A range of memory CPL 3 touches (x86-64: made user-accessible). */
struct user_range {
	uint64_t va, bytes;
};

#ifndef __i386__
/* Builds page tables that translate exactly as fw does but with U/S set
 * along the walk of every page of r[0..n): HW_OK with *out to load, or
 * HW_UNSUPPORTED (not IA-32e paging, a page not present, no table left). */
int user_pg_build(const struct hw_paging *fw, const struct user_range *r, unsigned n,
		  struct hw_paging *out);
/* The tables user_pg_build copies into: USER_PG_POOL pages of 4 KiB from
 * mem[0..bytes) (aligned within it) for the CPU that calls it (per CPU,
 * pmu/percpu.h): given once at start-up on the boot CPU (boot services),
 * and by a parallel run (boot/mp.c) to each of its CPUs on that CPU's
 * stack; without them user_pg_build is HW_UNSUPPORTED. */
#define USER_PG_POOL	   6
#define USER_PG_POOL_BYTES ((USER_PG_POOL + 1) * 4096u)
void user_pg_setup(void *mem, uint64_t bytes);
#endif

#endif
