/* The real hardware seam: plain x86 instructions, for x86-64 (UEFI) and
 * i386 (bios/). rdmsr/wrmsr/rdpmc with fault fixup live in apic/entry.S
 * (apic/entry_i386.S). */
#include "../pmu/hw.h"
#include "../events/workload.h"

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

void hw_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

uint64_t hw_tsc_per_us(void)
{
	return pmh_tsc_per_us;
}

void hw_run_workload(const struct workload *w, uint64_t iterations)
{
	w->run(iterations, w->args);
}
