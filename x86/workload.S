/* Calibrated kernels for x86-64 (SysV: rdi = iterations, rsi = struct
 * wl_args *). Their counts, instruction by instruction, are in
 * events/workloads.c; a change here is a change there. The new kernels
 * share one loop shape, exact for every iteration count including 0:
 *	jmp 2f; 1: <body>; 2: sub $1, %rdi; jae 1b
 * A walking kernel's pass over args->lines elements has the same shape
 * inside (the WALK macro). Only rax, rcx, rdx, rsi, rdi and r8-r11 are
 * written; rbx, the one other register CPUID writes, is saved. */
	.set WLA_BUF, 0		/* struct wl_args (workloads.c asserts them) */
	.set WLA_LINES, 8
	.set WLA_STRIDE, 16
	.set WLA_STATE, 24
	.set RECURSE_DEPTH, 24	/* wl_recurse.call_depth */

	.text
	.globl pmh_wl_loop
	.p2align 6
pmh_wl_loop:			/* rdi = iterations */
	test %rdi, %rdi
	jz 2f
1:	add $1, %rax
	dec %rdi
	jnz 1b
2:	ret

	.globl pmh_wl_branchy
	.p2align 6
pmh_wl_branchy:			/* rdi = iterations (even) */
	test %rdi, %rdi
	jz 3f
1:	test $1, %dil
	jz 2f
	add $1, %rax
	jmp 4f
2:	or $2, %rax
	jmp 4f
4:	dec %rdi
	jnz 1b
3:	ret

/* A near call to a function that returns. */
	.globl pmh_wl_calls
	.p2align 6
pmh_wl_calls:
	jmp 2f
1:	call 3f
2:	sub $1, %rdi
	jae 1b
	ret
3:	ret

/* RECURSE_DEPTH nested near calls, then as many returns. */
	.globl pmh_wl_recurse
	.p2align 6
pmh_wl_recurse:
	jmp 2f
1:	mov $RECURSE_DEPTH, %ecx
	call 3f
2:	sub $1, %rdi
	jae 1b
	ret
3:	dec %ecx		/* the helper: one level per call */
	jz 4f
	call 3b
4:	ret

/* A conditional jump on a register that is always 0: jz always taken,
 * jnz never; each path retires test and the jcc. The ud2 is never reached:
 * it gives the taken jz something to jump over. */
	.globl pmh_wl_br_taken
	.p2align 6
pmh_wl_br_taken:
	xor %eax, %eax
	jmp 2f
1:	test %eax, %eax
	jz 2f
	ud2
2:	sub $1, %rdi
	jae 1b
	ret

	.globl pmh_wl_br_none
	.p2align 6
pmh_wl_br_none:
	xor %eax, %eax
	jmp 2f
1:	test %eax, %eax
	jnz 3f
2:	sub $1, %rdi
	jae 1b
	ret
3:	ud2

/* One xorshift64 step of rax (wl_xorshift: 13, 7, 17), 9 instructions. */
.macro XORSHIFT
	mov %rax, %rdx
	shl $13, %rdx
	xor %rdx, %rax
	mov %rax, %rdx
	shr $7, %rdx
	xor %rdx, %rax
	mov %rax, %rdx
	shl $17, %rdx
	xor %rdx, %rax
.endm

/* A conditional on bit 0 of the new state: jz is taken when it is 0. Both
 * paths retire two conditional branches of which one is taken: jz taken
 * then jc (CF is 0 after test) not taken, or jz not taken then jnc taken. */
	.globl pmh_wl_br_random
	.p2align 6
pmh_wl_br_random:
	mov WLA_STATE(%rsi), %rax
	jmp 2f
1:	XORSHIFT
	test $1, %al
	jz 3f
	jnc 2f
3:	jc 2f
2:	sub $1, %rdi
	jae 1b
	mov %rax, WLA_STATE(%rsi)
	ret

/* An indirect jump to 5f when bit 0 of the new state is 0, else to 6f;
 * each target jumps back to the loop. */
	.globl pmh_wl_ind_random
	.p2align 6
