/* i386 interrupt and exception entry stubs, fault-safe MSR/PMC accessors
 * and the recovery jump (bios/, cdecl). The stubs push a 32-bit frame
 * (struct frame32 in apic/idt_i386.c) that isr_frame_i386 turns into the
 * shared struct int_frame around isr_dispatch. */

	.text

.macro STUB_NOERR vec
	.globl isr_stub_\vec
isr_stub_\vec:
	pushl $0
	pushl $\vec
	jmp isr_common
.endm

.macro STUB_ERR vec
	.globl isr_stub_\vec
isr_stub_\vec:
	pushl $\vec
	jmp isr_common
.endm

/* Exceptions that push an error code: 8, 10-14, 17, 21. */
STUB_NOERR 0
STUB_NOERR 1
STUB_NOERR 2
STUB_NOERR 3
STUB_NOERR 4
STUB_NOERR 5
STUB_NOERR 6
STUB_NOERR 7
STUB_ERR 8
STUB_NOERR 9
STUB_ERR 10
STUB_ERR 11
STUB_ERR 12
STUB_ERR 13
STUB_ERR 14
STUB_NOERR 15
STUB_NOERR 16
STUB_ERR 17
STUB_NOERR 18
STUB_NOERR 19
STUB_NOERR 20
STUB_ERR 21
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
STUB_NOERR 0xee
STUB_NOERR 0xef

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
