/* Per-CPU runs on a PC (the BIOS kernel): the processors from the ACPI MADT
 * (pc/acpi.c), the selected APs started with INIT-SIPI-SIPI (SDM Vol.
 * 3A 8.4.4.1) into pc/trampoline.S, which brings each to 32-bit
 * protected mode on a stack of ours: the one its APIC ID's slot offers.
 * There it loads our IDT and runs the suite into a buffer, then halts for
 * good. cpus = all (or a list) runs every selected CPU at once, the BSP
 * among them, each on its own stack of the run (tests/cpu_job.h
 * cpu_par_*); cpus = serial, or where the parallel run cannot be set up,
 * starts one AP after another on one shared stack (cpu_jobs_run). */
#include "acpi.h"
#include "pc.h"
#include "lowmem.h"
#include "../apic/apic.h"
#include "../apic/idt.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/hw.h"
#include "../pmu/percpu.h"
#include "../tests/cpu_job.h"
#include "../tests/options.h"

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
#define NOT_ANSWERED  "the AP did not answer INIT-SIPI-SIPI"

extern char tramp_start[], tramp_end[], tramp_gdtr[], tramp_apic[], tramp_slots[], tramp_entry[];

/* The trampoline's table (trampoline.S), one slot per xAPIC ID: the AP
 * with that ID takes the stack by an atomic exchange that leaves 0, and
 * the BSP takes back one never claimed the same way. */
struct tramp_slot {
	uint32_t stack; /* the stack top; 0: nothing to start on */
	uint32_t arg;	/* tramp_entry's argument */
};
_Static_assert(sizeof(struct tramp_slot) == TRAMP_SLOT_BYTES, "trampoline.S's slot size");
static struct tramp_slot slots[TRAMP_SLOTS];

/* One AP to start: its APIC ID, why it was not (NULL: it claimed its
 * slot) and whether it reached C. */
struct ap_start {
	uint8_t id;
	bool ap; /* false: the BSP's place in a parallel run */
	const char *why;
	volatile int started;
};

struct ap_job {
	struct cpu_job job;
	char *stack_top;
	struct ap_start st;
};

/* The per-CPU run's state on the BSP. */
struct bios_mp {
	uint8_t ids[SUITE_MAX_CPUS]; /* APIC IDs in MADT order */
	bool stuck;		     /* an AP may still run (the shared stack, or a share) */
	uint64_t apic_base;	     /* the BSP's xAPIC page, every AP's after INIT */
};

/* A parallel run: the platform-neutral part, the BSP's slot (-1: not
 * selected), the bound of the wait from t0, and each slot's start. */
struct par_run {
	struct cpu_par p;
	int bsp;
	uint64_t t0, ticks;
	struct ap_start st[SUITE_MAX_CPUS];
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

/* The AP's own state for a run: our IDT, its local APIC found (in a
 * parallel run the AP's per-CPU APIC state starts zeroed: no APIC, and
 * apic_read/apic_write would not reach it) and software-enabled (INIT
 * clears the SVR's enable; SDM Vol. 3A 11.9). */
static void ap_own_state(void)
{
	struct apic_info ai;

	idt_load_ap();
	if (apic_detect(&ai) == 0)
		apic_write(APIC_SVR, apic_read(APIC_SVR) | APIC_SVR_ENABLE | APIC_SVR_VECTOR);
}

static void ap_halt(void)
{
	hw_halt();
}

/* A serial run's AP (cdecl, from the trampoline), never returns. */
static void ap_main(struct ap_job *j)
{
	j->st.started = 1;
	ap_own_state();
	cpu_job_run(&j->job);
	j->job.done = 1;
	ap_halt();
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

/* Where sym, a label of pc/trampoline.S, lies in the copy. */
static uint8_t *in_copy(const char *sym)
{
	return (uint8_t *)(TRAMP_BASE + ((uintptr_t)sym - (uintptr_t)tramp_start));
}

static void put32(const char *sym, uint32_t v)
{
	pmh_memcpy(in_copy(sym), &v, sizeof(v));
}

/* The trampoline below 1 MiB with the kernel's GDT, the BSP's APIC base
 * (every AP's after INIT), the empty table and the entry. */
static void tramp_setup(uint64_t apic_base, uintptr_t entry)
{
	struct {
		uint16_t limit;
		uint32_t base;
	} __attribute__((packed)) gdtr;

	pmh_memset(slots, 0, sizeof(slots));
	pmh_memcpy(in_copy(tramp_start), tramp_start,
		   (uintptr_t)tramp_end - (uintptr_t)tramp_start);
	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	pmh_memcpy(in_copy(tramp_gdtr), &gdtr, sizeof(gdtr));
	put32(tramp_apic, (uint32_t)apic_base);
	put32(tramp_slots, (uint32_t)(uintptr_t)slots);
	put32(tramp_entry, (uint32_t)entry);
}

/* The stack and argument for the AP with APIC ID id (the argument first:
 * the stack is what it claims). */
static void slot_offer(uint8_t id, void *top, uint32_t arg)
{
	slots[id].arg = arg;
	__atomic_store_n(&slots[id].stack, (uint32_t)(uintptr_t)top, __ATOMIC_SEQ_CST);
}

/* Takes back the slot of APIC ID id: true when its AP had not claimed it
 * (it never will now: it halts in the trampoline if it comes). */
static bool slot_take_back(uint8_t id)
{
	return __atomic_exchange_n(&slots[id].stack, 0, __ATOMIC_SEQ_CST) != 0;
}

/* INIT, then START-UP twice (SDM Vol. 3A 8.4.4.1) to the APs of a[0..n),
 * each step to all of them before its wait; an AP whose IPI could not be
 * sent gets why. */
static void ipi_start(struct ap_start *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i].ap && !icr_send(a[i].id, ICR_DM_INIT | ICR_LEVEL_ASSERT))
			a[i].why = "the INIT IPI was not sent (the ICR stayed busy)";
	delay_us(INIT_WAIT_US);
	for (int r = 0; r < 2; r++) {
		for (unsigned i = 0; i < n; i++)
			if (a[i].ap && !a[i].why &&
			    !icr_send(a[i].id, ICR_DM_STARTUP | SIPI_VECTOR))
				a[i].why = "the START-UP IPI was not sent (the ICR stayed busy)";
		delay_us(SIPI_WAIT_US);
	}
}

