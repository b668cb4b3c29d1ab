/* Multiboot v1 entry (Multiboot Specification 0.6.96 §3.1): the loader
 * jumps here in 32-bit protected mode, paging off, EAX = the magic, EBX =
 * the information structure. We load our own flat GDT (the loader's is
 * not ours to keep), a stack, and call bios_main(magic, info). */

/* Header: magic, flags (bit 0 modules page-aligned, bit 1 memory map
 * wanted), checksum (all three sum to 0). ELF kernels need no address
 * fields. */
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x00000003
#include "lowmem.h"
#define STACK_SIZE 65536

	.section .multiboot, "a"
	.balign 4
	.long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)

	.bss
	.balign 16
stack:	.skip STACK_SIZE
stack_top:

	.data
	.balign 8
gdt:	.quad 0
	.quad 0x00cf9a000000ffff	/* code: base 0, limit 4 GiB, 32-bit, exec/read */
	.quad 0x00cf92000000ffff	/* data: base 0, limit 4 GiB, read/write */
gdt_end:
gdt_desc:
	.word gdt_end - gdt - 1
	.long gdt

	.text
	.globl _start
_start:
	cli
	cld
	lgdt gdt_desc
	ljmp $SEL_CODE, $1f
1:	movw $SEL_DATA, %cx
	movw %cx, %ds
	movw %cx, %es
	movw %cx, %fs
	movw %cx, %gs
	movw %cx, %ss
	movl $stack_top, %esp
	pushl %ebx
	pushl %eax
	call bios_main
2:	cli
	hlt
	jmp 2b

/* void outb(uint16_t port, uint8_t v); uint8_t inb(uint16_t port) */
	.globl outb, inb
outb:
	movl 4(%esp), %edx
	movl 8(%esp), %eax
	outb %al, %dx
	ret
inb:
	movl 4(%esp), %edx
	xorl %eax, %eax
	inb %dx, %al
	ret

	.section .note.GNU-stack, "", @progbits
