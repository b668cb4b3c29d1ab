/* The AP's way in (SDM Vol. 3A 8.4.4.1, 9.1.4): a START-UP IPI with vector
 * 0x08 starts the AP in real mode at 0800:0000, where bios/mp.c copied
 * these bytes. They load the kernel's GDT, enter 32-bit protected mode
 * without paging, take the stack bios/mp.c put in tramp_stack and call
 * tramp_entry(tramp_arg). Everything is addressed as copied, at TRAMP_BASE. */

#include "lowmem.h"
#define REL(x) ((x) - tramp_start + TRAMP_BASE)

	.text
	.globl tramp_start, tramp_end, tramp_gdtr, tramp_stack, tramp_entry, tramp_arg
	.code16
tramp_start:
	cli
	cld
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl REL(tramp_gdtr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $SEL_CODE, $REL(tramp_pm)

	.code32
tramp_pm:
	load_data_segments SEL_DATA
	movl REL(tramp_stack), %esp
	pushl REL(tramp_arg)
	call *REL(tramp_entry)
1:	cli
	hlt
	jmp 1b

	.balign 8
tramp_gdtr:
	.word 0
	.long 0
	.balign 4
tramp_stack:
	.long 0
tramp_entry:
	.long 0
tramp_arg:
	.long 0
tramp_end:

	.section .note.GNU-stack, "", @progbits
