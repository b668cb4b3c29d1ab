/* UEFI entry: output, the TSC rate and the image's folder first, then the
 * platform seam (tests/platform.h) filled with the firmware's services for
 * the harness's session (tests/harness.c), and back to the firmware with
 * its state put back. */
#include "platform.h"
#include "../apic/idt.h"
#include "../apic/pmi.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/hw.h"
#include "../pmu/percpu.h"
#include "../tests/harness.h"
#include "../x86/hw_user.h"

extern uint64_t pmh_tsc_per_us;

/* The TSC is timed over this stall (Boot Services Stall counts in us). */
#define CALIBRATE_US 10000
/* QEMU's isa-debug-exit device (scripts/qemu-boot.sh puts it there). */
#define QEMU_EXIT_PORT 0xf4

static void efi_line(void *ctx, const char *s)
{
	(void)ctx;
	out_line(s);
}

static void efi_screen(void *ctx, const char *s)
{
	(void)ctx;
	out_screen(s);
}

static void *efi_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return AllocateZeroPool(n);
}

static void efi_free(void *ctx, void *p)
{
	(void)ctx;
	FreePool(p);
}

static void calibrate_tsc(void)
{
	uint64_t t0 = hw_rdtsc();
	uefi_call_wrapper(BS->Stall, 1, CALIBRATE_US);
	uint64_t t1 = hw_rdtsc();
	pmh_tsc_per_us = (t1 - t0) / CALIBRATE_US;
}

static uint64_t efi_now_us(void *ctx)
{
	(void)ctx;
	return pmh_tsc_per_us ? hw_rdtsc() / pmh_tsc_per_us : 0;
}

static void cfg_error(void *ctx, const char *msg)
{
	char line[256];
	pmh_fmt(line, sizeof(line), "config: %s: %s (default kept)", (const char *)ctx, msg);
	out_line(line);
}

/* The load options: from the UEFI shell, its own argv (its quoting done,
 * Argv[0] the command as typed, with or without ".efi"); otherwise the
 * boot entry's UCS-2 string, whole, however long. */
static void load_options(EFI_HANDLE image, struct options *o)
{
	EFI_SHELL_PARAMETERS_PROTOCOL *sp = NULL;
	EFI_LOADED_IMAGE *li = NULL;

	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &ShellParametersProtocolGuid,
			      (void **)&sp) == EFI_SUCCESS &&
	    sp && sp->Argc > 1) {
		options_parse_wide_args(o, sp->Argc - 1, (const uint16_t *const *)sp->Argv + 1,
					cfg_error, "load options");
		return;
	}
	if (sp)
		return; /* the shell, and no arguments */
	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) ==
		EFI_SUCCESS &&
	    li && li->LoadOptions && li->LoadOptionsSize >= sizeof(CHAR16))
		options_parse_cmdline(o, li->LoadOptions, li->LoadOptionsSize / sizeof(CHAR16),
				      cfg_error, "load options");
}

/* A pmuharness.cfg that is there and cannot be read (a cut cluster chain,
 * a failing stick): none of it applies, said with its status; and since
 * what it asked for is unknown, the run does not end waiting for a key
 * (on_finish = wait, the default) on a lab machine nobody watches: it
 * returns to the firmware unless the load options say otherwise. */
static void config_unreadable(struct options *o, EFI_STATUS st, UINTN got)
{
	char line[240];

	pmh_fmt(line, sizeof(line),
		"error: config: %s could not be read (%s, EFI status 0x%llx, after %llu bytes): "
		"none of it applies; on_finish = return unless the load options set it",
		OPTIONS_CONFIG_NAME, files_status_name(st), (unsigned long long)st,
		(unsigned long long)got);
	out_line(line);
	o->on_finish = FINISH_RETURN;
	o->on_finish_set = true;
}

