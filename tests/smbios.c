/* SMBIOS system and baseboard identity (DMTF DSP0134 3.x). The firmware's
 * bytes are trusted for nothing: every structure must fit in the length
 * given, and a string set that runs off the end ends the walk. */
#include "smbios.h"
#include "../lib/str.h"

#define SM_HDR	       4   /* type, length, handle (DSP0134 6.1.2) */
#define SM_TYPE_BIOS   0   /* BIOS Information (DSP0134 7.1) */
#define SM_TYPE_SYSTEM 1   /* System Information (DSP0134 7.2) */
#define SM_TYPE_BOARD  2   /* Baseboard Information (DSP0134 7.3) */
#define SM_TYPE_END    127 /* End-of-Table (DSP0134 7.45) */
#define SM_OFF_MANUF   4   /* string numbers at the same offsets in both types */
#define SM_OFF_PRODUCT 5
#define SM_OFF_VERSION 6
#define SM_EP2_LEN     0x1f	/* 2.1 entry point (DSP0134 5.2.1) */
#define SM_EP2_TLEN    0x16	/* structure table length, WORD */
#define SM_EP2_TADDR   0x18	/* structure table address, DWORD */
#define SM_EP2_IEPS    0x10	/* "_DMI_", the intermediate anchor */
#define SM_EP3_LEN     0x18	/* 3.0 entry point (DSP0134 5.2.2) */
#define SM_EP3_TMAX    0x0c	/* structure table maximum size, DWORD */
#define SM_EP3_TADDR   0x10	/* structure table address, QWORD */
#define SM_EP_LEN_BYTE 5	/* entry point length in both (2.1: at 5; 3.0: at 6) */
#define SM_TABLE_MAX   0x100000 /* 1 MiB: more than any real table, a bound on a bad one */

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = v << 8 | p[n];
	return v;
}

static bool sum_zero(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s == 0;
}

bool smbios_entry(const void *ep, size_t avail, uint64_t *addr, size_t *len)
{
	const uint8_t *e = ep;
	size_t n;

	if (!e || avail < SM_EP3_LEN)
		return false;
	if (!pmh_strncmp((const char *)e, "_SM3_", 5)) {
		n = e[SM_EP_LEN_BYTE + 1];
		if (n < SM_EP3_LEN || n > avail || !sum_zero(e, n))
			return false;
		*addr = le(e + SM_EP3_TADDR, 8);
		*len = (size_t)le(e + SM_EP3_TMAX, 4);
	} else if (!pmh_strncmp((const char *)e, "_SM_", 4)) {
		n = e[SM_EP_LEN_BYTE];
		if (avail < SM_EP2_LEN || n < SM_EP2_LEN || n > avail || !sum_zero(e, n) ||
		    pmh_strncmp((const char *)e + SM_EP2_IEPS, "_DMI_", 5))
			return false;
		*addr = le(e + SM_EP2_TADDR, 4);
		*len = (size_t)le(e + SM_EP2_TLEN, 2);
	} else {
		return false;
	}
	if (*len > SM_TABLE_MAX)
		*len = SM_TABLE_MAX;
	return *addr && *len;
}

/* String number k (1-based) of the set s..end into out, printable ASCII
 * kept and anything else as '?'; "" for 0 or a number past the set. */
static void sm_string(const uint8_t *s, const uint8_t *end, unsigned k, char *out)
{
	size_t o = 0;

	out[0] = 0;
	if (!k)
		return;
	while (s < end && --k) { /* skip k - 1 strings */
		while (s < end && *s)
			s++;
		s++;
	}
	for (; s < end && *s; s++)
		if (o + 1 < SMBIOS_STR)
			out[o++] = *s >= 0x20 && *s < 0x7f ? (char)*s : '?';
	out[o] = 0;
}

/* The end of the string set that starts at s (past its double NUL; a set
 * without strings is the double NUL alone), or NULL when it runs past end. */
static const uint8_t *sm_strings_end(const uint8_t *s, const uint8_t *end)
{
	for (; end - s >= 2; s++)
		if (!s[0] && !s[1])
			return s + 2;
	return 0;
}

static void sm_id(const uint8_t *h, const uint8_t *strs, const uint8_t *end, struct smbios_id *id)
{
	if (id->found || h[1] <= SM_OFF_VERSION)
		return; /* the first of its type, long enough to name all three */
	id->found = true;
	sm_string(strs, end, h[SM_OFF_MANUF], id->manufacturer);
	sm_string(strs, end, h[SM_OFF_PRODUCT], id->product);
	sm_string(strs, end, h[SM_OFF_VERSION], id->version);
}

/* Type 0: the vendor at offset 4, the version at 5, the release date at 8
 * (DSP0134 7.1), each where the structure is long enough to hold it. */
static void sm_bios(const uint8_t *h, const uint8_t *strs, const uint8_t *end, struct smbios_id *id)
{
	if (id->found || h[1] <= 4)
		return;
	id->found = true;
	sm_string(strs, end, h[4], id->manufacturer);
	sm_string(strs, end, h[1] > 5 ? h[5] : 0, id->product);
	sm_string(strs, end, h[1] > 8 ? h[8] : 0, id->version);
}

bool smbios_parse(const void *table, size_t len, struct smbios_info *out)
{
	const uint8_t *p = table, *end;

	pmh_memset(out, 0, sizeof(*out));
	if (!p)
		return false;
	end = p + len;
	while (end - p >= SM_HDR && p[1] >= SM_HDR && p[1] <= end - p) {
		const uint8_t *strs = p + p[1];
		const uint8_t *next = sm_strings_end(strs, end);
		if (!next)
			break;
		if (p[0] == SM_TYPE_BIOS)
			sm_bios(p, strs, next, &out->firmware);
		else if (p[0] == SM_TYPE_SYSTEM)
			sm_id(p, strs, next, &out->system);
		else if (p[0] == SM_TYPE_BOARD)
			sm_id(p, strs, next, &out->board);
		else if (p[0] == SM_TYPE_END)
			break;
		p = next;
	}
	return out->system.found || out->board.found;
}
