/* The results slots on a BIOS machine's disk: preallocated, contiguous
 * files on a FAT32 partition of an MBR disk (scripts/usb-image.sh makes
 * them), found through the partition table, the BPB, the FAT and the root
 * directory over a sector-read callback, so the walk runs the same on the
 * host (host/unit/test_bios_fat.c) as over INT 13h (bios/disk.c). */
#ifndef PMH_PC_FAT_H
#define PMH_PC_FAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAT_SECTOR 512u
/* A slot's first line starts with this (the format and its version); the
 * log we write keeps it as its first line, so a rerun finds it again. */
#define SLOT_MAGIC "PMHBIOS-SLOT/1 "
/* The first bytes of a results JSON of ours (tests/report_json.c): a JSON
 * slot a previous run filled is overwritten too. */
#define SLOT_JSON_START "{\n  \"schema\": \"pmuharness-results/"
#define SLOT_COUNT	2
/* The slots' sizes for a stick made for N CPUs (`make usb USB_CPUS=N`):
 * SLOT_FIXED_KIB + N * SLOT_*_PER_CPU_KIB, rounded up to SLOT_ROUND_KIB.
 * scripts/usb-image.sh reads these numbers from here (one formula for the
 * script and for the kernel's "make usb USB_CPUS=N" advice); its comment
 * and docs/user-guide.md "Legacy BIOS" give the measured figures behind them. */
#define SLOT_FIXED_KIB	      64u
#define SLOT_JSON_PER_CPU_KIB 48u
#define SLOT_LOG_PER_CPU_KIB  32u
#define SLOT_ROUND_KIB	      64u

/* One 512-byte sector at lba (from the disk's start) into buf; false on
 * a read error. */
typedef bool (*fat_read_fn)(void *ctx, uint32_t lba, uint8_t *buf);

struct fat_slot {
	char name[12];	  /* 8.3 as the directory holds it: "PMHBIOS LOG" */
	uint32_t lba;	  /* first sector, from the disk's start */
	uint32_t sectors; /* the file's size in sectors */
};

enum fat_why {
	FAT_OK,
	FAT_READ,	 /* a sector could not be read */
	FAT_NO_MBR,	 /* no 55 AA boot signature in sector 0 */
	FAT_NO_FAT32,	 /* no partition of type 0x0B or 0x0C */
	FAT_BPB,	 /* a FAT32 partition whose boot sector is not one we can walk */
	FAT_NOT_FAT32,	 /* the file system has too few clusters: FAT12 or FAT16 */
	FAT_MISSING,	 /* no such file in the root directory */
	FAT_SIZE,	 /* the file is empty or not a whole number of sectors */
	FAT_FRAGMENTED,	 /* the file's clusters are not one run */
	FAT_MAGIC,	 /* the file starts with neither the slot magic nor our JSON */
	FAT_CROSSLINKED, /* the file's clusters are also an earlier slot's */
	FAT_CHAIN_CUT,	 /* the file's chain ends before its size (fat_result says where) */
};

struct fat_result {
	enum fat_why why;
	unsigned slot; /* the slot the failure is about */
	uint32_t lba;  /* the sector a read failed at */
	unsigned part; /* the partition (1-4) the answer is from */
	/* FAT_CHAIN_CUT: the cluster whose FAT entry cuts the chain, that
	 * entry, and the file's bytes before the cut and in all */
	uint32_t cluster, entry, bytes, size;
};

/* Finds the slots named in slot[i].name on the first FAT32 partition that
 * holds them all; fills lba and sectors. Bounded: 4 MBR entries, the root
 * directory's first ROOT_MAX_CLUSTERS clusters, each chain only as long
 * as its file. Slots that share a cluster (a cross-linked FAT: writing one
 * would overwrite the other) are refused before anything is written. */
struct fat_result fat_find_slots(fat_read_fn rd, void *ctx, struct fat_slot *slot, unsigned n);
/* The file at path (its names from the root, "EFI", "BOOT",
 * "pmuharness.cfg": long names or 8.3, any case) on the first FAT32
 * partition that has it, its first cap bytes into buf and its size into
 * *size; FAT_CHAIN_CUT where a cluster of it is free, bad, out of the
 * volume or an end of chain before its size is reached. */
struct fat_result fat_read_file(fat_read_fn rd, void *ctx, const char *const *path, unsigned n,
				char *buf, uint32_t cap, uint32_t *size);
/* Why, in words ("the file's clusters are not contiguous"). */
const char *fat_why_text(enum fat_why why);
/* The bytes [off, off + n) of a slot of size bytes holding text[0, len):
 * the text, then spaces, the slot's last byte a newline. */
void slot_fill(uint8_t *buf, uint32_t off, uint32_t n, const char *text, size_t len, uint32_t size);

#endif
