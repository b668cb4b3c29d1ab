/* Multiboot v1 entry (Multiboot Specification 0.6.96 §3.1): the loader
 * jumps here in 32-bit protected mode, paging off, EAX = the magic, EBX =
 * the information structure. We load our own flat GDT (the loader's is
 * not ours to keep), check that the machine can run the C code (an
 * i686-class CPU, the memory for the image), then a stack, and call
 * bios_main(magic, info). */

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
	movl %eax, %esi			/* the magic and info, kept over the checks */
	movl %ebx, %edi
	lgdt gdt_desc
	ljmp $SEL_CODE, $1f
1:	movw $SEL_DATA, %cx
	movw %cx, %ds
	movw %cx, %es
	movw %cx, %fs
	movw %cx, %gs
	movw %cx, %ss
	/* The checks' stack is in .data, which the loader fills from the
	 * file: .bss may lie past the end of a small machine's RAM. */
	movl $early_stack_top, %esp
	call early_cpu_check
	call early_mem_check
	movl $stack_top, %esp
	pushl %edi
	pushl %esi
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

/* ---- before any C: what the compiler's code needs ------------------------
 * Plain i386 instructions only (the C is built with -march=i686 and may
 * use CMOV anywhere), COM1 and the VGA text buffer written directly, and
 * no IDT yet: a fault here would reset the machine without a word. */

/* EFLAGS.ID: CPUID exists where software can flip it (Intel SDM Vol. 1
 * 20.1.2, Vol. 2A CPUID); CPUID.1:EDX bit 15 CMOV (Vol. 2A, Table 3-11). */
#define EFLAGS_ID (1 << 21)
#define CPUID_CMOV (1 << 15)
/* Multiboot 0.6.96 §3.3: the loader's magic in EAX, info flags bit 0 for
 * mem_upper (KiB of memory from 1 MiB to the first hole) at offset 8. */
#define MB_LOADER_MAGIC 0x2BADB002
#define MB_INFO_MEM 1
#define MB_MEM_UPPER 8
#define IMAGE_BASE 0x100000
/* COM1 at 115200 8N1 (PC16550D data sheet), as pc/console.c sets it. */
#define COM1 0x3f8
#define UART_POLLS 100000
#define VGA_TEXT 0xb8000
#define VGA_CELLS (80 * 25)
#define VGA_ATTR 0x4f			/* white on red: the machine stops here */

	.data
	.balign 4
early_stack:	.skip 256
early_stack_top:
early_vga:	.long 0			/* the next cell, 0 to VGA_CELLS */
early_vendor:	.skip 13		/* CPUID.0's vendor string, NUL-terminated */
msg_need:	.asciz "pmuharness needs an i686-class CPU (CMOV): this CPU "
msg_nocpuid:	.asciz "has no CPUID instruction (a 386 or an early 486)"
msg_cpu:	.asciz "("
msg_family:	.asciz ", family "
msg_nocmov:	.asciz ") has no CMOV (CPUID.1:EDX bit 15 clear)"
msg_halt:	.asciz "; halted\n"
msg_mem1:	.asciz "pmuharness needs "
msg_mem2:	.asciz " KiB of memory above 1 MiB for its image (code, data, stack and "
msg_mem3:	.asciz "4 MiB heap): this machine has "
msg_mem4:	.asciz " KiB (Multiboot mem_upper)"

	.text
/* Returns where CPUID says CMOV is there; says why not and halts otherwise. */
early_cpu_check:
	pushfl
	popl %eax
	movl %eax, %ecx
	xorl $EFLAGS_ID, %eax
	pushl %eax
	popfl
	pushfl
	popl %eax
	pushl %ecx
	popfl
	xorl %ecx, %eax
	testl $EFLAGS_ID, %eax
	jnz 1f
	call early_con_init
	movl $msg_need, %esi
	call early_puts
	movl $msg_nocpuid, %esi
	call early_puts
	jmp early_halt
1:	xorl %eax, %eax
	cpuid
	movl %ebx, early_vendor
	movl %edx, early_vendor + 4
	movl %ecx, early_vendor + 8
	xorl %edx, %edx			/* no leaf 1: no CMOV, family 0 */
	testl %eax, %eax
	jz 2f
	movl $1, %eax
	cpuid
	testl $CPUID_CMOV, %edx
	jz 2f
	ret
2:	pushl %eax
	call early_con_init
	movl $msg_need, %esi
	call early_puts
	movl $msg_cpu, %esi
	call early_puts
	movl $early_vendor, %esi
	call early_puts
	movl $msg_family, %esi
	call early_puts
	popl %eax
	shrl $8, %eax			/* CPUID.1:EAX bits 11:8, the family */
	andl $0xf, %eax
	call early_putdec
	movl $msg_nocmov, %esi
	call early_puts
	jmp early_halt

