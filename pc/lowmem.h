/* The kernel's GDT selectors and the low-memory map below 1 MiB, shared by
 * the C files and the assembly of pc/ and bios/ (one place for each
 * address; bios/lowmem.h adds the real-mode thunk's). */
#ifndef PMH_PC_LOWMEM_H
#define PMH_PC_LOWMEM_H
/* clang-format off */
/* (assembly macros below: clang-format would join their lines) */

/* Flat 4 GiB ring-0 code and data (SDM Vol. 3A 3.4.5), bios/entry32.S's
 * GDT; bios/realmode.S's own GDT keeps them at the same numbers and adds
 * 64 KiB 16-bit code and data for the way down to real mode. */
#define SEL_CODE 0x08
#define SEL_DATA 0x10
#define SEL_CODE16 0x18
#define SEL_DATA16 0x20

/* CR0.PE: protected mode on (SDM Vol. 3A 2.5). */
#define CR0_PE 1

/* Free conventional memory (0x500-0x7BFF) and what sits above it: the
 * real-mode thunk below (bios/lowmem.h); the AP trampoline (trampoline.S)
 * at TRAMP_BASE, a 4 KiB page a SIPI can name; QEMU's Multiboot data from
 * 0x9000. */
#define TRAMP_BASE 0x8000

/* The trampoline's own APIC ID: the xAPIC ID register, the ID in bits
 * 31:24 (SDM Vol. 3A 11.4.6); and one slot of pc/mp.c's table per ID,
 * the stack top and the argument, 32 bits each. */
#define XAPIC_ID_REG 0x20
#define XAPIC_ID_SHIFT 24
#define TRAMP_SLOT_BYTES 8
#define TRAMP_SLOTS 256 /* 8-bit xAPIC IDs */

#ifdef __ASSEMBLER__
/* All data segment registers and SS to one selector (through AX). */
.macro load_data_segments sel
	movw $\sel, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
.endm
#endif

/* clang-format on */
#endif
