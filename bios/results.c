/* The results files of a BIOS machine: the preallocated slots PMHBIOS.LOG
 * and PMHBIOS.JSN on the disk we booted from (scripts/usb-image.sh sizes
 * them for the CPUs it is told), found at the run's start (before any AP
 * runs) and written at its end, each padded to its size, read back and
 * compared. The log is kept in memory as large as its slot (from the
 * heap, at open) and written at close only: every write needs the BIOS
 * back in charge of the machine, once is enough, and a run that never
 * reaches close has its lines on the console and serial port anyway. */
#include "bios.h"
#include "disk.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pc/acpi.h"
#include "../tests/suite.h"

#define SLOT_LOG  0
#define SLOT_JSON 1
/* The lines before the slots are found (options, the countdown) and all
 * of them where there are none: here; at open they move into a buffer
 * the size of the LOG slot from the heap. */
#define EARLY_CAP (16u * 1024u)
/* Kept free at the end for the line that says the log was cut. */
#define CUT_ROOM 256u
/* The log takes at most this share of the heap's free bytes at open: the
 * rest is the results tables' and the JSON's. */
#define LOG_HEAP_SHARE 2u
/* The log's first line: the slot magic, so a rerun finds it again. */
#define LOG_HEAD SLOT_MAGIC "pmuharness BIOS results log\n"

static char early[EARLY_CAP];

static struct {
	struct disk disk;
	struct fat_slot slot[SLOT_COUNT];
	bool found;
	char *log;   /* early, or the heap's buffer (kept for later runs) */
	size_t cap;  /* the buffer's size: the slot's, or what the heap gave */
	size_t len;  /* the log's bytes */
	size_t lost; /* bytes of lines left out: the log was full (then all after too) */
} res = {.log = early, .cap = EARLY_CAP};

void results_log_line(const char *s)
{
	size_t n = pmh_strlen(s);

	if (!res.len) {
		pmh_memcpy(res.log, LOG_HEAD, pmh_strlen(LOG_HEAD));
		res.len = pmh_strlen(LOG_HEAD);
	}
	/* the log holds the first lines, in order: once one is left out, so
	 * is every line after it (the cut line says how many bytes) */
	if (res.lost || n + 1 > res.cap - CUT_ROOM - res.len) {
		res.lost += n + 1;
		return;
	}
	pmh_memcpy(res.log + res.len, s, n);
	res.log[res.len + n] = '\n';
	res.len += n + 1;
}

static uint32_t slot_bytes(unsigned i)
{
	return res.slot[i].sectors * FAT_SECTOR;
}

/* A line of ours on the console and in the log, as the harness's are. */
static void say(const char *line)
{
	con_line(line);
	results_log_line(line);
}

/* The log cut to a slot of want bytes: the lines that fit before the cut
 * line's room, the rest counted as left out (as results_log_line does),
 * so that a slot smaller than the lines before it was found (the early
 * buffer's) ends in the cut line instead of being refused whole. */
static void log_trim(size_t want)
{
	size_t keep = res.len;

	if (keep + CUT_ROOM > want) {
		keep = want > CUT_ROOM ? want - CUT_ROOM : 0;
		while (keep && res.log[keep - 1] != '\n')
			keep--;
		res.lost += res.len - keep;
		res.len = keep;
	}
	res.cap = want;
}

/* The log's buffer as large as its slot, from the heap (at most its
 * LOG_HEAP_SHARE): kept for later runs; where the heap has less, what it
 * has, and a line that says so. */
static void log_buffer(void)
{
	size_t want = slot_bytes(SLOT_LOG), avail = bios_heap_room();
	size_t get = (want < avail / LOG_HEAP_SHARE ? want : avail / LOG_HEAP_SHARE) & ~(size_t)15;
	char line[320];

	if (get > res.cap) {
		char *b = bios_heap_alloc(get);
		if (b) {
			pmh_memcpy(b, res.log, res.len);
			res.log = b;
			res.cap = get;
		}
	}
	if (res.cap > want) {
		log_trim(want); /* an earlier buffer: no more than this slot holds */
	} else if (res.cap < want) {
		pmh_fmt(line, sizeof(line),
			"warning: results log: PMHBIOS.LOG holds %u bytes, the heap gives %u "
			"for the log (at most 1/%u of the %u it has free): a longer log is cut, "
			"the rest is on the console and serial only",
			(unsigned)want, (unsigned)res.cap, LOG_HEAP_SHARE, (unsigned)avail);
		say(line);
	}
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
	log_buffer();
	pmh_strlcpy(name, "PMHBIOS.LOG PMHBIOS.JSN", cap);
	return true;
}

