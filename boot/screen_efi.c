/* The screen's layout (tests/screen.h) painted through the firmware's text
 * console: the current mode's size, only the cells that changed, no cursor.
 * Before a run starts (options, help) and where the mode is too small the
 * console scrolls the lines as before. */
#include "platform.h"
#include "../lib/str.h"
#include "../pmu/hw.h"

/* Below this the layout does not fit; the lines scroll instead. */
#define MIN_COLS 40
#define MIN_ROWS 12
#define SEG_MAX	 256 /* characters per OutputString call */
/* Lines come faster than a person reads them (a parallel run prints every
 * CPU's at its end, and the console's repaint, mirrored to the serial port
 * by OVMF, costs about a millisecond a line under QEMU): the layout is
 * repainted for them at most this often; events and prompts at once. */
#define PAINT_GAP_US 50000u

static struct screen *scr;
static struct screen_cell *shown; /* what the console shows now */
static bool painted;		  /* the console shows the layout */
static uint64_t painted_at;	  /* the TSC at the last repaint */

void scr_init(void)
{
	UINTN cols = 0, rows = 0;
	SIMPLE_TEXT_OUTPUT_INTERFACE *o = out_con();

	if (!o || !o->Mode ||
	    uefi_call_wrapper(o->QueryMode, 4, o, (UINTN)o->Mode->Mode, &cols, &rows) !=
		EFI_SUCCESS ||
	    cols < MIN_COLS || rows < MIN_ROWS)
		return;
	scr = AllocatePool(sizeof(*scr));
	struct screen_cell *grid = AllocatePool(cols * rows * sizeof(*grid));
	shown = AllocatePool(cols * rows * sizeof(*shown));
	if (!scr || !grid || !shown) {
		scr = NULL; /* a few KiB lost at worst; the lines scroll */
		return;
	}
	screen_init(scr, (unsigned)cols, (unsigned)rows, grid);
}

void scr_retarget(void)
{
	if (scr) { /* before a run: nothing painted yet */
		FreePool(scr->grid);
		FreePool(shown);
		FreePool(scr);
		scr = NULL;
	}
	scr_init();
}

bool scr_active(void)
{
	return scr && scr->started;
}

void scr_line(const char *s)
{
	if (scr)
		screen_line(scr, s);
}

void scr_prompt(const char *s)
{
	if (scr)
		screen_prompt(scr, s);
}

void scr_fatal(const char *s)
{
	if (scr)
		screen_fatal(scr, s);
}

/* Cells [c0, c1) of row r, one OutputString per colour. */
static void paint_run(unsigned r, unsigned c0, unsigned c1)
{
	SIMPLE_TEXT_OUTPUT_INTERFACE *o = out_con();
	const struct screen_cell *g = scr->grid + (size_t)r * scr->w;
	CHAR16 buf[SEG_MAX + 1];

	while (c0 < c1) {
		unsigned n = 0;
		uint8_t a = g[c0].attr;
		uefi_call_wrapper(o->SetCursorPosition, 3, o, (UINTN)c0, (UINTN)r);
		uefi_call_wrapper(o->SetAttribute, 2, o, (UINTN)a);
		while (c0 < c1 && g[c0].attr == a && n < SEG_MAX) {
			char c = g[c0++].ch;
			buf[n++] = (CHAR16)(c >= 0x20 && c < 0x7f ? c : '?');
		}
		buf[n] = 0;
		uefi_call_wrapper(o->OutputString, 2, o, buf);
	}
}

/* The layout onto the console where a run has started: each row from its
 * first to its last changed cell (never the very last cell, which would
 * scroll the screen). */
void scr_paint(void)
{
	SIMPLE_TEXT_OUTPUT_INTERFACE *o = out_con();
	bool any = false;

	if (!scr_active())
		return;
	painted_at = hw_rdtsc();
	screen_render(scr);
	if (!painted) {
		uefi_call_wrapper(o->EnableCursor, 2, o, FALSE);
		uefi_call_wrapper(o->SetAttribute, 2, o, scr->grid[scr->w].attr);
		uefi_call_wrapper(o->ClearScreen, 1, o);
		pmh_memset(shown, 0, (size_t)scr->w * scr->h * sizeof(*shown));
		painted = true;
	}
	for (unsigned r = 0; r < scr->h; r++) {
		const struct screen_cell *g = scr->grid + (size_t)r * scr->w;
		struct screen_cell *v = shown + (size_t)r * scr->w;
		unsigned end = r + 1 == scr->h ? scr->w - 1 : scr->w, c0 = end, c1 = 0;
		for (unsigned c = 0; c < end; c++)
			if (g[c].ch != v[c].ch || g[c].attr != v[c].attr) {
				c0 = c < c0 ? c : c0;
				c1 = c + 1;
			}
		if (c0 >= c1)
			continue;
		paint_run(r, c0, c1);
		pmh_memcpy(v + c0, g + c0, (c1 - c0) * sizeof(*v));
		any = true;
	}
	/* A firmware that mirrors the console to the serial port sends cursor
	 * moves there without a line end: one here keeps our next plain line
	 * on a line of its own (row 0 to row 1, nothing drawn or scrolled). */
	if (any) {
		uefi_call_wrapper(o->SetCursorPosition, 3, o, (UINTN)0, (UINTN)0);
		uefi_call_wrapper(o->OutputString, 2, o, L"\r\n");
	}
}

void scr_paint_soon(void)
{
	uint64_t now = hw_rdtsc(), gap = (uint64_t)PAINT_GAP_US * hw_tsc_per_us();

	if (painted_at && now - painted_at < gap)
		return; /* the next line, event or prompt paints it */
	scr_paint();
}

void scr_status(void *ctx, const struct screen_event *ev)
{
	(void)ctx;
	if (!scr)
		return;
	screen_event(scr, ev);
	scr_paint();
}
