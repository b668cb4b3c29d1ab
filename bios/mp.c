/* Per-CPU runs on a BIOS machine: the processors from the ACPI MADT
 * (bios/acpi.c), each selected AP started in turn with INIT-SIPI-SIPI
 * (SDM Vol. 3A 8.4.4.1) into bios/trampoline.S, which brings it to 32-bit
 * protected mode on a stack of ours; there it loads our IDT and runs the
 * suite into a buffer (tests/cpu_job.c), then halts for good. The BSP
 * waits, bounded, and prints the AP's lines. */
#include "acpi.h"
#include "bios.h"
#include "lowmem.h"
#include "../apic/apic.h"
#include "../apic/idt.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/hw.h"
#include "../tests/cpu_job.h"

/* Where the trampoline runs: below 1 MiB, 4 KiB aligned, free memory on
 * a PC (above the boot sector, below the EBDA); the SIPI's vector is its
 * page number (SDM Vol. 3A 8.4.4.1). */
#define SIPI_VECTOR (TRAMP_BASE >> 12)
/* ICR delivery modes (SDM Vol. 3A 11.6.1). */
#define ICR_DM_INIT    (5u << 8)
#define ICR_DM_STARTUP (6u << 8)
#define ICR_DEST_SHIFT 24 /* xAPIC: the destination in ICR_HI bits 31:24 */
/* The waits of the INIT-SIPI-SIPI sequence (SDM Vol. 3A 8.4.4.1). */
#define INIT_WAIT_US  10000u
#define SIPI_WAIT_US  200u
#define ICR_IDLE_US   1000u	  /* the ICR's delivery status, as apic/apic.c waits */
#define START_WAIT_US 5000000u	  /* the AP reaching our code (generous: a loaded emulator) */
#define AP_TIMEOUT_US 30000000ull /* the whole suite on one AP, as on UEFI */
#define US_PER_S      1000000u
#define AP_STACK      (64 * 1024)
/* Local APIC enable in the spurious-vector register, which INIT clears;
 * the spurious vector 0xff as the BIOS leaves it on the BSP (SDM Vol. 3A
 * 11.9). */

extern char tramp_start[], tramp_end[], tramp_gdtr[], tramp_stack[], tramp_entry[], tramp_arg[];

struct ap_job {
	struct cpu_job job;
	char *stack_top;
	volatile int started; /* the AP reached ap_main */
};

/* The per-CPU run's state on the BSP. */
struct bios_mp {
	uint8_t ids[SUITE_MAX_CPUS]; /* APIC IDs in MADT order */
	bool stuck;		     /* an AP may still be on the shared stack */
};

static void delay_us(uint64_t us)
{
	uint64_t t0 = hw_rdtsc(), ticks = us * hw_wait_ticks_per_us();

	while (hw_rdtsc() - t0 < ticks)
		__asm__ volatile("pause");
}

/* Waits up to us for *flag; true when it was set. */
static bool wait_flag(volatile int *flag, uint64_t us)
{
	uint64_t t0 = hw_rdtsc(), ticks = us * hw_wait_ticks_per_us();

	while (!*flag && hw_rdtsc() - t0 < ticks)
		__asm__ volatile("pause");
	return *flag != 0;
}

/* Runs on the AP (cdecl, from the trampoline), never returns. */
static void ap_main(struct ap_job *j)
{
	j->started = 1;
	idt_load_ap();
	apic_write(APIC_SVR, apic_read(APIC_SVR) | APIC_SVR_ENABLE | APIC_SVR_VECTOR);
	cpu_job_run(&j->job);
	j->job.done = 1;
	for (;;)
		__asm__ volatile("cli; hlt");
}

static bool icr_send(uint8_t dest, uint32_t lo)
{
	apic_write(APIC_ICR_HI, (uint32_t)dest << ICR_DEST_SHIFT);
	apic_write(APIC_ICR_LO, lo);
	for (unsigned i = 0; i < ICR_IDLE_US; i++) {
		if (!(apic_read(APIC_ICR_LO) & ICR_DELIVERY_PENDING))
			return true;
		delay_us(1);
	}
	return false;
}

/* Where sym, a label of bios/trampoline.S, lies in the copy. */
static uint8_t *in_copy(const char *sym)
{
	return (uint8_t *)(TRAMP_BASE + ((uintptr_t)sym - (uintptr_t)tramp_start));
}

static void put32(const char *sym, uint32_t v)
{
	pmh_memcpy(in_copy(sym), &v, sizeof(v));
}

/* The trampoline below 1 MiB with the kernel's GDT and the job's stack
 * and entry, then INIT-SIPI-SIPI to the AP; NULL or why it could not be
 * sent. */
