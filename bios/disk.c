/* INT 13h from our protected mode: each call through the real-mode thunk
 * (bios/realmode.S) with the BIOS's own PIC masks, local APIC LVT entries
 * and TPR in place, ours back after; the extensions (AH=41h/42h/43h,
 * Phoenix EDD 3.0) where there, CHS (AH=02h/03h, AH=08h geometry) else. */
#include "disk.h"
#include "bios.h"
#include "lowmem.h"
#include "../apic/apic.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

/* Below 1 MiB in free conventional memory (0x500-0x7BFF), clear of the
 * AP trampoline at 0x8000 and QEMU's Multiboot data at 0x9000: the DAP,
 * the transfer buffer (32 sectors) and the thunk (bios/realmode.S RM_BASE,
 * its stack below 0x7C00). */
#define RM_DAP	       0x1ff0u
#define RM_BUF	       0x2000u
#define RM_BUF_SECTORS 32u
/* The BIOS Data Area's count of hard disks (IBM PC/AT BIOS, 40:75). */
#define BDA_DISKS   0x475u
#define DRIVE_FIRST 0x80u
#define EFLAGS_CF   1u
/* INT 13h functions and the extensions' check (EDD 3.0 §7). */
#define AH_RESET       0x00u
#define AH_READ	       0x02u
#define AH_WRITE       0x03u
#define AH_GEOMETRY    0x08u
#define AH_EXT_CHECK   0x41u
#define AH_EXT_READ    0x42u
#define AH_EXT_WRITE   0x43u
#define EXT_MAGIC      0x55aau
#define EXT_ANSWER     0xaa55u
#define EXT_PACKET_API 1u /* CX bit 0: AH=42h-44h, 47h, 48h */
#define TRIES	       3  /* a first failure is common on real drives (spin-up) */
#define CHS_MAX_CYL    1023u
/* The LVT entries (SDM Vol. 3A 11.5.1) with the MaxLVT they need. */
static const struct {
	uint16_t off;
	uint8_t min_lvt;
} lvt_regs[] = {{APIC_LVT_TIMER, 0}, {APIC_LVT_THERMAL, 5}, {APIC_LVT_PC, 4},
		{APIC_LVT_LINT0, 0}, {APIC_LVT_LINT1, 0},   {APIC_LVT_ERROR, 0}};
#define NLVT (sizeof(lvt_regs) / sizeof(lvt_regs[0]))

/* Low memory by its address (the compiler is not told it is a constant:
 * it takes a fixed small address for a null pointer's neighbour). */
static void *low(uintptr_t a)
{
	__asm__("" : "+r"(a));
	return (void *)a;
}

struct rm_regs {
	uint32_t eax, ebx, ecx, edx, esi, edi;
	uint16_t ds, es;
	uint32_t eflags;
};
extern char rm_start[], rm_end[], rm_regs[];

static struct {
	uint8_t pic1, pic2;
	bool apic;
	unsigned max_lvt;
	uint32_t lvt[NLVT], tpr;
} bios_state;

void disk_save_pic(void)
{
	bios_state.pic1 = inb(PIC1_IMR);
	bios_state.pic2 = inb(PIC2_IMR);
}

static void save_apic(void)
{
	struct apic_info ai;

	bios_state.apic = !apic_detect(&ai) && ai.mode == APIC_MODE_XAPIC;
	bios_state.max_lvt = ai.max_lvt;
	for (unsigned i = 0; bios_state.apic && i < NLVT; i++)
		if (bios_state.max_lvt >= lvt_regs[i].min_lvt)
			bios_state.lvt[i] = apic_read(lvt_regs[i].off);
	if (bios_state.apic)
		bios_state.tpr = apic_read(APIC_TPR);
}

/* The BIOS's APIC values in, ours out into save (or back from it). */
static void swap_apic(uint32_t *save, bool to_bios)
{
	for (unsigned i = 0; bios_state.apic && i <= NLVT; i++) {
		uint32_t off = i < NLVT ? lvt_regs[i].off : APIC_TPR;
		if (i < NLVT && bios_state.max_lvt < lvt_regs[i].min_lvt)
			continue;
		if (to_bios) {
			save[i] = apic_read(off);
			apic_write(off, i < NLVT ? bios_state.lvt[i] : bios_state.tpr);
		} else {
			apic_write(off, save[i]);
		}
	}
}

