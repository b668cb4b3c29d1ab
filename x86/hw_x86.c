/* The real hardware seam: plain x86 instructions, for x86-64 (UEFI) and
 * i386 (bios/). rdmsr/wrmsr/rdpmc with fault fixup live in x86/entry.S
 * (x86/entry_i386.S). */
#include "../pmu/hw.h"
#include "../pmu/percpu.h"
#include "../events/workload.h"
#include "../apic/isr.h"

/* RFLAGS.IF, the interrupt enable flag (SDM Vol. 1 3.4.3). */
#define RFLAGS_IF (1u << 9)
/* CPUID.1:EDX.SSE2: LFENCE exists (SDM Vol. 2A LFENCE; Pentium II/III and
 * Athlon K7 have none, and it is #UD there). */
#define CPUID1_EDX_SSE2 (1u << 26)

uint64_t pmh_tsc_per_us;

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	__asm__ volatile("cpuid"
			 : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
			 : "a"(leaf), "c"(subleaf));
}

/* Whether hw_rdtsc may fence with LFENCE: asked of CPUID once (0 unknown,
 * 1 no, 2 yes); a CPU without it reads the TSC unfenced. */
static uint8_t tsc_fence;

uint64_t hw_rdtsc(void)
{
	uint32_t lo, hi;
	if (!tsc_fence) {
		struct cpuid_regs r;
		hw_cpuid(1, 0, &r);
		tsc_fence = (r.edx & CPUID1_EDX_SSE2) ? 2 : 1;
	}
	if (tsc_fence == 2)
		__asm__ volatile("lfence" ::: "memory");
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* CPUID.1:EDX.CLFSH and EBX[15:8], the CLFLUSH line size in 8-byte units
 * (SDM Vol. 2A CPUID). */
#define CPUID1_EDX_CLFSH (1u << 19)

void hw_cache_flush(void *buf, uint64_t bytes)
{
	struct cpuid_regs r;
	hw_cpuid(1, 0, &r);
	uint32_t line = ((r.ebx >> 8) & 0xff) * 8;
	if (!(r.edx & CPUID1_EDX_CLFSH) || !line) {
		/* no CLFLUSH (Pentium II/III, K7): write back and invalidate
		 * every cache (SDM Vol. 2A WBINVD) */
		__asm__ volatile("wbinvd" ::: "memory");
		return;
	}
	for (uint64_t off = 0; off < bytes; off += line)
		__asm__ volatile("clflush (%0)" ::"r"((uint8_t *)buf + off) : "memory");
	/* CLFLUSH is ordered by a serialising instruction (SDM Vol. 2A
	 * CLFLUSH): CPUID is one on every CPU, MFENCE is not (SSE2). */
	hw_cpuid(0, 0, &r);
}

uint32_t hw_mmio_read32(uint64_t addr)
{
	return *(volatile uint32_t *)(uintptr_t)addr;
}

void hw_mmio_write32(uint64_t addr, uint32_t val)
{
	*(volatile uint32_t *)(uintptr_t)addr = val;
}

void hw_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

void hw_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

bool hw_irq_enabled(void)
{
	unsigned long f; /* RFLAGS or EFLAGS: the stack's word either way */
	__asm__ volatile("pushf; pop %0" : "=r"(f));
	return (f & RFLAGS_IF) != 0;
}

void hw_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

void hw_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

uint64_t hw_tsc_per_us(void)
{
	return pmh_tsc_per_us;
}

#ifdef __i386__
#define PMH_SP "esp"
#else
#define PMH_SP "rsp"
#endif

/* The block of the aligned stack this code runs on (pmu/percpu.h). */
void *hw_cpu_local(void)
{
	uintptr_t sp;

	__asm__ volatile("mov %%" PMH_SP ", %0" : "=r"(sp));
	return pcpu_block_of_stack(sp);
}

void hw_run_workload(const struct workload *w, uint64_t iterations)
{
	w->run(iterations, w->args);
}

/* A guarded run: #UD and #GP raised by the workload go to guard_fault,
 * which resumes in pmh_longjmp(&guard_jb, 1) as the harness's fatal
 * recovery does (isr_resume_longjmp): back in hw_run_workload_guarded with
 * the interrupted RFLAGS. */
static struct pmh_jmpbuf guard_jb;
static volatile int guard_vec;

static void guard_set(isr_handler_fn fn)
{
	isr_set_handler(VEC_UD, fn);
	isr_set_handler(VEC_GP, fn);
}

static void guard_fault(struct int_frame *f)
{
	guard_vec = (int)f->vector;
	guard_set(0);
	isr_resume_longjmp(f, &guard_jb);
}

int hw_run_workload_guarded(const struct workload *w, uint64_t iterations)
{
	guard_vec = HW_OK;
	if (pmh_setjmp(&guard_jb))
		return guard_vec;
	guard_set(guard_fault);
	w->run(iterations, w->args);
	guard_set(0);
	return HW_OK;
}

/* Control-register bits (SDM Vol. 3A 2.5). */
#define CR0_PG	 (1ul << 31)
#define CR4_PSE	 (1ul << 4)
#define CR4_PAE	 (1ul << 5)
#define CR4_LA57 (1ul << 12)
#define CR3_ADDR (~0xffful) /* the top table's address (the low bits: PCD, PWT or PCID) */

static unsigned long cr0_read(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static unsigned long cr3_read(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static unsigned long cr4_read(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

void hw_paging_get(struct hw_paging *p)
{
	unsigned long cr4 = cr4_read();

	p->pse = (cr4 & CR4_PSE) != 0;
	if (!(cr0_read() & CR0_PG)) {
		p->mode = HW_PG_OFF;
		p->root = 0;
		return;
	}
#ifdef __i386__
	p->mode = (cr4 & CR4_PAE) ? HW_PG_PAE : HW_PG_I386;
	/* PAE's CR3 holds a 32-byte aligned table (SDM Vol. 3A 4.4.1) */
	p->root = cr3_read() & ((cr4 & CR4_PAE) ? ~0x1ful : CR3_ADDR);
#else
	p->mode = (cr4 & CR4_LA57) ? HW_PG_LEVEL5 : HW_PG_LEVEL4;
	p->root = cr3_read() & CR3_ADDR & ((1ul << 52) - 1);
#endif
}

int hw_paging_load(const struct hw_paging *p)
{
	struct hw_paging cur;
	hw_paging_get(&cur);

	if (p->mode == cur.mode && p->mode != HW_PG_OFF) {
		/* the low bits (PCD/PWT, or the PCID) stay as the firmware set them */
		unsigned long v = (unsigned long)p->root | (cr3_read() & ~CR3_ADDR);
		__asm__ volatile("mov %0, %%cr3" ::"r"(v) : "memory");
		return HW_OK;
	}
#ifdef __i386__
	unsigned long cr4 = cr4_read();
	cr4 = p->pse ? cr4 | CR4_PSE : cr4 & ~CR4_PSE;
	if (cur.mode == HW_PG_OFF && p->mode == HW_PG_I386) {
		/* the code runs identity-mapped: no jump needed after CR0.PG
		 * (SDM Vol. 3A 10.9.1) */
		unsigned long root = (unsigned long)p->root;
		__asm__ volatile("mov %0, %%cr3" ::"r"(root) : "memory");
		__asm__ volatile("mov %0, %%cr4" ::"r"(cr4) : "memory");
		__asm__ volatile("mov %0, %%cr0" ::"r"(cr0_read() | CR0_PG) : "memory");
		return HW_OK;
	}
	if (cur.mode == HW_PG_I386 && p->mode == HW_PG_OFF) {
		__asm__ volatile("mov %0, %%cr0" ::"r"(cr0_read() & ~CR0_PG) : "memory");
		__asm__ volatile("mov %0, %%cr4" ::"r"(cr4) : "memory");
		return HW_OK;
	}
#endif
	return HW_UNSUPPORTED;
}
