/* The results files of a BIOS machine: the preallocated slots PMHBIOS.LOG
 * and PMHBIOS.JSN on the disk we booted from (scripts/usb-image.sh), found
 * at the run's start (before any AP runs) and written at its end, each
 * padded to its fixed size, read back and compared. The log is written at
 * close only: every write needs the BIOS back in charge of the machine,
 * once is enough, and a run that never reaches close has its lines on the
 * console and serial port anyway. */
#include "bios.h"
#include "disk.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define SLOT_LOG  0
#define SLOT_JSON 1
/* The log in memory: no more than a slot of usb-image.sh's size holds. */
#define LOG_CAP (256u * 1024u)
/* Kept free at the end for the line that says the log was cut. */
#define CUT_ROOM 64u
/* The log's first line: the slot magic, so a rerun finds it again. */
#define LOG_HEAD SLOT_MAGIC "pmuharness BIOS results log\n"

static struct {
	struct disk disk;
	struct fat_slot slot[SLOT_COUNT];
	bool found;
	size_t len;
	bool cut; /* lines left out: the log was full */
	char log[LOG_CAP];
} res; /* in .bss: named at open, not carried 256 KiB of it in the ELF */

void results_log_line(const char *s)
{
	size_t n = pmh_strlen(s);

	if (!res.len) {
		pmh_strlcpy(res.log, LOG_HEAD, sizeof(res.log));
		res.len = pmh_strlen(LOG_HEAD);
	}
	if (res.len + n + 1 >= LOG_CAP - (res.cut ? 0 : CUT_ROOM)) {
		res.cut = true;
		return;
	}
	pmh_memcpy(res.log + res.len, s, n);
	res.log[res.len + n] = '\n';
	res.len += n + 1;
}

bool bios_results_open(void *ctx, char *name, size_t cap)
{
	char why[200] = "an AP may still run", line[320];
	(void)ctx;

	pmh_strlcpy(res.slot[SLOT_LOG].name, "PMHBIOS LOG", sizeof(res.slot[0].name));
	pmh_strlcpy(res.slot[SLOT_JSON].name, "PMHBIOS JSN", sizeof(res.slot[0].name));
	res.found = !bios_mp_ap_busy() &&
		    disk_find_slots(&res.disk, res.slot, SLOT_COUNT, why, sizeof(why));
	if (!res.found) {
		pmh_fmt(line, sizeof(line),
			"warning: no results files: NOTHING will be saved on the disk (%s); "
			"results are on the console and serial only",
			why);
		con_line(line);
		return false;
	}
	pmh_strlcpy(name, "PMHBIOS.LOG PMHBIOS.JSN", cap);
	return true;
}

/* One slot written; appends "NAME written and verified" or why not. */
static bool write_one(unsigned i, const char *text, size_t len, const char *name, char *msg,
		      size_t cap)
{
	size_t size = (size_t)res.slot[i].sectors * FAT_SECTOR;
	char why[96], lost[112];
	bool ok = false;

	if (!text)
		pmh_strlcpy(why, "no results document to write", sizeof(why));
	else if (len >= size)
		pmh_fmt(why, sizeof(why), "%u bytes do not fit the %u-byte slot", (unsigned)len,
			(unsigned)size);
	else if (bios_mp_ap_busy())
		pmh_strlcpy(why, "an AP may still run: no BIOS call", sizeof(why));
	else
		ok = disk_write_slot(&res.disk, &res.slot[i], text, len, why, sizeof(why));
	if (!ok)
		pmh_fmt(lost, sizeof(lost), "%s: NOT saved", why);
	results_file_outcome(msg, cap, name, ok ? NULL : lost);
	return ok;
}

bool bios_results_close(void *ctx, const char *json, size_t len)
{
	char msg[320], line[400];
	(void)ctx;

	if (!res.found)
		return false;
	res.found = false;
	msg[0] = 0;
	if (res.cut) /* the slot holds what fitted; the console has the rest */
		results_log_line("(log cut here: the slot is full; the rest is on the console)");
	bool ok = write_one(SLOT_LOG, res.log, res.len, "PMHBIOS.LOG", msg, sizeof(msg));
	ok &= write_one(SLOT_JSON, json, len, "PMHBIOS.JSN", msg, sizeof(msg));
	results_saved_line(line, sizeof(line), ok, msg);
	con_line(line);
	return ok;
}
