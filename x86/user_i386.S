/* Ring 3 on i386 (bios/, x86/hw_user.c): the way into CPL 3 and back, and
 * the trampolines that run there. struct user_ctx's offsets are in
 * x86/hw_user.h (uint64_t fields: the low dwords here). */
	.set USER_VECTOR, 0x81	/* HW_USER_VECTOR (pmu/hw.h) */
	.set U_RIP, 0
	.set U_RSP, 8
	.set U_CS, 16
	.set U_SS, 24
	.set U_A0, 32
	.set U_A1, 40
	.set U_A2, 48
	.set U_OUT, 56
	.set U_RSP0_AT, 64
	.set U_K_RSP, 72
	.set U_K_CS, 80
	.set U_K_SS, 88

	.bss
	.balign 4
cur:	.long 0			/* the struct user_ctx of the excursion */

	.text
/* int pmh_user_enter(struct user_ctx *u) (cdecl): saves the callee-saved
 * registers, EFLAGS and DS/ES/FS/GS on this stack, makes it ESP0 and IRETs
 * to u->rip at CPL 3 with IF = 0, IOPL = 0. DS and ES get the user data
 * segment first: an IRET to CPL 3 nulls those whose DPL is below 3 (SDM
 * Vol. 2A IRET), and the handlers of an NMI at CPL 3 run on them. */
	.globl pmh_user_enter
pmh_user_enter:
	movl 4(%esp), %edx
	pushl %ebx
	pushl %ebp
	pushl %esi
	pushl %edi
	pushfl
	xorl %eax, %eax
	movw %ds, %ax
	pushl %eax
	movw %es, %ax
	pushl %eax
	movw %fs, %ax
	pushl %eax
	movw %gs, %ax
	pushl %eax
	movl %edx, cur
	movl %esp, U_K_RSP(%edx)
	movw %cs, %ax
	movl %eax, U_K_CS(%edx)
	movw %ss, %ax
	movl %eax, U_K_SS(%edx)
	movl U_RSP0_AT(%edx), %eax
	movl %esp, (%eax)	/* interrupts at CPL 3 push below this frame */
	pushl U_SS(%edx)
	pushl U_RSP(%edx)
	pushl $0x2		/* EFLAGS: IF, IOPL, TF, AC, VM all 0 (bit 1 reads 1) */
	pushl U_CS(%edx)
	pushl U_RIP(%edx)
	movl U_A0(%edx), %ecx
	movl U_A0+4(%edx), %ebx
	movl U_A1(%edx), %esi
	movl U_A2(%edx), %eax
	movl U_SS(%edx), %edx
	movw %dx, %ds
	movw %dx, %es
	iretl

/* The DPL-3 gate of USER_VECTOR, at CPL 0 on ESP0 (SS from the TSS's SS0):
 * CPL 3's EDX:EAX is the result, status 0. */
	.globl pmh_user_gate
pmh_user_gate:
	movl %ss:cur, %ecx
	movl %eax, %ss:U_OUT(%ecx)
	movl %edx, %ss:U_OUT+4(%ecx)
	xorl %eax, %eax
	jmp back

/* Where user_fault (x86/hw_user.c) lands the IRET of an exception raised
 * at CPL 3: EAX = its vector. */
	.globl pmh_user_fault_landing
pmh_user_fault_landing:
	movl %ss:cur, %ecx
back:
	movl %ss:U_K_SS(%ecx), %edx
	movw %dx, %ss
	movl %ss:U_K_RSP(%ecx), %esp
	popl %edx
	movw %dx, %gs
	popl %edx
	movw %dx, %fs
	popl %edx
	movw %dx, %es
	popl %edx
	movw %dx, %ds
	popfl
	popl %edi
	popl %esi
	popl %ebp
	popl %ebx
	ret

/* What runs at CPL 3, each ending with INT USER_VECTOR; nothing resumes
 * after it. */
	.balign 64
	.globl pmh_user_text, pmh_user_text_end
pmh_user_text:
/* eax = the kernel, ebx:ecx = iterations, esi = struct wl_args * (the
 * kernels' cdecl: x86/workload_i386.S). */
	.globl pmh_user_run_tramp
pmh_user_run_tramp:
	pushl %esi
	pushl %ebx
	pushl %ecx
	calll *%eax
	addl $12, %esp
	xorl %eax, %eax
	xorl %edx, %edx
	int $USER_VECTOR
	ud2
/* ecx = the counter: RDPMC, its EDX:EAX handed back. */
	.globl pmh_user_rdpmc_tramp
pmh_user_rdpmc_tramp:
	rdpmc
	int $USER_VECTOR
	ud2
pmh_user_text_end:

	.section .note.GNU-stack, "", @progbits
