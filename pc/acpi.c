/* The MADT's processors (acpi.h). Freestanding; every length read from a
 * table is checked against what was mapped before it is used. */
#include "acpi.h"
#include "../tests/smbios.h"

#define RSDP_V1_LEN	     20		/* the checksummed part of an ACPI 1.0 RSDP (§5.2.5.3) */
#define RSDP_RSDT	     16		/* RsdtAddress */
#define EBDA_SCAN	     1024	/* the EBDA's first KiB */
#define SDT_HEADER	     36		/* Signature .. CreatorRevision (§5.2.6) */
#define SDT_LEN		     4		/* Length */
#define SDT_MAX		     (1u << 20) /* more than any real RSDT or MADT */
#define MADT_ENTRIES	     44		/* header, Local Interrupt Controller Address, Flags */
#define MADT_LAPIC	     0		/* Processor Local APIC entry (§5.2.12.2) */
#define MADT_LAPIC_LEN	     8
#define LAPIC_ENABLED	     1u /* its flags: enabled */
#define LAPIC_ONLINE_CAPABLE 2u /* may be enabled later (ACPI 6.3) */
/* The Intel MP table (MultiProcessor Specification 1.4, chapter 4): the
 * floating pointer in the EBDA's first KiB, the last KiB of base memory
 * (its size in KiB at 40:13) or 0xF0000-0xFFFFF, then the configuration
 * table "PCMP" and its entries. */
#define MPS_BASE_KIB	  0x413u
#define MPS_BASE_TOP	  0xa0000u /* 640 KiB where 40:13 cannot be read */
#define MPS_ROM_LO	  0xf0000u
#define MPS_FLOAT_LEN	  16 /* one 16-byte paragraph */
#define MPS_FLOAT_TABLE	  4  /* the configuration table's address */
#define MPS_FLOAT_DEFAULT 11 /* feature byte 1: a default configuration, no table */
#define MPS_LEN		  4  /* base table length (16 bits) */
#define MPS_COUNT	  34 /* entry count (16 bits) */
#define MPS_ENTRIES	  44 /* the header's size */
#define MPS_PROCESSOR	  0
#define MPS_PROCESSOR_LEN 20
#define MPS_OTHER_LEN	  8 /* bus, I/O APIC, I/O and local interrupt entries */
#define MPS_LAST_TYPE	  4
#define MPS_CPU_ENABLED	  1u
/* SMBIOS entry points (DSP0134 5.2): 16-byte aligned in the BIOS ROM area. */
#define SMBIOS_LO 0xf0000u

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool sum_ok(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s == 0;
}

static bool sig_is(const uint8_t *p, const char *sig, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] != (uint8_t)sig[i])
			return false;
	return true;
}

/* The first structure in [lo, hi) on a 16-byte boundary that starts with
 * sig (n bytes) and whose first len bytes sum to 0; NULL when none. */
static const uint8_t *scan(acpi_map_fn map, void *ctx, uint32_t lo, uint32_t hi, const char *sig,
			   unsigned n, uint32_t len)
{
	const uint8_t *m = hi > lo ? map(ctx, lo, hi - lo) : NULL;

	for (uint32_t off = 0; m && off + len <= hi - lo; off += 16)
		if (sig_is(m + off, sig, n) && sum_ok(m + off, len))
			return m + off;
	return NULL;
}

/* The EBDA's first KiB (its segment at 40:0E), then [lo, hi). */
static const uint8_t *scan_bios(acpi_map_fn map, void *ctx, uint32_t lo, uint32_t hi,
				const char *sig, unsigned n, uint32_t len)
{
	const uint8_t *p = map(ctx, ACPI_EBDA_PTR, 2);
	uint32_t ebda = p ? (uint32_t)(p[0] | p[1] << 8) << 4 : 0;
	const uint8_t *f = ebda ? scan(map, ctx, ebda, ebda + EBDA_SCAN, sig, n, len) : NULL;

	return f ? f : scan(map, ctx, lo, hi, sig, n, len);
}

static uint32_t find_rsdt(acpi_map_fn map, void *ctx)
{
	const uint8_t *r =
	    scan_bios(map, ctx, ACPI_BIOS_LO, ACPI_BIOS_HI, "RSD PTR ", 8, RSDP_V1_LEN);
	return r ? le32(r + RSDP_RSDT) : 0;
}

/* The table at phys with signature sig, whole and checksummed; NULL with
 * why. */
static const uint8_t *table(acpi_map_fn map, void *ctx, uint32_t phys, const char *sig,
			    uint32_t *len, const char **why)
{
	const uint8_t *h = phys ? map(ctx, phys, SDT_HEADER) : NULL;

	if (!h || !sig_is(h, sig, 4)) {
		*why = "a table is not where the RSDT says";
		return NULL;
	}
	*len = le32(h + SDT_LEN);
	h = *len >= SDT_HEADER && *len <= SDT_MAX ? map(ctx, phys, *len) : NULL;
	if (!h)
		*why = "a table's length runs past memory";
	else if (!sum_ok(h, *len))
		*why = "a table's checksum is wrong";
	return h && sum_ok(h, *len) ? h : NULL;
}

