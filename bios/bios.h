/* The BIOS platform's own declarations (bios/ only): the heap and the
 * results slots its files share to fill the platform seam
 * (tests/platform.h), over the bare PC's hardware (pc/pc.h). */
#ifndef PMH_BIOS_BIOS_H
#define PMH_BIOS_BIOS_H

#include <stdbool.h>
#include <stddef.h>
#include "../pc/pc.h"

/* The heap of the platform's alloc (bios_main.c: the largest stretch of
 * RAM the memory map lists): n bytes, zeroed and 16-byte aligned, NULL
 * where they are not there; kept until freed with the platform's free. The
 * largest n an allocation could have now. */
void *bios_heap_alloc(size_t n);
size_t bios_heap_room(void);

/* The results slots (results.c): every line of the run into the log
 * kept for PMHBIOS.LOG; the seam's results_open and results_close. */
void results_log_line(const char *s);
bool bios_results_open(void *ctx, char *name, size_t cap);
bool bios_results_close(void *ctx, const char *json, size_t len);

#endif
