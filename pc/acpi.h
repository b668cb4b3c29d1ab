/* The processors of a PC from ACPI's MADT (ACPI 6.5 §5.2.5
 * RSDP, §5.2.7 RSDT, §5.2.12 MADT), or from the Intel MP table on boards
 * without ACPI: the pointer found where the BIOS puts it, every table
 * length-bounded and checksum-verified. Physical memory is
 * read through map, so that the host's tests hand it typed tables. */
#ifndef PMH_PC_ACPI_H
#define PMH_PC_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* [phys, phys + len) as a pointer, or NULL where that is not memory. */
typedef const uint8_t *(*acpi_map_fn)(void *ctx, uint32_t phys, uint32_t len);

struct acpi_cpu {
	uint8_t apic_id;
	bool enabled; /* the MADT's flags: enabled (or online capable) */
};

/* Where the RSDP is looked for: the EBDA's first KiB (its segment at
 * 40:0E) and the BIOS area 0xE0000-0xFFFFF, on 16-byte boundaries. */
#define ACPI_EBDA_PTR 0x40eu
#define ACPI_BIOS_LO  0xe0000u
#define ACPI_BIOS_HI  0x100000u

/* The processor local APIC entries of the MADT into out (at most max, in
 * the table's order); returns their count, or -1 with why set (no RSDP,
 * a bad checksum, a truncated table, no MADT). */
int acpi_madt_cpus(acpi_map_fn map, void *ctx, struct acpi_cpu *out, unsigned max,
		   const char **why);

/* The same from the Intel MP table (MultiProcessor Specification 1.4), for
 * boards without ACPI: the processor entries, enabled per their flags. */
int mps_cpus(acpi_map_fn map, void *ctx, struct acpi_cpu *out, unsigned max, const char **why);

/* The SMBIOS structure table (the platform seam's smbios, smbios_len):
 * the entry point on a 16-byte boundary in 0xF0000-0xFFFFF (DSP0134 5.2.1
 * "_SM_", 5.2.2 "_SM3_", the 3.x one preferred), checksummed, and the
 * table it names mapped whole below 4 GiB; NULL when there is none. */
const void *smbios_find(acpi_map_fn map, void *ctx, size_t *len);

#endif