/* After ipi_start: waits (bounded) for the APs of a[0..n) to reach C,
 * then takes back the slots never claimed; why stays NULL exactly for an
 * AP that claimed its slot (it runs). True when every AP did. */
static bool ap_started(struct ap_start *a, unsigned n)
{
	uint64_t t0 = hw_rdtsc(), ticks = START_WAIT_US * hw_wait_ticks_per_us();
	bool all = true;
	unsigned i = 0;

	while (i < n && hw_rdtsc() - t0 < ticks)
		if (!a[i].ap || a[i].why || a[i].started)
			i++;
		else
			__asm__ volatile("pause");
	for (i = 0; i < n; i++) {
		if (!a[i].ap || a[i].started)
			continue;
		if (slot_take_back(a[i].id)) {
			a[i].why = a[i].why ? a[i].why : NOT_ANSWERED;
			all = false;
		} else {
			a[i].why = NULL; /* it claimed the slot just now: it runs */
		}
	}
	return all;
}

/* One AP's run, then its lines on the BSP; true when it may still run. */
static bool run_ap(void *ctx, struct cpu_job *job, unsigned cpu)
{
	struct bios_mp *m = ctx;
	struct ap_job *j = (struct ap_job *)job; /* job is its first member */
	struct suite *s = job->s;
	struct suite_cpu bsp = suite_bound(s);
	const char *why = NULL;
	bool runs = false;
	char msg[160];

	cpu_job_reset(job, cpu);
	j->st = (struct ap_start){.id = m->ids[cpu], .ap = true};
	if (m->stuck)
		why = "not started: an AP of an earlier run may still be running";
	else if (apic_current_mode() != APIC_MODE_XAPIC)
		why = "not started: INIT-SIPI-SIPI is sent through the xAPIC, and the boot CPU's "
		      "APIC is not in xAPIC mode";
	else {
		tramp_setup(m->apic_base, (uintptr_t)ap_main);
		slot_offer(j->st.id, j->stack_top, (uint32_t)(uintptr_t)j);
		ipi_start(&j->st, 1);
		ap_started(&j->st, 1);
		runs = !(why = j->st.why);
		if (runs && !wait_flag(&job->done, AP_TIMEOUT_US)) {
			pmh_fmt(msg, sizeof(msg), "the run did not finish within %u s",
				(unsigned)(AP_TIMEOUT_US / US_PER_S));
			why = msg;
		}
	}
	suite_bind_cpu(s, &bsp);
	bios_fatal_rearm();
	cpu_job_emit(job);
	if (!why && job->crashed)
		why = "the run stopped after an unexpected exception (see above)";
	if (why)
		suite_fail_cpu(s, cpu, why);
	m->stuck |= runs && !job->done;
	return m->stuck;
}

static const uint8_t *phys_map(void *ctx, uint32_t phys, uint32_t len)
{
	(void)ctx;
	(void)len; /* no paging: all of memory is there */
	return (const uint8_t *)(uintptr_t)phys;
}

/* The bits of an APIC ID that number the threads of a core: CPUID 0BH
 * subleaf 0, level type SMT, EAX[4:0] the shift to the next level's ID
 * (SDM Vol. 3A 9.9.1 Hierarchical Mapping of Shared Resources); 0 where
 * the leaf is not there (every CPU its own wave then). */
