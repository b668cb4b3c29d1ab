/* The APs' way in (SDM Vol. 3A 8.4.4.1, 9.1.4): a START-UP IPI with vector
 * 0x08 starts an AP in real mode at 0800:0000, where pc/mp.c copied
 * these bytes. They load the kernel's GDT and enter 32-bit protected mode
 * without paging; the AP then reads its own xAPIC ID (at the boot CPU's
 * APIC base, tramp_apic) and claims its slot of the table tramp_slots
 * points to, one per APIC ID ({stack top, argument}, pc/mp.c): an
 * atomic exchange takes the stack top and leaves 0, so a slot is used
 * once, and an AP whose slot is 0 (not selected, or given up on by the
 * boot CPU, which takes it back the same way) halts here. Otherwise it
 * calls tramp_entry(argument) on that stack. So several APs can come up
 * at once, each on its own stack, and one that answers late never takes
 * another's. Everything is addressed as copied, at TRAMP_BASE. */

#include "lowmem.h"
#define REL(x) ((x) - tramp_start + TRAMP_BASE)

	.text
	.globl tramp_start, tramp_end, tramp_gdtr, tramp_apic, tramp_slots, tramp_entry
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
	movl REL(tramp_apic), %ebx
	movl XAPIC_ID_REG(%ebx), %eax
	shrl $XAPIC_ID_SHIFT, %eax
	movl REL(tramp_slots), %ebx
	leal (%ebx, %eax, TRAMP_SLOT_BYTES), %ebx
	xorl %esp, %esp
	xchgl %esp, (%ebx)		/* the claim: locked (SDM Vol. 3A 8.1.2.2) */
	testl %esp, %esp
	jz 1f
	subl $12, %esp			/* the argument 16-byte aligned, as C expects */
	pushl 4(%ebx)
	call *REL(tramp_entry)
1:	cli
	hlt
	jmp 1b

	.balign 8
tramp_gdtr:
	.word 0
	.long 0
	.balign 4
tramp_apic:
	.long 0
tramp_slots:
	.long 0
tramp_entry:
	.long 0
tramp_end:

	.section .note.GNU-stack, "", @progbits
