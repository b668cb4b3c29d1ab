/* The machine's identity for the results JSON: the firmware's vendor and
 * revision from the system table, the SMBIOS structure table from the
 * configuration table (UEFI 2.x "EFI Configuration Table", SMBIOS3 preferred
 * over SMBIOS), and the firmware clock (RT->GetTime). */
#include "platform.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../tests/smbios.h"

#define EP3_LEN 0x18 /* SMBIOS 3.0 entry point (DSP0134 5.2.2) */
#define EP2_LEN 0x1f /* SMBIOS 2.1 entry point (DSP0134 5.2.1) */
/* EFI_TIME.TimeZone when the clock keeps local time of no known zone
 * (UEFI 2.x, GetTime) */
#define TZ_UNSPECIFIED 0x07ff
#define TZ_MAX_MIN     (24 * 60) /* |TimeZone| is at most 1440 minutes */

static char fw_vendor[64];
static char fw_revision[16];

/* The firmware clock as ISO 8601: "Z" for UTC or a clock of no given zone
 * (QEMU's), else the offset (local = UTC - TimeZone minutes). */
static bool efi_clock(void *ctx, char *buf, size_t n)
{
	EFI_TIME t;
	(void)ctx;

	if (uefi_call_wrapper(RT->GetTime, 2, &t, NULL) != EFI_SUCCESS || t.Month < 1 ||
	    t.Month > 12 || t.Day < 1 || t.Day > 31)
		return false;
	pmh_fmt(buf, n, "%04u-%02u-%02uT%02u:%02u:%02u", t.Year, t.Month, t.Day, t.Hour, t.Minute,
		t.Second);
	size_t l = pmh_strlen(buf);
	int tz = t.TimeZone;
	if (tz == TZ_UNSPECIFIED || tz == 0 || tz > TZ_MAX_MIN || tz < -TZ_MAX_MIN) {
		pmh_fmt(buf + l, n - l, "Z");
	} else {
		int off = -tz; /* minutes ahead of UTC */
		unsigned a = (unsigned)(off < 0 ? -off : off);
		pmh_fmt(buf + l, n - l, "%c%02u:%02u", off < 0 ? '-' : '+', a / 60, a % 60);
	}
	return true;
}

/* The SMBIOS structure table, from the entry point the configuration
 * table points at; NULL when there is none or it does not parse. */
static const void *smbios_table(size_t *len)
{
	static EFI_GUID g3 = SMBIOS3_TABLE_GUID, g2 = SMBIOS_TABLE_GUID;
	EFI_GUID *want[2] = {&g3, &g2};
	const UINTN ep_len[2] = {EP3_LEN, EP2_LEN};
	uint64_t addr;

	for (unsigned k = 0; k < 2; k++)
		for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
			EFI_CONFIGURATION_TABLE *c = &ST->ConfigurationTable[i];
			if (CompareGuid(&c->VendorGuid, want[k]) == 0 &&
			    smbios_entry(c->VendorTable, ep_len[k], &addr, len))
				return (const void *)(uintptr_t)addr;
		}
	return NULL;
}

void efi_identity(struct platform *p)
{
	size_t o = 0;

	p->clock = RT ? efi_clock : NULL;
	for (const CHAR16 *v = ST->FirmwareVendor; v && *v && o + 1 < sizeof(fw_vendor); v++)
		fw_vendor[o++] = *v >= 0x20 && *v < 0x7f ? (char)*v : '?';
	fw_vendor[o] = 0;
	p->fw_vendor = o ? fw_vendor : NULL;
	pmh_fmt(fw_revision, sizeof(fw_revision), "0x%x", ST->FirmwareRevision);
	p->fw_revision = fw_revision;
	p->smbios = smbios_table(&p->smbios_len);
}
