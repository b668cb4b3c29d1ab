/* IDT management on i386 (bios/; SDM Vol. 3A 6.11: 8-byte 32-bit gates).
 * A Multiboot kernel inherits no protected-mode IDT: ours is built from
 * scratch, and the IDTR found at start is what idt_restore puts back. */
#include "idt.h"
#include "isr.h"
#include "../lib/str.h"

struct gate32 {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t zero;
	uint8_t type;
	uint16_t off_hi;
} __attribute__((packed));

/* The frame apic/entry_i386.S builds: PUSHAL's registers, the stub's
 * vector and error code, then the CPU's EIP, CS and EFLAGS (ESP/SS follow
 * only after a privilege change, from CPL 3: SDM Vol. 3A 6.12.1). */
struct frame32 {
	uint32_t edi, esi, ebp, esp_pushal, ebx, edx, ecx, eax;
	uint32_t vector, error;
	uint32_t eip, cs, eflags;
};

#define IDT_GATES 256
/* Present, DPL 0, 32-bit interrupt gate (SDM Vol. 3A 6.11). */
#define GATE32_INTERRUPT 0x8e
/* The same with DPL 3: INT n at CPL 3 may take it (SDM Vol. 3A 6.12.1.1). */
#define GATE32_USER 0xee
/* Vectors 0-21, the exceptions the SDM defines, have stubs; no debugger
 * owns #DB or #BP here, so every one is ours. */
#define N_EXCEPTIONS 22
#define CLAIM_FIRST 0xe0u
#define CLAIM_N 14u

static struct gate32 idt[IDT_GATES] __attribute__((aligned(16)));
static struct idtr start_idtr, our_idtr;
static int installed;
static struct gate32 user_saved; /* the gate idt_user_gate replaced */

/* apic/entry_i386.S: the exception stubs 16 bytes apart, then the PMI's
 * class, then our two vectors. */
extern char isr_exc_stubs[], isr_claim_stubs[], isr_stub_0xee[], isr_stub_0xef[];
#define STUB_BYTES 16u

struct fixup32 {
	uint32_t insn, fix;
};
extern const struct fixup32 __start_pmh_fixup[], __stop_pmh_fixup[];

uint64_t isr_fixup_for(uint64_t rip)
{
	/* cppcheck-suppress comparePointers ; the linker places both in one section */
	for (const struct fixup32 *e = __start_pmh_fixup; e < __stop_pmh_fixup; e++)
		if (e->insn == rip)
			return e->fix;
	return 0;
}

void isr_frame_i386(struct frame32 *k);
void isr_frame_i386(struct frame32 *k)
{
	struct int_frame f = {
		.rax = k->eax, .rbx = k->ebx, .rcx = k->ecx, .rdx = k->edx,
		.rsi = k->esi, .rdi = k->edi, .rbp = k->ebp,
		.vector = k->vector, .error = k->error,
		.rip = k->eip, .cs = k->cs, .rflags = k->eflags,
		.rsp = (uint32_t)(uintptr_t)(k + 1), /* the interrupted ESP */
	};

	isr_dispatch(&f);
	k->eax = (uint32_t)f.rax;
	k->ebx = (uint32_t)f.rbx;
	k->ecx = (uint32_t)f.rcx;
	k->edx = (uint32_t)f.rdx;
	k->esi = (uint32_t)f.rsi;
	k->edi = (uint32_t)f.rdi;
	k->ebp = (uint32_t)f.rbp;
	k->eip = (uint32_t)f.rip;
	k->cs = (uint32_t)f.cs; /* the ring-3 fault hook lands at CPL 0 (apic/isr.c) */
	k->eflags = (uint32_t)f.rflags;
}

void idt_read(struct idtr *r)
{
	pmh_memset(r, 0, sizeof(*r)); /* SIDT stores a 32-bit base here */
	__asm__ volatile("sidt %0" : "=m"(*r));
}

struct idtr idt_firmware(void)
{
	return start_idtr;
}

static void load_idtr(const struct idtr *r)
{
	__asm__ volatile("lidt %0" : : "m"(*r));
}

static void set_gate32(unsigned v, void *fn)
{
	uint32_t a = (uint32_t)(uintptr_t)fn;
	uint16_t cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	idt[v].off_lo = (uint16_t)a;
	idt[v].sel = cs;
	idt[v].zero = 0;
	idt[v].type = GATE32_INTERRUPT;
	idt[v].off_hi = (uint16_t)(a >> 16);
}

void idt_install(void)
{
	if (installed)
		return;
	idt_read(&start_idtr);
	for (unsigned v = 0; v < N_EXCEPTIONS; v++)
		set_gate32(v, isr_exc_stubs + STUB_BYTES * v);
	set_gate32(VEC_PMI, isr_stub_0xee);
	set_gate32(VEC_SPURIOUS_TEST, isr_stub_0xef);
	pmh_memset(&our_idtr, 0, sizeof(our_idtr));
	our_idtr.limit = sizeof(idt) - 1;
	our_idtr.base = (uint32_t)(uintptr_t)idt;
	load_idtr(&our_idtr);
	installed = 1;
}

void idt_claim(unsigned vector, bool ours)
{
	unsigned k = vector - CLAIM_FIRST;

	if (!installed || vector < CLAIM_FIRST || k >= CLAIM_N)
		return;
	if (ours)
		set_gate32(vector, isr_claim_stubs + STUB_BYTES * k);
	else
		pmh_memset(&idt[vector], 0, sizeof(idt[vector])); /* no firmware gate */
}

bool idt_user_gate(unsigned vector, void *stub)
{
	struct idtr cur;

	idt_read(&cur);
	if (!installed || vector >= IDT_GATES || cur.base != our_idtr.base)
		return false;
	if (!stub) {
		idt[vector] = user_saved;
		return true;
	}
	user_saved = idt[vector];
	set_gate32(vector, stub);
	idt[vector].type = GATE32_USER;
	return true;
}

void idt_load_ap(void)
{
	if (installed)
		load_idtr(&our_idtr);
}

void idt_restore(void)
{
	if (installed)
		load_idtr(&start_idtr);
	installed = 0;
}
