#include "fmt.h"
#include "str.h"

#include <stdint.h>

struct out {
	char *buf;
	size_t n;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->n)
		o->buf[o->len] = c;
	o->len++;
}

static void put_num(struct out *o, uint64_t v, unsigned base, int upper, int neg, int width,
		    int zero, int left)
{
	char tmp[24];
	int i = 0, len;
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	do {
		tmp[i++] = digits[v % base];
		v /= base;
	} while (v);
	len = i + (neg ? 1 : 0);
	if (!left && zero) {
		if (neg)
			put(o, '-');
		for (; width > len; width--)
			put(o, '0');
	} else if (!left) {
		for (; width > len; width--)
			put(o, ' ');
		if (neg)
			put(o, '-');
	} else if (neg) {
		put(o, '-');
	}
	while (i)
		put(o, tmp[--i]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

/* One conversion's flags, width and length modifier. */
struct conv {
	int width, zero, left, lng;
};

/* Reads the flags, width and length modifier after a '%'; returns where the
 * conversion character stands. */
static const char *read_conv(const char *f, va_list *ap, struct conv *c)
{
	for (;; f++) {
		if (*f == '0')
			c->zero = 1;
		else if (*f == '-')
			c->left = 1;
		else
			break;
	}
	if (*f == '*') {
		c->width = va_arg(*ap, int);
		f++;
	} else {
		while (*f >= '0' && *f <= '9')
			c->width = c->width * 10 + (*f++ - '0');
	}
	while (*f == 'l' || *f == 'z') {
		c->lng = (*f == 'z') ? 2 : c->lng + 1;
		f++;
	}
	return f;
}

static void put_str(struct out *o, const char *s, int width, int left)
{
	int len;
	if (!s)
		s = "(null)";
	len = (int)pmh_strlen(s);
	if (!left)
		for (; width > len; width--)
			put(o, ' ');
	while (*s)
		put(o, *s++);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

/* Writes the conversion at *f; returns f, or f - 1 when the format ended
 * after the '%' (so that the caller stops at the NUL). */
static const char *put_conv(struct out *o, const char *f, const struct conv *c, va_list *ap)
{
	switch (*f) {
	case 's':
		put_str(o, va_arg(*ap, const char *), c->width, c->left);
		break;
	case 'c':
		put(o, (char)va_arg(*ap, int));
		break;
	case 'd':
	case 'i': {
		/* long, long long and ssize_t are all 64-bit on x86-64 */
		int64_t v = c->lng ? (int64_t)va_arg(*ap, long long) : va_arg(*ap, int);
		put_num(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 10, 0, v < 0, c->width,
			c->zero, c->left);
		break;
	}
	case 'u':
	case 'x':
	case 'X': {
		uint64_t v =
		    c->lng ? (uint64_t)va_arg(*ap, unsigned long long) : va_arg(*ap, unsigned);
		put_num(o, v, *f == 'u' ? 10 : 16, *f == 'X', 0, c->width, c->zero, c->left);
		break;
	}
	case 'p':
		put(o, '0');
		put(o, 'x');
		put_num(o, (uint64_t)(uintptr_t)va_arg(*ap, void *), 16, 0, 0, 0, 0, 0);
		break;
	case '%':
		put(o, '%');
		break;
	case 0:
		return f - 1;
	default:
		put(o, '%');
		put(o, *f);
		break;
	}
	return f;
}

size_t pmh_vfmt(char *buf, size_t n, const char *f, va_list ap)
{
	struct out o = {buf, n, 0};
	va_list args;

	va_copy(args, ap); /* a va_list parameter cannot be passed on by address */
	for (; *f; f++) {
		struct conv c = {0, 0, 0, 0};

		if (*f != '%') {
			put(&o, *f);
			continue;
		}
		f = read_conv(f + 1, &args, &c);
		f = put_conv(&o, f, &c, &args);
	}
	va_end(args);
	if (n)
		buf[o.len < n ? o.len : n - 1] = 0;
	return o.len;
}

size_t pmh_fmt(char *buf, size_t n, const char *f, ...)
{
	va_list ap;
	size_t r;

	va_start(ap, f);
	r = pmh_vfmt(buf, n, f, ap);
	va_end(ap);
	return r;
}

void pmh_sb_init(struct pmh_sb *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = cap;
	sb->len = 0;
	if (cap)
		buf[0] = 0;
}

void pmh_sb_add(struct pmh_sb *sb, const char *f, ...)
{
	va_list ap;
	size_t room = sb->len < sb->cap ? sb->cap - sb->len : 0;

	va_start(ap, f);
	sb->len += pmh_vfmt(sb->buf + (sb->len < sb->cap ? sb->len : sb->cap), room, f, ap);
	va_end(ap);
}

void pmh_sb_json_chars(struct pmh_sb *sb, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			pmh_sb_add(sb, "\\%c", c);
		else if (c == '\n')
			pmh_sb_add(sb, "\\n");
		else if (c < 0x20)
			pmh_sb_add(sb, "\\u%04x", c);
		else
			pmh_sb_add(sb, "%c", c);
	}
}

void pmh_sb_json_str(struct pmh_sb *sb, const char *s)
{
	pmh_sb_add(sb, "\"");
	pmh_sb_json_chars(sb, s);
	pmh_sb_add(sb, "\"");
}