static const uint8_t *phys_map(void *ctx, uint32_t phys, uint32_t len)
{
	(void)ctx;
	(void)len; /* no paging: all of memory is there */
	return (const uint8_t *)(uintptr_t)phys;
}

/* This machine's enabled processors, as pc/mp.c finds them (the MADT,
 * else the MP table); 1 without either. */
static unsigned machine_cpus(void)
{
	static struct acpi_cpu c[SUITE_MAX_CPUS];
	const char *why;
	int n = acpi_madt_cpus(phys_map, NULL, c, SUITE_MAX_CPUS, &why);
	unsigned k = 0;

	if (n <= 0)
		n = mps_cpus(phys_map, NULL, c, SUITE_MAX_CPUS, &why);
	for (int i = 0; i < n; i++)
		k += c[i].enabled;
	return k ? k : 1;
}

/* The CPUs a stick must be made for (`make usb USB_CPUS=N`, pc/fat.h's
 * formula) to have a slot of need bytes, and at least this machine's. */
static unsigned usb_cpus(uint32_t need, unsigned per_cpu_kib, unsigned m)
{
	uint32_t fixed = SLOT_FIXED_KIB * 1024u, per = per_cpu_kib * 1024u;
	unsigned n = need > fixed ? (need - fixed + per - 1) / per : 1;

	return n > m ? n : m;
}

/* One slot written; appends "NAME written and verified" or why not. A
 * text larger than its slot is refused before anything is written. */
static bool write_one(unsigned i, const char *text, size_t len, const char *name, char *msg,
		      size_t cap)
{
	size_t size = slot_bytes(i);
	char why[200], lost[360];
	bool ok = false;

	if (len >= size && text) { /* the slot's last byte is the newline */
		unsigned m = machine_cpus();
		pmh_fmt(lost, sizeof(lost),
			"%u bytes needed, the slot on this disk holds %u: NOT saved, the slot "
			"keeps what it held; make the stick for this machine (%u CPUs) with make "
			"usb USB_CPUS=%u",
			(unsigned)len + 1, (unsigned)size, m,
			usb_cpus((uint32_t)len + 1,
				 i == SLOT_JSON ? SLOT_JSON_PER_CPU_KIB : SLOT_LOG_PER_CPU_KIB, m));
		results_file_outcome(msg, cap, name, lost);
		return false;
	}
	if (!text)
		pmh_strlcpy(why, "no results document to write", sizeof(why));
	else if (bios_mp_ap_busy())
		pmh_strlcpy(why, "an AP may still run: no BIOS call", sizeof(why));
	else
		ok = disk_write_slot(&res.disk, &res.slot[i], text, len, why, sizeof(why));
	if (!ok)
		pmh_fmt(lost, sizeof(lost), "%s: NOT saved", why);
	results_file_outcome(msg, cap, name, ok ? NULL : lost);
	return ok;
}

/* The cut line after the log's last line, in the room kept for it (the
 * log itself stays as it is: a later run writes it again); its length. */
static size_t cut_line(void)
{
	uint32_t need = (uint32_t)(res.len + res.lost + 1);
	char *at = res.log + res.len;
	size_t n;

	if (res.cap < slot_bytes(SLOT_LOG))
		n = pmh_fmt(at, CUT_ROOM,
			    "(log cut here: %u more bytes than the heap gave for it; the rest is "
			    "on the console and serial)",
			    (unsigned)res.lost);
	else
		n = pmh_fmt(at, CUT_ROOM,
			    "(log cut here: %u more bytes than the %u-byte slot holds; the rest "
			    "is on the console and serial; make usb USB_CPUS=%u has room)",
			    (unsigned)res.lost, (unsigned)slot_bytes(SLOT_LOG),
			    usb_cpus(need, SLOT_LOG_PER_CPU_KIB, machine_cpus()));
	if (n + 1 >= CUT_ROOM)
		n = CUT_ROOM - 2;
	at[n] = '\n';
	return n + 1;
}

bool bios_results_close(void *ctx, const char *json, size_t len)
{
	char msg[800], line[900];
	(void)ctx;

	if (!res.found)
		return false;
	res.found = false;
	msg[0] = 0;
	/* the slot holds what fitted; the console has the rest */
	size_t n = res.len + (res.lost ? cut_line() : 0);
	bool ok = write_one(SLOT_LOG, res.log, n, "PMHBIOS.LOG", msg, sizeof(msg));
	ok &= write_one(SLOT_JSON, json, len, "PMHBIOS.JSN", msg, sizeof(msg));
	results_saved_line(line, sizeof(line), ok, msg);
	con_line(line);
	return ok;
}
