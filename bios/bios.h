/* The BIOS platform's own declarations (bios/ only): port I/O and the
 * console its files share to fill the platform seam (tests/platform.h). */
#ifndef PMH_BIOS_BIOS_H
#define PMH_BIOS_BIOS_H

#include <stdint.h>
#include "../tests/platform.h"

/* Port I/O (bios/entry32.S). */
void outb(uint16_t port, uint8_t v);
uint8_t inb(uint16_t port);

/* COM1 at 115200 8N1 and the VGA text screen, cleared. */
void con_init(void);
/* A line to COM1 and the screen (CR LF on COM1). */
void con_line(const char *s);

/* The keyboard for the seam's key_flush and key_wait (keyboard.c). */
void key_flush(void *ctx);
enum platform_key key_wait(void *ctx, uint64_t us);

/* The seam's run_cpus: the suite on the CPUs the cpus option selects,
 * found through ACPI and started with INIT-SIPI-SIPI (mp.c). */
struct harness;
void bios_mp_run(void *ctx, struct harness *h);
/* The boot CPU's exception report and recovery again, after an AP's run. */
void bios_fatal_rearm(void);

#endif
