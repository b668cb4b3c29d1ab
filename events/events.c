/* Event catalogue: table selection, lookup, spec parsing and validation. */
#include "events.h"
#include "../pmu/intel_arch.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

static const struct event_table *const all_tables[] = {
    &events_amd_k7,	&events_amd_k8,	       &events_amd_zen,	       &events_intel_p6,
    &events_intel_arch, &events_intel_skylake, &events_intel_netburst, &events_intel_knc,
};

size_t events_all_tables(const struct event_table *const **out)
{
	*out = all_tables;
	return sizeof(all_tables) / sizeof(all_tables[0]);
}

static bool is_amd(enum pmu_driver_id d)
{
	return d == PMU_DRV_AMD_LEGACY || d == PMU_DRV_AMD_CORE;
}

/* AMD legacy and core-extension drivers share the tables; the family decides. */
static bool driver_matches(enum pmu_driver_id want, enum pmu_driver_id have)
{
	return want == have || (is_amd(want) && is_amd(have));
}

static bool table_applies(const struct event_table *t, enum pmu_driver_id d, unsigned family,
			  unsigned model)
{
	if (!driver_matches(t->driver, d) || family < t->family_min || family > t->family_max)
		return false;
	if (!t->n_models || model == EVENTS_ANY_MODEL)
		return true;
	for (size_t i = 0; i < t->n_models; i++)
		if (t->models[i] == model)
			return true;
	return false;
}

size_t events_tables_for(enum pmu_driver_id d, unsigned family, unsigned model,
			 const struct event_table **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(all_tables) / sizeof(all_tables[0]); i++)
		if (table_applies(all_tables[i], d, family, model) && n < max)
			out[n++] = all_tables[i];
	return n;
}

#define MAX_TABLES 8

const struct event_def *events_find(enum pmu_driver_id d, unsigned family, unsigned model,
				    const char *name, const struct event_table **table)
{
	const struct event_table *t[MAX_TABLES];
	size_t n = events_tables_for(d, family, model, t, MAX_TABLES);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i]->n; k++)
			if (!pmh_strcasecmp(t[i]->ev[k].name, name)) {
				if (table)
					*table = t[i];
				return &t[i]->ev[k];
			}
	return 0;
}

