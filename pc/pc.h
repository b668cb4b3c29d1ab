/* The bare PC's hardware (pc/ and the BIOS kernel, bios/): port I/O, the
 * console on COM1 and the VGA text screen, the screen layout, the 8042
 * keyboard and the other CPUs started by INIT-SIPI-SIPI, each filling a
 * member of the platform seam (tests/platform.h). No BIOS call. */
#ifndef PMH_PC_PC_H
#define PMH_PC_PC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../tests/platform.h"

/* Port I/O (bios/entry32.S). */
void outb(uint16_t port, uint8_t v);
uint8_t inb(uint16_t port);
/* The 8259 PICs' interrupt mask registers (8259A data sheet, OCW1). */
#define PIC1_IMR 0x21
#define PIC2_IMR 0xa1

/* The colour text buffer of mode 3, 80x25 cells of character + attribute. */
#define VGA_TEXT ((volatile uint16_t *)0xb8000)
#define VGA_COLS 80
#define VGA_ROWS 25

/* COM1 at 115200 8N1 and the VGA text screen, cleared. */
void con_init(void);
/* A line to COM1 and the screen (CR LF on COM1). */
void con_line(const char *s);
/* A prompt for the person at the machine: COM1 and the screen's bottom row. */
void con_prompt(void *ctx, const char *s);
/* A line from exception context: COM1 and the screen's crash panel. */
void con_fatal(const char *s);

/* The screen's layout in the VGA text buffer (screen_vga.c): active from a
 * run's start; line, prompt and fatal feed it, paint shows it, status is
 * the seam's status member. */
void vga_screen_init(void);
bool vga_screen_active(void);
void vga_screen_line(const char *s);
void vga_screen_prompt(const char *s);
void vga_screen_fatal(const char *s);
void vga_screen_paint(void);
void vga_status(void *ctx, const struct screen_event *ev);

/* The keyboard for the seam's key_flush and key_wait (keyboard.c). */
void key_flush(void *ctx);
enum platform_key key_wait(void *ctx, uint64_t us);

/* The seam's run_cpus: the suite on the CPUs the cpus option selects,
 * found through ACPI and started with INIT-SIPI-SIPI (mp.c). */
struct harness;
void bios_mp_run(void *ctx, struct harness *h);
/* The boot CPU's exception report and recovery again, after an AP's run
 * (the platform's: bios/bios_main.c). */
void bios_fatal_rearm(void);
/* An AP that never finished may still run: no BIOS call then. */
bool bios_mp_ap_busy(void);

#endif
