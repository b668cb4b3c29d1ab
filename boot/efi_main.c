/* UEFI entry: set up output, our IDT and options, identify the CPU, run the
 * suite, write the results beside the binary, and leave as configured with
 * the firmware's state put back. With on_finish = wait (real hardware) a
 * countdown comes first and R runs again after the verdict. */
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/cpu.h"
#include "../pmu/pmu.h"
#include "../apic/apic.h"
#include "../apic/idt.h"
#include "../apic/isr.h"
#include "../apic/pmi.h"
#include "../tests/suite.h"
#include "../tests/options.h"
#include "../events/events.h"

extern uint64_t pmh_tsc_per_us;

/* Large state comes from the firmware's pool: static buffers would be file
 * size (the PE image has no .bss) and the firmware's stack is small. */
static struct suite *suite;
static struct cpu_info cpu;
static struct pmu pmu;
static struct apic_info apic;
static struct options opt;
static struct pmh_jmpbuf recover;
/* Static so that their values survive a longjmp out of a check. */
static EFI_FILE_HANDLE log_f, json_f;
#define JSON_CAP (SUITE_MAX_RESULTS * 400 + 4096)

static void sink_line(void *ctx, const char *s)
{
	(void)ctx;
	out_line(s);
}

static void cfg_error(void *ctx, const char *msg)
{
	char line[256];
	pmh_fmt(line, sizeof(line), "config: %s: %s (default kept)", (const char *)ctx, msg);
	out_line(line);
}

static void fatal_line(const char *s)
{
	/* Exception context: serial only, no firmware calls. */
	serial_write(s);
	serial_write("\r\n");
}

static void calibrate_tsc(void)
{
	uint64_t t0 = hw_rdtsc();
	uefi_call_wrapper(BS->Stall, 1, 10000);
	uint64_t t1 = hw_rdtsc();
	pmh_tsc_per_us = (t1 - t0) / 10000;
}

/* Load options arrive as one UCS-2 string: "pmuharness.efi key=value ...".
 * Anything that is not printable text (a boot-manager blob) is ignored. */
static int load_options(EFI_HANDLE image, char *buf, UINTN cap, char **argv, int max)
{
	EFI_LOADED_IMAGE *li = NULL;
	int argc = 0;
	UINTN n = 0;

	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) !=
		    EFI_SUCCESS ||
	    !li || !li->LoadOptions || li->LoadOptionsSize < 2)
		return 0;
	CHAR16 *w = li->LoadOptions;
	UINTN len = li->LoadOptionsSize / 2;
	for (UINTN i = 0; i < len && w[i]; i++) {
		if (w[i] > 0x7e || (w[i] < 0x20 && w[i] != L'\t'))
			return 0;
		if (n + 1 < cap)
			buf[n++] = (char)w[i];
	}
	buf[n] = 0;
	for (char *p = buf; *p && argc < max;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	/* argv[0] is the image name as the shell typed it */
	if (argc && (pmh_strchr(argv[0], '.') || pmh_strchr(argv[0], '\\')) &&
	    !pmh_strchr(argv[0], '=')) {
		for (int i = 1; i < argc; i++)
			argv[i - 1] = argv[i];
		argc--;
	}
	return argc;
}

static void qemu_exit(uint32_t code)
{
	__asm__ volatile("outl %0, %1" : : "a"(code), "Nd"((uint16_t)0xf4));
}

/* Waits up to us microseconds for a key; 0 when none came. */
static int read_key(uint64_t us, EFI_INPUT_KEY *key)
{
	EFI_EVENT ev[2];
	UINTN idx = 0, n = 1;

	if (!ST->ConIn)
		return 0;
	ev[0] = ST->ConIn->WaitForKey;
	if (us && uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &ev[1]) ==
			  EFI_SUCCESS) {
		/* the timer counts in 100 ns units */
		uefi_call_wrapper(BS->SetTimer, 3, ev[1], TimerRelative, us * 10);
		n = 2;
	}
	uefi_call_wrapper(BS->WaitForEvent, 3, n, ev, &idx);
	if (n == 2)
		uefi_call_wrapper(BS->CloseEvent, 1, ev[1]);
	if (idx != 0)
		return 0;
	return uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2, ST->ConIn, key) == EFI_SUCCESS;
}

