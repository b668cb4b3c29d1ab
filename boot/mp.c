/* Per-CPU runs through the firmware's MP Services protocol (PI spec Vol. 2,
 * EFI_MP_SERVICES_PROTOCOL). The AP procedure calls no UEFI service (none is
 * MP-safe) but WhoAmI, which the PI spec lets APs call: on a stack of ours
 * it loads our IDT, identifies its own APIC and PMU, runs the checks into a
 * buffer the BSP allocated, and puts its own IDTR back. The BSP waits
 * (bounded by a timeout), then prints the lines.
 *
 * Two ways (docs/user-guide.md "Options", cpus): every selected CPU at once (cpus =
 * all or a list naming an AP: StartupAllAPs non-blocking, the boot CPU's
 * own share meanwhile, tests/cpu_job.h "A parallel run"), or one after
 * another (cpus = serial, a selection of the boot CPU only, or a parallel
 * run that cannot be set up: StartupThisAP per AP). */
#include "platform.h"
#include "../x86/hw_user.h"
#include "../apic/apic.h"
#include "../apic/idt.h"
#include "../apic/pmi.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/percpu.h"
#include "../tests/cpu_job.h"

typedef struct pmh_mp_services PMH_MP_SERVICES;
typedef VOID(EFIAPI *PMH_AP_PROCEDURE)(VOID *arg);

typedef struct {
	UINT64 ProcessorId;
	UINT32 StatusFlag;  /* bit 0 BSP, bit 1 enabled, bit 2 healthy */
	UINT32 Location[3]; /* package, core, thread */
	/* PI 1.7 appends extended topology, written only when asked for (bit
	 * 24 of the processor number): room for it all the same */
	UINT8 reserved[64];
} PMH_PROCESSOR_INFORMATION;

struct pmh_mp_services {
	EFI_STATUS(EFIAPI *GetNumberOfProcessors)(PMH_MP_SERVICES *This, UINTN *n, UINTN *enabled);
	EFI_STATUS(EFIAPI *GetProcessorInfo)
	(PMH_MP_SERVICES *This, UINTN n, PMH_PROCESSOR_INFORMATION *info);
	EFI_STATUS(EFIAPI *StartupAllAPs)
	(PMH_MP_SERVICES *This, PMH_AP_PROCEDURE proc, BOOLEAN single, EFI_EVENT ev,
	 UINTN timeout_us, VOID *arg, UINTN **failed);
	EFI_STATUS(EFIAPI *StartupThisAP)
	(PMH_MP_SERVICES *This, PMH_AP_PROCEDURE proc, UINTN n, EFI_EVENT ev, UINTN timeout_us,
	 VOID *arg, BOOLEAN *finished);
	EFI_STATUS(EFIAPI *SwitchBSP)(PMH_MP_SERVICES *This, UINTN n, BOOLEAN enable_old);
	EFI_STATUS(EFIAPI *EnableDisableAP)
	(PMH_MP_SERVICES *This, UINTN n, BOOLEAN enable, UINT32 *health);
	EFI_STATUS(EFIAPI *WhoAmI)(PMH_MP_SERVICES *This, UINTN *n);
};

static EFI_GUID mp_guid = {
    0x3fdda605, 0xa76e, 0x4f46, {0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08}};

#define MP_MAX		SUITE_MAX_CPUS /* CPUs in one run */
#define MP_NUMBERS	0xffff	       /* processor numbers the selection can hold (uint16_t) */
#define AP_TIMEOUT_US	30000000ull    /* the whole suite on one AP */
#define IDTR_TIMEOUT_US 1000000u       /* the second call that reads the AP's IDTR */
#define US_PER_S	1000000u
#define AP_STACK	(64 * 1024) /* the firmware's AP stacks can be small */

/* Runs fn(arg) on the stack whose top is top (16-byte aligned), System V
 * convention, and comes back to this one (rbx keeps it). */