pmh_wl_ind_random:
	mov WLA_STATE(%rsi), %rax
	lea 5f(%rip), %r8
	lea 6f(%rip), %r9
	jmp 2f
1:	XORSHIFT
	mov %r8, %rcx
	test $1, %al
	cmovnz %r9, %rcx
	jmp *%rcx
5:	jmp 2f
6:	jmp 2f
	ud2			/* never reached: 6f's jmp jumps over it */
2:	sub $1, %rdi
	jae 1b
	mov %rax, WLA_STATE(%rsi)
	ret

/* LOCK ADD to the first dword of args->buf. */
	.globl pmh_wl_locked
	.p2align 6
pmh_wl_locked:
	mov WLA_BUF(%rsi), %rdx
	jmp 2f
1:	lock addl $1, (%rdx)
2:	sub $1, %rdi
	jae 1b
	ret

/* ES, DS and SS reloaded with their own selectors (FS and GS are left
 * alone: loading them clears the bases the firmware may use). */
	.globl pmh_wl_segload
	.p2align 6
pmh_wl_segload:
	jmp 2f
1:	mov %es, %eax
	mov %eax, %es
	mov %ds, %eax
	mov %eax, %ds
	mov %ss, %eax
	mov %eax, %ss
2:	sub $1, %rdi
	jae 1b
	ret

/* An 8-byte load at args->buf + 4: across an 8-byte boundary, inside the
 * line. */
	.globl pmh_wl_misaligned
	.p2align 6
pmh_wl_misaligned:
	mov WLA_BUF(%rsi), %rdx
	jmp 2f
1:	mov 4(%rdx), %rax
2:	sub $1, %rdi
	jae 1b
	ret

/* A far return to the same code segment (PUSH CS does not exist in 64-bit
 * mode: CS is read once into rcx). */
	.globl pmh_wl_far
	.p2align 6
pmh_wl_far:
	mov %cs, %ecx
	lea 2f(%rip), %rax
	jmp 2f
1:	push %rcx
	push %rax
	lretq
2:	sub $1, %rdi
	jae 1b
	ret

/* CPUID leaf 0 (it writes rbx: saved around the loop). */
	.globl pmh_wl_cpuid
	.p2align 6
pmh_wl_cpuid:
	push %rbx
	jmp 2f
1:	xor %eax, %eax
	cpuid
2:	sub $1, %rdi
	jae 1b
	pop %rbx
	ret

	.globl pmh_wl_clflush
	.p2align 6
pmh_wl_clflush:
	mov WLA_BUF(%rsi), %rdx
	jmp 2f
1:	clflush (%rdx)
2:	sub $1, %rdi
	jae 1b
	ret

/* FADD, FMUL, FCOMI on 1.0 and a growing sum; the caller's x87 state is
 * saved in args->buf (108 bytes) and given back. */
	.globl pmh_wl_x87
	.p2align 6
pmh_wl_x87:
	mov WLA_BUF(%rsi), %rdx
	fnsave (%rdx)
	fninit
	fld1
	fld1
	jmp 2f
1:	fadd %st(1), %st
	fmul %st(1), %st
	fcomi %st(1), %st
2:	sub $1, %rdi
	jae 1b
	fstp %st(0)
	fstp %st(0)
	frstor (%rdx)
	ret

/* A walking kernel: per iteration one pass over args->lines elements from
 * p = args->buf, the body run once per element (it advances p itself), the
 * tail once after the last iteration. rax = p, rcx = elements left, r8 =
 * buf, r9 = lines, r10 = stride; the last p is left in rax. */
.macro WALK name, tail=
	.globl \name
	.p2align 6
\name:
	mov WLA_BUF(%rsi), %r8
	mov WLA_LINES(%rsi), %r9
	mov WLA_STRIDE(%rsi), %r10
	jmp 2f
1:	mov %r8, %rax
	mov %r9, %rcx
	jmp 4f
3:	BODY
4:	sub $1, %rcx
	jae 3b
2:	sub $1, %rdi
	jae 1b
	\tail
	ret
.endm

.macro BODY			/* p = *p */
	mov (%rax), %rax
