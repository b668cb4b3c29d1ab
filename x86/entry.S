/* Interrupt and exception entry stubs, fault-safe MSR/PMC accessors and the
 * recovery jump. Target only (x86-64, System V ABI inside the harness). */

	.text

/* struct int_frame layout (apic/isr.h): r15 ... rax, vector, error, then the
 * CPU's rip, cs, rflags, rsp, ss. */
.macro STUB_NOERR vec
	.globl isr_stub_\vec
isr_stub_\vec:
	pushq $0
	pushq $\vec
	jmp isr_common
.endm

.macro STUB_ERR vec
	.globl isr_stub_\vec
isr_stub_\vec:
	pushq $\vec
	jmp isr_common
.endm

/* Exceptions that push an error code: 8, 10-14, 17, 21, 29, 30. */
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
/* The rest of the PMI's class, which the PMI service watches while armed
 * (apic/pmi.h): 16 bytes apart, so that idt_claim finds each by number. */
	.balign 16
	.globl isr_claim_stubs
isr_claim_stubs:
.irp vec, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed
	.balign 16
	pushq $0
	pushq $\vec
	jmp isr_common
.endr
/* The harness's own interrupt vectors (apic/isr.h). */
STUB_NOERR 0xee
STUB_NOERR 0xef

isr_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	movq %rsp, %rbx		/* callee-saved: the frame */
	andq $-16, %rsp		/* ABI stack alignment for the C handler */
	call isr_dispatch
	movq %rbx, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp		/* vector and error code */
	iretq

/* Fault fixup: each entry is (faulting instruction, resume point) as offsets
 * from the entry itself, so the table needs no run-time relocation. The #GP
 * and #UD handlers put the vector in RAX and resume at the fixup. */
.macro FIXUP insn, fix
	.pushsection pmh_fixup, "a"
	.balign 4
	.long \insn - ., \fix - .
	.popsection
.endm

/* A 64-bit read through ECX (RDMSR, RDPMC) into *val: HW_OK, or the fault
 * vector with *val = 0 (the fixup returns the vector in %eax). */
.macro READ64 name, insn
	.globl \name
\name:
	movl %edi, %ecx
	xorl %eax, %eax
	xorl %edx, %edx
1:	\insn
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, (%rsi)
	xorl %eax, %eax
	ret
2:	movq $0, (%rsi)
	ret
	FIXUP 1b, 2b
.endm

/* int hw_rdmsr(uint32_t msr, uint64_t *val) */
	READ64 hw_rdmsr, rdmsr

/* int hw_wrmsr(uint32_t msr, uint64_t val) */
	.globl hw_wrmsr
hw_wrmsr:
	movl %edi, %ecx
	movq %rsi, %rax
	movq %rsi, %rdx
	shrq $32, %rdx
1:	wrmsr
	xorl %eax, %eax
2:	ret
	FIXUP 1b, 2b

/* int hw_rdpmc(uint32_t ecx, uint64_t *val) */
	READ64 hw_rdpmc, rdpmc

/* int pmh_setjmp(struct pmh_jmpbuf *b): 0 now, 1 when recovered. */
	.globl pmh_setjmp
pmh_setjmp:
	movq %rbx, 0(%rdi)
	movq %rbp, 8(%rdi)
	movq %r12, 16(%rdi)
	movq %r13, 24(%rdi)
	movq %r14, 32(%rdi)
	movq %r15, 40(%rdi)
	leaq 8(%rsp), %rdx
	movq %rdx, 48(%rdi)
	movq (%rsp), %rdx
	movq %rdx, 56(%rdi)
	xorl %eax, %eax
	ret

/* void pmh_longjmp(struct pmh_jmpbuf *b, int v): the recovery target that an
 * exception handler makes its IRET land on. */
	.globl pmh_longjmp
pmh_longjmp:
	movq 0(%rdi), %rbx
	movq 8(%rdi), %rbp
	movq 16(%rdi), %r12
	movq 24(%rdi), %r13
	movq 32(%rdi), %r14
	movq 40(%rdi), %r15
	movq 48(%rdi), %rsp
	movl %esi, %eax
	jmpq *56(%rdi)

	.section .note.GNU-stack, "", @progbits