static void on_stack(void *top, void (*fn)(void *), void *arg)
{
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %[top], %%rsp\n\t"
			 "call *%[fn]\n\t"
			 "mov %%rbx, %%rsp"
			 : "+D"(arg)
			 : [fn] "r"(fn), [top] "r"(top)
			 : "rbx", "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory",
			   "cc");
}

/* One AP run: the shared job (tests/cpu_job.h) and the AP's own IDTR
 * around it, allocated by the BSP. */
struct ap_job {
	struct cpu_job job;
	char *stack_top;
	struct idtr idtr_before, idtr_after; /* the AP's own, around the run */
};

/* Runs on the AP, on our stack (System V convention). */
static void ap_run(void *arg)
{
	struct ap_job *j = arg;
	struct idtr fw;

	idt_read(&fw);
	j->idtr_before = fw;
	idt_load_ap();
	cpu_job_run(&j->job);
	/* this AP's own IDT comes back, not the BSP's */
	__asm__ volatile("lidt %0" : : "m"(fw));
	j->job.done = 1;
}

/* A second call after the run: the IDTR the AP is left with. */
static void EFIAPI ap_read_idtr(VOID *arg)
{
	struct ap_job *j = arg;
	idt_read(&j->idtr_after);
}

static void EFIAPI ap_entry(VOID *arg)
{
	struct ap_job *j = arg;

	on_stack(j->stack_top, ap_run, j);
}

/* Why an AP's run failed as a whole, into msg; false when it did not. */
static bool ap_failure(const struct cpu_job *j, EFI_STATUS st, char *msg, size_t n)
{
	if (st == EFI_TIMEOUT)
		pmh_fmt(msg, n, "the run did not finish within %u s (StartupThisAP timed out)",
			(unsigned)(AP_TIMEOUT_US / US_PER_S));
	else if (st != EFI_SUCCESS)
		pmh_fmt(msg, n, "StartupThisAP failed (EFI status 0x%llx)", (unsigned long long)st);
	else if (!j->done)
		pmh_strlcpy(msg, "StartupThisAP returned before the run finished", n);
	else if (j->crashed)
		pmh_strlcpy(msg, "the run stopped after an unexpected exception (see above)", n);
	else
		return false;
	return true;
}

/* Whether AP cpu's IDTR after the run (a, read by a call that returned st)
 * is the one it had before (b): the line that says so into msg, or why
 * not (false: the run's FAIL). */
static bool idtr_back(unsigned cpu, const struct idtr *b, const struct idtr *a, EFI_STATUS st,
		      char *msg, size_t n)
{
	if (st == EFI_SUCCESS && a->base == b->base && a->limit == b->limit) {
		pmh_fmt(msg, n, "cpu.%u.idtr: 0x%llx/0x%x before and after the run", cpu,
			(unsigned long long)b->base, b->limit);
		return true;
	}
	pmh_fmt(msg, n,
		"expected the AP's IDTR 0x%llx/0x%x back after the run, got "
		"0x%llx/0x%x (EFI status 0x%llx)",
		(unsigned long long)b->base, b->limit, (unsigned long long)a->base, a->limit,
		(unsigned long long)st);
	return false;
}

/* After a finished run the AP's own IDTR must be back: a second call
 * reads it. */
static void ap_check_idtr(PMH_MP_SERVICES *mp, struct ap_job *j, unsigned cpu)
{
	struct idtr *a = &j->idtr_after;
	char msg[160];
	EFI_STATUS st;

	a->base = 0;
	a->limit = 0;
	st = uefi_call_wrapper(mp->StartupThisAP, 7, mp, ap_read_idtr, (UINTN)cpu, NULL,
			       (UINTN)IDTR_TIMEOUT_US, j, NULL);
	if (idtr_back(cpu, &j->idtr_before, a, st, msg, sizeof(msg)))
		suite_emit(j->job.s, "%s", msg);
	else
		suite_fail_cpu(j->job.s, cpu, msg);
}

/* The per-CPU run's state on the BSP. */
struct mp_run {
	struct efi_ctx *e;
	PMH_MP_SERVICES *mp;
};

/* One AP's run, then its lines on the BSP. Returns true when the AP may
 * still be running (timed out or not done). */
