/* SMBIOS identity of the machine (DMTF DSP0134): the system (type 1) and
 * baseboard (type 2) manufacturer, product and version, read from bytes the
 * firmware hands over. Every length and string index is checked against the
 * bytes given: a truncated or hostile table yields what could be read, never
 * a read outside it. */
#ifndef PMH_TESTS_SMBIOS_H
#define PMH_TESTS_SMBIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMBIOS_STR 64 /* a string kept (printable ASCII, longer ones cut) */

struct smbios_id {
	bool found; /* the structure is in the table */
	char manufacturer[SMBIOS_STR], product[SMBIOS_STR], version[SMBIOS_STR];
};

struct smbios_info {
	struct smbios_id system, board;
	/* BIOS Information (type 0): vendor, BIOS version and release date in
	 * manufacturer, product and version */
	struct smbios_id firmware;
};

/* The structure table's address and length from an entry point ("_SM_"
 * 2.1 or "_SM3_" 3.0) of avail readable bytes; false when it is neither or
 * is cut short, its checksum is wrong or the table is empty. */
bool smbios_entry(const void *ep, size_t avail, uint64_t *addr, size_t *len);

/* The system and board identity from the structure table (len bytes) into
 * *out; false when neither structure was found. */
bool smbios_parse(const void *table, size_t len, struct smbios_info *out);

#endif