static const char *ap_start(struct ap_job *j, uint8_t id)
{
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) gdtr;

	pmh_memcpy(in_copy(tramp_start), tramp_start,
		   (uintptr_t)tramp_end - (uintptr_t)tramp_start);
	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	pmh_memcpy(in_copy(tramp_gdtr), &gdtr, sizeof(gdtr));
	put32(tramp_stack, (uint32_t)(uintptr_t)j->stack_top);
	put32(tramp_entry, (uint32_t)(uintptr_t)ap_main);
	put32(tramp_arg, (uint32_t)(uintptr_t)j);
	if (!icr_send(id, ICR_DM_INIT | ICR_LEVEL_ASSERT))
		return "the INIT IPI was not sent (the ICR stayed busy)";
	delay_us(INIT_WAIT_US);
	for (int i = 0; i < 2; i++) {
		if (!icr_send(id, ICR_DM_STARTUP | SIPI_VECTOR))
			return "the START-UP IPI was not sent (the ICR stayed busy)";
		delay_us(SIPI_WAIT_US);
	}
	return NULL;
}

/* One AP's run, then its lines on the BSP; true when it may still run. */
static bool run_ap(void *ctx, struct cpu_job *job, unsigned cpu)
{
	struct bios_mp *m = ctx;
	struct ap_job *j = (struct ap_job *)job; /* job is its first member */
	struct suite *s = job->s;
	struct suite_cpu bsp = suite_bound(s);
	const char *why = NULL;
	char msg[160];

	cpu_job_reset(job, cpu);
	j->started = 0;
	if (m->stuck)
		why = "not started: an earlier AP may still be running on the shared stack";
	else if (apic_current_mode() != APIC_MODE_XAPIC)
		why = "not started: INIT-SIPI-SIPI is sent through the xAPIC, and the boot CPU's "
		      "APIC is not in xAPIC mode";
	else if (!(why = ap_start(j, m->ids[cpu])) && !wait_flag(&j->started, START_WAIT_US))
		why = "the AP did not answer INIT-SIPI-SIPI";
	else if (!why && !wait_flag(&job->done, AP_TIMEOUT_US))
		pmh_fmt(msg, sizeof(msg), "the run did not finish within %u s",
			(unsigned)(AP_TIMEOUT_US / US_PER_S));
	suite_bind_cpu(s, &bsp);
	bios_fatal_rearm();
	cpu_job_emit(job);
	if (!why && j->started && !job->done)
		why = msg;
	else if (!why && job->crashed)
		why = "the run stopped after an unexpected exception (see above)";
	if (why)
		suite_fail_cpu(s, cpu, why);
	m->stuck |= j->started && !job->done;
	return m->stuck;
}

static const uint8_t *phys_map(void *ctx, uint32_t phys, uint32_t len)
{
	(void)ctx;
	(void)len; /* no paging: all of memory is there */
	return (const uint8_t *)(uintptr_t)phys;
}

/* The processors' flags (cpu_select.h) from the MADT, or the MP table on
 * boards without ACPI, into fl, the BSP the one with the boot CPU's APIC
 * ID; the count (1, the boot CPU, without either). */
static unsigned mp_flags(struct bios_mp *m, struct harness *h, uint32_t *fl)
{
	static struct acpi_cpu c[SUITE_MAX_CPUS]; /* in .bss, off the 64 KiB stack */
	const char *why, *why_mps;
	int n = acpi_madt_cpus(phys_map, NULL, c, SUITE_MAX_CPUS, &why);

	if (n == 0)
		why = "the MADT lists no processor";
	if (n <= 0 && (n = mps_cpus(phys_map, NULL, c, SUITE_MAX_CPUS, &why_mps)) == 0)
		why_mps = "it lists no processor";
	if (n <= 0) {
		suite_emit(h->suite,
			   "warning: cpus: ACPI: %s; MP table: %s: running on the boot "
			   "CPU only",
			   why, why_mps);
		fl[0] = CPUSEL_BSP | CPUSEL_ENABLED | CPUSEL_HEALTHY;
		return 1;
	}
	for (int i = 0; i < n; i++) {
		m->ids[i] = c[i].apic_id;
		fl[i] = (c[i].enabled ? CPUSEL_ENABLED | CPUSEL_HEALTHY : 0) |
			(c[i].apic_id == h->apic.id ? CPUSEL_BSP : 0);
	}
	return (unsigned)n;
}

/* One run's state, static: an AP that never came back keeps its stack,
 * and later runs start no AP on it. */
static struct bios_mp mp;
static uint32_t flags[SUITE_MAX_CPUS];
static uint16_t sel[SUITE_MAX_CPUS];
static struct cpu_run runs[SUITE_MAX_CPUS];
static struct ap_job job;
static char job_buf[CPU_JOB_BUF];
static char job_stack[AP_STACK] __attribute__((aligned(16)));

void bios_mp_run(void *ctx, struct harness *h)
{
	struct suite *s = h->suite;
	(void)ctx;

	if (!cpu_select_requested(s->opt)) {
		suite_run(s, 0);
		return;
	}
	unsigned n = mp_flags(&mp, h, flags);
	unsigned k = suite_cpus_select(s, flags, n, sel, SUITE_MAX_CPUS);
	job.job.s = s;
	job.job.buf = job_buf;
	job.stack_top = job_stack + AP_STACK;
	cpu_jobs_run(&(struct cpu_jobs){run_ap, &mp, &job.job}, h, flags, sel, k, runs);
	if (mp.stuck) /* an AP may still write the results tables */
		suite_keep_tables(s);
}

bool bios_mp_ap_busy(void)
{
	return mp.stuck;
}