.endm
	WALK pmh_wl_chase
	.purgem BODY
.macro BODY			/* q = p[0]; p[1] = q (the line just loaded); p = q */
	mov (%rax), %rdx
	mov %rdx, 8(%rax)
	mov %rdx, %rax
.endm
	WALK pmh_wl_chase_dirty
	.purgem BODY
.macro BODY			/* *p = p; p += stride */
	mov %rax, (%rax)
	add %r10, %rax
.endm
	WALK pmh_wl_store_walk
	.purgem BODY
.macro BODY
	prefetcht0 (%rax)
	add %r10, %rax
.endm
	WALK pmh_wl_pf_t0
	.purgem BODY
.macro BODY
	prefetchnta (%rax)
	add %r10, %rax
.endm
	WALK pmh_wl_pf_nta
	.purgem BODY
.macro BODY
	prefetchw (%rax)
	add %r10, %rax
.endm
	WALK pmh_wl_pf_w
	.purgem BODY
.macro BODY			/* MOVNTI p to *p; p += 8 (stride unused) */
	movnti %rax, (%rax)
	add $8, %rax
.endm
	WALK pmh_wl_nt_store, sfence	/* the NT stores drained before returning */
	.purgem BODY
.macro BODY			/* a load of p (CMP, as on i386); p += stride */
	cmp (%rax), %rax
	add %r10, %rax
.endm
	WALK pmh_wl_pages
	.purgem BODY

/* A call into the code the harness wrote (workload_code): ecx blocks of
 * "dec %ecx; jnz next", the last one's RET coming back here. */
	.globl pmh_wl_code
	.p2align 6
pmh_wl_code:			/* rdi = iterations, rsi = args */
	jmp 2f
1:	mov WLA_LINES(%rsi), %ecx
	call *WLA_BUF(%rsi)
2:	sub $1, %rdi
	jae 1b
	ret

/* RTM (SDM Vol. 2A XBEGIN, XEND, XABORT; Vol. 1 16.3): per iteration one
 * transaction whose inside counts args->lines (>= 1) down, "sub; jnz",
 * then commits (XEND) or aborts (XABORT). An abort resumes at XBEGIN's
 * fallback, the loop test, with the registers XBEGIN saw (EAX: the abort
 * status), so only rcx, r8 and eax are written. */
	.globl pmh_wl_tx_commit
	.p2align 6
pmh_wl_tx_commit:		/* rdi = iterations, rsi = args */
	mov WLA_LINES(%rsi), %r8
	jmp 2f
1:	mov %r8d, %ecx
	xbegin 2f
3:	sub $1, %ecx
	jnz 3b
	xend
2:	sub $1, %rdi
	jae 1b
	ret

	.globl pmh_wl_tx_abort
	.p2align 6
pmh_wl_tx_abort:		/* rdi = iterations, rsi = args */
	mov WLA_LINES(%rsi), %r8
	jmp 2f
1:	mov %r8d, %ecx
	xbegin 2f
3:	sub $1, %ecx
	jnz 3b
	xabort $0xff
2:	sub $1, %rdi
	jae 1b
	ret

/* KVM's forced-emulation prefix, "ud2" and the bytes "kvm" (Linux
 * arch/x86/kvm/x86.c handle_ud with force_emulation_prefix on;
 * kvm-unit-tests lib/x86/desc.h KVM_FEP): KVM skips it and emulates the
 * instruction after it; with the parameter off the ud2 raises #UD. Per
 * iteration "cmp" (ZF set) and two emulated JNEs, not taken, as
 * kvm-unit-tests x86/pmu.c kvm_fep_asm retires them. */
	.macro KVM_FEP
	ud2
	.byte 0x6b, 0x76, 0x6d
	.endm
	.globl pmh_wl_kvm_fep
	.p2align 6
pmh_wl_kvm_fep:			/* rdi = iterations */
	jmp 2f
1:	cmp %eax, %eax
	KVM_FEP
	jne 2f
	KVM_FEP
	jne 2f
2:	sub $1, %rdi
	jae 1b
	ret

	.section .note.GNU-stack, "", @progbits
