#include "str.h"

size_t pmh_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int pmh_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int pmh_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

int pmh_strcasecmp(const char *a, const char *b)
{
	while (*a && lower(*a) == lower(*b)) {
		a++;
		b++;
	}
	return lower((unsigned char)*a) - lower((unsigned char)*b);
}

int pmh_strncasecmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (lower(*a) != lower(*b) || !*a)
			return lower((unsigned char)*a) - lower((unsigned char)*b);
	}
	return 0;
}

size_t pmh_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = pmh_strlen(src);
	if (n) {
		size_t c = len < n - 1 ? len : n - 1;
		pmh_memcpy(dst, src, c);
		dst[c] = 0;
	}
	return len;
}

void *pmh_memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *pmh_memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

const char *pmh_slice(char *dst, size_t n, const char *s, size_t l)
{
	if (l >= n)
		l = n - 1;
	pmh_memcpy(dst, s, l);
	dst[l] = 0;
	return dst;
}

const char *pmh_strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return s;
		if (!*s)
			return 0;
	}
}

bool pmh_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool pmh_parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		s += 2;
	}
	bool digits = false; /* "_" and "0x_" are no numbers */
	for (; *s; s++) {
		unsigned d;
		int c = lower(*s);
		if (c == '_')
			continue;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return false;
		if (d >= base)
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false; /* overflow */
		v = v * base + d;
		digits = true;
	}
	if (!digits)
		return false;
	*out = v;
	return true;
}

/* Printable ASCII is shown as is; the rest as \xNN, 4 bytes each. */
#define ESC_PRINT_MIN 0x20
#define ESC_PRINT_MAX 0x7e
#define ESC_HEX_LEN   4

const char *pmh_escape(char *dst, size_t n, const char *s, size_t l)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < l; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= ESC_PRINT_MIN && c <= ESC_PRINT_MAX) {
			if (o + 1 >= n)
				break;
			dst[o++] = (char)c;
			continue;
		}
		if (o + ESC_HEX_LEN >= n)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[c >> 4];
		dst[o++] = hex[c & 0xf];
	}
	dst[o] = 0;
	return dst;
}

#define TEXT_ASCII_MAX 0x7f /* a UTF-16 text is read when every unit is ASCII */

/* U+FEFF, the byte-order mark, as UTF-8, UTF-16LE and UTF-16BE */
static const unsigned char bom_utf8[] = {0xef, 0xbb, 0xbf};
static const unsigned char bom_le[] = {0xff, 0xfe}, bom_be[] = {0xfe, 0xff};

static bool starts(const unsigned char *p, size_t len, const unsigned char *pre, size_t l)
{
	return len >= l && !pmh_strncmp((const char *)p, (const char *)pre, l);
}

unsigned pmh_text_at(const struct pmh_text *t, size_t i)
{
	const unsigned char *c = t->p + i * t->unit;
	if (t->unit == 1)
		return c[0];
	return t->be ? (unsigned)c[0] << 8 | c[1] : (unsigned)c[1] << 8 | c[0];
}

/* UTF-16 without a BOM is told by the NULs of its first two characters
 * (what PowerShell 5 writes). */
bool pmh_text_open(struct pmh_text *t, const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	bool le = starts(p, len, bom_le, sizeof(bom_le)),
	     be = starts(p, len, bom_be, sizeof(bom_be));

	*t = (struct pmh_text){.p = p, .n = len, .unit = 1};
	if (starts(p, len, bom_utf8, sizeof(bom_utf8))) {
		t->p += sizeof(bom_utf8);
		t->n -= sizeof(bom_utf8);
		return true;
	}
	if (le || be) {
		t->p += sizeof(bom_le);
		len -= sizeof(bom_le);
	} else if (len >= 4 && (p[0] && !p[1] && p[2] && !p[3])) {
		le = true;
	} else if (len >= 4 && (!p[0] && p[1] && !p[2] && p[3])) {
		be = true;
	} else {
		return true;
	}
	*t = (struct pmh_text){.p = t->p, .n = len / 2, .unit = 2, .be = be};
	for (size_t i = 0; i < t->n; i++)
		if (pmh_text_at(t, i) > TEXT_ASCII_MAX)
			return false;
	return !(len % 2);
}

bool pmh_glob(const char *p, const char *s)
{
	const char *star = 0, *ss = 0;

	while (*s) {
		if (*p == '*') { /* a wildcard before a literal: '*' in s is text */
			star = p++;
			ss = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++ss;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

bool pmh_glob_list(const char *list, const char *s, bool upper)
{
	char pat[64];

	while (*list) {
		size_t n = 0;
		while (*list && *list != ',') {
			char ch = *list++;
			if (upper && ch >= 'a' && ch <= 'z')
				ch = (char)(ch - 32);
			if (!pmh_isspace(ch) && n + 1 < sizeof(pat))
				pat[n++] = ch;
		}
		pat[n] = 0;
		if (n && pmh_glob(pat, s))
			return true;
		if (*list)
			list++;
	}
	return false;
}
