/* Calibrated kernels for i386 (cdecl: the iteration count's low half at
 * 4(%esp); counts past 2^32 are not used). The counts are those of
 * events/workload.S, which events/workloads.c documents: JECXZ stands for
 * "test; jz" so that outside the loop it is still 3 instructions ("mov;
 * jecxz", "ret") and 2 branches. */
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
	.section .note.GNU-stack, "", @progbits
