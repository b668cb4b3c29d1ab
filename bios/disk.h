/* BIOS disks through INT 13h from protected mode (bios/disk.c over the
 * real-mode thunk bios/realmode.S): the results slots found and written. */
#ifndef PMH_BIOS_DISK_H
#define PMH_BIOS_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../pc/fat.h"

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
/* The config file at path (fat_read_file) on the first BIOS hard disk
 * that has it: DISK_FILE_READ with its first cap bytes in buf and its
 * size in *size; DISK_FILE_BAD when it is there but cannot be read (a cut
 * cluster chain, a read error), why naming the disk and what is wrong;
 * DISK_FILE_NONE when no disk has it. */
enum disk_file { DISK_FILE_NONE, DISK_FILE_READ, DISK_FILE_BAD };
enum disk_file disk_read_file(const char *const *path, unsigned n, char *buf, uint32_t cap,
			      uint32_t *size, char *why, size_t cap_why);
/* text[0, len) padded to the slot (slot_fill): each part read first,
 * written where it differs and read back, the first part last (a write cut
 * short leaves a slot magic line there, no document); false with why
 * ("read-back differs at sector N") otherwise. */
bool disk_write_slot(struct disk *d, const struct fat_slot *s, const char *text, size_t len,
		     char *why, size_t cap);

#endif
