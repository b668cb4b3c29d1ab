/* The BIOS kernel's walk to its results slots (pc/fat.c) over disk
 * images made here with mkfs.fat and mcopy, as scripts/usb-image.sh makes
 * the stick: the slots found where their bytes are; a fragmented slot, a
 * wrong magic, slots that share clusters, a missing file, a garbage or truncated BPB, FAT12/16, no
 * FAT32 partition, no MBR, a read error and a root directory that loops
 * all refused; a JSON of ours accepted for a rerun; the padding. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* pc/ and bios/ are not in the host library (no shared source uses them) */
#include "../../pc/fat.c"

#define PART_LBA   2048u
#define SLOT_BYTES 8192u
#define BIG_KIB	   40960 /* FAT32 with 512-byte clusters: over 65525 clusters */

struct disk {
	uint8_t mbr[FAT_SECTOR];
	FILE *part;
	uint32_t fail_lba; /* a read of this sector fails (0: none) */
};

static char dir[64];

static bool rd(void *ctx, uint32_t lba, uint8_t *buf)
{
	struct disk *d = ctx;

	if (d->fail_lba && lba == d->fail_lba)
		return false;
	if (lba < PART_LBA) {
		static const uint8_t zero[FAT_SECTOR];
		memcpy(buf, lba ? zero : d->mbr, FAT_SECTOR);
		return true;
	}
	memset(buf, 0, FAT_SECTOR);
	return !fseek(d->part, (long)(lba - PART_LBA) * FAT_SECTOR, SEEK_SET) &&
	       fread(buf, 1, FAT_SECTOR, d->part) <= FAT_SECTOR;
}

static void sh(const char *cmd)
{
	char full[1024];
	snprintf(full, sizeof(full), "cd %s && MTOOLS_SKIP_CHECK=1 sh -ec '%s' >/dev/null 2>&1",
		 dir, cmd);
	assert_int_equal(system(full), 0);
}

/* A slot file name with content: the magic line (or start) and padding. */
static void slot_file(const char *name, const char *start, unsigned bytes)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (unsigned i = 0; i < bytes; i++)
		fputc(i < strlen(start) ? start[i] : i + 1 == bytes ? '\n' : ' ', f);
	fclose(f);
}

/* The partition image part.img: mkfs (fat "32", "16" or "12", size in KiB). */
static void mkfs(const char *fat, unsigned kib)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
		 "rm -f part.img; mkfs.fat -F %s -s 1 -S 512 -h %u -C part.img %u", fat, PART_LBA,
		 kib);
	sh(cmd);
}

static void open_disk(struct disk *d, uint8_t type, unsigned kib)
{
	char path[128];
	uint32_t len = kib * 2;

	memset(d, 0, sizeof(*d));
	d->mbr[446 + 4] = type;
	memcpy(d->mbr + 446 + 8, &(uint32_t){PART_LBA}, 4);
	memcpy(d->mbr + 446 + 12, &len, 4);
	d->mbr[510] = 0x55;
	d->mbr[511] = 0xaa;
	snprintf(path, sizeof(path), "%s/part.img", dir);
	d->part = fopen(path, "r+b");
	assert_non_null(d->part);
}

static void good_image(struct disk *d)
{
	mkfs("32", BIG_KIB);
	slot_file("PMHBIOS.LOG", SLOT_MAGIC "slot (LOG)\n", SLOT_BYTES);
	slot_file("PMHBIOS.JSN", SLOT_MAGIC "slot (JSN)\n", SLOT_BYTES);
	sh("mcopy -i part.img PMHBIOS.LOG PMHBIOS.JSN ::/");
	open_disk(d, 0x0c, BIG_KIB);
}

static struct fat_result find(struct disk *d, struct fat_slot *s)
{
	memset(s, 0, 2 * sizeof(*s));
	memcpy(s[0].name, "PMHBIOS LOG", 12);
	memcpy(s[1].name, "PMHBIOS JSN", 12);
	return fat_find_slots(rd, d, s, 2);
}

static void close_disk(struct disk *d)
{
	fclose(d->part);
}

