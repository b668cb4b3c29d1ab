/* Calibrated kernels for i386 (cdecl: the iteration count's low half at
 * 4(%esp), its high half at 8(%esp) ignored (counts past 2^32 are not
 * used), struct wl_args * at 12(%esp)). The per-iteration construction is
 * that of x86/workload.S instruction for instruction, except the
 * xorshift64 step of the random kernels (on register pairs); the fixed
 * part differs (arguments read from the stack, callee-saved registers
 * pushed). events/workloads.c documents both. JECXZ in the two original
 * kernels stands for "test; jz" so that outside the loop they are still 3
 * instructions ("mov; jecxz", "ret") and 2 branches. */
	.set WLA_BUF, 0		/* struct wl_args (workloads.c asserts them) */
	.set WLA_LINES, 4	/* the low halves of the uint64_t fields */
	.set WLA_STRIDE, 12
	.set WLA_STATE, 20
	.set RECURSE_DEPTH, 24	/* wl_recurse.call_depth */

	.text
	.globl pmh_wl_loop
	.p2align 6
pmh_wl_loop:			/* 4(%esp) = iterations */
	movl 4(%esp), %ecx
	jecxz 2f
1:	add $1, %eax
	dec %ecx
	jnz 1b
2:	ret

	.globl pmh_wl_branchy
	.p2align 6
pmh_wl_branchy:			/* 4(%esp) = iterations (even) */
	movl 4(%esp), %ecx
	jecxz 3f
1:	test $1, %cl
	jz 2f
	add $1, %eax
	jmp 4f
2:	or $2, %eax
	jmp 4f
4:	dec %ecx
	jnz 1b
3:	ret

/* The loop of the register-only kernels: ecx counts the iterations. */
	.globl pmh_wl_calls
	.p2align 6
pmh_wl_calls:
	mov 4(%esp), %ecx
	jmp 2f
1:	call 3f
2:	sub $1, %ecx
	jae 1b
	ret
3:	ret

	.globl pmh_wl_recurse
	.p2align 6
pmh_wl_recurse:
	mov 4(%esp), %ecx
	jmp 2f
1:	mov $RECURSE_DEPTH, %edx
	call 3f
2:	sub $1, %ecx
	jae 1b
	ret
3:	dec %edx
	jz 4f
	call 3b
4:	ret

	.globl pmh_wl_br_taken
	.p2align 6
pmh_wl_br_taken:
	mov 4(%esp), %ecx
	xor %eax, %eax
	jmp 2f
1:	test %eax, %eax
	jz 2f
	ud2
2:	sub $1, %ecx
	jae 1b
	ret

	.globl pmh_wl_br_none
	.p2align 6
pmh_wl_br_none:
	mov 4(%esp), %ecx
	xor %eax, %eax
	jmp 2f
1:	test %eax, %eax
	jnz 3f
2:	sub $1, %ecx
	jae 1b
	ret
3:	ud2

/* One xorshift64 step of edx:eax (wl_xorshift: 13, 7, 17) through the pair
 * esi:ebx, 18 instructions. */
.macro XORSHIFT
	mov %eax, %ebx		/* x ^= x << 13 */
	mov %edx, %esi
	shld $13, %ebx, %esi
	shl $13, %ebx
	xor %ebx, %eax
	xor %esi, %edx
	mov %eax, %ebx		/* x ^= x >> 7 */
	mov %edx, %esi
	shrd $7, %esi, %ebx
	shr $7, %esi
	xor %ebx, %eax
	xor %esi, %edx
	mov %eax, %ebx		/* x ^= x << 17 */
	mov %edx, %esi
	shld $17, %ebx, %esi
	shl $17, %ebx
	xor %ebx, %eax
	xor %esi, %edx
.endm

	.globl pmh_wl_br_random
	.p2align 6
pmh_wl_br_random:
	push %ebx
	push %esi
	mov 12(%esp), %ecx	/* iterations */
	mov 20(%esp), %ebx	/* args */
	mov WLA_STATE(%ebx), %eax
	mov WLA_STATE+4(%ebx), %edx
	jmp 2f
1:	XORSHIFT
	test $1, %al
	jz 3f
	jnc 2f