static bool run_ap(void *ctx, struct cpu_job *job, unsigned cpu)
{
	struct mp_run *m = ctx;
	struct ap_job *j = (struct ap_job *)job; /* job is its first member */
	struct suite *s = job->s;
	/* the identity and sink of the BSP's run come back afterwards */
	struct suite_cpu bsp = suite_bound(s);
	char msg[160];
	EFI_STATUS st;

	cpu_job_reset(job, cpu);
	st = uefi_call_wrapper(m->mp->StartupThisAP, 7, m->mp, ap_entry, (UINTN)cpu, NULL,
			       (UINTN)AP_TIMEOUT_US, j, NULL);
	suite_bind_cpu(s, &bsp);
	isr_set_fatal(out_fatal, &m->e->recover);
	cpu_job_emit(job);
	if (ap_failure(job, st, msg, sizeof(msg)))
		suite_fail_cpu(s, cpu, msg);
	if (job->done && st == EFI_SUCCESS)
		ap_check_idtr(m->mp, j, cpu);
	return !job->done;
}

/* The MP Services protocol and the number of processors; NULL (one
 * processor) with a warning when the firmware has none. */
static PMH_MP_SERVICES *mp_locate(struct suite *s, UINTN *n)
{
	PMH_MP_SERVICES *mp = NULL;
	UINTN en = 1;

	*n = 1;
	if (uefi_call_wrapper(BS->LocateProtocol, 3, &mp_guid, NULL, (void **)&mp) != EFI_SUCCESS ||
	    !mp || uefi_call_wrapper(mp->GetNumberOfProcessors, 3, mp, n, &en) != EFI_SUCCESS ||
	    *n == 0) {
		suite_emit(s, "warning: cpus: the firmware has no MP Services protocol: per-CPU "
			      "runs are unavailable, running on the boot CPU only");
		*n = 1;
		return NULL;
	}
	if (*n > MP_NUMBERS)
		*n = MP_NUMBERS;
	return mp;
}

/* Each processor's status flags and its thread within its core (PI spec
 * Vol. 2 EFI_CPU_PHYSICAL_LOCATION; cpu_select.h); NULL when out of
 * memory. */
static uint32_t *mp_flags(PMH_MP_SERVICES *mp, UINTN n)
{
	PMH_PROCESSOR_INFORMATION info;
	uint32_t *flags = AllocateZeroPool(n * sizeof(*flags));

	for (UINTN i = 0; flags && i < n; i++) {
		if (!mp)
			flags[i] = CPUSEL_BSP | CPUSEL_ENABLED | CPUSEL_HEALTHY;
		else if (uefi_call_wrapper(mp->GetProcessorInfo, 3, mp, i, &info) == EFI_SUCCESS)
			flags[i] =
			    (info.StatusFlag & (CPUSEL_BSP | CPUSEL_ENABLED | CPUSEL_HEALTHY)) |
			    CPUSEL_THREAD(info.Location[2]);
	}
	return flags;
}

/* The job, stack and output buffer the APs' runs use in turn; NULL when
 * out of memory. */
static struct ap_job *job_alloc(struct suite *s)
{
	struct ap_job *j = AllocateZeroPool(sizeof(*j));
	char *stack = j ? AllocatePool(AP_STACK) : NULL;

	if (j)
		j->job.buf = AllocatePool(CPU_JOB_BUF);
	if (!stack || !j || !j->job.buf) {
		if (j && j->job.buf)
			FreePool(j->job.buf);
		if (j)
			FreePool(j);
		if (stack)
			FreePool(stack);
		return NULL;
	}
	j->job.s = s;
	j->stack_top = stack + AP_STACK;
	return j;
}

