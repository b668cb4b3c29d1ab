/* Freestanding formatted output into a buffer (a small, well-defined printf
 * subset): %s %c %d %i %u %x %X %p %% with flags '-' '0', a width (number or
 * '*'), and the length modifiers l, ll, z. No floating point on purpose. */
#ifndef PMH_LIB_FMT_H
#define PMH_LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Returns the length the full output would have; the buffer always ends in
 * NUL when n > 0. */
size_t pmh_vfmt(char *buf, size_t n, const char *f, va_list ap);
size_t pmh_fmt(char *buf, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));

/* An append-only line builder on a caller's buffer. */
struct pmh_sb {
	char *buf;
	size_t cap;
	size_t len;
};
void pmh_sb_init(struct pmh_sb *sb, char *buf, size_t cap);
void pmh_sb_add(struct pmh_sb *sb, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal with quotes and escapes. */
void pmh_sb_json_str(struct pmh_sb *sb, const char *s);
/* The same without the quotes: a part of a JSON string. */
void pmh_sb_json_chars(struct pmh_sb *sb, const char *s);

#endif
