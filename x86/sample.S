/* The sampling kernel for x86-64 (SysV: rdi = iterations; nothing else is
 * read). Registers only, so that it runs at CPL 3 as well as at CPL 0. Its
 * control flow, instruction by instruction, is walked by events/sample.c
 * from these labels: every instruction the kernel retires has one. A
 * change here is a change there.
 *
 * One iteration retires one branch of each near kind the branch filters
 * tell apart (Intel SDM Vol. 3B "Filtering of Last Branch Records", AMD
 * APM Vol. 2 13.1.1.9 LBR_SELECT): a relative jump, a relative call and
 * its return, a conditional on a pseudo-random bit (taken about half the
 * time: its mispredictions), an indirect call and its return, an indirect
 * jump, and the loop's conditional back edge. The pseudo-random bit is bit
 * 0 of a 32-bit xorshift (Marsaglia 2003: shifts 13, 17, 5) started from
 * SMP_SEED on every call. */
	.set SMP_SEED, 0x2545f491	/* events/sample.h SMP_SEED */

	.text
	.globl pmh_smp_kernel, pmh_smp_p1, pmh_smp_p2, pmh_smp_b0, pmh_smp_b1
	.globl pmh_smp_u1, pmh_smp_t1, pmh_smp_b2, pmh_smp_x0, pmh_smp_x1
	.globl pmh_smp_x2, pmh_smp_x3, pmh_smp_x4, pmh_smp_x5, pmh_smp_x6
	.globl pmh_smp_x7, pmh_smp_x8, pmh_smp_tst, pmh_smp_b4, pmh_smp_nop
	.globl pmh_smp_t4, pmh_smp_b5, pmh_smp_b7, pmh_smp_u7, pmh_smp_t7
	.globl pmh_smp_sub, pmh_smp_b8, pmh_smp_exit, pmh_smp_fn, pmh_smp_b3
	.globl pmh_smp_fn2, pmh_smp_b6, pmh_smp_end
	.p2align 6
pmh_smp_kernel:			/* p0 */
	mov $SMP_SEED, %edx
pmh_smp_p1:
	lea pmh_smp_fn2(%rip), %r8
pmh_smp_p2:
	lea pmh_smp_t7(%rip), %r9
pmh_smp_b0:
	jmp pmh_smp_t7
pmh_smp_b1:			/* the loop's body */
	jmp pmh_smp_t1
pmh_smp_u1:
	ud2
pmh_smp_t1:
pmh_smp_b2:
	call pmh_smp_fn
pmh_smp_x0:			/* the xorshift step */
	mov %edx, %eax
pmh_smp_x1:
	shl $13, %eax
pmh_smp_x2:
	xor %eax, %edx
pmh_smp_x3:
	mov %edx, %eax
pmh_smp_x4:
	shr $17, %eax
pmh_smp_x5:
	xor %eax, %edx
pmh_smp_x6:
	mov %edx, %eax
pmh_smp_x7:
	shl $5, %eax
pmh_smp_x8:
	xor %eax, %edx
pmh_smp_tst:
	test $1, %dl
pmh_smp_b4:
	jnz pmh_smp_t4
pmh_smp_nop:
	nop
pmh_smp_t4:
pmh_smp_b5:
	call *%r8
pmh_smp_b7:
	jmp *%r9
pmh_smp_u7:
	ud2
pmh_smp_t7:			/* the loop's test */
pmh_smp_sub:
	sub $1, %rdi
pmh_smp_b8:
	jae pmh_smp_b1
pmh_smp_exit:
	ret
pmh_smp_fn:
pmh_smp_b3:
	ret
pmh_smp_fn2:
pmh_smp_b6:
	ret
pmh_smp_end:

/* no executable stack asked for (the host build links this file) */
	.section .note.GNU-stack, "", @progbits
