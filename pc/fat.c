/* The results slots' walk: MBR, FAT32 BPB, root directory and FAT chain
 * (Microsoft FAT specification 1.03, "fatgen103": §3 the BPB, §3.5 the
 * FAT type from the cluster count, §4 the FAT, §6 the directory entry),
 * bounded everywhere against a disk that lies. */
#include "fat.h"
#include "../lib/str.h"

/* The MBR's partition table at byte 446, four 16-byte entries, type at +4,
 * first LBA at +8, length at +12; the 55 AA signature at 510. */
#define MBR_TABLE   446
#define MBR_ENTRY   16
#define MBR_ENTRIES 4
#define MBR_SIG	    510
/* FAT32 partition types: CHS-addressed and LBA-addressed (0x0B, 0x0C). */
#define PART_FAT32_CHS 0x0b
#define PART_FAT32_LBA 0x0c
/* BPB fields (fatgen103 §3.1, §3.3). */
#define BPB_BYTES_PER_SEC 11
#define BPB_SEC_PER_CLUS  13
#define BPB_RSVD_SECS	  14
#define BPB_NUM_FATS	  16
#define BPB_ROOT_ENTS	  17
#define BPB_TOT_SEC16	  19
#define BPB_FAT_SZ16	  22
#define BPB_TOT_SEC32	  32
#define BPB_FAT_SZ32	  36
#define BPB_ROOT_CLUS	  44
/* fatgen103 §3.5: fewer clusters than this is FAT12 or FAT16. */
#define FAT32_MIN_CLUSTERS 65525u
/* FAT32 entries are 28 bits; at or above this, the end of a chain (§4). */
#define FAT32_MASK 0x0fffffffu
#define FAT32_EOC  0x0ffffff8u
/* Directory entries (§6): 32 bytes, name at 0 (11), attributes at 11,
 * first cluster high at 20, low at 26, size at 28; a free entry ends the
 * directory, 0xE5 marks a deleted one; LFN pieces have all of 0x0F set. */
#define DIR_ENTRY	  32
#define DIR_ATTR	  11
#define DIR_CLUS_HI	  20
#define DIR_CLUS_LO	  26
#define DIR_SIZE	  28
#define DIR_END		  0x00
#define DIR_DELETED	  0xe5
#define ATTR_LFN	  0x0f
#define ATTR_DIR_OR_LABEL 0x18
#define ATTR_DIR	  0x10
#define ATTR_LABEL	  0x08
/* fatgen103 §7: a long name in pieces before its short entry, 13 UCS-2
 * characters each at these offsets, the piece's number in byte 0's low
 * bits (0x40: the last). Names longer than LFN_MAX are not ours. */
#define LFN_CHARS 13u
#define LFN_LAST  0x40u
#define LFN_ORD	  0x1fu
#define LFN_MAX	  64u
#define FAT32_BAD 0x0ffffff7u
/* A directory on the way to the config file: bounded as the root is. */
#define DIR_MAX_CLUSTERS ROOT_MAX_CLUSTERS
/* Our slots are in the root directory, which usb-image.sh keeps small:
 * walking more clusters of it than this is a loop in a hostile FAT. */
#define ROOT_MAX_CLUSTERS 64u
#define MAX_SEC_PER_CLUS  128u

struct vol {
	fat_read_fn rd;
	void *ctx;
	uint8_t *buf;
	uint32_t base, fat, data, spc, clusters, root;
	uint32_t fat_cached; /* the FAT sector in fat_buf, 0: none */
	uint8_t fat_buf[FAT_SECTOR];
};

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The BPB at v->base; FAT_OK, FAT_BPB or FAT_NOT_FAT32. */
static enum fat_why bpb(struct vol *v, uint32_t part_len, struct fat_result *r)
{
	const uint8_t *b = v->buf;

