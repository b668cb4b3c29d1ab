/* Ring 3 on the targets (pmu/hw.h "Ring 3"): x86-64 under UEFI and i386
 * under bios/. An excursion loads a GDT that copies the current one (so
 * every selector in use stays valid) and appends user data, user code and a
 * TSS whose RSP0 (ESP0) is the harness's own stack, enters CPL 3 by IRET
 * with IF and IOPL 0 (x86/user_*.S) and comes back by INT HW_USER_VECTOR
 * through a DPL-3 gate, or by an exception, which isr_dispatch hands to
 * user_fault. Then the GDTR, TR, CR3, CR4 and the gate are put back.
 *
 * TR: where the firmware had one, its TSS descriptor's busy bit is cleared
 * and LTR reloads it (LTR takes only an available TSS: SDM Vol. 2A LTR).
 * Where TR was 0 it cannot be put back (LTR of a null selector is #GP): the
 * harness's TSS stays loaded, its selector past the firmware GDT's limit,
 * and hw_cpu_tables shows it. The CPU uses a TSS only on a privilege change
 * or an IST gate (SDM Vol. 3A 7.7), neither of which CPL-0 firmware without
 * a TR of its own can take.
 *
 * Several CPUs at once (a parallel per-CPU run): the GDT, TSS, CPL 3's
 * stack, the context and the page tables are each CPU's own (PMH_PERCPU,
 * pmu/percpu.h; RSP0 is the CPU's own stack at the excursion). What the
 * CPUs share, the DPL-3 gate of our one IDT, the CPL-3 fault hook and
 * x86/user_x86.S's pointer to the excursion's context, allows one CPU at
 * CPL 3 at a time: the time at CPL 3 is taken under a lock (excl_lock). */
#include "hw_user.h"
#include "../events/workload.h"
#include "../apic/idt.h"
#include "../apic/isr.h"
#include "../lib/str.h"
#include "../pmu/percpu.h"

_Static_assert(HW_USER_VECTOR == 0x81, "x86/user_*.S raise INT 0x81");

/* Segment descriptors (SDM Vol. 3A 3.4.5, 5.2.1): base 0, limit 4 GiB, DPL
 * 3; code execute/read (64-bit: L = 1, D = 0), data read/write. */
#ifdef __i386__
#define DESC_USER_CODE 0x00cffa000000ffffull
#define TSS_SLOTS      1
#else
#define DESC_USER_CODE 0x00affa000000ffffull
#define TSS_SLOTS      2 /* a 16-byte system descriptor (SDM Vol. 3A 7.2.3) */
#endif
#define DESC_USER_DATA 0x00cff2000000ffffull
#define DESC_TSS       0x89ull	    /* present, DPL 0, available TSS (type 9) */
#define DESC_BUSY      (1ull << 41) /* type 9 -> 0xB (SDM Vol. 3A 7.2.2) */
#define DESC_TYPE(d)   (((d) >> 40) & 0xf)
/* Descriptors of the current GDT copied; a larger one: HW_UNSUPPORTED. */
#define GDT_COPY_MAX 128
#define RPL3	     3u
/* RFLAGS with IF (and every other flag) clear; bit 1 reads as 1 (SDM
 * Vol. 1 3.4.3). */
#define RFLAGS_FIXED 0x2u
/* CR0.WP and the CR4 bits the excursion changes (SDM Vol. 3A 2.5). */
#define CR0_WP	 (1ul << 16)
#define CR4_PCE	 (1ul << 8)
#define CR4_PGE	 (1ul << 7)
#define CR4_SMEP (1ul << 20)
#define CR4_SMAP (1ul << 21)
/* CPL 3's stack, and how much of a kernel's code and buffer it touches:
 * every WL_MEM_NONE kernel of x86/workload.S is under 512 bytes, its
 * buffer one line, or FNSAVE's 108 bytes for wl_x87. */
#define USER_STACK  1024
#define KERNEL_SPAN 512u
#define BUF_SPAN    128u

/* The descriptor-table registers as SGDT/SIDT store them (6 bytes on
 * i386: the base's upper half stays 0). */
