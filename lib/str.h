/* Freestanding string and number helpers shared by target and host builds. */
#ifndef PMH_LIB_STR_H
#define PMH_LIB_STR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

size_t pmh_strlen(const char *s);
int pmh_strcmp(const char *a, const char *b);
int pmh_strncmp(const char *a, const char *b, size_t n);
int pmh_strcasecmp(const char *a, const char *b);
int pmh_strncasecmp(const char *a, const char *b, size_t n);
/* Copies at most n-1 bytes and always terminates (n > 0); returns strlen(src). */
size_t pmh_strlcpy(char *dst, const char *src, size_t n);
void *pmh_memset(void *d, int c, size_t n);
void *pmh_memcpy(void *d, const void *s, size_t n);
/* Copies s[0..l) into dst, cut to n-1 bytes, and terminates (n > 0); returns
 * dst, for a piece of a longer string in a message. */
const char *pmh_slice(char *dst, size_t n, const char *s, size_t l);
/* Copies s[0..l) into dst for a message that quotes user input: printable
 * ASCII (0x20-0x7e) as is, every other byte as \xNN; cut (never mid-escape)
 * to fit n bytes with NUL (n > 0); returns dst. The one way user text
 * reaches the screen, serial port or log. */
const char *pmh_escape(char *dst, size_t n, const char *s, size_t l);
const char *pmh_strchr(const char *s, int c);
bool pmh_isspace(int c);
/* Parses an unsigned number: decimal, 0x hex or 0b binary, '_' skipped as a
 * digit separator, no suffixes. The whole string must be a number with at
 * least one digit that fits 64 bits. */
bool pmh_parse_u64(const char *s, uint64_t *out);
/* A text file as characters: bytes (ASCII or UTF-8, a UTF-8 BOM skipped),
 * or UTF-16 code units, little- or big-endian (BOM skipped). */
struct pmh_text {
	const unsigned char *p;
	size_t n;      /* characters */
	unsigned unit; /* bytes per character: 1 or 2 */
	bool be;
};
/* Sets up t over text; false for UTF-16 that is not plain ASCII (or has an
 * odd length), which a caller refuses as a whole. */
bool pmh_text_open(struct pmh_text *t, const char *text, size_t len);
/* Character i (< t->n). */
unsigned pmh_text_at(const struct pmh_text *t, size_t i);
/* Glob match with '*' and '?' (used for check-id filters). */
bool pmh_glob(const char *pat, const char *s);
/* Whether s matches any glob of a comma-separated list (white space
 * dropped, a glob cut at 63 characters); upper: the globs upper-cased
 * first (for upper-case names typed in any case). */
bool pmh_glob_list(const char *list, const char *s, bool upper);

#endif