3:	jc 2f
2:	sub $1, %ecx
	jae 1b
	mov 20(%esp), %ebx
	mov %eax, WLA_STATE(%ebx)
	mov %edx, WLA_STATE+4(%ebx)
	pop %esi
	pop %ebx
	ret

	.globl pmh_wl_ind_random
	.p2align 6
pmh_wl_ind_random:
	push %ebx
	push %esi
	push %edi
	push %ebp
	mov 20(%esp), %ecx	/* iterations */
	mov 28(%esp), %ebx	/* args */
	mov WLA_STATE(%ebx), %eax
	mov WLA_STATE+4(%ebx), %edx
	mov $5f, %edi
	mov $6f, %ebp
	jmp 2f
1:	XORSHIFT
	mov %edi, %ebx
	test $1, %al
	cmovnz %ebp, %ebx
	jmp *%ebx
5:	jmp 2f
6:	jmp 2f
	ud2
2:	sub $1, %ecx
	jae 1b
	mov 28(%esp), %ebx
	mov %eax, WLA_STATE(%ebx)
	mov %edx, WLA_STATE+4(%ebx)
	pop %ebp
	pop %edi
	pop %esi
	pop %ebx
	ret

	.globl pmh_wl_locked
	.p2align 6
pmh_wl_locked:
	mov 4(%esp), %ecx
	mov 12(%esp), %edx
	mov WLA_BUF(%edx), %edx
	jmp 2f
1:	lock addl $1, (%edx)
2:	sub $1, %ecx
	jae 1b
	ret

	.globl pmh_wl_segload
	.p2align 6
pmh_wl_segload:
	mov 4(%esp), %ecx
	jmp 2f
1:	mov %es, %eax
	mov %eax, %es
	mov %ds, %eax
	mov %eax, %ds
	mov %ss, %eax
	mov %eax, %ss
2:	sub $1, %ecx
	jae 1b
	ret

/* A 4-byte load at args->buf + 6: across an 8-byte boundary. */
	.globl pmh_wl_misaligned
	.p2align 6
pmh_wl_misaligned:
	mov 4(%esp), %ecx
	mov 12(%esp), %edx
	mov WLA_BUF(%edx), %edx
	jmp 2f
1:	mov 6(%edx), %eax
2:	sub $1, %ecx
	jae 1b
	ret

	.globl pmh_wl_far
	.p2align 6
pmh_wl_far:
	mov 4(%esp), %ecx
	jmp 2f
1:	push %cs
	push $2f
	lret
2:	sub $1, %ecx
	jae 1b
	ret

/* CPUID writes eax-edx: the count lives in esi. */
	.globl pmh_wl_cpuid
	.p2align 6
pmh_wl_cpuid:
	push %ebx
	push %esi
	mov 12(%esp), %esi
	jmp 2f
1:	xor %eax, %eax
	cpuid
2:	sub $1, %esi
	jae 1b
	pop %esi
	pop %ebx
	ret

	.globl pmh_wl_clflush
	.p2align 6
pmh_wl_clflush:
	mov 4(%esp), %ecx
	mov 12(%esp), %edx
	mov WLA_BUF(%edx), %edx
	jmp 2f
1:	clflush (%edx)
2:	sub $1, %ecx
	jae 1b
	ret

	.globl pmh_wl_x87
	.p2align 6
pmh_wl_x87:
	mov 4(%esp), %ecx
	mov 12(%esp), %edx
	mov WLA_BUF(%edx), %edx
	fnsave (%edx)
	fninit
	fld1
	fld1
	jmp 2f
1:	fadd %st(1), %st
	fmul %st(1), %st
	fcomi %st(1), %st
2:	sub $1, %ecx
	jae 1b
	fstp %st(0)
	fstp %st(0)
	frstor (%edx)
	ret

/* A walking kernel (x86/workload.S): eax = p, ecx = elements left, edx
 * = iterations, ebx = buf, esi = lines, edi = stride (the chase kernels
 * use edi as a scratch register instead); the last p is left in eax. */
.macro WALK name, tail=
	.globl \name
	.p2align 6