/* Where sym lies in the real-mode thunk (bios/realmode.S, between rm_start
 * and rm_end): its offset from RM_BASE once copied there. */
static uintptr_t rm_offset(const char *sym)
{
	/* cppcheck-suppress comparePointers ; labels of one assembled block */
	return (uintptr_t)(sym - rm_start);
}

/* One INT 13h; true when the BIOS cleared CF. */
static bool int13(struct rm_regs *r)
{
	uint32_t ours[NLVT + 1];
	uint8_t m1 = inb(PIC1_IMR), m2 = inb(PIC2_IMR);

	swap_apic(ours, true);
	outb(PIC1_IMR, bios_state.pic1);
	outb(PIC2_IMR, bios_state.pic2);
	pmh_memcpy(low(RM_BASE + rm_offset(rm_regs)), r, sizeof(*r));
	((void (*)(void))low(RM_BASE))();
	pmh_memcpy(r, low(RM_BASE + rm_offset(rm_regs)), sizeof(*r));
	outb(PIC1_IMR, m1);
	outb(PIC2_IMR, m2);
	swap_apic(ours, false);
	return !(r->eflags & EFLAGS_CF);
}

/* The drive's access: extensions, else CHS geometry. */
static bool disk_probe(struct disk *d, uint8_t drive)
{
	struct rm_regs r = {.eax = AH_EXT_CHECK << 8, .ebx = EXT_MAGIC, .edx = drive};

	d->drive = drive;
	d->edd = int13(&r) && (r.ebx & 0xffff) == EXT_ANSWER && (r.ecx & EXT_PACKET_API);
	if (d->edd)
		return true;
	r = (struct rm_regs){.eax = AH_GEOMETRY << 8, .edx = drive};
	if (!int13(&r) || !(r.ecx & 0x3f))
		return false;
	d->spt = r.ecx & 0x3f;
	d->cyls = ((r.ecx >> 8) & 0xff) + ((r.ecx & 0xc0) << 2) + 1;
	d->heads = ((r.edx >> 8) & 0xff) + 1;
	return true;
}

/* n sectors at lba between the disk and RM_BUF (CHS: n must be 1). */
static bool disk_rw(struct disk *d, bool write, uint32_t lba, uint32_t n)
{
	for (unsigned t = 0; t < TRIES; t++) {
		struct rm_regs r = {.edx = d->drive};
		if (d->edd) {
			uint8_t *dap = low(RM_DAP);
			pmh_memset(dap, 0, 16);
			dap[0] = 16;
			dap[2] = (uint8_t)n;
			dap[6] = (uint8_t)(RM_BUF >> 4); /* segment 0x0200, offset 0 */
			dap[7] = (uint8_t)(RM_BUF >> 12);
			pmh_memcpy(dap + 8, &lba, 4);
			r.eax = (write ? AH_EXT_WRITE : AH_EXT_READ) << 8;
			r.esi = RM_DAP;
		} else {
			uint32_t c = lba / (d->heads * d->spt), h = lba / d->spt % d->heads;
			if (c > CHS_MAX_CYL || c >= d->cyls || n != 1)
				return false;
			r.eax = (write ? AH_WRITE : AH_READ) << 8 | n;
			r.ecx = (c & 0xff) << 8 | (lba % d->spt + 1) | (c >> 2 & 0xc0);
			r.edx |= h << 8;
			r.es = RM_BUF >> 4;
		}
		if (int13(&r))
			return true;
		r = (struct rm_regs){.eax = AH_RESET << 8, .edx = d->drive};
		int13(&r);
	}
	return false;
}

/* The walk's sectors (MBR, BPB, FAT, root directory) read ahead, a
 * transfer buffer's worth at a time where the extensions are there: the FAT
 * of a slot made for 512 CPUs is 640 sectors, each one INT 13h of its own
 * otherwise (seconds over a BIOS's USB). Emptied before every walk and
 * every write. */
static struct {
	uint8_t drive;
	uint32_t lba, n; /* [lba, lba + n) in buf; n 0: empty */
	uint8_t buf[RM_BUF_SECTORS * FAT_SECTOR];
} ahead;