static unsigned smt_mask(void)
{
	struct cpuid_regs r;

	hw_cpuid(0, 0, &r);
	if (r.eax < 0xb)
		return 0;
	hw_cpuid(0xb, 0, &r);
	if (((r.ecx >> 8) & 0xff) != 1 || !r.ebx) /* level type 1: SMT */
		return 0;
	return (1u << (r.eax & 0x1f)) - 1;
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
	unsigned smt = smt_mask();
	for (int i = 0; i < n; i++) {
		m->ids[i] = c[i].apic_id;
		fl[i] = (c[i].enabled ? CPUSEL_ENABLED | CPUSEL_HEALTHY : 0) |
			(c[i].apic_id == h->apic.id ? CPUSEL_BSP : 0) |
			CPUSEL_THREAD(c[i].apic_id & smt);
	}
	return (unsigned)n;
}

/* One run's state, static: an AP that never came back keeps its stack
 * (the shared one, or its stack of a parallel run), and later runs start
 * no AP. */
static struct bios_mp mp;
static uint32_t flags[SUITE_MAX_CPUS];
static uint16_t sel[SUITE_MAX_CPUS];
static struct cpu_run runs[SUITE_MAX_CPUS];
static struct ap_job job;
static char job_buf[CPU_JOB_BUF];
static char job_stack[AP_STACK] __attribute__((aligned(16)));
static struct par_run par;

/* A parallel run's AP (cdecl, from the trampoline, on stack i of the
 * run), never returns. */
static void par_ap_main(uint32_t i)
{
	par.st[i].started = 1;
	ap_own_state();
	cpu_par_enter(&par.p, i);
	ap_halt();
}

/* The BSP's part, on the kernel's stack: its own share where it is
 * selected, then the bounded wait for the others (the jobs' done flags,
 * which start the next wave, and the TSC). */
static void par_bsp(struct par_run *r)
{
	if (r->bsp >= 0)
		cpu_par_enter(&r->p, (unsigned)r->bsp);
	while (!cpu_par_all_done(&r->p) && hw_rdtsc() - r->t0 < r->ticks)
		__asm__ volatile("pause");
}

/* Every selected AP offered its stack of the run and started at once. An
 * AP that did not fails now, in its place (its job done), and the wait is
 * for those that did. */
static void par_start(struct par_run *r, const uint32_t *fl)
{
	tramp_setup(mp.apic_base, (uintptr_t)par_ap_main);
	r->bsp = -1;
	for (unsigned i = 0; i < r->p.k; i++) {
		unsigned cpu = r->p.sel[i];
		r->st[i] = (struct ap_start){.id = mp.ids[cpu], .ap = !(fl[cpu] & CPUSEL_BSP)};
		if (!r->st[i].ap)
			r->bsp = (int)i;
		else
			slot_offer(r->st[i].id, pcpu_stack_top(r->p.stacks, i), i);
	}
	r->t0 = hw_rdtsc();
	r->ticks = CPU_PAR_TIMEOUT_US * r->p.waves * hw_wait_ticks_per_us();
	ipi_start(r->st, r->p.k);
	(void)ap_started(r->st, r->p.k);
	for (unsigned i = 0; i < r->p.k; i++)
		if (r->st[i].why)
			cpu_par_not_started(&r->p, i, r->st[i].why);
}

/* cpus = all (or a list) at once; false when the run could not be set up
 * (cpu_par_prepare said why): the caller runs the CPUs serially. */
static bool par_run(struct harness *h, const uint16_t *sl, unsigned k)
{
	struct par_run *r = &par;

	if (!cpu_par_prepare(&r->p, h->suite, flags, sl, k))
		return false;
	par_start(r, flags);
	/* the BSP's share keeps the run's own state, on the kernel's stack
	 * (tests/cpu_par.c cpu_par_enter), and its fatal handler comes back
	 * after it (cpu_job_run_bound): nothing of the BSP's to restore */
	par_bsp(r);
	cpu_par_finish(&r->p, runs, (unsigned)(CPU_PAR_TIMEOUT_US * r->p.waves / US_PER_S));
	mp.stuck |= r->p.kept; /* an AP that started and never came back */
	return true;
}

/* Whether the selection runs at once: not with cpus = serial, nor for the
 * boot CPU alone, nor where the APs cannot be started (the serial runs
 * then say why, CPU by CPU). */
static bool par_wanted(const struct suite *s, unsigned k)
{
	return !s->opt->cpus_serial && k > 0 && cpu_jobs_need_ap(flags, sel, k) && !mp.stuck &&
	       apic_current_mode() == APIC_MODE_XAPIC;
}

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
	mp.apic_base = h->apic.base;
	if (!par_wanted(s, k) || !par_run(h, sel, k)) {
		job.job.s = s;
		job.job.buf = job_buf;
		job.stack_top = job_stack + AP_STACK;
		cpu_jobs_run(&(struct cpu_jobs){run_ap, &mp, &job.job}, h, flags, sel, k, runs);
	}
	if (mp.stuck) /* an AP may still write the results tables */
		suite_keep_tables(s);
}

bool bios_mp_ap_busy(void)
{
	return mp.stuck;
}
