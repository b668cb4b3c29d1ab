/* The BIOS platform's own declarations (bios/ only): port I/O and the
 * console its files share to fill the platform seam (tests/platform.h). */
#ifndef PMH_BIOS_BIOS_H
#define PMH_BIOS_BIOS_H

#include <stdint.h>

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

/* COM1 at 115200 8N1 and the VGA text screen, cleared. */
void con_init(void);
/* A line to COM1 and the screen (CR LF on COM1). */
void con_line(const char *s);

#endif