	if (!v->rd(v->ctx, v->base, v->buf)) {
		r->lba = v->base;
		return FAT_READ;
	}
	uint32_t rsvd = le16(b + BPB_RSVD_SECS), nfats = b[BPB_NUM_FATS];
	uint32_t total =
	    le16(b + BPB_TOT_SEC16) ? le16(b + BPB_TOT_SEC16) : le32(b + BPB_TOT_SEC32);
	uint32_t fatsz = le16(b + BPB_FAT_SZ16) ? le16(b + BPB_FAT_SZ16) : le32(b + BPB_FAT_SZ32);
	v->spc = b[BPB_SEC_PER_CLUS];
	if (le16(b + MBR_SIG) != 0xaa55 || le16(b + BPB_BYTES_PER_SEC) != FAT_SECTOR ||
	    !pow2(v->spc) || v->spc > MAX_SEC_PER_CLUS || !rsvd || nfats < 1 || nfats > 2 ||
	    !fatsz || total > part_len || (uint64_t)rsvd + (uint64_t)nfats * fatsz >= total)
		return FAT_BPB;
	v->fat = v->base + rsvd;
	v->data = v->fat + nfats * fatsz;
	v->clusters = (total - rsvd - nfats * fatsz) / v->spc;
	/* The type is the cluster count's alone (fatgen103 §3.5). */
	if (v->clusters < FAT32_MIN_CLUSTERS || le16(b + BPB_ROOT_ENTS) || le16(b + BPB_FAT_SZ16))
		return FAT_NOT_FAT32;
	if ((uint64_t)v->clusters + 2 > (uint64_t)fatsz * (FAT_SECTOR / 4))
		return FAT_BPB; /* the FAT cannot map every cluster */
	v->root = le32(b + BPB_ROOT_CLUS) & FAT32_MASK;
	if (v->root < 2 || v->root >= v->clusters + 2)
		return FAT_BPB;
	v->fat_cached = 0;
	return FAT_OK;
}

/* The FAT entry of cluster c into *next; false on a read error. */
static bool fat_next(struct vol *v, uint32_t c, uint32_t *next, struct fat_result *r)
{
	uint32_t sec = v->fat + c / (FAT_SECTOR / 4);

	if (v->fat_cached != sec) {
		if (!v->rd(v->ctx, sec, v->fat_buf)) {
			r->lba = sec;
			return false;
		}
		v->fat_cached = sec;
	}
	*next = le32(v->fat_buf + c % (FAT_SECTOR / 4) * 4) & FAT32_MASK;
	return true;
}

static bool valid_cluster(const struct vol *v, uint32_t c)
{
	return c >= 2 && c < v->clusters + 2;
}

static uint32_t cluster_lba(const struct vol *v, uint32_t c)
{
	return v->data + (c - 2) * v->spc;
}

/* The entry named name in the root directory into ent (32 bytes). */
static enum fat_why dir_find(struct vol *v, const char *name, uint8_t *ent, struct fat_result *r)
{
	uint32_t c = v->root;

	for (unsigned n = 0; n < ROOT_MAX_CLUSTERS && valid_cluster(v, c); n++) {
		for (uint32_t s = 0; s < v->spc; s++) {
			uint32_t lba = cluster_lba(v, c) + s;
			if (!v->rd(v->ctx, lba, v->buf)) {
				r->lba = lba;
				return FAT_READ;
			}
			for (uint32_t o = 0; o < FAT_SECTOR; o += DIR_ENTRY) {
				const uint8_t *e = v->buf + o;
				if (e[0] == DIR_END)
					return FAT_MISSING;
				if (e[0] == DIR_DELETED || (e[DIR_ATTR] & ATTR_LFN) == ATTR_LFN ||
				    (e[DIR_ATTR] & ATTR_DIR_OR_LABEL))
					continue;
				if (!pmh_strncmp((const char *)e, name, 11)) {
					pmh_memcpy(ent, e, DIR_ENTRY);
					return FAT_OK;
				}
			}
		}
		if (!fat_next(v, c, &c, r))
			return FAT_READ;
	}
	return FAT_MISSING;
}

/* The file's clusters one run from its first, as long as its size. */
static enum fat_why contiguous(struct vol *v, uint32_t first, uint32_t sectors,
			       struct fat_result *r)
{
	uint32_t need = (sectors + v->spc - 1) / v->spc, c = first, next;

	if (!valid_cluster(v, first) || need > v->clusters + 2 - first)
		return FAT_FRAGMENTED;
	for (uint32_t i = 1; i <= need; i++, c = next) {
		if (!fat_next(v, c, &next, r))
			return FAT_READ;
		if (i == need ? next < FAT32_EOC : next != c + 1)
			return FAT_FRAGMENTED;
	}
	return FAT_OK;
}

