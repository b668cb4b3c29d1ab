/* Event specification parsing: comma-separated items, each a bare word (a
 * flag, a raw config or the event name) or a numeric key=value. What the
 * items mean for a CPU is decided in events_resolve.c. */
#include "events_spec.h"
#include "events.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/pmu.h"

/* Linux's raw config layout (events.h), the event select's bit positions (SDM
 * Vol. 3B 20.2.1.1; AMD APM Vol. 2 §13.2): event[7:0] in 7:0, the unit mask in
 * 15:8, edge 18, inv 23, cmask 31:24 (the PMU_F_* flags sit on the same bits)
 * and AMD's event[11:8] in 35:32. */
#define CFG_EVENT_LO	   0xffull
#define CFG_UMASK_SHIFT	   8
#define CFG_FIELD_MAX	   0xffu /* unit mask and cmask are 8 bits (SDM Vol. 3B 20.2.1.1) */
#define CFG_FLAGS	   ((uint64_t)(PMU_F_EDGE | PMU_F_INV | PMU_F_CMASK(CFG_FIELD_MAX)))
#define CFG_EVENT_HI	   0xf00000000ull
#define CFG_EVENT_HI_SHIFT 24 /* bits 35:32 down to event bits 11:8 */
#define CFG_KNOWN                                                                                  \
	(CFG_EVENT_LO | ((uint64_t)CFG_FIELD_MAX << CFG_UMASK_SHIFT) | CFG_FLAGS | CFG_EVENT_HI)
#define CFG_MAX_DIGITS 10 /* hex digits of a 36-bit config */

#define ECHO_MAX     40 /* an item quoted in a message, escaped, is cut to this (with NUL) */
#define NUM_TEXT_MAX 24 /* a value longer than this (with NUL) is no number */

static bool tok_eq(const char *k, size_t kl, const char *lit)
{
	return pmh_strlen(lit) == kl && !pmh_strncasecmp(k, lit, kl);
}