static void test_good(void **state)
{
	struct disk d;
	struct fat_slot s[2];
	uint8_t buf[FAT_SECTOR];
	(void)state;

	good_image(&d);
	struct fat_result r = find(&d, s);
	assert_int_equal(r.why, FAT_OK);
	assert_int_equal(r.part, 1);
	/* Every sector of each slot, read by its number, is the file's. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(s[i].sectors, SLOT_BYTES / FAT_SECTOR);
		for (uint32_t k = 0; k < s[i].sectors; k++) {
			assert_true(rd(&d, s[i].lba + k, buf));
			uint8_t want[FAT_SECTOR];
			slot_fill(want, k * FAT_SECTOR, FAT_SECTOR, "", 0, SLOT_BYTES);
			if (!k)
				assert_memory_equal(buf + 15, i ? "slot (JSN)" : "slot (LOG)", 10);
			else
				assert_memory_equal(buf, want, FAT_SECTOR);
		}
	}
	assert_int_not_equal(s[0].lba, s[1].lba);
	close_disk(&d);
}

static void test_json_rerun_accepted(void **state)
{
	struct disk d;
	struct fat_slot s[2];
	(void)state;

	mkfs("32", BIG_KIB);
	slot_file("PMHBIOS.LOG", SLOT_MAGIC "log of a run\n", SLOT_BYTES);
	slot_file("PMHBIOS.JSN", SLOT_JSON_START "2\",\n}", SLOT_BYTES);
	sh("mcopy -i part.img PMHBIOS.LOG PMHBIOS.JSN ::/");
	open_disk(&d, 0x0b, BIG_KIB);
	assert_int_equal(find(&d, s).why, FAT_OK);
	close_disk(&d);
}

static void expect(struct disk *d, enum fat_why why, unsigned slot)
{
	struct fat_slot s[2];
	struct fat_result r = find(d, s);
	assert_int_equal(r.why, why);
	assert_int_equal(r.slot, slot);
	assert_string_not_equal(fat_why_text(why), "unknown");
	close_disk(d);
}

static void poke(struct disk *d, long at, const void *p, size_t n)
{
	assert_int_equal(fseek(d->part, at, SEEK_SET), 0);
	assert_int_equal(fwrite(p, 1, n, d->part), n);
	fflush(d->part);
}

static void test_fragmented(void **state)
{
	struct disk d;
	struct fat_slot s[2];
	uint8_t b[FAT_SECTOR];
	(void)state;

	/* mtools never fragments a file copied onto a new file system (it
	 * allocates from its next-free hint), so the JSON slot's second
	 * cluster is moved in the FAT: its chain jumps over a gap. */
	good_image(&d);
	assert_int_equal(find(&d, s).why, FAT_OK);
	assert_true(rd(&d, PART_LBA, b));
	uint32_t rsvd = b[14] | b[15] << 8, fatsz, first;
	memcpy(&fatsz, b + 36, 4);
	first = (s[1].lba - PART_LBA - rsvd - 2 * fatsz) + 2; /* one sector per cluster */
	uint32_t far = first + 1000;
	poke(&d, (long)rsvd * FAT_SECTOR + 4 * first, &far, 4);
	expect(&d, FAT_FRAGMENTED, 1);
}

/* The root directory entry named name (8.3, 11 bytes): its offset in
 * part.img; the root is cluster 2, the first of the data area. */
static long dir_entry(struct disk *d, const char *name)
{
	uint8_t b[FAT_SECTOR];
	uint32_t fatsz;

	assert_true(rd(d, PART_LBA, b));
	uint32_t rsvd = b[14] | b[15] << 8;
	memcpy(&fatsz, b + 36, 4);
	long root = (long)(rsvd + 2 * fatsz) * FAT_SECTOR;
	assert_true(rd(d, PART_LBA + (uint32_t)(root / FAT_SECTOR), b));
	for (unsigned o = 0; o < FAT_SECTOR; o += 32)
		if (!memcmp(b + o, name, 11))
			return root + o;
	fail_msg("no entry %s", name);
	return 0;
}

/* Two slot files whose entries name the same clusters (a cross-linked
 * FAT): each chain alone is contiguous and as long as its file, but a
 * write of one would overwrite the other. Refused, whole or in part. */
static void test_crosslinked(void **state)
{
	struct disk d;
	struct fat_slot s[2];
	(void)state;

	good_image(&d);
	assert_int_equal(find(&d, s).why, FAT_OK);
	long log = dir_entry(&d, "PMHBIOS LOG"), jsn = dir_entry(&d, "PMHBIOS JSN");
	uint8_t ent[32];
	assert_int_equal(fseek(d.part, log, SEEK_SET), 0);
	assert_int_equal(fread(ent, 1, 32, d.part), 32);
	poke(&d, jsn + 20, ent + 20, 2); /* the LOG's first cluster, high and low */
	poke(&d, jsn + 26, ent + 26, 2);
	expect(&d, FAT_CROSSLINKED, 1);

	/* the JSON's entry at the LOG's second half, half its size: its chain
	 * is the LOG's last clusters and the LOG's end of chain */
	good_image(&d);
	log = dir_entry(&d, "PMHBIOS LOG");
	jsn = dir_entry(&d, "PMHBIOS JSN");
	assert_int_equal(fseek(d.part, log, SEEK_SET), 0);
	assert_int_equal(fread(ent, 1, 32, d.part), 32);
	uint16_t lo = (uint16_t)((ent[26] | ent[27] << 8) + SLOT_BYTES / FAT_SECTOR / 2);
	uint32_t half = SLOT_BYTES / 2;
	poke(&d, jsn + 20, ent + 20, 2);
	poke(&d, jsn + 26, &lo, 2);
	poke(&d, jsn + 28, &half, 4);
	expect(&d, FAT_CROSSLINKED, 1);
}