static bool starts_with(const uint8_t *b, const char *s)
{
	return !pmh_strncmp((const char *)b, s, pmh_strlen(s));
}

static enum fat_why one_slot(struct vol *v, struct fat_slot *slot, struct fat_result *r)
{
	uint8_t ent[DIR_ENTRY];
	enum fat_why why = dir_find(v, slot->name, ent, r);

	if (why != FAT_OK)
		return why;
	uint32_t size = le32(ent + DIR_SIZE);
	uint32_t first = le16(ent + DIR_CLUS_HI) << 16 | le16(ent + DIR_CLUS_LO);
	if (!size || size % FAT_SECTOR)
		return FAT_SIZE;
	slot->sectors = size / FAT_SECTOR;
	why = contiguous(v, first, slot->sectors, r);
	if (why != FAT_OK)
		return why;
	slot->lba = cluster_lba(v, first);
	return FAT_OK;
}

/* The slot's first bytes: the slot magic or a JSON of ours. */
static enum fat_why slot_magic(struct vol *v, const struct fat_slot *slot, struct fat_result *r)
{
	if (!v->rd(v->ctx, slot->lba, v->buf)) {
		r->lba = slot->lba;
		return FAT_READ;
	}
	return starts_with(v->buf, SLOT_MAGIC) || starts_with(v->buf, SLOT_JSON_START) ? FAT_OK
										       : FAT_MAGIC;
}

/* Whether two contiguous slots share a cluster: their runs of whole
 * clusters overlap (fatgen103 §4: a cluster belongs to one chain; chkdsk
 * calls two chains through one "cross-linked"). */
static bool shares_cluster(const struct vol *v, const struct fat_slot *a, const struct fat_slot *b)
{
	uint32_t a0 = (a->lba - v->data) / v->spc, b0 = (b->lba - v->data) / v->spc;
	uint32_t a1 = a0 + (a->sectors + v->spc - 1) / v->spc;
	uint32_t b1 = b0 + (b->sectors + v->spc - 1) / v->spc;

	return a0 < b1 && b0 < a1;
}

/* Every slot on the partition whose BPB is at v->base, none sharing a
 * cluster with another. */
static enum fat_why partition(struct vol *v, uint32_t len, struct fat_slot *slot, unsigned n,
			      struct fat_result *r)
{
	enum fat_why why = bpb(v, len, r);

	for (unsigned i = 0; why == FAT_OK && i < n; i++) {
		r->slot = i;
		why = one_slot(v, &slot[i], r);
		for (unsigned j = 0; why == FAT_OK && j < i; j++)
			if (shares_cluster(v, &slot[j], &slot[i]))
				why = FAT_CROSSLINKED;
		if (why == FAT_OK)
			why = slot_magic(v, &slot[i], r);
	}
	return why;
}

/* Each FAT32 partition of the MBR in turn until on() says done: its result
 * then; else the first FAT32 partition's reason (none: FAT_NO_FAT32). */
typedef enum fat_why (*part_fn)(struct vol *v, uint32_t len, void *arg, struct fat_result *tried);
static struct fat_result each_fat32(fat_read_fn rd, void *ctx, part_fn on, void *arg,
				    bool (*done)(enum fat_why))
{
	static struct vol v;
	uint8_t mbr[FAT_SECTOR], buf[FAT_SECTOR];
	struct fat_result r = {.why = FAT_NO_FAT32}, tried;

	v.rd = rd;
	v.ctx = ctx;
	v.buf = buf;
	if (!rd(ctx, 0, mbr))
		return (struct fat_result){.why = FAT_READ};
	if (le16(mbr + MBR_SIG) != 0xaa55)
		return (struct fat_result){.why = FAT_NO_MBR};
	for (unsigned p = 0; p < MBR_ENTRIES; p++) {
		const uint8_t *e = mbr + MBR_TABLE + p * MBR_ENTRY;
		if (e[4] != PART_FAT32_CHS && e[4] != PART_FAT32_LBA)
			continue;
		tried = (struct fat_result){.part = p + 1};
		v.base = le32(e + 8);
		tried.why = on(&v, le32(e + 12), arg, &tried);
		if (done(tried.why))
			return tried;
		if (r.why == FAT_NO_FAT32) /* the first FAT32 partition's reason is told */
			r = tried;
	}
	return r;
}