/* The countdown before a run on real hardware: 1 = start (time up or any key),
 * 0 = Esc (skip the run). */
static int countdown(unsigned secs)
{
	EFI_INPUT_KEY key;
	char line[96];

	uefi_call_wrapper(ST->ConIn->Reset, 2, ST->ConIn, FALSE);
	for (unsigned left = secs; left; left--) {
		pmh_fmt(line, sizeof(line),
			"Starting in %u s. Esc: skip the run; any other key: start now.", left);
		out_screen(line);
		if (read_key(1000000, &key))
			return key.ScanCode != SCAN_ESC;
	}
	return 1;
}

/* Leaves as configured; 1 when the user asked for another run. */
static int finish(int code)
{
	EFI_INPUT_KEY key;

	switch (opt.on_finish) {
	case FINISH_QEMU_EXIT:
		qemu_exit((uint32_t)code);
		/* not under QEMU: fall through to a power-off */
		/* fallthrough */
	case FINISH_POWEROFF:
		uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
		break;
	case FINISH_WAIT:
		if (!ST->ConIn)
			break;
		/* Drop keys typed during the run; those after the prompt count. */
		uefi_call_wrapper(ST->ConIn->Reset, 2, ST->ConIn, FALSE);
		/* Everything is written and closed by now: the stick can be pulled. */
		out_screen("Results saved. R: run again; Esc: return to the firmware.");
		for (;;) {
			if (!read_key(0, &key))
				continue;
			if (key.ScanCode == SCAN_ESC)
				break;
			if (key.UnicodeChar == L'r' || key.UnicodeChar == L'R')
				return 1;
		}
		break;
	case FINISH_RETURN:
		break;
	}
	return 0;
}

static int run_once(EFI_FILE_HANDLE dir);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	static char cfg_args[512];
	static char *argv[32];
	CHAR16 dir_name[256];
	EFI_FILE_HANDLE dir;
	EFI_STATUS st;
	char *cfg;
	UINTN cfg_len = 0;
	int code;

	InitializeLib(image, systab);
	out_init();
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	options_default(&opt);
	suite = AllocateZeroPool(sizeof(*suite));
	if (!suite) {
		out_line("error: out of memory for the results table");
		finish(2);
		return EFI_OUT_OF_RESOURCES;
	}
	calibrate_tsc();

	dir = files_open_image_dir(image, dir_name, sizeof(dir_name) / sizeof(dir_name[0]));
	if (dir) {
		cfg = files_read(dir, L"pmuharness.cfg", &cfg_len, &st);
		if (cfg) {
			options_parse_config(&opt, cfg, cfg_len, cfg_error, "pmuharness.cfg");
			FreePool(cfg);
		}
	}
	int argc = load_options(image, cfg_args, sizeof(cfg_args), argv, 32);
	options_parse_args(&opt, argc, argv, cfg_error, "load options");

	/* Only an interactive finish counts down: the other modes (QEMU tests
	 * among them) start at once. Esc skips the run and returns to the boot
	 * manager with EFI_ABORTED, so it goes on to its next boot option. */
	if (opt.on_finish == FINISH_WAIT && opt.countdown && ST->ConIn &&
	    !countdown(opt.countdown)) {
		out_screen("Run skipped (Esc): returning to the firmware.");
		if (dir)
			uefi_call_wrapper(dir->Close, 1, dir);
		return EFI_ABORTED;
	}
	do
		code = run_once(dir);
	while (finish(code));
	if (opt.on_finish == FINISH_WAIT)
		out_screen("Returning to the firmware.");
	if (dir)
		uefi_call_wrapper(dir->Close, 1, dir);
	return code == 2 ? EFI_ABORTED : EFI_SUCCESS;
}

/* One run: new results files, identification, the suite, the summary, the
 * JSON and the banner; the files are complete and closed on return. */
