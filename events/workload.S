/* Calibrated kernels (counts documented in workloads.c). */
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
	.section .note.GNU-stack, "", @progbits