struct slots_arg {
	struct fat_slot *slot;
	unsigned n;
};

static enum fat_why slots_on(struct vol *v, uint32_t len, void *arg, struct fat_result *tried)
{
	struct slots_arg *a = arg;
	return partition(v, len, a->slot, a->n, tried);
}

static bool slots_found(enum fat_why why)
{
	return why == FAT_OK;
}

struct fat_result fat_find_slots(fat_read_fn rd, void *ctx, struct fat_slot *slot, unsigned n)
{
	struct slots_arg a = {slot, n};
	return each_fat32(rd, ctx, slots_on, &a, slots_found);
}

/* ---- a file by its path: the config file -------------------------------- */

/* A long name's piece into name (LFN_MAX + 1 bytes); non-ASCII as '?'. */
static void lfn_piece(const uint8_t *e, char *name)
{
	static const uint8_t at[LFN_CHARS] = {1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30};
	uint32_t ord = e[0] & LFN_ORD;

	if (!ord || ord * LFN_CHARS > LFN_MAX) {
		name[0] = 0;
		return;
	}
	for (uint32_t i = 0; i < LFN_CHARS; i++) {
		uint32_t c = le16(e + at[i]);
		name[(ord - 1) * LFN_CHARS + i] = c == 0 || c == 0xffff ? 0
						  : c < 0x80		? (char)c
									: '?';
	}
	if (e[0] & LFN_LAST)
		name[ord * LFN_CHARS] = 0;
}

/* The entry's 8.3 name as "NAME.EXT". */
static void short_name(const uint8_t *e, char *out)
{
	unsigned o = 0;

	for (unsigned i = 0; i < 8 && e[i] != ' '; i++)
		out[o++] = (char)e[i];
	if (e[8] != ' ')
		out[o++] = '.';
	for (unsigned i = 8; i < 11 && e[i] != ' '; i++)
		out[o++] = (char)e[i];
	out[o] = 0;
}

/* The entry of the directory at cluster dir named name (long or 8.3). */
static enum fat_why dir_lookup(struct vol *v, uint32_t dir, const char *name, uint8_t *ent,
			       struct fat_result *r)
{
	char lfn[LFN_MAX + 1] = "", sn[13];

	for (unsigned n = 0; n < DIR_MAX_CLUSTERS && valid_cluster(v, dir); n++) {
		for (uint32_t s = 0; s < v->spc; s++) {
			uint32_t lba = cluster_lba(v, dir) + s;
			if (!v->rd(v->ctx, lba, v->buf)) {
				r->lba = lba;
				return FAT_READ;
			}
			for (uint32_t o = 0; o < FAT_SECTOR; o += DIR_ENTRY) {
				const uint8_t *e = v->buf + o;
				if (e[0] == DIR_END)
					return FAT_MISSING;
				if ((e[DIR_ATTR] & ATTR_LFN) == ATTR_LFN) {
					lfn_piece(e, lfn);
					continue;
				}
				short_name(e, sn);
				if (e[0] != DIR_DELETED && !(e[DIR_ATTR] & ATTR_LABEL) &&
				    (!pmh_strcasecmp(lfn, name) || !pmh_strcasecmp(sn, name))) {
					pmh_memcpy(ent, e, DIR_ENTRY);
					return FAT_OK;
				}
				lfn[0] = 0;
			}
		}
		if (!fat_next(v, dir, &dir, r))
			return FAT_READ;
	}
	return FAT_MISSING;
}

static uint32_t first_cluster(const uint8_t *ent)
{
	return (le16(ent + DIR_CLUS_HI) << 16 | le16(ent + DIR_CLUS_LO)) & FAT32_MASK;
}

/* The chain of a file of size bytes from cluster c, its first cap bytes
 * into buf: every cluster's FAT entry neither free nor bad, each but the
 * last naming a cluster of the volume (fatgen103 §4). */
static enum fat_why read_chain(struct vol *v, uint32_t c, uint32_t size, char *buf, uint32_t cap,
			       struct fat_result *r)
{
	uint32_t csize = v->spc * FAT_SECTOR, next = 0;

