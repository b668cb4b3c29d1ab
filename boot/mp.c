/* Per-CPU runs through the firmware's MP Services protocol (PI spec Vol. 2,
 * EFI_MP_SERVICES_PROTOCOL). The AP procedure calls no UEFI service (none is
 * MP-safe): on a stack of ours it loads our IDT, identifies its own APIC and
 * PMU, runs the checks into a buffer the BSP allocated, and puts its own
 * IDTR back. The BSP waits (bounded by a timeout), then prints the lines. */
#include "platform.h"
#include "../apic/idt.h"
#include "../apic/pmi.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
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

#define MP_MAX SUITE_MAX_CPUS	  /* CPUs in one run */
#define MP_NUMBERS 0xffff	  /* processor numbers the selection can hold (uint16_t) */
#define AP_TIMEOUT_US 30000000ull /* the whole suite on one AP */
#define IDTR_TIMEOUT_US 1000000u  /* the second call that reads the AP's IDTR */
#define US_PER_S 1000000u
#define AP_STACK (64 * 1024)	  /* the firmware's AP stacks can be small */

/* One AP run: the shared job (tests/cpu_job.h) and the AP's own IDTR
 * around it, allocated by the BSP. */
struct ap_job {
	struct cpu_job job;
	char *stack_top;
	struct idtr idtr_before, idtr_after; /* the AP's own, around the run */
};

/* Runs on the AP, on our stack (System V convention). */
static void ap_run(struct ap_job *j)
{
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
	void (*fn)(struct ap_job *) = ap_run;

	/* Switch to our stack for the run and back (rbx keeps the old one). */
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %[top], %%rsp\n\t"
			 "call *%[fn]\n\t"
			 "mov %%rbx, %%rsp"
			 : "+D"(j)
			 : [fn] "r"(fn), [top] "r"(j->stack_top)
			 : "rbx", "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory",
			   "cc");
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

/* After a finished run the AP's own IDTR must be back: a second call
 * reads it. */
static void ap_check_idtr(PMH_MP_SERVICES *mp, struct ap_job *j, unsigned cpu)
{
	struct idtr *b = &j->idtr_before, *a = &j->idtr_after;
	char msg[160];
	EFI_STATUS st;

	a->base = 0;
	a->limit = 0;
	st = uefi_call_wrapper(mp->StartupThisAP, 7, mp, ap_read_idtr, (UINTN)cpu, NULL,
			       (UINTN)IDTR_TIMEOUT_US, j, NULL);
	if (st == EFI_SUCCESS && a->base == b->base && a->limit == b->limit) {
		suite_emit(j->job.s, "cpu.%u.idtr: 0x%llx/0x%x before and after the run", cpu,
			   (unsigned long long)b->base, b->limit);
		return;
	}
	pmh_fmt(msg, sizeof(msg),
		"expected the AP's IDTR 0x%llx/0x%x back after the run, got "
		"0x%llx/0x%x (EFI status 0x%llx)",
		(unsigned long long)b->base, b->limit, (unsigned long long)a->base, a->limit,
		(unsigned long long)st);
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

/* Each processor's status flags (cpu_select.h); NULL when out of memory. */
static uint32_t *mp_flags(PMH_MP_SERVICES *mp, UINTN n)
{
	PMH_PROCESSOR_INFORMATION info;
	uint32_t *flags = AllocateZeroPool(n * sizeof(*flags));

	for (UINTN i = 0; flags && i < n; i++) {
		if (!mp)
			flags[i] = CPUSEL_BSP | CPUSEL_ENABLED | CPUSEL_HEALTHY;
		else if (uefi_call_wrapper(mp->GetProcessorInfo, 3, mp, i, &info) == EFI_SUCCESS)
			flags[i] = info.StatusFlag;
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

void mp_run_suite(void *ctx, struct harness *h)
{
	struct mp_run m = { ctx, NULL };
	struct suite *s = h->suite;
	struct ap_job *job = NULL; /* NULL: no AP selected, or out of memory */
	bool stuck = false; /* an AP may still be running: its job stays allocated */
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
		if (cpu_jobs_need_ap(flags, sel, k))
			job = job_alloc(s);
		stuck = cpu_jobs_run(&(struct cpu_jobs){ run_ap, &m, job ? &job->job : NULL }, h,
				     flags, sel, k, runs);
	}
	/* An AP that timed out may still be on its stack or writing its
	 * buffer and the results tables: those stay allocated then. */
	if (stuck)
		suite_keep_tables(s);
	if (job && !stuck) {
		FreePool(job->job.buf);
		FreePool(job->stack_top - AP_STACK);
		FreePool(job);
	}
	if (flags)
		FreePool(flags);
	if (sel)
		FreePool(sel);
	if (runs)
		FreePool(runs);
}