static bool read_sector(void *ctx, uint32_t lba, uint8_t *buf)
{
	struct disk *d = ctx;

	if (!ahead.n || ahead.drive != d->drive || lba < ahead.lba || lba - ahead.lba >= ahead.n) {
		ahead.n = 0;
		if (d->edd && disk_rw(d, false, lba, RM_BUF_SECTORS))
			ahead.n = RM_BUF_SECTORS;
		else if (disk_rw(d, false, lba, 1)) /* CHS, or the disk's end */
			ahead.n = 1;
		else
			return false;
		ahead.lba = lba;
		ahead.drive = d->drive;
		pmh_memcpy(ahead.buf, low(RM_BUF), ahead.n * FAT_SECTOR);
	}
	pmh_memcpy(buf, ahead.buf + (lba - ahead.lba) * FAT_SECTOR, FAT_SECTOR);
	return true;
}

/* Before a walk: the thunk in place, the BIOS's APIC values kept; the
 * BIOS's count of hard disks (0 where the thunk does not fit). */
static unsigned disk_begin(char *why, size_t cap)
{
	if (rm_offset(rm_end) > RM_LIMIT - RM_BASE)
		return pmh_fmt(why, cap, "the real-mode thunk is too large"), 0;
	/* RM_BASE + size stays under RM_LIMIT: copied over nothing of ours. */
	pmh_memcpy(low(RM_BASE), rm_start, rm_offset(rm_end));
	save_apic();
	ahead.n = 0;
	pmh_fmt(why, cap, "the BIOS lists no hard disk (0040:0075 is 0)");
	return *(const volatile uint8_t *)low(BDA_DISKS);
}

enum disk_file disk_read_file(const char *const *path, unsigned n, char *buf, uint32_t cap,
			      uint32_t *size, char *why, size_t cap_why)
{
	unsigned disks = disk_begin(why, cap_why);
	struct disk d;

	for (unsigned i = 0; i < disks && i < 0x7f; i++) {
		if (!disk_probe(&d, (uint8_t)(DRIVE_FIRST + i)))
			continue;
		struct fat_result r = fat_read_file(read_sector, &d, path, n, buf, cap, size);
		if (r.why == FAT_OK)
			return DISK_FILE_READ;
		if (r.why != FAT_CHAIN_CUT && (r.why != FAT_READ || !r.part))
			continue; /* not on this disk */
		size_t l = pmh_fmt(why, cap_why, "disk 0x%x, FAT32 partition %u: ", DRIVE_FIRST + i,
				   r.part);
		if (r.why == FAT_READ)
			pmh_fmt(why + l, cap_why - l, "read error at sector %u", r.lba);
		else
			pmh_fmt(why + l, cap_why - l,
				"its cluster chain is cut at cluster %u (FAT entry 0x%x: %s) after "
				"%u of its %u bytes",
				r.cluster, r.entry,
				!r.entry		 ? "free"
				: r.entry == 0x0ffffff7u ? "bad"
				: r.entry >= 0x0ffffff8u ? "end of chain"
							 : "no cluster",
				r.bytes, r.size);
		return DISK_FILE_BAD;
	}
	return DISK_FILE_NONE;
}

bool disk_find_slots(struct disk *d, struct fat_slot *slot, unsigned n, char *why, size_t cap)
{
	unsigned disks = disk_begin(why, cap);

	for (unsigned i = 0; i < disks && i < 0x7f; i++) {
		if (!disk_probe(d, (uint8_t)(DRIVE_FIRST + i))) {
			pmh_fmt(why, cap, "disk 0x%x: no INT 13h extensions and no CHS geometry",
				DRIVE_FIRST + i);
			continue;
		}
		struct fat_result r = fat_find_slots(read_sector, d, slot, n);
		if (r.why == FAT_OK)
			return true;
		size_t l =
		    pmh_fmt(why, cap, "disk 0x%x (%s)", DRIVE_FIRST + i, d->edd ? "LBA" : "CHS");
		if (r.part)
			l += pmh_fmt(why + l, cap - l, ", FAT32 partition %u, %s", r.part,
				     slot[r.slot].name);
		pmh_fmt(why + l, cap - l, ": %s", fat_why_text(r.why));
	}
	return false;
}