struct dtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#ifdef __i386__
/* The 32-bit TSS (SDM Vol. 3A 7.2.1). */
struct tss {
	uint32_t link, rsp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap;
};
#else
/* The 64-bit TSS (SDM Vol. 3A 7.7). */
struct tss {
	uint32_t rsvd0;
	uint64_t rsp0, rsp1, rsp2, rsvd1, ist[7], rsvd2;
	uint16_t rsvd3, iomap;
} __attribute__((packed));
#endif
_Static_assert(sizeof(struct tss) == 104, "the architectural TSS size");

/* One CPU's excursion tables: zeroed at the start (pmu/percpu.h), filled by
 * each excursion. A per-CPU copy keeps the alignments (up to 64 bytes). */
struct user_cpu {
	uint64_t gdt[GDT_COPY_MAX + 2 + TSS_SLOTS] __attribute__((aligned(16)));
	struct tss tss __attribute__((aligned(16)));
	uint8_t stack[USER_STACK] __attribute__((aligned(64)));
	struct user_ctx ctx;
};
static struct user_cpu user_cpu PMH_PERCPU __attribute__((aligned(64)));
#define UC (&PCPU(user_cpu))

/* The one CPU at CPL 3 (the file's comment); interrupts are off while it
 * is held. */
static char excl;

static void excl_lock(void)
{
	while (__atomic_test_and_set(&excl, __ATOMIC_ACQUIRE))
		hw_relax();
}

static void excl_unlock(void)
{
	__atomic_clear(&excl, __ATOMIC_RELEASE);
}

/* What an excursion changes, as it found it. */
struct excursion {
	struct dtr gdtr, ours;
	uint16_t tr, tss_sel;
	unsigned long cr4;
	struct hw_paging pg, user_pg;
	bool irq;
};

