/* i386 interrupt and exception entry stubs, fault-safe MSR/PMC accessors
 * and the recovery jump (bios/, cdecl). The stubs push a 32-bit frame
 * (struct frame32 in x86/idt_i386.c) that isr_frame_i386 turns into the
 * shared struct int_frame around isr_dispatch. */

	.text

/* The exception stubs, vectors 0-21, 16 bytes apart from isr_exc_stubs
 * (x86/idt_i386.c finds each by number). Those whose exception pushes an
 * error code (8, 10-14, 17, 21: SDM Vol. 3A 6.13) push no dummy one. */
	.balign 16
	.globl isr_exc_stubs
isr_exc_stubs:
.irp vec, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21
	.balign 16
	.if (\vec != 8) && ((\vec < 10) || (\vec > 14)) && (\vec != 17) && (\vec != 21)
	pushl $0
	.endif
	pushl $\vec
	jmp isr_common
.endr
/* The PMI's class below our two vectors, 16 bytes apart (idt_claim). */
	.balign 16
	.globl isr_claim_stubs
isr_claim_stubs:
.irp vec, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed
	.balign 16
	pushl $0
	pushl $\vec
	jmp isr_common
.endr
/* The harness's own vectors (apic/isr.h). */
	.globl isr_stub_0xee, isr_stub_0xef
isr_stub_0xee:
	pushl $0
	pushl $0xee
	jmp isr_common
isr_stub_0xef:
	pushl $0
	pushl $0xef
	jmp isr_common

isr_common:
	pushal
	cld
	movl %esp, %eax
	pushl %eax
	call isr_frame_i386
	addl $4, %esp
	popal
	addl $8, %esp		/* vector and error code */
	iretl

/* Fault fixup: (faulting instruction, resume point) as absolute addresses
 * (the kernel is linked where it runs). The #GP and #UD handlers put the
 * vector in EAX and resume at the fixup. */
.macro FIXUP insn, fix
	.pushsection pmh_fixup, "a"
	.balign 4
	.long \insn, \fix
	.popsection
.endm

/* A 64-bit read through ECX (RDMSR, RDPMC) into *val: HW_OK, or the fault
 * vector with *val = 0. */
.macro READ64 name, insn
	.globl \name
\name:
	movl 4(%esp), %ecx
	xorl %eax, %eax
	xorl %edx, %edx
1:	\insn
	movl 8(%esp), %ecx
	movl %eax, (%ecx)
	movl %edx, 4(%ecx)
	xorl %eax, %eax
	ret
2:	movl 8(%esp), %ecx
	movl $0, (%ecx)
	movl $0, 4(%ecx)
	ret
	FIXUP 1b, 2b
.endm

/* int hw_rdmsr(uint32_t msr, uint64_t *val) */
	READ64 hw_rdmsr, rdmsr

/* int hw_wrmsr(uint32_t msr, uint64_t val) */
	.globl hw_wrmsr
hw_wrmsr:
	movl 4(%esp), %ecx
	movl 8(%esp), %eax
	movl 12(%esp), %edx
1:	wrmsr
	xorl %eax, %eax
2:	ret
	FIXUP 1b, 2b

/* int hw_rdpmc(uint32_t ecx, uint64_t *val) */
	READ64 hw_rdpmc, rdpmc

/* int pmh_setjmp(struct pmh_jmpbuf *b): 0 now, 1 when recovered. The
 * 64-bit slots hold ebx, ebp, esi (r12), edi (r13), esp and eip. */
	.globl pmh_setjmp
pmh_setjmp:
	movl 4(%esp), %eax
	movl %ebx, 0(%eax)
	movl %ebp, 8(%eax)
	movl %esi, 16(%eax)
	movl %edi, 24(%eax)
	leal 4(%esp), %edx
	movl %edx, 48(%eax)
	movl (%esp), %edx
	movl %edx, 56(%eax)
	xorl %eax, %eax
	ret

/* pmh_longjmp(b, v): the recovery target an exception handler makes its
 * IRET land on, with b in EDI and v in ESI (the frame's rdi and rsi, as on
 * x86-64); never called from C on i386. */
	.globl pmh_longjmp
pmh_longjmp:
	movl %esi, %eax
	movl %edi, %ecx
	movl 0(%ecx), %ebx
	movl 8(%ecx), %ebp
	movl 16(%ecx), %esi
	movl 24(%ecx), %edi
	movl 48(%ecx), %esp
	jmp *56(%ecx)

	.section .note.GNU-stack, "", @progbits