static int run_once(EFI_FILE_HANDLE dir)
{
	CHAR16 res_name[40];
	EFI_STATUS st;
	char line[256];
	volatile int harness_error = 0;
	uint64_t t_start = hw_rdtsc();

	log_f = json_f = NULL;
	/* Pointers only: every exit below may report from it, even one taken
	 * before the CPU was identified. */
	suite_init(suite, &opt, &cpu, &pmu, &apic, (struct sink){ sink_line, 0 });
	idt_install();
	if (pmh_setjmp(&recover)) {
		out_line("error: the harness stopped after an unexpected exception (see above)");
		harness_error = 1;
		goto done;
	}
	isr_set_fatal(fatal_line, &recover);

	if (dir) {
		st = files_create_results(dir, &log_f, &json_f, res_name,
					  sizeof(res_name) / sizeof(res_name[0]));
		if (st != EFI_SUCCESS) {
			pmh_fmt(line, sizeof(line),
				"warning: cannot create results files beside the binary "
				"(%s, EFI status 0x%llx): results are on the console and serial only",
				files_status_name(st), (unsigned long long)st);
			out_line(line);
		}
	} else {
		out_line("warning: cannot open the folder the binary was loaded from: results are on "
			 "the console and serial only");
	}
	if (log_f)
		out_attach_log(log_f);

	cpu_identify(&cpu);
	{
		/* list_events / json / event options (events/events.h) */
		static struct ev_result evr;
		enum events_opt eo = events_handle_options(
			cpu.driver, cpu.family, cpu.model, opt.list_events, opt.json_events, opt.event,
			&(struct events_sink){ sink_line, 0 }, &evr);
		if (eo == EVOPT_LISTED)
			goto done;
		if (eo == EVOPT_REFUSED) {
			harness_error = 1;
			goto done;
		}
	}
	apic_detect(&apic);
	pmu_attach(&pmu, &cpu);
	report_identity(suite);
	if (log_f) {
		char a[40];
		unsigned i;
		for (i = 0; res_name[i] && i + 1 < sizeof(a); i++)
			a[i] = (char)res_name[i];
		a[i] = 0;
		suite_emit(suite, "results.files: %s.log %s.json", a, a);
	}
	suite_emit(suite, "options.on_finish: %s", options_finish_name(opt.on_finish));
	out_flush_log();
	mp_run_suite(suite, &apic, fatal_line, &recover);

done:
	isr_set_fatal(fatal_line, NULL);
	/* After a recovered exception a check may have left the PMI armed:
	 * LVTPC goes back to the firmware's value before its IDT does, and a
	 * PMI window left open gives back the TPR and IF it changed. */
	pmi_disarm();
	/* what the driver and identification changed goes back (TSX
	 * force-abort, LIMIT_CPUID) before the firmware gets the CPU */
	pmu_release(&pmu);
	cpu_restore(&cpu);
	suite->harness_error = harness_error != 0;
	report_summary(suite);
	pmh_fmt(line, sizeof(line), "harness.elapsed_us: %llu",
		(unsigned long long)(pmh_tsc_per_us ? (hw_rdtsc() - t_start) / pmh_tsc_per_us : 0));
	out_line(line);
	if (json_f) {
		char *json_buf = AllocatePool(JSON_CAP);
		size_t n = json_buf ? report_json(suite, json_buf, JSON_CAP) : 0;
		if (!json_buf) {
			st = EFI_OUT_OF_RESOURCES;
		} else {
			if (n >= JSON_CAP) {
				out_line("error: results JSON larger than its buffer; file truncated");
				n = JSON_CAP - 1;
			}
			st = files_write(json_f, json_buf, n);
			FreePool(json_buf);
		}
		if (st != EFI_SUCCESS) {
			pmh_fmt(line, sizeof(line),
				"error: writing the JSON results failed (%s, EFI status 0x%llx)",
				files_status_name(st), (unsigned long long)st);
			out_line(line);
		}
		uefi_call_wrapper(json_f->Close, 1, json_f);
	}
	if (log_f) {
		out_detach_log();
		uefi_call_wrapper(log_f->Close, 1, log_f);
	}
	idt_restore();
	return (int)run_verdict_exit(suite_verdict(suite));
}