	r->size = size;
	for (uint32_t got = 0; got < size; got += csize, c = next) {
		r->cluster = c;
		r->bytes = got;
		r->entry = next;
		if (!valid_cluster(v, c))
			return FAT_CHAIN_CUT; /* named by the entry before: no cluster */
		if (!fat_next(v, c, &next, r))
			return FAT_READ;
		r->entry = next;
		if (!next || next == FAT32_BAD ||
		    (got + csize < size && (next >= FAT32_EOC || !valid_cluster(v, next))))
			return FAT_CHAIN_CUT;
		for (uint32_t s = 0; s < v->spc && got + s * FAT_SECTOR < cap; s++) {
			uint32_t lba = cluster_lba(v, c) + s, at = got + s * FAT_SECTOR;
			if (!v->rd(v->ctx, lba, v->buf)) {
				r->lba = lba;
				return FAT_READ;
			}
			pmh_memcpy(buf + at, v->buf, cap - at < FAT_SECTOR ? cap - at : FAT_SECTOR);
		}
	}
	return FAT_OK;
}

/* The file at path on the partition whose BPB is at v->base. */
static enum fat_why file_on(struct vol *v, uint32_t len, const char *const *path, unsigned n,
			    char *buf, uint32_t cap, uint32_t *size, struct fat_result *r)
{
	uint8_t ent[DIR_ENTRY];
	enum fat_why why = bpb(v, len, r);
	uint32_t dir = v->root;

	for (unsigned i = 0; why == FAT_OK && i < n; i++) {
		why = dir_lookup(v, dir, path[i], ent, r);
		if (why == FAT_OK && !(ent[DIR_ATTR] & ATTR_DIR) != (i + 1 == n))
			why = FAT_MISSING; /* a file on the way, or a directory at the end */
		dir = first_cluster(ent);
	}
	if (why != FAT_OK)
		return why;
	*size = le32(ent + DIR_SIZE);
	return read_chain(v, dir, *size, buf, cap, r);
}

struct file_arg {
	const char *const *path;
	unsigned n;
	char *buf;
	uint32_t cap, *size;
};

static enum fat_why file_arg_on(struct vol *v, uint32_t len, void *arg, struct fat_result *tried)
{
	struct file_arg *a = arg;
	return file_on(v, len, a->path, a->n, a->buf, a->cap, a->size, tried);
}

/* found, readable or not: this partition has the file */
static bool file_there(enum fat_why why)
{
	return why != FAT_MISSING && why != FAT_NOT_FAT32 && why != FAT_BPB;
}

struct fat_result fat_read_file(fat_read_fn rd, void *ctx, const char *const *path, unsigned n,
				char *buf, uint32_t cap, uint32_t *size)
{
	struct file_arg a = {path, n, buf, cap, size};
	return each_fat32(rd, ctx, file_arg_on, &a, file_there);
}

const char *fat_why_text(enum fat_why why)
{
	switch (why) {
	case FAT_OK:
		return "found";
	case FAT_READ:
		return "a sector could not be read";
	case FAT_NO_MBR:
		return "sector 0 is not an MBR (no 55 AA)";
	case FAT_NO_FAT32:
		return "no FAT32 partition (type 0x0B or 0x0C) in the MBR";
	case FAT_BPB:
		return "the FAT32 partition's boot sector (BPB) is not valid";
	case FAT_NOT_FAT32:
		return "the partition is FAT12 or FAT16, not FAT32";
	case FAT_MISSING:
		return "no such file in the root directory";
	case FAT_SIZE:
		return "the file is empty or not a whole number of sectors";
	case FAT_FRAGMENTED:
		return "the file's clusters are not contiguous";
	case FAT_MAGIC:
		return "the file does not start with the slot magic " SLOT_MAGIC
		       "or a results JSON of ours";
	case FAT_CHAIN_CUT:
		return "the file's cluster chain is cut before its size is reached";
	case FAT_CROSSLINKED:
		return "the file shares clusters with another results slot (a cross-linked "
		       "FAT: writing one would overwrite the other); run fsck.fat or make the "
		       "stick again";
	}
	return "unknown";
}

void slot_fill(uint8_t *buf, uint32_t off, uint32_t n, const char *text, size_t len, uint32_t size)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t at = off + i;
		buf[i] = at < len ? (uint8_t)text[at] : at + 1 == size ? '\n' : ' ';
	}
}
