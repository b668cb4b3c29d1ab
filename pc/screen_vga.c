/* The screen's layout (tests/screen.h) painted into the VGA text buffer:
 * 80 x 25 cells of character and attribute byte. The layout's colours are
 * UEFI's numbers, which are the CGA palette's a VGA attribute byte takes
 * (foreground in bits 0-3, background in 4-6); its backgrounds are the
 * first eight, so the blink bit stays clear. Until a run starts, and on
 * COM1 always, the lines scroll as plain text (console.c). */
#include "pc.h"
#include "../tests/screen.h"

/* The CRT controller's cursor start register: bit 5 turns the hardware
 * cursor off (VGA register reference, CRTC index 0Ah). */
#define CRTC_INDEX	  0x3d4
#define CRTC_DATA	  0x3d5
#define CRTC_CURSOR_START 0x0a
#define CURSOR_OFF	  0x20

static struct screen scr;
static struct screen_cell grid[VGA_COLS * VGA_ROWS];

void vga_screen_init(void)
{
	screen_init(&scr, VGA_COLS, VGA_ROWS, grid);
}

bool vga_screen_active(void)
{
	return scr.started;
}

void vga_screen_line(const char *s)
{
	screen_line(&scr, s);
}

void vga_screen_prompt(const char *s)
{
	screen_prompt(&scr, s);
}

void vga_screen_fatal(const char *s)
{
	screen_fatal(&scr, s);
}

/* The whole layout into the text buffer (2000 cells: no need to track
 * what changed). */
void vga_screen_paint(void)
{
	if (!scr.started)
		return;
	screen_render(&scr);
	outb(CRTC_INDEX, CRTC_CURSOR_START);
	outb(CRTC_DATA, CURSOR_OFF);
	for (unsigned i = 0; i < VGA_COLS * VGA_ROWS; i++) {
		uint8_t c = (uint8_t)grid[i].ch;
		VGA_TEXT[i] = (uint16_t)(grid[i].attr << 8 | (c >= 0x20 && c < 0x7f ? c : '?'));
	}
}

void vga_status(void *ctx, const struct screen_event *ev)
{
	(void)ctx;
	screen_event(&scr, ev);
	vga_screen_paint();
}