\name:
	push %ebx
	push %esi
	push %edi
	mov 16(%esp), %edx	/* iterations */
	mov 24(%esp), %eax	/* args */
	mov WLA_BUF(%eax), %ebx
	mov WLA_LINES(%eax), %esi
	mov WLA_STRIDE(%eax), %edi
	jmp 2f
1:	mov %ebx, %eax
	mov %esi, %ecx
	jmp 4f
3:	BODY
4:	sub $1, %ecx
	jae 3b
2:	sub $1, %edx
	jae 1b
	\tail
	pop %edi
	pop %esi
	pop %ebx
	ret
.endm

.macro BODY			/* p = *p */
	mov (%eax), %eax
.endm
	WALK pmh_wl_chase
	.purgem BODY
.macro BODY			/* q = p[0]; p[1] = q; p = q */
	mov (%eax), %edi
	mov %edi, 4(%eax)
	mov %edi, %eax
.endm
	WALK pmh_wl_chase_dirty
	.purgem BODY
.macro BODY			/* *p = p; p += stride */
	mov %eax, (%eax)
	add %edi, %eax
.endm
	WALK pmh_wl_store_walk
	.purgem BODY
.macro BODY
	prefetcht0 (%eax)
	add %edi, %eax
.endm
	WALK pmh_wl_pf_t0
	.purgem BODY
.macro BODY
	prefetchnta (%eax)
	add %edi, %eax
.endm
	WALK pmh_wl_pf_nta
	.purgem BODY
.macro BODY
	prefetchw (%eax)
	add %edi, %eax
.endm
	WALK pmh_wl_pf_w
	.purgem BODY
.macro BODY			/* a 4-byte MOVNTI of p to *p; p += 8 */
	movnti %eax, (%eax)
	add $8, %eax
.endm
	WALK pmh_wl_nt_store, sfence
	.purgem BODY
.macro BODY			/* a load of p (no register is free: CMP); p += stride */
	cmp (%eax), %eax
	add %edi, %eax
.endm
	WALK pmh_wl_pages
	.purgem BODY

/* A call into the code the harness wrote (workload_code), as on x86-64;
 * the written code changes only ecx. */
	.globl pmh_wl_code
	.p2align 6
pmh_wl_code:
	push %esi
	mov 8(%esp), %edx	/* iterations */
	mov 16(%esp), %esi	/* args */
	jmp 2f
1:	mov WLA_LINES(%esi), %ecx
	call *WLA_BUF(%esi)
2:	sub $1, %edx
	jae 1b
	pop %esi
	ret

/* RTM transactions and KVM's forced emulation as in workload.S; the inside
 * count in esi (saved), which an abort does not touch (only EAX changes). */
	.globl pmh_wl_tx_commit
	.p2align 6
pmh_wl_tx_commit:
	push %esi
	mov 8(%esp), %edx	/* iterations */
	mov 16(%esp), %esi	/* args */
	mov WLA_LINES(%esi), %esi
	jmp 2f
1:	mov %esi, %ecx
	xbegin 2f
3:	sub $1, %ecx
	jnz 3b
	xend
2:	sub $1, %edx
	jae 1b
	pop %esi
	ret

	.globl pmh_wl_tx_abort
	.p2align 6
pmh_wl_tx_abort:
	push %esi
	mov 8(%esp), %edx	/* iterations */
	mov 16(%esp), %esi	/* args */
	mov WLA_LINES(%esi), %esi
	jmp 2f
1:	mov %esi, %ecx
	xbegin 2f
3:	sub $1, %ecx
	jnz 3b
	xabort $0xff
2:	sub $1, %edx
	jae 1b
	pop %esi
	ret

	.macro KVM_FEP
	ud2
	.byte 0x6b, 0x76, 0x6d
	.endm
	.globl pmh_wl_kvm_fep
	.p2align 6
pmh_wl_kvm_fep:
	mov 4(%esp), %ecx	/* iterations */
	jmp 2f
1:	cmp %eax, %eax
	KVM_FEP
	jne 2f
	KVM_FEP
	jne 2f
2:	sub $1, %ecx
	jae 1b
	ret

	.section .note.GNU-stack, "", @progbits