/* The MADT's processor entries into out. */
static int madt_cpus(const uint8_t *t, uint32_t len, struct acpi_cpu *out, unsigned max,
		     const char **why)
{
	unsigned n = 0;

	for (uint32_t off = MADT_ENTRIES; off + 2 <= len;) {
		uint8_t type = t[off], elen = t[off + 1];
		if (elen < 2 || off + elen > len) {
			*why = "an MADT entry runs past the table";
			return -1;
		}
		if (type == MADT_LAPIC && elen >= MADT_LAPIC_LEN && n < max) {
			out[n].apic_id = t[off + 3];
			out[n].enabled = le32(t + off + 4) & (LAPIC_ENABLED | LAPIC_ONLINE_CAPABLE);
			n++;
		}
		off += elen;
	}
	return (int)n;
}

int acpi_madt_cpus(acpi_map_fn map, void *ctx, struct acpi_cpu *out, unsigned max, const char **why)
{
	uint32_t rsdt_len, len;
	const uint8_t *rsdt;

	*why = "no ACPI RSDP in the EBDA or 0xE0000-0xFFFFF";
	uint32_t a = find_rsdt(map, ctx);
	if (!a)
		return -1;
	rsdt = table(map, ctx, a, "RSDT", &rsdt_len, why);
	if (!rsdt)
		return -1;
	for (uint32_t off = SDT_HEADER; off + 4 <= rsdt_len; off += 4) {
		uint32_t p = le32(rsdt + off);
		const uint8_t *h = p ? map(ctx, p, SDT_HEADER) : NULL;
		if (!h || !sig_is(h, "APIC", 4))
			continue;
		const uint8_t *t = table(map, ctx, p, "APIC", &len, why);
		if (!t)
			return -1;
		if (len < MADT_ENTRIES) {
			*why = "the MADT is shorter than its header";
			return -1;
		}
		return madt_cpus(t, len, out, max, why);
	}
	*why = "the RSDT lists no MADT";
	return -1;
}

/* The MP table's processor entries into out. */
static int mps_entries(const uint8_t *t, uint32_t len, unsigned count, struct acpi_cpu *out,
		       unsigned max, const char **why)
{
	unsigned n = 0;
	uint32_t off = MPS_ENTRIES;

	for (unsigned i = 0; i < count; i++) {
		uint32_t elen =
		    off < len && t[off] == MPS_PROCESSOR ? MPS_PROCESSOR_LEN : MPS_OTHER_LEN;
		if (off + elen > len || t[off] > MPS_LAST_TYPE) {
			*why = "an MP table entry runs past the table";
			return -1;
		}
		if (t[off] == MPS_PROCESSOR && n < max) {
			out[n].apic_id = t[off + 1];
			out[n].enabled = t[off + 3] & MPS_CPU_ENABLED;
			n++;
		}
		off += elen;
	}
	return (int)n;
}

int mps_cpus(acpi_map_fn map, void *ctx, struct acpi_cpu *out, unsigned max, const char **why)
{
	const uint8_t *p = map(ctx, MPS_BASE_KIB, 2);
	uint32_t top = p ? (uint32_t)(p[0] | p[1] << 8) * 1024u : MPS_BASE_TOP;
	const uint8_t *f = scan_bios(map, ctx, top - 1024u, top, "_MP_", 4, MPS_FLOAT_LEN);

	if (!f)
		f = scan(map, ctx, MPS_ROM_LO, ACPI_BIOS_HI, "_MP_", 4, MPS_FLOAT_LEN);
	*why = "no Intel MP floating pointer";
	if (!f)
		return -1;
	*why = "the MP table is a default configuration (no table to read)";
	uint32_t a = le32(f + MPS_FLOAT_TABLE);
	if (!a || f[MPS_FLOAT_DEFAULT])
		return -1;
	const uint8_t *h = map(ctx, a, MPS_ENTRIES);
	uint32_t len = h ? (uint32_t)(h[MPS_LEN] | h[MPS_LEN + 1] << 8) : 0;
	*why = "the MP table is not where its floating pointer says";
	if (!h || !sig_is(h, "PCMP", 4))
		return -1;
	h = len >= MPS_ENTRIES ? map(ctx, a, len) : NULL;
	*why = !h ? "the MP table's length runs past memory" : "the MP table's checksum is wrong";
	if (!h || !sum_ok(h, len))
		return -1;
	return mps_entries(h, len, (unsigned)(h[MPS_COUNT] | h[MPS_COUNT + 1] << 8), out, max, why);
}

/* The table an entry point at m (avail bytes readable) names, mapped. */
static const void *smbios_table(acpi_map_fn map, void *ctx, const uint8_t *m, uint32_t avail,
				size_t *len)
{
	uint64_t addr;

	if (!smbios_entry(m, avail, &addr, len) || addr + *len > 0x100000000ull)
		return NULL; /* a 3.x table above 4 GiB: out of a 32-bit kernel's reach */
	return map(ctx, (uint32_t)addr, (uint32_t)*len);
}

const void *smbios_find(acpi_map_fn map, void *ctx, size_t *len)
{
	const uint32_t span = ACPI_BIOS_HI - SMBIOS_LO;
	const uint8_t *m = map(ctx, SMBIOS_LO, span);
	const void *t2 = NULL, *t;
	size_t len2 = 0;

	for (uint32_t off = 0; m && off < span; off += 16) {
		if (sig_is(m + off, "_SM3_", 5) &&
		    (t = smbios_table(map, ctx, m + off, span - off, len)))
			return t;
		if (!t2 && sig_is(m + off, "_SM_", 4))
			t2 = smbios_table(map, ctx, m + off, span - off, &len2);
	}
	*len = len2;
	return t2;
}
