/* Output of every line to three places: the machine's screen (scrolling
 * lines until a run starts, then the layout of screen_efi.c), COM1 (plain
 * ASCII, no escape codes, so scripts can parse it) and the log file; and
 * the keyboard for the countdown and the end prompt. */
#include "platform.h"
#include "../lib/str.h"
#include "../lib/fmt.h"

/* COM1 is a 16550-compatible UART at the PC's legacy port. */
#define COM1	    0x3f8
#define UART_LSR    5	   /* line status register offset */
#define LSR_THRE    0x20   /* transmit holding register empty */
#define LSR_NO_UART 0xff   /* what a missing UART's floating bus reads */
#define THRE_POLLS  100000 /* a bounded wait for THRE: about 10 ms */
#define LOG_BUF	    4096   /* log lines held until the next write to the file */
/* UEFI event timers count in 100 ns units (UEFI spec, SetTimer). */
#define TIMER_UNITS_PER_US 10

static int serial_ok;
/* The console the screen goes to: the firmware's ConOut, or for a lab that
 * reads COM1 the display's own console alone (NULL: the machine has none;
 * out_display_only). */
static SIMPLE_TEXT_OUTPUT_INTERFACE *con;
static EFI_FILE_HANDLE log_file;
/* The first failed write or flush of this log file, and the bytes written
 * before it: files_results_close keeps the file only if it is complete. */
static EFI_STATUS log_status;
static UINT64 log_written;
/* From the pool: static data would be stored in the image in full. */
static char *log_buf;
static UINTN log_len;
/* Lines that did not fit before the log file opened: the buffer keeps the
 * first ones, and the file says how many are missing. */
static unsigned log_dropped;

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void out_init(void)
{
	serial_ok = inb(COM1 + UART_LSR) != LSR_NO_UART;
	con = ST->ConOut;
	log_buf = AllocatePool(LOG_BUF); /* NULL: the log file stays empty */
	scr_init();
}

static void serial_putc(char c)
{
	for (unsigned i = 0; i < THRE_POLLS; i++) {
		if (inb(COM1 + UART_LSR) & LSR_THRE) {
			outb(COM1, (uint8_t)c);
			return;
		}
		__asm__ volatile("pause");
	}
	serial_ok = 0; /* stuck UART: stop using it rather than stall every line */
}

static void serial_write(const char *s)
{
	for (; serial_ok && *s; s++)
		serial_putc(*s);
}

/* The log buffer only, never a write to the file: exception context. */
static void log_hold(const char *s)
{
	UINTN l = pmh_strlen(s);

	if (log_buf && log_len + l + 2 <= LOG_BUF) {
		pmh_memcpy(log_buf + log_len, s, l);
		log_len += l;
		log_buf[log_len++] = '\r';
		log_buf[log_len++] = '\n';
	} else {
		log_dropped++;
	}
}

SIMPLE_TEXT_OUTPUT_INTERFACE *out_con(void)
{
	return con;
}

/* ConOut is a splitter over every console the firmware set up; OVMF's
 * includes a terminal on COM1 that turns each repaint into ANSI escape
 * codes beside our plain lines (a LAVA log full of them). EDK2's graphics
 * console installs its text output on the handle of the GOP it draws on
 * (MdeModulePkg GraphicsConsoleDxe, GraphicsConsoleControllerDriverStart);
 * the splitter's own handles, which carry a GOP as well, are left out. */
void out_display_only(void)
{
	EFI_HANDLE *h = NULL;
	UINTN n = 0;
	SIMPLE_TEXT_OUTPUT_INTERFACE *o = NULL;

	if (uefi_call_wrapper(BS->LocateHandleBuffer, 5, ByProtocol, &GraphicsOutputProtocol, NULL,
			      &n, &h) == EFI_SUCCESS) {
		for (UINTN i = 0; i < n && !o; i++)
			if (h[i] != ST->ConsoleOutHandle && h[i] != ST->StandardErrorHandle &&
			    uefi_call_wrapper(BS->HandleProtocol, 3, h[i], &TextOutProtocol,
					      (void **)&o) != EFI_SUCCESS)
				o = NULL;
		FreePool(h);
	}
	con = o;
	scr_retarget();
}

void out_fatal(const char *s)
{
	serial_write(s);
	serial_write("\r\n");
	if (s[0])
		log_hold(s);
	scr_fatal(s);
}

static void console_write(const char *s)
{
	CHAR16 buf[128];
	UINTN n = 0;

	for (;; s++) {
		if (!*s || n + 3 >= sizeof(buf) / sizeof(buf[0])) {
			buf[n] = 0;
			if (n)
				uefi_call_wrapper(con->OutputString, 2, con, buf);
			n = 0;
			if (!*s)
				return;
		}
		char c = *s;
		buf[n++] = (CHAR16)((c >= 0x20 && c < 0x7f) || c == '\r' || c == '\n' ? c : '?');
	}
}