static unsigned long cr0_read(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static void cr0_write(unsigned long v)
{
	__asm__ volatile("mov %0, %%cr0" ::"r"(v) : "memory");
}

static unsigned long cr4_read(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/* Only when it changes: a CR4 without a bit the CPU lacks stays untouched. */
static void cr4_write(unsigned long v)
{
	if (v != cr4_read())
		__asm__ volatile("mov %0, %%cr4" ::"r"(v) : "memory");
}

static void sgdt(struct dtr *d)
{
	pmh_memset(d, 0, sizeof(*d));
	__asm__ volatile("sgdt %0" : "=m"(*d));
}

static uint16_t str(void)
{
	uint16_t v;
	__asm__ volatile("str %0" : "=r"(v));
	return v;
}

static void lgdt_ltr(const struct dtr *d, uint16_t tr)
{
	__asm__ volatile("lgdt %0" ::"m"(*d) : "memory");
	if (tr)
		__asm__ volatile("ltr %0" ::"r"(tr) : "memory");
}

/* Whether selector tr names an available or busy TSS descriptor of the
 * GDT g (SDM Vol. 3A 7.2.2): what LTR can load. */
static bool tss_in(const struct dtr *g, uint16_t tr)
{
	uint32_t at = tr & ~7u;
	uint64_t d;

	if (!tr || (tr & 4) || at + 7 > g->limit)
		return false;
	d = *(const volatile uint64_t *)(uintptr_t)(g->base + at);
	return DESC_TYPE(d) == 0x9 || DESC_TYPE(d) == 0xb;
}

void hw_cpu_tables(struct hw_cpu_tables *t)
{
	struct dtr g, i;
	unsigned long cr3;

	sgdt(&g);
	pmh_memset(&i, 0, sizeof(i));
	__asm__ volatile("sidt %0" : "=m"(i));
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	t->gdt_base = g.base;
	t->gdt_limit = g.limit;
	t->idt_base = i.base;
	t->idt_limit = i.limit;
	t->tr = str();
	t->tr_tss = tss_in(&g, t->tr);
	t->cr3 = cr3;
	t->cr4 = cr4_read();
}

/* The TSS descriptor of tss at d (SDM Vol. 3A 7.2.2, 7.2.3). */
static void tss_desc(uint64_t *d, const struct tss *tss)
{
	uint64_t b = (uint64_t)(uintptr_t)tss, lim = sizeof(*tss) - 1;

	d[0] = (lim & 0xffff) | (b & 0xffffff) << 16 | DESC_TSS << 40 | (lim >> 16 & 0xf) << 48 |
	       (b >> 24 & 0xff) << 56;
#ifndef __i386__
	d[1] = b >> 32;
#endif
}

/* The excursion's GDT: the current descriptors at their own indices, then
 * user data, user code and the TSS, all past the current limit. Fills the
 * user selectors of ctx and x->ours, x->tss_sel; false when it does not fit. */
static bool gdt_build(struct excursion *x)
{
	unsigned n = ((unsigned)x->gdtr.limit + 8u) / 8u;
	struct user_cpu *u = UC;
	uint16_t ss;

	if (n > GDT_COPY_MAX)
		return false;
	pmh_memset(u->gdt, 0, sizeof(u->gdt));
	pmh_memcpy(u->gdt, (const void *)(uintptr_t)x->gdtr.base, (size_t)x->gdtr.limit + 1);
	u->gdt[n] = DESC_USER_DATA;
	u->gdt[n + 1] = DESC_USER_CODE;
	tss_desc(&u->gdt[n + 2], &u->tss);
	pmh_memset(&u->tss, 0, sizeof(u->tss));
	u->tss.iomap = sizeof(u->tss); /* no I/O bitmap: IN/OUT at CPL 3 fault */
	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
#ifdef __i386__
	u->tss.ss0 = ss; /* 64-bit mode loads a null SS instead (SDM Vol. 3A 6.14.2) */
#endif
	u->ctx.ss = (n << 3) | RPL3;
	u->ctx.cs = ((n + 1) << 3) | RPL3;
	u->ctx.rsp0_at = (uint64_t)(uintptr_t)&u->tss.rsp0;
	x->tss_sel = (uint16_t)((n + 2) << 3);
	pmh_memset(&x->ours, 0, sizeof(x->ours));
	x->ours.limit = (uint16_t)((n + 2 + TSS_SLOTS) * 8 - 1);
	x->ours.base = (uint64_t)(uintptr_t)u->gdt;
	return true;
}

/* Whether TR can be reloaded after the excursion: a TSS descriptor of the
 * GDT it was loaded from, within its limit. Else (TR 0, or the harness's
 * own from an earlier excursion, past the limit) the harness's stays. */
static bool tr_reloadable(const struct excursion *x)
{
	return tss_in(&x->gdtr, x->tr);
}

/* The firmware's GDTR, then its TR where it had one: its descriptor made
 * available and reloaded (with CR0.WP clear: a firmware may keep its GDT
 * read-only, SDM Vol. 3A 4.6.1; LTR writes the busy bit back). */
static void gdt_restore(const struct excursion *x)
{
	bool reload = tr_reloadable(x);

	lgdt_ltr(&x->gdtr, 0);
	if (!reload)
		return;
	unsigned long cr0 = cr0_read();
	volatile uint64_t *d = (volatile uint64_t *)(uintptr_t)(x->gdtr.base + (x->tr & ~7u));
	cr0_write(cr0 & ~CR0_WP);
	*d &= ~DESC_BUSY;
	lgdt_ltr(&x->gdtr, x->tr);
	cr0_write(cr0);
}

/* isr_dispatch's hook for an exception raised at CPL 3: the IRET lands at
 * CPL 0 on pmh_user_fault_landing with the vector in EAX, interrupts off.
 * It runs on RSP0, this CPU's own stack: UC is this CPU's. */
static void user_fault(struct int_frame *f)
{
	const struct user_ctx *c = &UC->ctx;

	f->rax = f->vector;
	f->rip = (uint64_t)(uintptr_t)pmh_user_fault_landing;
	f->cs = c->k_cs;
	f->ss = c->k_ss;
	f->rsp = c->k_rsp;
	f->rflags = RFLAGS_FIXED;
}

/* Saves what the excursion changes and prepares its GDT, TSS and (x86-64)
 * page tables for the ranges CPL 3 touches. */
static int prepare(struct excursion *x, const struct user_range *r, unsigned nr)
{
	sgdt(&x->gdtr);
	x->tr = str();
	x->cr4 = cr4_read();
	hw_paging_get(&x->pg);
	if (!gdt_build(x))
		return HW_UNSUPPORTED;
#ifdef __i386__
	(void)r;
	(void)nr;
	/* bios/ runs flat: segment limits only (pagewin's windows are off) */
	return x->pg.mode == HW_PG_OFF ? HW_OK : HW_UNSUPPORTED;
#else
	return user_pg_build(&x->pg, r, nr, &x->user_pg);
#endif
}

/* CPL 3 and back with what prepare built; pce: CR4.PCE (-1: as it is).
 * CR4.SMEP/SMAP go off (CPL 0 runs beside user pages), and PGE off and on
 * again flushes the TLB, global entries included (SDM Vol. 3A 4.10.4.1). */
static int at_cpl3(struct excursion *x, int pce)
{
	unsigned long cr4 = x->cr4 & ~(CR4_SMEP | CR4_SMAP | CR4_PGE);
	int st;

	if (pce >= 0)
		cr4 = pce ? cr4 | CR4_PCE : cr4 & ~CR4_PCE;
	cr4_write(cr4);
#ifndef __i386__
	(void)hw_paging_load(&x->user_pg);
#endif
	lgdt_ltr(&x->ours, x->tss_sel);
	isr_set_user_fault(user_fault);
	st = pmh_user_enter(&UC->ctx);
	isr_set_user_fault(0);
	gdt_restore(x);
#ifndef __i386__
	(void)hw_paging_load(&x->pg);
#endif
	cr4_write(x->cr4);
	return st;
}

/* One excursion to the context's rip at CPL 3 (pce: at_cpl3's). The
 * tables are built first, then the gate, the hook and CPL 3 are this
 * CPU's alone until it is back (the file's comment). */
static int excursion(const struct user_range *r, unsigned nr, int pce)
{
	struct excursion x;
	int st;

	x.irq = hw_irq_enabled();
	hw_irq_disable();
	st = prepare(&x, r, nr);
	if (st == HW_OK) {
		excl_lock();
		if (!idt_user_gate(HW_USER_VECTOR, pmh_user_gate)) {
			st = HW_UNSUPPORTED; /* not on the harness's IDT */
		} else {
			st = at_cpl3(&x, pce);
			(void)idt_user_gate(HW_USER_VECTOR, 0);
		}
		excl_unlock();
	}
	if (x.irq)
		hw_irq_enable();
	return st;
}

/* What every excursion touches at CPL 3: the trampolines and the stack;
 * sets ctx's entry. Returns the ranges filled (2). */
static unsigned user_base(struct user_range *r, char *entry)
{
	struct user_cpu *u = UC;

	r[0] = (struct user_range){(uintptr_t)pmh_user_text,
				   (uintptr_t)pmh_user_text_end - (uintptr_t)pmh_user_text};
	r[1] = (struct user_range){(uintptr_t)u->stack, sizeof(u->stack)};
	u->ctx.rip = (uintptr_t)entry;
	u->ctx.rsp = (uintptr_t)(u->stack + sizeof(u->stack));
	u->ctx.out = 0;
	return 2;
}

int hw_user_run(const struct workload *w, uint64_t iterations)
{
	const struct wl_args *a = w->args;
	struct user_range r[5];
	unsigned nr = user_base(r, pmh_user_run_tramp);

	if (w->mem != WL_MEM_NONE)
		return HW_REFUSED;
	r[nr++] = (struct user_range){(uint64_t)(uintptr_t)w->run, KERNEL_SPAN};
	if (a) {
		r[nr++] = (struct user_range){(uintptr_t)a, sizeof(*a)};
		if (a->buf)
			r[nr++] = (struct user_range){(uintptr_t)a->buf, BUF_SPAN};
	}
	UC->ctx.a0 = iterations;
	UC->ctx.a1 = (uintptr_t)a;
	UC->ctx.a2 = (uint64_t)(uintptr_t)w->run;
	return excursion(r, nr, -1);
}

int hw_user_rdpmc(uint32_t ecx, bool pce, uint64_t *val)
{
	struct user_range r[2];
	unsigned nr = user_base(r, pmh_user_rdpmc_tramp);
	int st;

	UC->ctx.a0 = ecx;
	st = excursion(r, nr, pce);
	*val = st == HW_OK ? UC->ctx.out : 0;
	return st;
}