const struct event_def *events_find_raw(const struct event_table *t, uint16_t code, uint8_t umask,
					uint32_t escr_msr, uint32_t escr_mask)
{
	/* Programmable entries first: a fixed pseudo event may share an encoding. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < t->n; k++) {
			const struct event_def *e = &t->ev[k];
			if (!!(e->flags & EVF_FIXED) != (pass == 1) || e->code != code)
				continue;
			if (t->netburst ? (e->escr_msr == escr_msr && e->escr_mask == escr_mask)
					: e->umask == umask)
				return e;
		}
	return 0;
}

static void fill_event(struct pmu_event *ev, const struct event_def *e)
{
	pmh_memset(ev, 0, sizeof(*ev));
	ev->code = e->code;
	ev->umask = e->umask;
	ev->escr_mask = e->escr_mask;
	ev->escr_select = e->escr_select;
	ev->escr_msr = e->escr_msr;
	ev->counters = e->counters;
	ev->fixed_only = (e->flags & EVF_FIXED) != 0;
	pmh_strlcpy(ev->name, e->name, sizeof(ev->name));
}

int events_fixed_index(const struct pmu_event *ev)
{
	return ev->fixed_only ? intel_arch_fixed_index((uint16_t)(ev->umask << 8 | ev->code)) : -1;
}

/* ---- spec parsing ------------------------------------------------------- */

struct spec {
	char name[64];
	bool has_event, has_umask, has_escr, has_mask, has_sel, has_counter;
	uint64_t event, umask, escr, mask, sel, counter;
	uint32_t flags;
};

static bool tok_eq(const char *k, size_t kl, const char *lit)
{
	return pmh_strlen(lit) == kl && !pmh_strncasecmp(k, lit, kl);
}

static bool parse_num(const char *v, size_t vl, uint64_t *out)
{
	char buf[24];
	if (!vl || vl >= sizeof(buf))
		return false;
	pmh_memcpy(buf, v, vl);
	buf[vl] = 0;
	return pmh_parse_u64(buf, out);
}

/* A copy of s[0..l) for messages (the formatter has no precision). */
static const char *slice(char *dst, size_t n, const char *s, size_t l)
{
	if (l >= n)
		l = n - 1;
	pmh_memcpy(dst, s, l);
	dst[l] = 0;
	return dst;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "0x..." or "r..." with hex digits only: a Linux-layout raw config. */
static bool parse_config(const char *s, size_t l, uint64_t *cfg)
{
	size_t i;
	if (l > 1 && (s[0] == 'r' || s[0] == 'R'))
		i = 1;
	else if (l > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	else
		return false;
	if (l - i > 10)
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

static int parse_spec(const char *s, struct spec *p, char *msg, size_t n)
{
	char b1[40], b2[40];

	pmh_memset(p, 0, sizeof(*p));
	while (pmh_isspace(*s))
		s++;
	if (!*s) {
		pmh_fmt(msg, n, "empty event specification");
		return -1;
	}
	for (unsigned idx = 0;; idx++) {
		const char *end = s;
		while (*end && *end != ',')
			end++;
		const char *e = end;
		while (e > s && pmh_isspace(e[-1]))
			e--;
		size_t l = (size_t)(e - s);
		const char *eq = s;
		while (eq < e && *eq != '=')
			eq++;
		if (!l) {
			pmh_fmt(msg, n, "empty item in event specification");
			return -1;
		}
		if (eq == e) { /* a bare word */
			uint64_t cfg;
			if (tok_eq(s, l, "inv"))
				p->flags |= PMU_F_INV;
			else if (tok_eq(s, l, "edge"))
				p->flags |= PMU_F_EDGE;
			else if (idx == 0 && parse_config(s, l, &cfg)) {
				/* event 7:0, umask 15:8, edge 18, inv 23, cmask 31:24, event 11:8
				 * in 35:32 */
				uint64_t known = 0xffull | 0xff00ull | (1ull << 18) | (1ull << 23) |
						 0xff000000ull | 0xf00000000ull;
				if (cfg & ~known) {
					pmh_fmt(
					    msg, n,
					    "raw config 0x%llx sets bits other than event, umask, "
					    "edge, inv, cmask",
					    (unsigned long long)cfg);
					return -1;
				}
				p->has_event = p->has_umask = true;
				p->event = (cfg & 0xff) | ((cfg >> 24) & 0xf00);
				p->umask = (cfg >> 8) & 0xff;
				p->flags |=
				    (uint32_t)(cfg & ((1u << 18) | (1u << 23) | 0xff000000u));
			} else if (idx == 0 && l > 1 && s[0] == '0' &&
				   (s[1] == 'x' || s[1] == 'X')) {
				pmh_fmt(msg, n, "\"%s\" is not a raw config (hex, at most 36 bits)",
					slice(b1, sizeof(b1), s, l));
				return -1;
			} else if (idx == 0) {
				if (l >= sizeof(p->name)) {
					pmh_fmt(msg, n, "event name longer than %u characters",
						(unsigned)sizeof(p->name) - 1);
					return -1;
				}
				pmh_memcpy(p->name, s, l);
				p->name[l] = 0;
			} else {
				pmh_fmt(msg, n, "unknown item \"%s\" in event specification",
					slice(b1, sizeof(b1), s, l));
				return -1;
			}
		} else {
			const char *k = s, *v = eq + 1;
			size_t kl = (size_t)(eq - s), vl = (size_t)(e - v);
			uint64_t val;
			while (kl && pmh_isspace(k[kl - 1]))
				kl--;
			while (vl && pmh_isspace(*v)) {
				v++;
				vl--;
			}
			if (!parse_num(v, vl, &val)) {
				pmh_fmt(msg, n, "\"%s\": \"%s\" is not a number",
					slice(b1, sizeof(b1), k, kl), slice(b2, sizeof(b2), v, vl));
				return -1;
			}
			if (tok_eq(k, kl, "event")) {
				p->has_event = true;
				p->event = val;
			} else if (tok_eq(k, kl, "umask")) {
				p->has_umask = true;
				p->umask = val;
			} else if (tok_eq(k, kl, "cmask")) {
				if (val > 0xff) {
					pmh_fmt(msg, n, "cmask %llu does not fit 8 bits",
						(unsigned long long)val);
					return -1;
				}
				p->flags = (p->flags & ~PMU_F_CMASK(0xff)) | PMU_F_CMASK(val);
			} else if (tok_eq(k, kl, "counter")) {
				p->has_counter = true;
				p->counter = val;
			} else if (tok_eq(k, kl, "escr")) {
				p->has_escr = true;
				p->escr = val;
			} else if (tok_eq(k, kl, "mask")) {
				p->has_mask = true;
				p->mask = val;
			} else if (tok_eq(k, kl, "escr_sel")) {
				p->has_sel = true;
				p->sel = val;
			} else {
				pmh_fmt(msg, n,
					"unknown key \"%s\" (event, umask, cmask, inv, "
					"edge, counter, escr, mask, escr_sel)",
					slice(b1, sizeof(b1), k, kl));
				return -1;
			}
		}
		if (!*end)
			break;
		s = end + 1;
		while (pmh_isspace(*s))
			s++;
	}
	if (p->name[0] && (p->has_event || p->has_umask || p->has_escr || p->has_mask)) {
		pmh_fmt(msg, n, "give either a name or event=/umask= (or escr=/mask=), not both");
		return -1;
	}
	if (!p->name[0] && !p->has_event) {
		pmh_fmt(msg, n, "raw event specification without event=");
		return -1;
	}
	if (p->has_umask && p->umask > 0xff) {
		pmh_fmt(msg, n, "umask 0x%llx does not fit 8 bits", (unsigned long long)p->umask);
		return -1;
	}
	return 0;
}

/* ---- validation --------------------------------------------------------- */

static enum ev_verdict set(struct ev_result *r, enum ev_verdict v, const char *msg)
{
	if (v > r->verdict || (v == r->verdict && v != EV_OK && !r->msg[0])) {
		r->verdict = v;
		pmh_strlcpy(r->msg, msg, sizeof(r->msg));
	}
	return r->verdict;
}

static const char *family_label(enum pmu_driver_id d, unsigned family, char *buf, size_t n)
{
	pmh_fmt(buf, n, "%s family 0x%x", pmu_driver_name(d), family);
	return buf;
}

static void counters_text(uint32_t mask, char *buf, size_t n)
{
	struct pmh_sb sb;
	pmh_sb_init(&sb, buf, n);
	for (unsigned i = 0; i < 32; i++)
		if (mask & (1u << i))
			pmh_sb_add(&sb, "%s%u", sb.len ? "," : "", i);
}

enum ev_verdict events_check_counter(const struct pmu_event *ev, unsigned ctr, char *msg, size_t n)
{
	char list[64];
	if (ev->fixed_only) {
		pmh_fmt(msg, n,
			"%s is a fixed-counter event (fixed counter %d), not for counter %u",
			ev->name, events_fixed_index(ev), ctr);
		return EV_REFUSED;
	}
	if (ctr >= 32 || (ev->counters && !(ev->counters & (1u << ctr)))) {
		counters_text(ev->counters, list, sizeof(list));
		pmh_fmt(msg, n, "%s is not allowed on counter %u (allowed: %s)", ev->name, ctr,
			ev->counters ? list : "GP counters");
		return EV_REFUSED;
	}
	return EV_OK;
}

static void resolve_named(const struct spec *p, enum pmu_driver_id d, unsigned family,
			  unsigned model, struct ev_result *r)
{
	char m[192], fam[48];
	const struct event_table *t = 0;
	const struct event_def *e = events_find(d, family, model, p->name, &t);

	if (!e) {
		pmh_fmt(m, sizeof(m), "unknown event name \"%s\" for %s (see --list-events)",
			p->name, family_label(d, family, fam, sizeof(fam)));
		set(r, EV_REFUSED, m);
		return;
	}
	r->def = e;
	r->table = t;
	fill_event(&r->ev, e);
	if (e->flags & EVF_DOC_WRONG) {
		pmh_fmt(m, sizeof(m), "%s is documented incorrectly: %s", e->name, e->desc);
		set(r, EV_WARN, m);
	}
	if (t->rule && !t->netburst) {
		bool known = false;
		m[0] = 0;
		enum ev_verdict v = t->rule(t, e->code, e->umask, p->flags, &known, m, sizeof(m));
		if (v != EV_OK)
			set(r, v, m);
	}
}

static void resolve_raw(const struct spec *p, enum pmu_driver_id d, unsigned family, unsigned model,
			struct ev_result *r)
{
	char m[192], fam[48];
	const struct event_table *t[MAX_TABLES];
	size_t nt = events_tables_for(d, family, model, t, MAX_TABLES);
	uint16_t max_code = is_amd(d) && family >= 0x15 ? 0xfff : 0xff;
	bool complete = false, known = false;

	for (size_t i = 0; i < nt; i++) {
		if (t[i]->netburst) {
			set(r, EV_REFUSED,
			    "NetBurst events are given as escr=ADDR,event=E,mask=M (see "
			    "events.h)");
			return;
		}
		max_code = t[i]->max_code; /* all tables of one family agree */
		complete |= t[i]->complete;
	}
	if (p->event > max_code) {
		pmh_fmt(m, sizeof(m), "event select 0x%llx does not fit the 0x%x field of %s",
			(unsigned long long)p->event, max_code,
			family_label(d, family, fam, sizeof(fam)));
		set(r, EV_REFUSED, m);
		return;
	}
	uint16_t code = (uint16_t)p->event;
	uint8_t umask = (uint8_t)p->umask;

	pmh_memset(&r->ev, 0, sizeof(r->ev));
	r->ev.code = code;
	r->ev.umask = umask;
	pmh_fmt(r->ev.name, sizeof(r->ev.name), "raw:0x%x/0x%02x", code, umask);
	for (size_t i = 0; i < nt && !r->def; i++) {
		const struct event_def *e = events_find_raw(t[i], code, umask, 0, 0);
		if (e) {
			r->def = e;
			r->table = t[i];
			fill_event(&r->ev, e);
			known = true;
		}
	}
	for (size_t i = 0; i < nt; i++) {
		if (!t[i]->rule)
			continue;
		m[0] = 0;
		enum ev_verdict v = t[i]->rule(t[i], code, umask, p->flags, &known, m, sizeof(m));
		if (v != EV_OK)
			set(r, v, m);
		if (!r->table && known)
			r->table = t[i];
	}
	if (!r->def) {
		bool named = false;
		for (size_t i = 0; i < nt; i++)
			for (size_t k = 0; k < t[i]->n; k++) {
				const struct event_def *e = &t[i]->ev[k];
				if (e->code != code || (e->flags & EVF_FIXED))
					continue;
				/* Counter constraints go by event code (facts §3, §6). */
				if (e->flags & EVF_CTR_RESTRICTED)
					r->ev.counters = e->counters;
				if (known && !named) { /* "EVENT:0xUU" */
					size_t l = 0;
					while (e->name[l] && e->name[l] != '.')
						l++;
					char pre[32];
					pmh_fmt(r->ev.name, sizeof(r->ev.name), "%s:0x%02x",
						slice(pre, sizeof(pre), e->name, l), umask);
					named = true;
				}
			}
	}
	if (r->verdict == EV_REFUSED || known)
		return;
	if (!nt) {
		pmh_fmt(m, sizeof(m), "no event catalogue for %s; encoding not checked",
			family_label(d, family, fam, sizeof(fam)));
		set(r, EV_WARN, m);
	} else if (complete) {
		bool code_known = false;
		for (size_t i = 0; i < nt; i++)
			for (size_t k = 0; k < t[i]->n; k++)
				code_known |= t[i]->ev[k].code == code;
		if (code_known)
			pmh_fmt(m, sizeof(m),
				"unit mask 0x%02x is not documented for event 0x%02x on %s (%s)",
				umask, code, t[0]->title, t[0]->doc);
		else
			pmh_fmt(m, sizeof(m), "event 0x%02x is reserved or undocumented on %s (%s)",
				code, t[0]->title, t[0]->doc);
		set(r, EV_REFUSED, m);
	} else {
		pmh_fmt(m, sizeof(m),
			"event 0x%x umask 0x%02x is not in the catalogue for %s; encoding not "
			"checked against a document",
			code, umask, family_label(d, family, fam, sizeof(fam)));
		set(r, EV_WARN, m);
	}
}

static void resolve_netburst(const struct spec *p, const struct event_table *t, struct ev_result *r)
{
	char m[192];
	const char *escr_name;

	if (!p->has_escr || !p->has_mask) {
		set(r, EV_REFUSED, "NetBurst raw events need escr=ADDR, event=E and mask=M");
		return;
	}
	escr_name = events_netburst_escr_name((uint32_t)p->escr);
	if (p->escr > 0xffffffffull || !escr_name) {
		pmh_fmt(m, sizeof(m), "0x%llx is not a NetBurst ESCR address (facts sec. 5)",
			(unsigned long long)p->escr);
		set(r, EV_REFUSED, m);
		return;
	}
	if (p->event > 0x3f || p->mask > 0xffff) {
		pmh_fmt(
		    m, sizeof(m),
		    "ESCR event select 0x%llx or event mask 0x%llx out of range (6 and 16 bits)",
		    (unsigned long long)p->event, (unsigned long long)p->mask);
		set(r, EV_REFUSED, m);
		return;
	}
	uint16_t code = (uint16_t)p->event;
	uint32_t mask = (uint32_t)p->mask, escr = (uint32_t)p->escr;
	const struct event_def *e = events_find_raw(t, code, 0, escr, mask), *parent = 0;

	for (size_t k = 0; k < t->n && !parent; k++)
		if (t->ev[k].escr_msr == escr && t->ev[k].code == code &&
		    !(t->ev[k].flags & EVF_SUB))
			parent = &t->ev[k];
	pmh_memset(&r->ev, 0, sizeof(r->ev));
	r->ev.code = code;
	r->ev.escr_msr = escr;
	r->ev.escr_mask = mask;
	r->ev.escr_select = (uint8_t)p->sel;
	pmh_fmt(r->ev.name, sizeof(r->ev.name), "raw:%s/0x%x/0x%x", escr_name, code, mask);
	if (e) {
		r->def = e;
		fill_event(&r->ev, e);
	} else if (parent) {
		r->def = parent;
		r->ev.escr_select = parent->escr_select;
		r->ev.counters = parent->counters;
		pmh_fmt(r->ev.name, sizeof(r->ev.name), "%s:0x%x", parent->name, mask);
	}
	if (r->def)
		r->table = t;
	if (parent && (!mask || (mask & ~parent->escr_bits))) {
		if (!mask)
			pmh_fmt(m, sizeof(m), "%s with event mask 0 counts nothing", parent->name);
		else
			pmh_fmt(m, sizeof(m),
				"event mask bits 0x%x are not documented for %s (documented 0x%x)",
				mask & ~parent->escr_bits, parent->name, parent->escr_bits);
		set(r, EV_WARN, m);
	}
	if (r->def && p->has_sel && p->sel != r->def->escr_select) {
		pmh_fmt(m, sizeof(m), "%s needs CCCR ESCR-select %u, not %llu (facts sec. 5)",
			r->def->name, r->def->escr_select, (unsigned long long)p->sel);
		set(r, EV_REFUSED, m);
		return;
	}
	if (!r->def) {
		const struct event_def *other = 0;
		for (size_t k = 0; k < t->n && !other; k++)
			if (t->ev[k].code == code && !(t->ev[k].flags & EVF_SUB))
				other = &t->ev[k];
		if (!p->has_sel || p->sel > 7) {
			pmh_fmt(m, sizeof(m),
				"event 0x%x on %s is not in the catalogue: give escr_sel=0..7",
				code, escr_name);
			set(r, EV_REFUSED, m);
			return;
		}
		if (other)
			pmh_fmt(m, sizeof(m),
				"event 0x%x on %s is not in the catalogue (%s is bound to ESCR "
				"0x%x); encoding not checked",
				code, escr_name, other->name, other->escr_msr);
		else
			pmh_fmt(m, sizeof(m),
				"event 0x%x on %s is not in the catalogue; encoding not checked",
				code, escr_name);
		set(r, EV_WARN, m);
	}
}

enum ev_verdict events_resolve(enum pmu_driver_id d, unsigned family, unsigned model,
			       const char *spec, struct ev_result *r)
{
	struct spec p;
	char m[192];

	pmh_memset(r, 0, sizeof(*r));
	r->verdict = EV_OK;
	r->counter = -1;
	if (d == PMU_DRV_NONE) {
		set(r, EV_REFUSED, "no PMU driver for this CPU");
		return r->verdict;
	}
	if (parse_spec(spec ? spec : "", &p, m, sizeof(m))) {
		char full[192];
		pmh_fmt(full, sizeof(full), "event \"%s\": %s", spec ? spec : "", m);
		set(r, EV_REFUSED, full);
		return r->verdict;
	}
	r->flags = p.flags;
	if (p.name[0]) {
		resolve_named(&p, d, family, model, r);
	} else if (d == PMU_DRV_INTEL_NETBURST) {
		if (p.has_umask) {
			set(r, EV_REFUSED,
			    "NetBurst events have no umask: use mask= (ESCR event mask)");
			return r->verdict;
		}
		resolve_netburst(&p, &events_intel_netburst, r);
	} else {
		if (p.has_escr || p.has_mask || p.has_sel) {
			set(r, EV_REFUSED, "escr=/mask=/escr_sel= apply to NetBurst only");
			return r->verdict;
		}
		resolve_raw(&p, d, family, model, r);
	}
	if (r->verdict == EV_REFUSED)
		return r->verdict;
	if (p.has_counter) {
		const struct event_table *t[MAX_TABLES];
		size_t nt = events_tables_for(d, family, model, t, MAX_TABLES);
		unsigned nc = 0;
		for (size_t i = 0; i < nt; i++)
			if (t[i]->n_counters)
				nc = t[i]->n_counters;
		r->counter = p.counter > 31 ? 31 : (int)p.counter;
		if (nc && p.counter >= nc) {
			pmh_fmt(m, sizeof(m), "counter %llu does not exist: %s has %u counters",
				(unsigned long long)p.counter, t[0]->title, nc);
			set(r, EV_REFUSED, m);
			return r->verdict;
		}
		if (events_check_counter(&r->ev, (unsigned)p.counter, m, sizeof(m)) != EV_OK)
			set(r, EV_REFUSED, m);
	}
	return r->verdict;
}

size_t events_format(const struct pmu_event *ev, bool netburst, char *buf, size_t n)
{
	struct pmh_sb sb;
	char list[96];

	pmh_sb_init(&sb, buf, n);
	if (netburst)
		pmh_sb_add(&sb, "escr=0x%x,event=0x%02x,mask=0x%04x,escr_sel=%u", ev->escr_msr,
			   ev->code, ev->escr_mask, ev->escr_select);
	else if (ev->code > 0xff)
		pmh_sb_add(&sb, "event=0x%03x,umask=0x%02x", ev->code, ev->umask);
	else
		pmh_sb_add(&sb, "event=0x%02x,umask=0x%02x", ev->code, ev->umask);
	if (ev->fixed_only)
		pmh_sb_add(&sb, " fixed=%d", events_fixed_index(ev));
	else if (ev->counters) {
		counters_text(ev->counters, list, sizeof(list));
		pmh_sb_add(&sb, " counters=%s", list);
	}
	return sb.len;
}

/* ---- options: list / validate ------------------------------------------- */

static void emit(const struct events_sink *out, const char *s)
{
	if (out && out->line)
		out->line(out->ctx, s);
}

enum events_opt events_handle_options(enum pmu_driver_id d, unsigned family, unsigned model,
				      bool list, bool json, const char *event,
				      const struct events_sink *out, struct ev_result *r)
{
	char line[320], enc[128];
	struct pmh_sb sb;

	if (list) {
		events_list(d, family, model, json, out);
		return EVOPT_LISTED;
	}
	if (!event || !event[0])
		return EVOPT_NONE;
	events_resolve(d, family, model, event, r);
	if (r->verdict == EV_REFUSED) {
		pmh_fmt(line, sizeof(line), "error: %s", r->msg);
		emit(out, line);
		return EVOPT_REFUSED;
	}
	if (r->verdict == EV_WARN) {
		pmh_fmt(line, sizeof(line), "warning: %s", r->msg);
		emit(out, line);
	}
	events_format(&r->ev, d == PMU_DRV_INTEL_NETBURST, enc, sizeof(enc));
	pmh_sb_init(&sb, line, sizeof(line));
	pmh_sb_add(&sb, "event.resolved: %s %s", r->ev.name, enc);
	if (PMU_F_CMASK_OF(r->flags))
		pmh_sb_add(&sb, " cmask=%u", (unsigned)PMU_F_CMASK_OF(r->flags));
	if (r->flags & PMU_F_INV)
		pmh_sb_add(&sb, " inv");
	if (r->flags & PMU_F_EDGE)
		pmh_sb_add(&sb, " edge");
	if (r->counter >= 0)
		pmh_sb_add(&sb, " counter=%d", r->counter);
	emit(out, line);
	return EVOPT_RESOLVED;
}
