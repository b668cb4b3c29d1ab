/* The hardware seam: the only way code reaches the CPU. Two implementations
 * are chosen at link time: x86/hw_x86.c + x86/entry.S on the target (real
 * instructions, #GP/#UD caught and turned into return codes) and host/sim/
 * on the host (a simulated CPU per PMU family). */
#ifndef PMH_PMU_HW_H
#define PMH_PMU_HW_H

#include <stdint.h>
#include <stdbool.h>

/* The one error type of the seam and the drivers. Faults carry the vector
 * the instruction raised, so a fault and its number are one value. */
enum hw_err {
	HW_OK = 0,
	HW_FAULT_UD = 6,	/* the instruction raised #UD (RDPMC under QEMU TCG) */
	HW_FAULT_GP = 13,	/* the instruction raised #GP (vector number) */
	HW_REFUSED = 0x100,	/* the driver refused the request (counter, event or value) */
	HW_UNSUPPORTED = 0x101, /* the family has no such register, path or event */
	HW_STUCK = 0x102,	/* a flag did not clear within the documented bound */
};

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

void hw_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);

/* Return HW_OK, or the vector of the fault the instruction raised. On a
 * fault *val is left at 0. */
int hw_rdmsr(uint32_t msr, uint64_t *val);
int hw_wrmsr(uint32_t msr, uint64_t val);
int hw_rdpmc(uint32_t ecx, uint64_t *val);

uint64_t hw_rdtsc(void);

/* Physical MMIO (identity-mapped under UEFI); used for the xAPIC page. */
uint32_t hw_mmio_read32(uint64_t addr);
void hw_mmio_write32(uint64_t addr, uint32_t val);

void hw_irq_enable(void);
void hw_irq_disable(void);
bool hw_irq_enabled(void);
/* Stops this CPU for good (interrupts off, HLT), after an exception
 * nothing recovers from. The simulator stops that CPU's share of a
 * parallel run (its job never done), and otherwise the program. */
void hw_halt(void) __attribute__((noreturn));
/* One spin-wait step (PAUSE); the simulator advances its clock here. */
void hw_relax(void);

/* Run a calibrated workload (events/workload.h) for `iterations` loops. */
struct workload;
void hw_run_workload(const struct workload *w, uint64_t iterations);
/* The same with a guard: an exception the workload raises (#UD from an
 * instruction the CPU or its hypervisor does not take, #GP) abandons it and
 * comes back as its vector; HW_OK when it ran to its end. For probes (KVM's
 * forced-emulation prefix raises #UD when the host has it off); a measured
 * window runs hw_run_workload. */
int hw_run_workload_guarded(const struct workload *w, uint64_t iterations);

/* Writes back and invalidates the cache lines of buf[0..bytes) (CLFLUSH,
 * or WBINVD where the CPU has no CLFLUSH), so that a workload meets them in
 * memory whatever wrote them before. */
void hw_cache_flush(void *buf, uint64_t bytes);

/* Paging (SDM Vol. 3A 4.1.1): the mode the CPU translates in and the
 * physical address of its top table (CR3[51:12]). OFF: no paging (bios/
 * runs flat); I386: 32-bit paging, two levels of 4-byte entries; PAE;
 * LEVEL4 / LEVEL5: IA-32e paging, four or five levels of 8-byte entries.
 * pse: CR4.PSE (4 MiB pages in I386 mode). The harness's memory is
 * identity-mapped where paging is on (UEFI Spec 2.10 §2.3.4), so a
 * physical address and the pointer to it are one number. */
enum hw_paging_mode { HW_PG_OFF, HW_PG_I386, HW_PG_PAE, HW_PG_LEVEL4, HW_PG_LEVEL5 };
struct hw_paging {
	enum hw_paging_mode mode;
	uint64_t root;
	bool pse;
};
void hw_paging_get(struct hw_paging *p);
/* Translates through p from now on: CR3 = p->root (which flushes the
 * non-global TLB entries), and between OFF and I386 CR4.PSE and CR0.PG
 * turned on or off with it. Any other change of mode is refused
 * (HW_UNSUPPORTED). Global entries are not used by the tables the harness
 * builds, so the load flushes everything the harness mapped. */