static void test_wrong_magic(void **state)
{
	struct disk d;
	(void)state;

	mkfs("32", BIG_KIB);
	slot_file("PMHBIOS.LOG", SLOT_MAGIC "\n", SLOT_BYTES);
	slot_file("PMHBIOS.JSN", "PMHBIOS-SLOT/2 a later format\n", SLOT_BYTES);
	sh("mcopy -i part.img PMHBIOS.LOG PMHBIOS.JSN ::/");
	open_disk(&d, 0x0c, BIG_KIB);
	expect(&d, FAT_MAGIC, 1);
}

static void test_missing_and_sizes(void **state)
{
	struct disk d;
	(void)state;

	mkfs("32", BIG_KIB);
	slot_file("PMHBIOS.LOG", SLOT_MAGIC "\n", SLOT_BYTES);
	sh("mcopy -i part.img PMHBIOS.LOG ::/; mmd -i part.img ::/PMHBIOS.JSN");
	open_disk(&d, 0x0c, BIG_KIB);
	expect(&d, FAT_MISSING, 1); /* a folder of that name is not the slot */

	mkfs("32", BIG_KIB);
	slot_file("PMHBIOS.LOG", SLOT_MAGIC "\n", SLOT_BYTES + 1);
	sh("mcopy -i part.img PMHBIOS.LOG ::/");
	open_disk(&d, 0x0c, BIG_KIB);
	expect(&d, FAT_SIZE, 0);
}

static void test_bad_bpb(void **state)
{
	struct disk d;
	(void)state;

	good_image(&d);
	poke(&d, 11, "\x00\x10", 2); /* 4096 bytes per sector */
	expect(&d, FAT_BPB, 0);
	good_image(&d);
	poke(&d, 13, "\x03", 1); /* 3 sectors per cluster */
	expect(&d, FAT_BPB, 0);
	good_image(&d);
	poke(&d, 44, "\xff\xff\xff\x0f", 4); /* root cluster past the end */
	expect(&d, FAT_BPB, 0);
	good_image(&d);
	poke(&d, 510, "\x00\x00", 2);
	expect(&d, FAT_BPB, 0);
	/* The partition entry shorter than the file system: truncated. */
	good_image(&d);
	memcpy(d.mbr + 446 + 12, &(uint32_t){1000}, 4);
	expect(&d, FAT_BPB, 0);
}

static void test_fat16_fat12_refused(void **state)
{
	struct disk d;
	(void)state;

	mkfs("16", 16384);
	open_disk(&d, 0x0c, 16384); /* even where the MBR says FAT32 */
	expect(&d, FAT_NOT_FAT32, 0);
	mkfs("12", 2048);
	open_disk(&d, 0x0b, 2048);
	expect(&d, FAT_NOT_FAT32, 0);
}

static void test_partition_table(void **state)
{
	struct disk d;
	(void)state;

	good_image(&d);
	d.mbr[446 + 4] = 0x83;
	expect(&d, FAT_NO_FAT32, 0);
	good_image(&d);
	d.mbr[511] = 0;
	expect(&d, FAT_NO_MBR, 0);
	good_image(&d);
	d.fail_lba = PART_LBA; /* the BPB's sector */
	expect(&d, FAT_READ, 0);
}

static void test_root_loop_bounded(void **state)
{
	struct disk d;
	struct fat_slot s[2];
	uint8_t bpb_s[FAT_SECTOR];
	(void)state;

	/* The root directory's cluster chained to itself, its entries all
	 * deleted: the walk stops after ROOT_MAX_CLUSTERS, slot missing. */
	good_image(&d);
	assert_true(rd(&d, PART_LBA, bpb_s));
	uint32_t rsvd = bpb_s[14] | bpb_s[15] << 8, root = 2;
	poke(&d, (long)rsvd * FAT_SECTOR + 4 * root, "\x02\x00\x00\x00", 4);
	uint32_t fatsz;
	memcpy(&fatsz, bpb_s + 36, 4);
	long data = (long)(rsvd + 2 * fatsz) * FAT_SECTOR;
	for (int i = 0; i < 16; i++)
		poke(&d, data + 32 * i, "\xe5", 1);
	assert_int_equal(find(&d, s).why, FAT_MISSING);
	close_disk(&d);
}