static bool parse_num(const char *v, size_t vl, uint64_t *out)
{
	char buf[NUM_TEXT_MAX];
	if (!vl || vl >= sizeof(buf))
		return false;
	return pmh_parse_u64(pmh_slice(buf, sizeof(buf), v, vl), out);
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool has_0x(const char *s, size_t l)
{
	return l > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* "0x..." or "r..." with hex digits only: a Linux-layout raw config. */
static bool parse_config(const char *s, size_t l, uint64_t *cfg)
{
	size_t i;
	if (l > 1 && (s[0] == 'r' || s[0] == 'R'))
		i = 1;
	else if (l > 2 && has_0x(s, l))
		i = 2;
	else
		return false;
	if (l - i > CFG_MAX_DIGITS)
		return false;
	uint64_t v = 0;
	for (size_t k = i; k < l; k++) {
		char c = s[k];
		if (!is_hex(c))
			return false;
		v = (v << 4) | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	*cfg = v;
	return true;
}

/* A raw config's fields into the spec. */
static int take_config(struct ev_spec *p, uint64_t cfg, char *msg, size_t n)
{
	if (cfg & ~CFG_KNOWN) {
		pmh_fmt(msg, n,
			"raw config 0x%llx sets bits other than event, umask, edge, inv, cmask",
			(unsigned long long)cfg);
		return -1;
	}
	p->event.given = p->umask.given = true;
	p->event.val = (cfg & CFG_EVENT_LO) | ((cfg & CFG_EVENT_HI) >> CFG_EVENT_HI_SHIFT);
	p->umask.val = (cfg >> CFG_UMASK_SHIFT) & CFG_FIELD_MAX;
	p->flags |= (uint32_t)(cfg & CFG_FLAGS);
	return 0;
}

/* An item without '=': a flag anywhere; first, a raw config or the name. */
static int parse_word(struct ev_spec *p, unsigned idx, const char *s, size_t l, char *msg, size_t n)
{
	char echo[ECHO_MAX];
	uint64_t cfg;

	if (tok_eq(s, l, "inv")) {
		p->flags |= PMU_F_INV;
	} else if (tok_eq(s, l, "edge")) {
		p->flags |= PMU_F_EDGE;
	} else if (idx != 0) {
		pmh_fmt(msg, n, "unknown item \"%s\" in event specification",
			pmh_escape(echo, sizeof(echo), s, l));
		return -1;
	} else if (parse_config(s, l, &cfg)) {
		return take_config(p, cfg, msg, n);
	} else if (has_0x(s, l)) {
		pmh_fmt(msg, n, "\"%s\" is not a raw config (hex, at most 36 bits)",
			pmh_escape(echo, sizeof(echo), s, l));
		return -1;
	} else if (l >= sizeof(p->name)) {
		pmh_fmt(msg, n, "event name longer than %u characters",
			(unsigned)sizeof(p->name) - 1);
		return -1;
	} else {
		pmh_slice(p->name, sizeof(p->name), s, l);
	}
	return 0;
}

/* The field a numeric key sets; 0 for cmask and unknown keys. */
static struct ev_num *num_field(struct ev_spec *p, const char *k, size_t kl)
{
	/* names as arrays: pointers would cost the image relocations */
	static const char keys[][9] = {"event", "umask", "counter", "escr", "mask", "escr_sel"};
	struct ev_num *const fields[] = {&p->event, &p->umask, &p->counter,
					 &p->escr,  &p->mask,  &p->sel};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (tok_eq(k, kl, keys[i]))
			return fields[i];
	return 0;
}

/* key=value: the value must be a number, then the key decides. */
static int parse_pair(struct ev_spec *p, const char *k, size_t kl, const char *v, size_t vl,
		      char *msg, size_t n)
{
	char b1[ECHO_MAX], b2[ECHO_MAX];
	struct ev_num *f;
	uint64_t val;

	while (kl && pmh_isspace(k[kl - 1]))
		kl--;
	while (vl && pmh_isspace(*v)) {
		v++;
		vl--;
	}
	if (!parse_num(v, vl, &val)) {
		pmh_fmt(msg, n, "\"%s\": \"%s\" is not a number", pmh_escape(b1, sizeof(b1), k, kl),
			pmh_escape(b2, sizeof(b2), v, vl));
		return -1;
	}
	if (tok_eq(k, kl, "cmask")) {
		if (val > CFG_FIELD_MAX) {
			pmh_fmt(msg, n, "cmask %llu does not fit 8 bits", (unsigned long long)val);
			return -1;
		}
		p->flags = (p->flags & ~PMU_F_CMASK(CFG_FIELD_MAX)) | PMU_F_CMASK(val);
		return 0;
	}
	f = num_field(p, k, kl);
	if (!f) {
		pmh_fmt(msg, n,
			"unknown key \"%s\" (event, umask, cmask, inv, edge, counter, escr, mask, "
			"escr_sel)",
			pmh_escape(b1, sizeof(b1), k, kl));
		return -1;
	}
	if (f == &p->counter && val >= EVENTS_FLAT_COUNTERS) {
		pmh_fmt(msg, n, "counter %llu out of range (0 to %u)", (unsigned long long)val,
			EVENTS_FLAT_COUNTERS - 1);
		return -1;
	}
	f->given = true;
	f->val = val;
	return 0;
}

static int parse_item(struct ev_spec *p, unsigned idx, const char *s, size_t l, char *msg, size_t n)
{
	const char *eq = s;

	while (eq < s + l && *eq != '=')
		eq++;
	if (!l) {
		pmh_fmt(msg, n, "empty item in event specification");
		return -1;
	}
	if (eq == s + l)
		return parse_word(p, idx, s, l, msg, n);
	return parse_pair(p, s, (size_t)(eq - s), eq + 1, (size_t)(s + l - (eq + 1)), msg, n);
}

/* What the items must agree on as a whole. */
static int check_items(const struct ev_spec *p, char *msg, size_t n)
{
	if (p->name[0] && (p->event.given || p->umask.given || p->escr.given || p->mask.given)) {
		pmh_fmt(msg, n, "give either a name or event=/umask= (or escr=/mask=), not both");
		return -1;
	}
	if (!p->name[0] && !p->event.given) {
		pmh_fmt(msg, n, "raw event specification without event=");
		return -1;
	}
	if (p->umask.given && p->umask.val > CFG_FIELD_MAX) {
		pmh_fmt(msg, n, "umask 0x%llx does not fit 8 bits",
			(unsigned long long)p->umask.val);
		return -1;
	}
	return 0;
}

int ev_spec_parse(const char *s, struct ev_spec *p, char *msg, size_t n)
{
	pmh_memset(p, 0, sizeof(*p));
	while (pmh_isspace(*s))
		s++;
	if (!*s) {
		pmh_fmt(msg, n, "empty event specification");
		return -1;
	}
	for (unsigned idx = 0;; idx++) {
		const char *end = s, *e;
		while (*end && *end != ',')
			end++;
		e = end;
		while (e > s && pmh_isspace(e[-1]))
			e--;
		if (parse_item(p, idx, s, (size_t)(e - s), msg, n))
			return -1;
		if (!*end)
			break;
		s = end + 1;
		while (pmh_isspace(*s))
			s++;
	}
	return check_items(p, msg, n);
}
