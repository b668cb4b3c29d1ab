/* IDT management on i386 (bios/; SDM Vol. 3A 6.11: 8-byte 32-bit gates).
 * A Multiboot kernel inherits no protected-mode IDT: ours is built from
 * scratch, and the IDTR found at start is what idt_restore puts back. */
#include "../apic/idt.h"
#include "../apic/isr.h"
#include "../lib/str.h"
#include "../pmu/hw.h"
#include "../pmu/percpu.h"

struct gate32 {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t zero;
	uint8_t type;
	uint16_t off_hi;
} __attribute__((packed));

/* The frame x86/entry_i386.S builds: PUSHAL's registers, the stub's
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
#define CLAIM_FIRST  0xe0u
#define CLAIM_N	     14u

/* x86/entry_i386.S: the exception stubs 16 bytes apart, then the PMI's
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
	    .rax = k->eax,
	    .rbx = k->ebx,
	    .rcx = k->ecx,
	    .rdx = k->edx,
	    .rsi = k->esi,
	    .rdi = k->edi,
	    .rbp = k->ebp,
	    .vector = k->vector,
	    .error = k->error,
	    .rip = k->eip,
	    .cs = k->cs,
	    .rflags = k->eflags,
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

/* One table for every CPU: built once, by the first idt_install (on the
 * boot CPU, before any other CPU runs), and never rebuilt, so no CPU
 * rewrites a gate another may be taking. What changes in it afterwards
 * (the PMI's class, the ring-3 gate) changes under gate_lock. */
static struct gate32 idt[IDT_GATES] __attribute__((aligned(16)));
static volatile bool built;
static struct idtr boot_start; /* the IDTR of the CPU that built it: the boot CPU's */

/* Per CPU (pmu/percpu.h): the IDTR this CPU had before idt_install put
 * ours there. */
struct idt_cpu {
	struct idtr start;
	bool installed;
};
static struct idt_cpu idt_cpu PMH_PERCPU;

/* The gates CPUs take over at once in a parallel run: each stays ours
 * while any CPU holds it (its PMI service armed, a ring-3 excursion); the
 * first holder writes it, the last one puts back what was there. */
static volatile int gate_lock;
static unsigned claims[CLAIM_N];
static unsigned user_holders, user_vector;
static struct gate32 user_saved; /* the gate idt_user_gate replaced */

static void gates_lock(void)
{
	while (__atomic_exchange_n(&gate_lock, 1, __ATOMIC_ACQUIRE))
		hw_relax();
}

static void gates_unlock(void)
{
	__atomic_store_n(&gate_lock, 0, __ATOMIC_RELEASE);
}

void idt_read(struct idtr *r)
{
	pmh_memset(r, 0, sizeof(*r)); /* SIDT stores a 32-bit base here */
	__asm__ volatile("sidt %0" : "=m"(*r));
}

static void load_idtr(const struct idtr *r)
{
	__asm__ volatile("lidt %0" : : "m"(*r));
}

static struct idtr ours(void)
{
	return (struct idtr){.limit = sizeof(idt) - 1, .base = (uint32_t)(uintptr_t)idt};
}

static bool on_ours(void)
{
	struct idtr cur;

	idt_read(&cur);
	return cur.base == ours().base;
}

/* This CPU's state. A CPU that has our table loaded without its own
 * idt_install (idt_load_ap; a parallel run's block, which starts zeroed,
 * on a CPU that installed it before the run) takes the boot CPU's IDTR at
 * start as its own, as an AP of a serial run always did. */
static struct idt_cpu *cpu(void)
{
	struct idt_cpu *c = &PCPU(idt_cpu);

	if (!c->installed && built && on_ours()) {
		c->start = boot_start;
		c->installed = true;
	}
	return c;
}

struct idtr idt_firmware(void)
{
	return cpu()->start;
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
	struct idt_cpu *c = cpu();
	struct idtr r = ours();

	if (c->installed)
		return;
	idt_read(&c->start);
	gates_lock();
	if (!built) {
		for (unsigned v = 0; v < N_EXCEPTIONS; v++)
			set_gate32(v, isr_exc_stubs + STUB_BYTES * v);
		set_gate32(VEC_PMI, isr_stub_0xee);
		set_gate32(VEC_SPURIOUS_TEST, isr_stub_0xef);
		boot_start = c->start;
		built = true;
	}
	gates_unlock();
	load_idtr(&r);
	c->installed = true;
}

void idt_claim(unsigned vector, bool ours_now)
{
	unsigned k = vector - CLAIM_FIRST;

	if (!built || vector < CLAIM_FIRST || k >= CLAIM_N)
		return;
	gates_lock();
	if (ours_now) {
		if (claims[k]++ == 0)
			set_gate32(vector, isr_claim_stubs + STUB_BYTES * k);
	} else if (claims[k] && --claims[k] == 0) {
		pmh_memset(&idt[vector], 0, sizeof(idt[vector])); /* no firmware gate */
	}
	gates_unlock();
}

bool idt_user_gate(unsigned vector, void *stub)
{
	bool ok = true;

	if (!cpu()->installed || vector >= IDT_GATES || !on_ours())
		return false;
	gates_lock();
	if (user_holders && vector != user_vector) {
		ok = false; /* one ring-3 gate at a time */
	} else if (!stub) {
		if (user_holders && --user_holders == 0)
			idt[vector] = user_saved;
	} else if (user_holders++ == 0) {
		user_vector = vector;
		user_saved = idt[vector];
		set_gate32(vector, stub);
		idt[vector].type = GATE32_USER;
	}
	gates_unlock();
	return ok;
}

void idt_load_ap(void)
{
	struct idtr r = ours();

	if (built)
		load_idtr(&r);
}

void idt_restore(void)
{
	struct idt_cpu *c = cpu();

	if (c->installed)
		load_idtr(&c->start);
	c->installed = false;
}