static void test_slot_fill(void **state)
{
	uint8_t b[8];
	(void)state;

	slot_fill(b, 0, 8, "abc", 3, 8);
	assert_memory_equal(b, "abc    \n", 8);
	slot_fill(b, 4, 4, "abcdef", 6, 8);
	assert_memory_equal(b, "ef \n", 4);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pmh-fat.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[96];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The config file where the stick has it, 2152 bytes (five 512-byte
 * clusters) of numbered lines; its first cluster (mshowfat). */
#define CFG_BYTES 2152u
static const char *const cfg_path[] = {"EFI", "BOOT", "pmuharness.cfg"};

static uint32_t cfg_image(struct disk *d, char *text)
{
	for (unsigned i = 0; i < CFG_BYTES; i++)
		text[i] = i % 40 == 39 ? '\n' : (char)('a' + i / 40 % 26);
	good_image(d);
	close_disk(d);
	char path[128], cmd[256];
	snprintf(path, sizeof(path), "%s/pmuharness.cfg", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, CFG_BYTES, f), CFG_BYTES);
	fclose(f);
	sh("mmd -i part.img ::/EFI ::/EFI/BOOT && mcopy -i part.img pmuharness.cfg ::/EFI/BOOT/");
	open_disk(d, 0x0c, BIG_KIB);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && MTOOLS_SKIP_CHECK=1 mshowfat -i part.img ::/EFI/BOOT/pmuharness.cfg",
		 dir);
	FILE *p = popen(cmd, "r");
	unsigned first = 0;
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%*[^<]<%u", &first), 1);
	pclose(p);
	return first;
}

/* The FAT entry of cluster c (the first FAT) set to v. */
static void set_fat(struct disk *d, uint32_t c, uint32_t v)
{
	uint8_t b[FAT_SECTOR];
	assert_true(rd(d, PART_LBA, b));
	poke(d, (long)(b[14] | b[15] << 8) * FAT_SECTOR + 4 * (long)c, &v, 4);
}

static struct fat_result read_cfg(struct disk *d, char *buf, uint32_t *size)
{
	memset(buf, 0, CFG_BYTES);
	return fat_read_file(rd, d, cfg_path, 3, buf, CFG_BYTES, size);
}

/* The config file read whole through its long name and directories; a
 * cut chain (an entry free, bad, an early end of chain, or naming a
 * cluster that is free) refused with the cluster and the bytes before. */
static void test_config_file(void **state)
{
	struct disk d;
	char want[CFG_BYTES], got[CFG_BYTES];
	uint32_t size = 0;
	(void)state;

	uint32_t first = cfg_image(&d, want);
	struct fat_result r = read_cfg(&d, got, &size);
	assert_int_equal(r.why, FAT_OK);
	assert_int_equal(size, CFG_BYTES);
	assert_memory_equal(got, want, CFG_BYTES);
	static const char *const missing[] = {"EFI", "pmuharness.cfg"};
	assert_int_equal(fat_read_file(rd, &d, missing, 2, got, CFG_BYTES, &size).why, FAT_MISSING);

	const struct {
		uint32_t at, entry, cut, bytes;
	} cuts[] = {
	    {0, 0, 0, 0},	      /* the first cluster free */
	    {1, FAT32_BAD, 1, 512},   /* the second one bad */
	    {2, FAT32_EOC, 2, 1024},  /* an end of chain after 3 of 5 */
	    {1, 0x0ffffff0u, 1, 512}, /* a reserved value: no cluster */
	    {3, 5000, 5000, 2048},    /* the fourth names a free cluster */
	};
	for (unsigned i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		close_disk(&d);
		first = cfg_image(&d, want);
		set_fat(&d, first + cuts[i].at,
			cuts[i].entry == 5000 ? first + 5000 : cuts[i].entry);
		r = read_cfg(&d, got, &size);
		assert_int_equal(r.why, FAT_CHAIN_CUT);
		assert_int_equal(r.cluster,
				 cuts[i].entry == 5000 ? first + 5000 : first + cuts[i].cut);
		assert_int_equal(r.bytes, cuts[i].bytes);
		assert_int_equal(r.size, CFG_BYTES);
		assert_int_equal(r.part, 1);
	}
	close_disk(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_json_rerun_accepted),
	    cmocka_unit_test(test_fragmented),
	    cmocka_unit_test(test_crosslinked),
	    cmocka_unit_test(test_wrong_magic),
	    cmocka_unit_test(test_missing_and_sizes),
	    cmocka_unit_test(test_bad_bpb),
	    cmocka_unit_test(test_fat16_fat12_refused),
	    cmocka_unit_test(test_partition_table),
	    cmocka_unit_test(test_root_loop_bounded),
	    cmocka_unit_test(test_slot_fill),
	    cmocka_unit_test(test_config_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