/* n sectors at lba read into RM_BUF and compared with want; *diff: the
 * first byte that differs, n * FAT_SECTOR where none; false with why on a
 * read error. */
static bool read_cmp(struct disk *d, uint32_t lba, uint32_t n, const uint8_t *want, uint32_t *diff,
		     char *why, size_t cap)
{
	const uint8_t *got = low(RM_BUF);

	if (!disk_rw(d, false, lba, n))
		return pmh_fmt(why, cap, "read error at sector %u", lba), false;
	*diff = n * FAT_SECTOR;
	for (uint32_t j = 0; j < n * FAT_SECTOR; j++)
		if (got[j] != want[j]) {
			*diff = j;
			break;
		}
	return true;
}

/* want[0, n sectors) written at lba, read back and compared. */
static bool write_verify(struct disk *d, uint32_t lba, uint32_t n, const uint8_t *want, char *why,
			 size_t cap)
{
	uint32_t diff;

	pmh_memcpy(low(RM_BUF), want, n * FAT_SECTOR);
	if (!disk_rw(d, true, lba, n))
		return pmh_fmt(why, cap, "write error at sector %u", lba), false;
	pmh_memset(low(RM_BUF), 0, n * FAT_SECTOR);
	if (!read_cmp(d, lba, n, want, &diff, why, cap))
		return false;
	if (diff < n * FAT_SECTOR)
		return pmh_fmt(why, cap, "read-back differs at sector %u", lba + diff / FAT_SECTOR),
		       false;
	return true;
}

/* Each part read first and written only where it differs, then read back.
 * The first part, where the document starts, goes last, and before the
 * first other part that differs its first sector becomes a slot magic
 * line that says a write is under way: a write cut short leaves a slot
 * that is no document at all (and that the next run finds again), never
 * the start of one run's document over the rest of another's. Past the
 * text, the first part that already holds only the padding ends the walk:
 * a slot is a text then spaces (usb-image.sh's, or a write of ours that
 * finished), and no text of ours has a part's worth of spaces, so the rest
 * is padding too; a slot whose first sector says a write did not finish is
 * walked to its end. A slot made for many CPUs costs a small run no more
 * than its own text and the previous one's. */
bool disk_write_slot(struct disk *d, const struct fat_slot *s, const char *text, size_t len,
		     char *why, size_t cap)
{
	static uint8_t want[RM_BUF_SECTORS * FAT_SECTOR];
	static const char busy[] =
	    SLOT_MAGIC "pmuharness BIOS results slot: a write did not finish; nothing here\n";
	uint32_t size = s->sectors * FAT_SECTOR, step = d->edd ? RM_BUF_SECTORS : 1;
	uint32_t first = s->sectors < step ? s->sectors : step, diff0, diff;
	bool marked, unfinished;

	ahead.n = 0; /* what was read ahead may be written now */
	slot_fill(want, 0, first * FAT_SECTOR, text, len, size);
	if (!read_cmp(d, s->lba, first, want, &diff0, why, cap))
		return false;
	unfinished = !pmh_strncmp((const char *)low(RM_BUF), busy, sizeof(busy) - 1);
	marked = false;
	for (uint32_t k = first; k < s->sectors; k += step) {
		uint32_t n = s->sectors - k < step ? s->sectors - k : step;
		slot_fill(want, k * FAT_SECTOR, n * FAT_SECTOR, text, len, size);
		if (!read_cmp(d, s->lba + k, n, want, &diff, why, cap))
			return false;
		if (diff == n * FAT_SECTOR) {
			if (k * FAT_SECTOR >= len && !unfinished)
				break; /* padding from here on */
			continue;
		}
		if (!marked && !unfinished) {
			uint8_t mark[FAT_SECTOR];
			slot_fill(mark, 0, FAT_SECTOR, busy, sizeof(busy) - 1, 0);
			if (!write_verify(d, s->lba, 1, mark, why, cap))
				return false;
		}
		marked = true;
		if (!write_verify(d, s->lba + k, n, want, why, cap))
			return false;
	}
	slot_fill(want, 0, first * FAT_SECTOR, text, len, size);
	if (marked || unfinished || diff0 < first * FAT_SECTOR)
		return write_verify(d, s->lba, first, want, why, cap);
	return true;
}