int hw_paging_load(const struct hw_paging *p);

/* ---- Ring 3 (SDM Vol. 3A 5.8.5 "Interrupt and exception gates", 6.12.1,
 * 7.7 "Task state segment"). The harness runs at CPL 0; for the checks that
 * need user mode the platform loads a GDT with user code and data segments
 * and a TSS (RSP0 / SS0:ESP0), enters CPL 3 by IRET with RFLAGS.IF clear
 * and IOPL 0, on a stack and code it made user-accessible, and comes back
 * by INT HW_USER_VECTOR through a DPL-3 gate. A fault raised at CPL 3
 * comes back as its vector. Before returning, the firmware's GDTR, TR,
 * IDT entries, CR4 and paging are back exactly as they were (where the
 * firmware had no TR loaded, LTR cannot load a null selector: the
 * harness's TR stays, and hw_cpu_tables shows it). */
#define HW_USER_VECTOR 0x81
/* Runs w (a workload that touches no memory: WL_MEM_NONE, else
 * HW_REFUSED) for iterations at CPL 3. HW_OK, the vector of a fault raised
 * at CPL 3 (the workload abandoned), or HW_UNSUPPORTED where the platform
 * cannot enter ring 3. */
int hw_user_run(const struct workload *w, uint64_t iterations);
/* RDPMC ecx executed at CPL 3 with CR4.PCE = pce (CR4 restored after):
 * HW_OK with *val, the vector it raised at CPL 3 (*val 0), or
 * HW_UNSUPPORTED. */
int hw_user_rdpmc(uint32_t ecx, bool pce, uint64_t *val);
/* The descriptor-table and control registers the ring-3 excursion changes
 * and must restore, as the CPU holds them now (SGDT, SIDT, STR, CR3, CR4). */
struct hw_cpu_tables {
	uint64_t gdt_base, idt_base, cr3, cr4;
	uint16_t gdt_limit, idt_limit, tr;
	/* TR names a TSS descriptor of this GDT (one LTR can load again);
	 * false for 0 and for a loader's stale selector (a Multiboot kernel's
	 * TR is its loader's, read against the kernel's own GDT) */
	bool tr_tss;
};
void hw_cpu_tables(struct hw_cpu_tables *t);

/* TSC ticks per microsecond as calibrated at start-up (0 = unknown). */
uint64_t hw_tsc_per_us(void);

/* Per-CPU state (pmu/percpu.h): the block of the CPU running this code
 * during a parallel per-CPU run, or NULL where it has none (a serial run,
 * the boot CPU outside its share of a parallel run): the state is then
 * the one template every serial run uses. The target finds the block at
 * the base of the aligned stack the run is on (x86/hw_x86.c); the
 * simulator keeps it with each simulated CPU. */
void *hw_cpu_local(void);

/* The name an error is printed by ("ok", "#GP", "refused", ...). */
static inline const char *hw_err_name(int e)
{
	switch (e) {
	case HW_OK:
		return "ok";
	case HW_FAULT_UD:
		return "#UD";
	case HW_FAULT_GP:
		return "#GP";
	case HW_REFUSED:
		return "refused";
	case HW_UNSUPPORTED:
		return "unsupported";
	case HW_STUCK:
		return "stuck";
	default:
		return "fault";
	}
}

/* TSC ticks per microsecond for a bounded wait: the calibrated value, or
 * 4000 (4 GHz) when calibration failed, so a wait is never shorter than
 * asked on a clock up to 4 GHz. */
static inline uint64_t hw_wait_ticks_per_us(void)
{
	uint64_t t = hw_tsc_per_us();
	return t ? t : 4000;
}

#endif