/* Returns where the loader says the image fits below the first hole above
 * 1 MiB (or says nothing); says what it needs and halts otherwise: past
 * RAM the stack and .bss read back junk and the kernel hangs. */
early_mem_check:
	cmpl $MB_LOADER_MAGIC, %esi
	jne 1f
	testl $MB_INFO_MEM, (%edi)
	jz 1f
	movl $(early_image_end - IMAGE_BASE + 1023), %eax
	shrl $10, %eax
	cmpl MB_MEM_UPPER(%edi), %eax
	ja 2f
1:	ret
2:	pushl %eax
	call early_con_init
	movl $msg_mem1, %esi
	call early_puts
	popl %eax
	call early_putdec
	movl $msg_mem2, %esi
	call early_puts
	movl $msg_mem3, %esi
	call early_puts
	movl MB_MEM_UPPER(%edi), %eax
	call early_putdec
	movl $msg_mem4, %esi
	call early_puts
	/* fallthrough */
early_halt:
	movl $msg_halt, %esi
	call early_puts
3:	cli
	hlt
	jmp 3b

/* COM1 at 115200 8N1 and a cleared screen. */
early_con_init:
	movw $COM1 + 1, %dx
	xorb %al, %al
	outb %al, %dx			/* IER: no interrupts */
	movw $COM1 + 3, %dx
	movb $0x80, %al
	outb %al, %dx			/* LCR: DLAB */
	movw $COM1, %dx
	movb $1, %al
	outb %al, %dx			/* divisor 1: 115200 baud */
	movw $COM1 + 1, %dx
	xorb %al, %al
	outb %al, %dx
	movw $COM1 + 3, %dx
	movb $0x03, %al
	outb %al, %dx			/* LCR: 8N1 */
	movw $COM1 + 2, %dx
	movb $0xc7, %al
	outb %al, %dx			/* FCR: FIFOs on and cleared */
	movw $COM1 + 4, %dx
	movb $0x03, %al
	outb %al, %dx			/* MCR: DTR, RTS */
	pushl %edi			/* the Multiboot info */
	movl $VGA_TEXT, %edi
	movl $VGA_CELLS, %ecx
	movw $(VGA_ATTR << 8 | ' '), %ax
	rep stosw
	popl %edi
	movl $0, early_vga
	ret

/* The NUL-terminated string at ESI to COM1 (LF as CR LF) and the screen. */
early_puts:
	lodsb
	testb %al, %al
	jz 2f
	cmpb $'\n', %al
	jne 1f
	movb $'\r', %al
	call early_com1
	movb $'\n', %al
1:	call early_com1
	call early_vga_putc
	jmp early_puts
2:	ret

/* AL to COM1; a missing UART never says it is ready: bounded. */
early_com1:
	pushl %eax
	movl $UART_POLLS, %ecx
	movw $COM1 + 5, %dx
1:	inb %dx, %al
	testb $0x20, %al		/* LSR: transmit holding register empty */
	jnz 2f
	loop 1b
2:	popl %eax
	movw $COM1, %dx
	outb %al, %dx
	ret

/* AL into the next cell (LF: the next row's start), up to the screen's end. */
early_vga_putc:
	movl early_vga, %ecx
	cmpl $VGA_CELLS, %ecx
	jae 2f
	cmpb $'\n', %al
	je 1f
	movb %al, VGA_TEXT(,%ecx,2)
	movb $VGA_ATTR, VGA_TEXT + 1(,%ecx,2)
	incl early_vga
	ret
1:	pushl %eax
	pushl %edx
	movl %ecx, %eax
	xorl %edx, %edx
	movl $80, %ecx
	divl %ecx
	incl %eax
	mull %ecx
	movl %eax, early_vga
	popl %edx
	popl %eax
2:	ret

/* EAX in decimal. */
early_putdec:
	pushl %esi
	movl $10, %ecx
	subl $12, %esp
	leal 11(%esp), %esi
	movb $0, (%esi)
1:	xorl %edx, %edx
	divl %ecx
	addb $'0', %dl
	decl %esi
	movb %dl, (%esi)
	testl %eax, %eax
	jnz 1b
	call early_puts
	addl $12, %esp
	popl %esi
	ret

/* The image's end: bios/kernel.lds puts this section last, after .bss. */
	.section .image_end, "aw", @nobits
early_image_end:

	.section .note.GNU-stack, "", @progbits
