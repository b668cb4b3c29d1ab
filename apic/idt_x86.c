/* IDT management on the target (SDM Vol. 3A 6.14.1: 16-byte 64-bit gates). */
#include "idt.h"
#include "isr.h"
#include "../lib/str.h"

struct gate {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __attribute__((packed));

#define IDT_GATES 256
/* Present, DPL 0, 64-bit interrupt gate (SDM Vol. 3A 6.14.1). */
#define GATE_INTERRUPT 0x8e
/* The same with DPL 3: INT n at CPL 3 may take it (SDM Vol. 3A 6.12.1.1). */
#define GATE_USER 0xee
/* Vectors 0-21, the exceptions the SDM defines, have stubs in entry.S. */
#define N_EXCEPTIONS 22
/* #DB and #BP stay the firmware's (and a debugger's). */
#define VEC_DB 1
#define VEC_BP 3

static struct gate idt[IDT_GATES] __attribute__((aligned(16)));
static struct idtr fw_idtr, our_idtr;
static int installed;
static struct gate user_saved; /* the gate idt_user_gate replaced */

extern char isr_stub_0[], isr_stub_1[], isr_stub_2[], isr_stub_3[], isr_stub_4[],
	isr_stub_5[], isr_stub_6[], isr_stub_7[], isr_stub_8[], isr_stub_9[], isr_stub_10[],
	isr_stub_11[], isr_stub_12[], isr_stub_13[], isr_stub_14[], isr_stub_15[],
	isr_stub_16[], isr_stub_17[], isr_stub_18[], isr_stub_19[], isr_stub_20[],
	isr_stub_21[], isr_stub_0xee[], isr_stub_0xef[];
/* The PMI's class below our two vectors: claimed only while the PMI service
 * is armed (idt_claim). Their stubs are 16 bytes apart (apic/entry.S). */
extern char isr_claim_stubs[];
#define CLAIM_FIRST 0xe0u
#define CLAIM_N 14u
#define CLAIM_STUB 16u

static char *const exception_stubs[N_EXCEPTIONS] = {
	isr_stub_0,  isr_stub_1,  isr_stub_2,  isr_stub_3,  isr_stub_4,	 isr_stub_5,
	isr_stub_6,  isr_stub_7,  isr_stub_8,  isr_stub_9,  isr_stub_10, isr_stub_11,
	isr_stub_12, isr_stub_13, isr_stub_14, isr_stub_15, isr_stub_16, isr_stub_17,
	isr_stub_18, isr_stub_19, isr_stub_20, isr_stub_21,
};

struct fixup {
	int32_t insn, fix;
};
extern const struct fixup __start_pmh_fixup[], __stop_pmh_fixup[];

uint64_t isr_fixup_for(uint64_t rip)
{
	/* cppcheck-suppress comparePointers ; the linker places both in one section */
	for (const struct fixup *e = __start_pmh_fixup; e < __stop_pmh_fixup; e++) {
		uint64_t here = (uint64_t)(uintptr_t)e;
		if (here + (uint64_t)(int64_t)e->insn == rip)
			return (uint64_t)(uintptr_t)&e->fix + (uint64_t)(int64_t)e->fix;
	}
	return 0;
}

void idt_read(struct idtr *r)
{
	__asm__ volatile("sidt %0" : "=m"(*r));
}

struct idtr idt_firmware(void)
{
	return fw_idtr;
}

static void set_gate(unsigned v, void *fn, uint16_t cs)
{
	uint64_t a = (uint64_t)(uintptr_t)fn;
	idt[v].off_lo = (uint16_t)a;
	idt[v].sel = cs;
	idt[v].ist = 0;
	idt[v].type = GATE_INTERRUPT;
	idt[v].off_mid = (uint16_t)(a >> 16);
	idt[v].off_hi = (uint32_t)(a >> 32);
	idt[v].zero = 0;
}

void idt_install(void)
{
	uint16_t cs;
	size_t n;

	if (installed)
		return;
	idt_read(&fw_idtr);
	n = (size_t)fw_idtr.limit + 1;
	if (n > sizeof(idt))
		n = sizeof(idt);
	/* Copy, then clear only the tail: a rebuild on an AP (idt.restore
	 * there) must never zero a gate the waiting BSP may take. */
	pmh_memcpy(idt, (const void *)(uintptr_t)fw_idtr.base, n);
	pmh_memset((char *)idt + n, 0, sizeof(idt) - n);
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	for (unsigned v = 0; v < N_EXCEPTIONS; v++)
		if (v != VEC_DB && v != VEC_BP)
			set_gate(v, exception_stubs[v], cs);
	set_gate(VEC_PMI, isr_stub_0xee, cs);
	set_gate(VEC_SPURIOUS_TEST, isr_stub_0xef, cs);
	our_idtr.limit = sizeof(idt) - 1;
	our_idtr.base = (uint64_t)(uintptr_t)idt;
	__asm__ volatile("lidt %0" : : "m"(our_idtr));
	installed = 1;
}

void idt_claim(unsigned vector, bool ours)
{
	uint16_t cs;
	unsigned k = vector - CLAIM_FIRST;

	if (!installed || vector < CLAIM_FIRST || k >= CLAIM_N)
		return;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	/* One CPU runs the harness at a time; an IDT gate written while the
	 * IDT is loaded takes effect at the next delivery. */
	if (ours)
		set_gate(vector, isr_claim_stubs + CLAIM_STUB * k, cs);
	else if (sizeof(struct gate) * (vector + 1ull) - 1 <= fw_idtr.limit)
		/* the firmware's gate, as copied */
		idt[vector] = ((const struct gate *)(uintptr_t)fw_idtr.base)[vector];
	else
		pmh_memset(&idt[vector], 0, sizeof(idt[vector]));
}

bool idt_user_gate(unsigned vector, void *stub)
{
	struct idtr cur;
	uint16_t cs;

	idt_read(&cur);
	if (!installed || vector >= IDT_GATES || cur.base != our_idtr.base)
		return false;
	if (!stub) {
		idt[vector] = user_saved;
		return true;
	}
	user_saved = idt[vector];
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	set_gate(vector, stub, cs);
	idt[vector].type = GATE_USER;
	return true;
}

void idt_load_ap(void)
{
	if (installed)
		__asm__ volatile("lidt %0" : : "m"(our_idtr));
}

void idt_restore(void)
{
	if (!installed)
		return;
	__asm__ volatile("lidt %0" : : "m"(fw_idtr));
	installed = 0;
}
