/* IDT management on the target (SDM Vol. 3A 6.14.1: 16-byte 64-bit gates). */
#include "../apic/idt.h"
#include "../apic/isr.h"
#include "../lib/str.h"
#include "../pmu/hw.h"
#include "../pmu/percpu.h"

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

extern char isr_stub_0[], isr_stub_1[], isr_stub_2[], isr_stub_3[], isr_stub_4[], isr_stub_5[],
    isr_stub_6[], isr_stub_7[], isr_stub_8[], isr_stub_9[], isr_stub_10[], isr_stub_11[],
    isr_stub_12[], isr_stub_13[], isr_stub_14[], isr_stub_15[], isr_stub_16[], isr_stub_17[],
    isr_stub_18[], isr_stub_19[], isr_stub_20[], isr_stub_21[], isr_stub_0xee[], isr_stub_0xef[];
/* The PMI's class below our two vectors: claimed only while the PMI service
 * is armed (idt_claim). Their stubs are 16 bytes apart (x86/entry.S). */
extern char isr_claim_stubs[];
#define CLAIM_FIRST 0xe0u
#define CLAIM_N	    14u
#define CLAIM_STUB  16u

static char *const exception_stubs[N_EXCEPTIONS] = {
    isr_stub_0,	 isr_stub_1,  isr_stub_2,  isr_stub_3,	isr_stub_4,  isr_stub_5,
    isr_stub_6,	 isr_stub_7,  isr_stub_8,  isr_stub_9,	isr_stub_10, isr_stub_11,
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

/* One table for every CPU: built once, by the first idt_install (on the
 * boot CPU, before any other CPU runs), and never rebuilt, so no CPU
 * rewrites a gate another may be taking. What changes in it afterwards
 * (the PMI's class, the ring-3 gate) changes under gate_lock. */
static struct gate idt[IDT_GATES] __attribute__((aligned(16)));
static volatile bool built;
/* The firmware IDTR the table was copied from: the boot CPU's. */
static struct idtr table_src;

/* Per CPU (pmu/percpu.h): the IDTR this CPU had before idt_install put
 * ours there. */
struct idt_cpu {
	struct idtr fw;
	bool installed;
};
static struct idt_cpu idt_cpu PMH_PERCPU;

/* The gates CPUs take over at once in a parallel run: each stays ours
 * while any CPU holds it (its PMI service armed, a ring-3 excursion); the
 * first holder writes it, the last one puts back what was there. */
static volatile int gate_lock;
static unsigned claims[CLAIM_N];
static unsigned user_holders, user_vector;
static struct gate user_saved; /* the gate idt_user_gate replaced */

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
	__asm__ volatile("sidt %0" : "=m"(*r));
}

static void load(struct idtr r)
{
	__asm__ volatile("lidt %0" : : "m"(r));
}

static struct idtr ours(void)
{
	return (struct idtr){.limit = sizeof(idt) - 1, .base = (uint64_t)(uintptr_t)idt};
}

static bool on_ours(void)
{
	struct idtr cur;

	idt_read(&cur);
	return cur.base == ours().base;
}

/* This CPU's state. A CPU that has our table loaded without its own
 * idt_install (idt_load_ap; a parallel run's block, which starts zeroed,
 * on a CPU that installed it before the run) takes the boot CPU's
 * firmware IDTR as its own, as an AP of a serial run always did. */
static struct idt_cpu *cpu(void)
{
	struct idt_cpu *c = &PCPU(idt_cpu);

	if (!c->installed && built && on_ours()) {
		c->fw = table_src;
		c->installed = true;
	}
	return c;
}

struct idtr idt_firmware(void)
{
	return cpu()->fw;
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

/* The table from the firmware's (fw, this CPU's), with our gates. */
static void build(const struct idtr *fw)
{
	size_t n = (size_t)fw->limit + 1;
	uint16_t cs;

	if (n > sizeof(idt))
		n = sizeof(idt);
	pmh_memcpy(idt, (const void *)(uintptr_t)fw->base, n);
	pmh_memset((char *)idt + n, 0, sizeof(idt) - n);
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	for (unsigned v = 0; v < N_EXCEPTIONS; v++)
		if (v != VEC_DB && v != VEC_BP)
			set_gate(v, exception_stubs[v], cs);
	set_gate(VEC_PMI, isr_stub_0xee, cs);
	set_gate(VEC_SPURIOUS_TEST, isr_stub_0xef, cs);
	table_src = *fw;
}

void idt_install(void)
{
	struct idt_cpu *c = cpu();

	if (c->installed)
		return;
	idt_read(&c->fw);
	gates_lock();
	if (!built) {
		build(&c->fw);
		built = true;
	}
	gates_unlock();
	load(ours());
	c->installed = true;
}

void idt_claim(unsigned vector, bool ours_now)
{
	uint16_t cs;
	unsigned k = vector - CLAIM_FIRST;

	if (!built || vector < CLAIM_FIRST || k >= CLAIM_N)
		return;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	/* An IDT gate written while the IDT is loaded takes effect at the
	 * next delivery. */
	gates_lock();
	if (ours_now) {
		if (claims[k]++ == 0)
			set_gate(vector, isr_claim_stubs + CLAIM_STUB * k, cs);
	} else if (claims[k] && --claims[k] == 0) {
		if (sizeof(struct gate) * (vector + 1ull) - 1 <= table_src.limit)
			/* the firmware's gate, as copied */
			idt[vector] = ((const struct gate *)(uintptr_t)table_src.base)[vector];
		else
			pmh_memset(&idt[vector], 0, sizeof(idt[vector]));
	}
	gates_unlock();
}

bool idt_user_gate(unsigned vector, void *stub)
{
	bool ok = true;
	uint16_t cs;

	if (!cpu()->installed || vector >= IDT_GATES || !on_ours())
		return false;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	gates_lock();
	if (user_holders && vector != user_vector) {
		ok = false; /* one ring-3 gate at a time */
	} else if (!stub) {
		if (user_holders && --user_holders == 0)
			idt[vector] = user_saved;
	} else if (user_holders++ == 0) {
		user_vector = vector;
		user_saved = idt[vector];
		set_gate(vector, stub, cs);
		idt[vector].type = GATE_USER;
	}
	gates_unlock();
	return ok;
}

void idt_load_ap(void)
{
	if (built)
		load(ours());
}

void idt_restore(void)
{
	struct idt_cpu *c = cpu();

	if (!c->installed)
		return;
	load(c->fw);
	c->installed = false;
}
