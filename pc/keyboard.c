/* The keyboard on a PC (the BIOS kernel): the 8042 controller polled (no IRQ; the
 * PICs are masked), scan code set 1 as the BIOS leaves it translated. */
#include "pc.h"
#include "../pmu/hw.h"

/* 8042 ports and the status bits we read (IBM PC/AT Technical Reference). */
#define KBC_DATA     0x60
#define KBC_STATUS   0x64
#define KBC_OUT_FULL 0x01 /* a byte waits at KBC_DATA */
#define KBC_AUX	     0x20 /* ... and it is the mouse's */
/* Set 1 make codes; a break code is the make code with bit 7 set. */
#define SC_ESC	  0x01
#define SC_R	  0x13
#define SC_BREAK  0x80
#define SC_PREFIX 0xe0 /* an extended key's first byte */
/* A stuck controller never empties: flush at most this many bytes. */
#define FLUSH_MAX 64

/* The next byte from the keyboard (not the mouse), or -1 when none waits. */
static int kbc_read(void)
{
	uint8_t st = inb(KBC_STATUS);
	if (!(st & KBC_OUT_FULL))
		return -1;
	uint8_t b = inb(KBC_DATA);
	return (st & KBC_AUX) ? -1 : b;
}

void key_flush(void *ctx)
{
	(void)ctx;
	for (unsigned i = 0; i < FLUSH_MAX && (inb(KBC_STATUS) & KBC_OUT_FULL); i++)
		(void)inb(KBC_DATA);
}

enum platform_key key_wait(void *ctx, uint64_t us)
{
	uint64_t t0 = hw_rdtsc(), limit = us * hw_wait_ticks_per_us();
	(void)ctx;

	while (!us || hw_rdtsc() - t0 < limit) {
		int b = kbc_read();
		if (b < 0 || b == SC_PREFIX || (b & SC_BREAK)) {
			hw_relax();
			continue;
		}
		if (b == SC_ESC)
			return PKEY_ESC;
		return b == SC_R ? PKEY_AGAIN : PKEY_OTHER;
	}
	return PKEY_NONE;
}
