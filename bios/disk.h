/* BIOS disks through INT 13h from protected mode (bios/disk.c over the
 * real-mode thunk bios/realmode.S): the results slots found and written. */
#ifndef PMH_BIOS_DISK_H
#define PMH_BIOS_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fat.h"

struct disk {
	uint8_t drive; /* 0x80.. */
	bool edd;      /* extensions (AH=42h/43h); CHS otherwise */
	uint32_t cyls, heads, spt;
};

/* The PIC masks as the BIOS left them: call before masking them. */
void disk_save_pic(void);
/* The slots on the first BIOS hard disk that has them all; false with
 * why (for "NOTHING ... saved") otherwise. */
bool disk_find_slots(struct disk *d, struct fat_slot *slot, unsigned n, char *why, size_t cap);
/* text[0, len) padded to the slot (slot_fill): each part read first,
 * written where it differs and read back, the first part last (a write cut
 * short leaves a slot magic line there, no document); false with why
 * ("read-back differs at sector N") otherwise. */
bool disk_write_slot(struct disk *d, const struct fat_slot *s, const char *text, size_t len,
		     char *why, size_t cap);

#endif
