/* The way from our 32-bit protected mode (paging off) to a BIOS INT 13h
 * and back (SDM Vol. 3A 9.9.2 "Switching Back to Real-Address Mode"):
 * bios/disk.c copies these bytes to RM_BASE, below 1 MiB and clear of
 * the AP trampoline at 0x8000, and calls them there. They load their own
 * GDT with 16-bit segments, drop to real mode through a 16-bit protected
 * mode segment, take the BIOS's IVT, run INT 13h with the registers in
 * rm_regs (results back there), and return to protected mode with the
 * kernel's GDT, IDT and stack. */

#include "lowmem.h"
#define REL(x) ((x) - rm_start + RM_BASE)
/* The real-mode stack's top (free conventional memory up to 0x7BFF). */
#define RM_STACK 0x7c00
#define CR0_PG (1 << 31)

	.text
	.globl rm_start, rm_end, rm_regs
	.code32
rm_start:
	/* Paging off first (SDM 9.9.2 step 1): event.semantics turns it on
	 * for its page window and puts it back, but an exception that
	 * abandons the check leaves it on; this code runs identity-mapped. */
	pushl %eax
	movl %cr0, %eax
	andl $~CR0_PG, %eax
	movl %eax, %cr0
	popl %eax
	pushal
	movl %esp, REL(saved_esp)
	sgdt REL(saved_gdtr)
	sidt REL(saved_idtr)
	lgdt REL(rm_gdtr)
	ljmp $SEL_CODE16, $REL(pm16)

	.code16
pm16:
	movw $SEL_DATA16, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
	movl %cr0, %eax
	andl $~CR0_PE, %eax
	movl %eax, %cr0
	ljmp $0, $REL(real)
real:
	xorw %ax, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
	movw $RM_STACK, %sp
	lidtl REL(rm_idtr)
	movw REL(r_es), %ax
	movw %ax, %es
	movl REL(r_ebx), %ebx
	movl REL(r_ecx), %ecx
	movl REL(r_edx), %edx
	movl REL(r_esi), %esi
	movl REL(r_edi), %edi
	movl REL(r_eax), %eax
	pushw REL(r_ds)
	popw %ds
	sti
	int $0x13
	cli
	pushfl
	pushw %ds
	pushw $0
	popw %ds
	movl %eax, REL(r_eax)
	movl %ebx, REL(r_ebx)
	movl %ecx, REL(r_ecx)
	movl %edx, REL(r_edx)
	movl %esi, REL(r_esi)
	movl %edi, REL(r_edi)
	popw REL(r_ds)
	movw %es, %ax
	movw %ax, REL(r_es)
	popl REL(r_eflags)
	lgdtl REL(rm_gdtr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $SEL_CODE, $REL(pm32)

	.code32
pm32:
	load_data_segments SEL_DATA
	lgdt REL(saved_gdtr)
	lidt REL(saved_idtr)
	movl REL(saved_esp), %esp
	popal
	ret

	.balign 8
rm_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code, base 0, 4 GiB */
	.quad 0x00cf92000000ffff	/* 0x10: 32-bit data, base 0, 4 GiB */
	.quad 0x00009a000000ffff	/* 0x18: 16-bit code, base 0, 64 KiB */
	.quad 0x000092000000ffff	/* 0x20: 16-bit data, base 0, 64 KiB */
rm_gdt_end:
	.balign 4
rm_gdtr:
	.word rm_gdt_end - rm_gdt - 1
	.long REL(rm_gdt)
	.balign 4
rm_idtr:
	.word 0x3ff			/* the real-mode IVT: 256 vectors at 0 */
	.long 0
	.balign 4
saved_gdtr:
	.word 0
	.long 0
	.balign 4
saved_idtr:
	.word 0
	.long 0
	.balign 4
saved_esp:
	.long 0
/* struct rm_regs (bios/disk.c): in before INT 13h, out after. */
	.balign 4
rm_regs:
r_eax:	.long 0
r_ebx:	.long 0
r_ecx:	.long 0
r_edx:	.long 0
r_esi:	.long 0
r_edi:	.long 0
r_ds:	.word 0
r_es:	.word 0
r_eflags: .long 0
rm_end:

	.section .note.GNU-stack, "", @progbits