/* pmuharness.cfg beside the binary, then the load options over it. */
static void efi_options(void *ctx, struct options *o)
{
	struct efi_ctx *e = ctx;
	CHAR16 name[sizeof(OPTIONS_CONFIG_NAME)];
	char origin[200] = OPTIONS_CONFIG_NAME, *cfg = NULL;
	EFI_STATUS st;
	UINTN len = 0, size = 0;
	bool unreadable = false;

	for (UINTN i = 0; i < sizeof(name) / sizeof(name[0]); i++)
		name[i] = (CHAR16)OPTIONS_CONFIG_NAME[i];
	if (e->ipxe || (!e->dir && e->pxe)) /* a network boot: beside the image there */
		cfg = net_read(e, OPTIONS_CONFIG_NAME, &len, &size, origin, sizeof(origin));
	else if (e->dir) {
		st = EFI_NOT_FOUND;
		cfg = files_read(e->dir, name, &len, &size, &st);
		unreadable = st != EFI_SUCCESS && st != EFI_NOT_FOUND;
	}
	if (cfg && !unreadable)
		options_parse_config_cut(o, cfg, len, size, cfg_error, origin);
	if (cfg)
		FreePool(cfg);
	if (unreadable)
		config_unreadable(o, st, len);
	load_options(e->image, o);
	if (o->output == OUTPUT_LAVA)
		out_display_only();
}

/* Our IDT, and the exception report and recovery on the BSP around fn. */
static bool efi_guard(void *ctx, void (*fn)(void *arg), void *arg)
{
	struct efi_ctx *e = ctx;
	volatile bool crashed = false;

	idt_install();
	if (pmh_setjmp(&e->recover)) {
		crashed = true;
	} else {
		isr_set_fatal(out_fatal, &e->recover);
		fn(arg);
	}
	isr_set_fatal(out_fatal, NULL);
	/* After a recovered exception a check may have left the PMI armed:
	 * LVTPC goes back to the firmware's value before its IDT does, and a
	 * PMI window left open gives back the TPR and IF it changed. */
	pmi_disarm();
	return crashed;
}

static void efi_unguard(void *ctx)
{
	(void)ctx;
	idt_restore();
}

static void efi_qemu_exit(void *ctx, unsigned value)
{
	(void)ctx;
	__asm__ volatile("outl %0, %1" : : "a"(value), "Nd"((uint16_t)QEMU_EXIT_PORT));
}

static void efi_power_off(void *ctx)
{
	(void)ctx;
	uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	static struct efi_ctx e;
	struct platform p = {
	    .ctx = &e,
	    .line = efi_line,
	    .screen = efi_screen,
	    .status = scr_status,
	    .results_open = files_results_open,
	    .results_flush = files_results_flush,
	    .results_close = files_results_close,
	    .alloc = efi_alloc,
	    .free = efi_free,
	    .options = efi_options,
	    .now_us = efi_now_us,
	    .guard = efi_guard,
	    .unguard = efi_unguard,
	    .run_cpus = mp_run_suite,
	    .qemu_exit = efi_qemu_exit,
	    .power_off = efi_power_off,
	};

	InitializeLib(image, systab);
	/* the boot CPU's per-CPU state, before anything touches it: the image
	 * carries none (pmu/percpu.h) */
	void *pcpu = AllocateZeroPool(pcpu_size() + PCPU_ALIGN);
	if (!pcpu) {
		Print(L"pmuharness: error: no memory for the harness's state (%lu bytes)\r\n",
		      (UINT64)pcpu_size());
		return EFI_OUT_OF_RESOURCES;
	}
	/* as aligned as the section (a pool gives 8 bytes) */
	pcpu_set_boot_block(
	    (void *)(((uintptr_t)pcpu + PCPU_ALIGN - 1) & ~(uintptr_t)(PCPU_ALIGN - 1)));
	out_init();
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	if (ST->ConIn) {
		p.key_flush = key_flush;
		p.key_wait = key_wait;
	}
	calibrate_tsc();
	efi_identity(&p);
	/* the ring-3 excursion's page tables (x86/hw_user_pg.c), given back
	 * on exit with the rest */
	void *pg = AllocateZeroPool(USER_PG_POOL_BYTES);
	user_pg_setup(pg, USER_PG_POOL_BYTES);
	e.image = image;
	files_open_image_dir(&e);
	enum harness_end end = harness_main(&p);
	files_close_image_dir(&e);
	user_pg_setup(0, 0);
	if (pg)
		FreePool(pg);
	pcpu_set_boot_block(NULL);
	FreePool(pcpu);
	/* Esc and ERROR send the boot manager on to its next boot option. */
	if (end == HARNESS_NO_MEMORY)
		return EFI_OUT_OF_RESOURCES;
	return end == HARNESS_DONE ? EFI_SUCCESS : EFI_ABORTED;
}
