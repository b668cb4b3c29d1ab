/* The sampling kernel for i386 (cdecl: the iteration count's low half at
 * 4(%esp)). The loop is x86/sample.S's instruction for instruction on
 * 32-bit registers (edi counts, esi and ecx hold the indirect targets);
 * the prologue saves the two callee-saved registers it uses and the
 * epilogue restores them. events/sample.c walks both. */
	.set SMP_SEED, 0x2545f491	/* events/sample.h SMP_SEED */

	.text
	.globl pmh_smp_kernel, pmh_smp_p1, pmh_smp_p2, pmh_smp_p3, pmh_smp_p4
	.globl pmh_smp_p5, pmh_smp_b0, pmh_smp_b1
	.globl pmh_smp_u1, pmh_smp_t1, pmh_smp_b2, pmh_smp_x0, pmh_smp_x1
	.globl pmh_smp_x2, pmh_smp_x3, pmh_smp_x4, pmh_smp_x5, pmh_smp_x6
	.globl pmh_smp_x7, pmh_smp_x8, pmh_smp_tst, pmh_smp_b4, pmh_smp_nop
	.globl pmh_smp_t4, pmh_smp_b5, pmh_smp_b7, pmh_smp_u7, pmh_smp_t7
	.globl pmh_smp_sub, pmh_smp_b8, pmh_smp_e0, pmh_smp_e1, pmh_smp_exit
	.globl pmh_smp_fn, pmh_smp_b3, pmh_smp_fn2, pmh_smp_b6, pmh_smp_end
	.p2align 6
pmh_smp_kernel:			/* p0 */
	push %esi
pmh_smp_p1:
	push %edi
pmh_smp_p2:
	movl 12(%esp), %edi
pmh_smp_p3:
	mov $SMP_SEED, %edx
pmh_smp_p4:
	mov $pmh_smp_fn2, %esi
pmh_smp_p5:
	mov $pmh_smp_t7, %ecx
pmh_smp_b0:
	jmp pmh_smp_t7
pmh_smp_b1:
	jmp pmh_smp_t1
pmh_smp_u1:
	ud2
pmh_smp_t1:
pmh_smp_b2:
	call pmh_smp_fn
pmh_smp_x0:
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
	call *%esi
pmh_smp_b7:
	jmp *%ecx
pmh_smp_u7:
	ud2
pmh_smp_t7:
pmh_smp_sub:
	sub $1, %edi
pmh_smp_b8:
	jae pmh_smp_b1
pmh_smp_e0:
	pop %edi
pmh_smp_e1:
	pop %esi
pmh_smp_exit:
	ret
pmh_smp_fn:
pmh_smp_b3:
	ret
pmh_smp_fn2:
pmh_smp_b6:
	ret
pmh_smp_end:
