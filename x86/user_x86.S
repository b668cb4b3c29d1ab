/* Ring 3 on x86-64 (x86/hw_user.c): the way into CPL 3 and back, and the
 * trampolines that run there. Target only; struct user_ctx's offsets are in
 * x86/hw_user.h. */
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
	.set MSR_FS_BASE, 0xc0000100	/* SDM Vol. 4 Table 2-2 */
	.set MSR_GS_BASE, 0xc0000101

	.bss
	.balign 8
cur:	.quad 0			/* the struct user_ctx of the excursion */

	.text
/* int pmh_user_enter(struct user_ctx *u): saves the callee-saved registers,
 * RFLAGS, DS/ES/FS/GS and the FS/GS bases on this stack (an IRET to CPL 3
 * nulls the data segment registers whose DPL is below 3: SDM Vol. 2A
 * IRET), makes this stack RSP0 and IRETs to u->rip at CPL 3 with IF = 0,
 * IOPL = 0. Comes back through back: below. */
	.globl pmh_user_enter
pmh_user_enter:
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushfq
	xorl %eax, %eax
	movw %ds, %ax
	pushq %rax
	movw %es, %ax
	pushq %rax
	movw %fs, %ax
	pushq %rax
	movw %gs, %ax
	pushq %rax
	movl $MSR_FS_BASE, %ecx
	rdmsr
	pushq %rdx
	pushq %rax
	movl $MSR_GS_BASE, %ecx
	rdmsr
	pushq %rdx
	pushq %rax
	movq %rdi, cur(%rip)
	movq %rsp, U_K_RSP(%rdi)
	xorl %eax, %eax
	movw %cs, %ax
	movq %rax, U_K_CS(%rdi)
	movw %ss, %ax
	movq %rax, U_K_SS(%rdi)
	movq U_RSP0_AT(%rdi), %rax
	movq %rsp, (%rax)	/* interrupts at CPL 3 push below this frame */
	pushq U_SS(%rdi)
	pushq U_RSP(%rdi)
	pushq $0x2		/* RFLAGS: IF, IOPL, TF, AC all 0 (bit 1 reads 1) */
	pushq U_CS(%rdi)
	pushq U_RIP(%rdi)
	movq U_A2(%rdi), %rdx
	movq U_A1(%rdi), %rsi
	movq U_A0(%rdi), %rdi
	iretq

/* The DPL-3 gate of USER_VECTOR, at CPL 0 on RSP0: CPL 3's EDX:EAX is the
 * result, status 0. A privilege change left SS null (SDM Vol. 3A 6.14.2):
 * back: loads the saved one. */
	.globl pmh_user_gate
pmh_user_gate:
	movq cur(%rip), %rcx
	shlq $32, %rdx
	movl %eax, %eax
	orq %rdx, %rax
	movq %rax, U_OUT(%rcx)
	xorl %eax, %eax
	jmp back

/* Where user_fault (x86/hw_user.c) lands the IRET of an exception raised
 * at CPL 3: EAX = its vector. */
	.globl pmh_user_fault_landing
pmh_user_fault_landing:
	movq cur(%rip), %rcx
back:
	movl %eax, %r8d
	movq U_K_SS(%rcx), %rax
	movw %ax, %ss
	movq U_K_RSP(%rcx), %rsp
	popq %r9		/* GS base, low and high */
	popq %r10
	popq %r11		/* FS base */
	popq %rdi
	popq %rax
	movw %ax, %gs
	popq %rax
	movw %ax, %fs
	popq %rax
	movw %ax, %es
	popq %rax
	movw %ax, %ds
	/* the selectors reloaded the bases from the GDT: put back the MSRs */
	movl $MSR_FS_BASE, %ecx
	movl %r11d, %eax
	movl %edi, %edx
	wrmsr
	movl $MSR_GS_BASE, %ecx
	movl %r9d, %eax
	movl %r10d, %edx
	wrmsr
	popfq
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	movl %r8d, %eax
	ret

/* What runs at CPL 3 (x86/hw_user.c makes these pages user-accessible).
 * Each ends with INT USER_VECTOR; nothing resumes after it. */
	.balign 64
	.globl pmh_user_text, pmh_user_text_end
pmh_user_text:
/* rdi = iterations, rsi = struct wl_args *, rdx = the kernel (SysV). */
	.globl pmh_user_run_tramp
pmh_user_run_tramp:
	callq *%rdx
	xorl %eax, %eax
	xorl %edx, %edx
	int $USER_VECTOR
	ud2
/* edi = the counter: RDPMC, its EDX:EAX handed back. */
	.globl pmh_user_rdpmc_tramp
pmh_user_rdpmc_tramp:
	movl %edi, %ecx
	rdpmc
	int $USER_VECTOR
	ud2
pmh_user_text_end:

	.section .note.GNU-stack, "", @progbits