void out_flush_log(void)
{
	if (log_file && log_len) {
		UINTN n = log_len;
		EFI_STATUS st = uefi_call_wrapper(log_file->Write, 3, log_file, &n, log_buf);
		log_written += n;
		if (st == EFI_SUCCESS && n != log_len)
			st = EFI_VOLUME_FULL;
		if (st == EFI_SUCCESS)
			st = uefi_call_wrapper(log_file->Flush, 1, log_file);
		if (st != EFI_SUCCESS) {
			/* A full or failing stick: say so on screen once and carry on
			 * without the file (removed at the end); the run itself is not
			 * affected. */
			char line[160];
			log_file = NULL;
			log_status = st;
			pmh_fmt(line, sizeof(line),
				"warning: writing the log file failed (%s, EFI status 0x%llx): the "
				"log is on the console and serial only",
				files_status_name(st), (unsigned long long)st);
			out_screen(line);
		}
	}
	log_len = 0;
}

static void log_append(const char *s)
{
	UINTN l = pmh_strlen(s);

	if (!log_buf)
		return;
	if (log_len + l + 2 > LOG_BUF && !log_file && log_len) {
		log_dropped++; /* no file to flush to yet: keep the start */
		return;
	}
	if (log_len + l + 2 > LOG_BUF)
		out_flush_log();
	if (l + 2 <= LOG_BUF)
		log_hold(s);
}

/* Verdict colours on the console. Each line is printed in a colour that
 * differs from the resting one (light grey, restored after the line), so the
 * firmware's serial mirror of the console prefixes every line with escape
 * codes and the plain COM1 copy stays distinguishable from it. */
static UINTN line_attr(const char *s)
{
	if (!pmh_strncmp(s, "PASS ", 5))
		return EFI_LIGHTGREEN | EFI_BACKGROUND_BLACK;
	if (!pmh_strncmp(s, "FAIL ", 5) || !pmh_strncmp(s, "error", 5) ||
	    !pmh_strncmp(s, "fatal", 5))
		return EFI_LIGHTRED | EFI_BACKGROUND_BLACK;
	if (!pmh_strncmp(s, "SKIP ", 5) || !pmh_strncmp(s, "warning", 7))
		return EFI_YELLOW | EFI_BACKGROUND_BLACK;
	return EFI_WHITE | EFI_BACKGROUND_BLACK;
}

/* The line on the console as it scrolls (before a run's layout), then on
 * COM1, then the layout repainted (after COM1: see scr_paint). The colour
 * goes back after the COM1 line: a firmware mirroring the console to COM1
 * would put its escape codes at the start of our line. */
static void emit(const char *s, bool paint_now)
{
	bool scroll = con && !scr_active();

	if (scroll) {
		uefi_call_wrapper(con->SetAttribute, 2, con, line_attr(s));
		console_write(s);
		console_write("\r\n");
	}
	serial_write(s);
	serial_write("\r\n");
	if (scroll)
		uefi_call_wrapper(con->SetAttribute, 2, con, EFI_LIGHTGRAY | EFI_BACKGROUND_BLACK);
	if (paint_now)
		scr_paint();
	else
		scr_paint_soon();
}

void out_line(const char *s)
{
	scr_line(s);
	emit(s, false);
	log_append(s);
}

void out_screen(const char *s)
{
	scr_prompt(s);
	emit(s, true); /* a prompt is seen at once */
}

void out_attach_log(EFI_FILE_HANDLE f)
{
	char line[160];

	log_file = f;
	log_status = EFI_SUCCESS;
	log_written = 0;
	out_flush_log();
	if (log_dropped) {
		pmh_fmt(line, sizeof(line),
			"warning: %u lines printed before the log file opened did not fit its "
			"%u-byte buffer: they are on the console and serial only",
			log_dropped, LOG_BUF);
		log_dropped = 0;
		log_append(line);
		out_flush_log();
	}
}

EFI_STATUS out_detach_log(UINT64 *written)
{
	out_flush_log();
	log_file = NULL;
	/* Lines held after a failed write belong to no file. */
	log_len = 0;
	log_dropped = 0;
	*written = log_written;
	return log_status;
}

void key_flush(void *ctx)
{
	(void)ctx;
	uefi_call_wrapper(ST->ConIn->Reset, 2, ST->ConIn, FALSE);
}

enum platform_key key_wait(void *ctx, uint64_t us)
{
	EFI_EVENT ev[2];
	EFI_INPUT_KEY key;
	UINTN idx = 0, n = 1;

	(void)ctx;
	ev[0] = ST->ConIn->WaitForKey;
	if (us && uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &ev[1]) ==
		      EFI_SUCCESS) {
		uefi_call_wrapper(BS->SetTimer, 3, ev[1], TimerRelative, us * TIMER_UNITS_PER_US);
		n = 2;
	}
	uefi_call_wrapper(BS->WaitForEvent, 3, n, ev, &idx);
	if (n == 2)
		uefi_call_wrapper(BS->CloseEvent, 1, ev[1]);
	if (idx != 0 ||
	    uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2, ST->ConIn, &key) != EFI_SUCCESS)
		return PKEY_NONE;
	if (key.ScanCode == SCAN_ESC)
		return PKEY_ESC;
	return key.UnicodeChar == L'r' || key.UnicodeChar == L'R' ? PKEY_AGAIN : PKEY_OTHER;
}