/* The selected CPUs one after another (today's way, and cpus = serial). */
static void run_serial(struct mp_run *m, struct harness *h, const uint32_t *flags,
		       const uint16_t *sel, unsigned k, struct cpu_run *runs)
{
	struct suite *s = h->suite;
	struct ap_job *job = NULL; /* NULL: no AP selected, or out of memory */
	bool stuck;		   /* an AP may still be running: its job stays allocated */

	if (cpu_jobs_need_ap(flags, sel, k))
		job = job_alloc(s);
	stuck = cpu_jobs_run(&(struct cpu_jobs){run_ap, m, job ? &job->job : NULL}, h, flags, sel,
			     k, runs);
	/* An AP that timed out may still be on its stack or writing its
	 * buffer and the results tables: those stay allocated then. */
	if (stuck)
		suite_keep_tables(s);
	if (job && !stuck) {
		FreePool(job->job.buf);
		FreePool(job->stack_top - AP_STACK);
		FreePool(job);
	}
}

/* Every selected CPU at once. Each AP finds its slot i (WhoAmI, then sel),
 * moves to stack i, loads our IDT and runs job i; the boot CPU runs its
 * share and waits on the firmware's stack, with the run's own per-CPU
 * state (the boot block, pmu/percpu.h), which no AP uses. */
#define PAR_GRACE_US 2000000ull /* the firmware's signal after every CPU is back */
#define PG_BYTES     (USER_PG_POOL * 4096u)

/* One AP's run, beside its job: its own IDTR before the run and at a
 * later call, and whether it is back on the firmware's stack. */
struct par_ap {
	struct idtr before, after; /* after: 0/0 until read */
	volatile int back;
};

/* Allocated from pool memory in one piece (par_alloc): an AP that never
 * came back may still read it, and the firmware may still signal ev. */
struct par_run {
	struct cpu_par p;
	PMH_MP_SERVICES *mp;
	uint16_t *sel;		    /* the selection's copy, for the APs */
	struct par_ap *ap;	    /* [k] */
	EFI_PHYSICAL_ADDRESS pools; /* each CPU's page tables (x86/hw_user.h) */
	EFI_EVENT ev;		    /* StartupAllAPs signals it when all are back */
	unsigned k, bsp;	    /* the boot CPU's slot, k when not selected */
	uint64_t t0;		    /* the start, TSC */
	bool started, ended;	    /* ended: the firmware is done with it (signalled, idle) */
};

struct par_call { /* a call on one CPU: the run and the CPU's slot */
	struct par_run *r;
	unsigned i;
};

/* The slot of the CPU running this (an AP's, by WhoAmI), k for none. */
static unsigned par_slot(const struct par_run *r)
{
	UINTN n;

	if (uefi_call_wrapper(r->mp->WhoAmI, 2, r->mp, &n) != EFI_SUCCESS)
		return r->k;
	for (unsigned i = 0; i < r->k; i++)
		if (r->sel[i] == n)
			return i;
	return r->k;
}

/* Slot i's share of the run: its page tables, then its job. On stack i. */
static void par_share(struct par_run *r, unsigned i)
{
	user_pg_setup((void *)(uintptr_t)(r->pools + (EFI_PHYSICAL_ADDRESS)i * PG_BYTES), PG_BYTES);
	cpu_par_enter(&r->p, i);
}

/* On the AP, on stack i: our IDT around its share, then its own back. */
static void par_ap_run(void *arg)
{
	struct par_call *c = arg;

	idt_load_ap();
	par_share(c->r, c->i);
	__asm__ volatile("lidt %0" : : "m"(c->r->ap[c->i].before));
}

/* The AP procedure of the run (every enabled AP runs it). */
static void EFIAPI par_ap_entry(VOID *arg)
{
	struct par_run *r = arg;
	struct par_call c = {r, par_slot(r)};

	if (c.i >= r->k)
		return; /* not selected */
	idt_read(&r->ap[c.i].before);
	on_stack(pcpu_stack_top(r->p.stacks, c.i), par_ap_run, &c);
	__atomic_store_n(&r->ap[c.i].back, 1, __ATOMIC_RELEASE);
}

static bool par_aps_back(const struct par_run *r)
{
	for (unsigned i = 0; i < r->k; i++)
		if (i != r->bsp && !__atomic_load_n(&r->ap[i].back, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Whether the firmware has signalled the end of the run (every AP back,
 * or, at its timeout, reset: those jobs never finish). */
static bool par_signaled(struct par_run *r)
{
	if (!r->ended && uefi_call_wrapper(BS->CheckEvent, 1, r->ev) == EFI_SUCCESS)
		r->ended = true;
	return r->ended;
}

/* Until every job is done and every AP back on the firmware's stack, or
 * the firmware signals the end, bounded by the TSC: the timeout from the
 * start and a little more (the firmware's own comes first). */
static void par_wait(struct par_run *r)
{
	uint64_t limit = (CPU_PAR_TIMEOUT_US * r->p.waves + PAR_GRACE_US) * hw_wait_ticks_per_us();

	while (!(cpu_par_all_done(&r->p) && par_aps_back(r)) && !par_signaled(r) &&
	       hw_rdtsc() - r->t0 < limit)
		for (unsigned n = 0; n < 64; n++)
			hw_relax();
}

/* The boot CPU, on the firmware's stack: its share with the run's own
 * state (tests/cpu_par.c cpu_par_enter; its page tables efi_main's),
 * then the wait. */
static void par_bsp_run(struct par_run *r)
{
	if (r->bsp < r->k)
		cpu_par_enter(&r->p, r->bsp);
	if (r->started)
		par_wait(r);
}

/* A later call on every AP: the IDTR its run left. */
static void EFIAPI par_ap_idtr(VOID *arg)
{
	struct par_run *r = arg;
	unsigned i = par_slot(r);

	if (i >= r->k)
		return;
	idt_read(&r->ap[i].after);
}

/* One more call on every AP at once, blocking: each one's IDTR. A firmware
 * that has not yet seen the APs back (EFI_NOT_READY; EDK2 looks at each
 * call and on a timer) gets PAR_GRACE_US to signal the end. */
static EFI_STATUS par_read_idtr(struct par_run *r)
{
	uint64_t t0 = hw_rdtsc(), grace = PAR_GRACE_US * hw_wait_ticks_per_us();
	EFI_STATUS st;

	for (;;) {
		st = uefi_call_wrapper(r->mp->StartupAllAPs, 7, r->mp, par_ap_idtr, FALSE, NULL,
				       (UINTN)IDTR_TIMEOUT_US, r, NULL);
		if (st != EFI_NOT_READY || hw_rdtsc() - t0 >= grace)
			break;
		while (!par_signaled(r) && hw_rdtsc() - t0 < grace)
			hw_relax();
	}
	if (st == EFI_SUCCESS)
		r->ended = true;
	return st;
}

/* After the run every AP that came back must have its own IDTR again. */
static void par_check_idtr(struct par_run *r)
{
	EFI_STATUS st = par_read_idtr(r);
	char msg[160];

	for (unsigned i = 0; i < r->k; i++) {
		struct par_ap *a = &r->ap[i];
		struct cpu_job *j = &r->p.jobs[i];
		if (i == r->bsp || !a->back || !j->done)
			continue; /* cpu_par_finish names a run that did not finish */
		if (idtr_back(j->cpu, &a->before, &a->after, st, msg, sizeof(msg)))
			cpu_par_note(&r->p, i, msg);
		else
			cpu_par_fail(&r->p, i, msg);
	}
}

/* The run's memory besides cpu_par's: NULL (nothing kept) when short. */
static struct par_run *par_alloc(PMH_MP_SERVICES *mp, const uint32_t *flags, const uint16_t *sel,
				 unsigned k)
{
	struct par_run *r =
	    AllocateZeroPool(sizeof(*r) + k * (sizeof(struct par_ap) + sizeof(uint16_t)));

	if (!r)
		return NULL;
	r->mp = mp;
	r->k = k;
	r->bsp = k;
	r->ap = (struct par_ap *)(r + 1);
	r->sel = (uint16_t *)(r->ap + k);
	for (unsigned i = 0; i < k; i++) {
		r->sel[i] = sel[i];
		if (flags[sel[i]] & CPUSEL_BSP)
			r->bsp = i;
	}
	if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData,
			      (UINTN)k * USER_PG_POOL, &r->pools) == EFI_SUCCESS) {
		/* a plain event (no notification): CheckEvent polls it */
		if (uefi_call_wrapper(BS->CreateEvent, 5, 0, TPL_CALLBACK, NULL, NULL, &r->ev) ==
		    EFI_SUCCESS)
			return r;
		uefi_call_wrapper(BS->FreePages, 2, r->pools, (UINTN)k * USER_PG_POOL);
	}
	FreePool(r);
	return NULL;
}

static void par_free(struct par_run *r)
{
	uefi_call_wrapper(BS->CloseEvent, 1, r->ev);
	uefi_call_wrapper(BS->FreePages, 2, r->pools, (UINTN)r->k * USER_PG_POOL);
	FreePool(r);
}

/* Every AP started at once, non-blocking, the firmware bounding it too;
 * then the boot CPU's share and the wait. */
static void par_go(struct par_run *r, struct suite *s)
{
	EFI_STATUS st;

	r->t0 = hw_rdtsc();
	st = uefi_call_wrapper(r->mp->StartupAllAPs, 7, r->mp, par_ap_entry, FALSE, r->ev,
			       (UINTN)(CPU_PAR_TIMEOUT_US * r->p.waves), r, NULL);
	r->started = st == EFI_SUCCESS;
	if (!r->started)
		suite_emit(s, "error: cpus: StartupAllAPs failed (EFI status 0x%llx): no AP ran",
			   (unsigned long long)st);
	par_bsp_run(r);
}

/* The parallel run; false, with the line that says why, when it cannot be
 * set up (nothing ran: the caller runs the CPUs one after another). */
static bool run_parallel(struct mp_run *m, struct harness *h, const uint32_t *flags,
			 const uint16_t *sel, unsigned k, struct cpu_run *runs)
{
	struct suite *s = h->suite;
	struct par_run *r = par_alloc(m->mp, flags, sel, k);

	if (!r) {
		suite_emit(s,
			   "warning: cpus: no memory (or no event) to run %u CPUs at once: "
			   "running them one after another",
			   k);
		return false;
	}
	if (!cpu_par_prepare(&r->p, s, flags, r->sel, k)) {
		par_free(r);
		return false;
	}
	/* the APs' state is their own (pmu/percpu.h): the boot CPU's APIC
	 * state needs no apic_detect afterwards, as a serial run's does */
	par_go(r, s);
	if (r->started)
		par_check_idtr(r);
	/* a CPU still running keeps its tables (cpu_par_finish) */
	cpu_par_finish(&r->p, runs, (unsigned)(CPU_PAR_TIMEOUT_US * r->p.waves / US_PER_S));
	if (!r->p.kept && (r->ended || !r->started))
		par_free(r); /* else the firmware may still signal ev */
	return true;
}

void mp_run_suite(void *ctx, struct harness *h)
{
	struct mp_run m = {ctx, NULL};
	struct suite *s = h->suite;
	UINTN n;

	if (!cpu_select_requested(s->opt)) {
		suite_run(s, 0);
		return;
	}
	m.mp = mp_locate(s, &n);
	uint32_t *flags = mp_flags(m.mp, n);
	uint16_t *sel = AllocatePool(MP_MAX * sizeof(*sel));
	struct cpu_run *runs = AllocateZeroPool(MP_MAX * sizeof(*runs));
	if (!flags || !sel || !runs) {
		suite_emit(s, "error: out of memory for the per-CPU run: boot CPU only");
		suite_run(s, 0);
	} else {
		unsigned k = suite_cpus_select(s, flags, (unsigned)n, sel, MP_MAX);
		/* at once unless asked not to, or only the boot CPU runs */
		bool par = m.mp && !h->opt.cpus_serial && cpu_jobs_need_ap(flags, sel, k);
		if (!par || !run_parallel(&m, h, flags, sel, k, runs))
			run_serial(&m, h, flags, sel, k, runs);
	}
	if (flags)
		FreePool(flags);
	if (sel)
		FreePool(sel);
	if (runs)
		FreePool(runs);
}
