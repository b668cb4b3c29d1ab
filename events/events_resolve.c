/* Resolving an event specification for a CPU: a catalogue name, a raw
 * P6/arch/AMD/KNC encoding or a NetBurst ESCR triple, each judged against the
 * family's document (verdicts in events.h). */
#include "events.h"
#include "events_spec.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

/* Without a table, AMD Fam15h and later have 12-bit event selects. */
#define AMD_FAM15H 0x15
/* NetBurst ESCR fields (SDM Vol. 3B NetBurst 'ESCR MSRs', 'CCCR MSRs'): event
 * mask 24:9 (16 bits); the CCCR's ESCR select 15:13 (0..7). ESCR addresses are
 * MSR numbers (32 bits). */
#define NB_MASK_MAX 0xffffull
#define NB_SEL_MAX  7u
#define NB_ESCR_MAX 0xffffffffull

#define FAMILY_LABEL_MAX 48
#define NAME_PREFIX_MAX	 32 /* "EVENT" of "EVENT.UMASK", with NUL (a longer one is cut) */

/* Raises the verdict to v with msg as the reason; a reason already given
 * at that level stays. */
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

/* The family rule of table t on (code, umask, flags); sets *known when the
 * document defines the encoding. */
static void apply_rule(const struct event_table *t, uint16_t code, uint8_t umask, uint32_t flags,
		       bool *known, struct ev_result *r)
{
	char m[EVENTS_MSG_MAX];
	m[0] = 0;
	enum ev_verdict v = t->rule(t, code, umask, flags, known, m, sizeof(m));
	if (v != EV_OK)
		set(r, v, m);
}

static void resolve_named(const struct ev_spec *p, enum pmu_driver_id d, unsigned family,
			  unsigned model, struct ev_result *r)
{
	char m[EVENTS_MSG_MAX], fam[FAMILY_LABEL_MAX];
	const struct event_table *t = 0;
	const struct event_def *e = events_find(d, family, model, p->name, &t);

	if (!e) {
		char name[sizeof(p->name) * 4];
		pmh_fmt(m, sizeof(m), "unknown event name \"%s\" for %s (see --list-events)",
			pmh_escape(name, sizeof(name), p->name, pmh_strlen(p->name)),
			family_label(d, family, fam, sizeof(fam)));
		set(r, EV_REFUSED, m);
		return;
	}
	r->def = e;
	r->table = t;
	events_def_event(e, &r->ev);
	if (e->flags & EVF_DOC_WRONG) {
		pmh_fmt(m, sizeof(m), "%s is documented incorrectly: %s", e->name, e->desc);
		set(r, EV_WARN, m);
	}
	if (t->rule && !t->netburst) {
		bool known = false;
		apply_rule(t, e->code, e->umask, p->flags, &known, r);
	}
}

/* ---- raw P6/arch/AMD/KNC encodings -------------------------------------- */

/* A raw request and what the tables of the CPU say about it. */
struct raw_req {
	const struct event_table *t[EVENTS_MAX_TABLES];
	size_t nt;
	uint16_t code;
	uint8_t umask;
	bool known; /* the document defines the encoding */
};

/* Exact catalogue entry first, then every table's family rule. */
static void raw_match(struct raw_req *q, uint32_t flags, struct ev_result *r)
{
	pmh_memset(&r->ev, 0, sizeof(r->ev));
	r->ev.code = q->code;
	r->ev.umask = q->umask;
	pmh_fmt(r->ev.name, sizeof(r->ev.name), "raw:0x%x/0x%02x", q->code, q->umask);
	for (size_t i = 0; i < q->nt && !r->def; i++) {
		const struct event_def *e = events_find_raw(q->t[i], q->code, q->umask, 0, 0);
		if (e) {
			r->def = e;
			r->table = q->t[i];
			events_def_event(e, &r->ev);
			q->known = true;
		}
	}
	for (size_t i = 0; i < q->nt; i++) {
		if (!q->t[i]->rule)
			continue;
		apply_rule(q->t[i], q->code, q->umask, flags, &q->known, r);
		if (!r->table && q->known)
			r->table = q->t[i];
	}
}

/* No exact entry: the event code's entries give the counter constraint (Linux
 * p6_event_constraints, knc_event_constraints) and, for a documented encoding,
 * the name "EVENT:0xUU". */
static void raw_by_code(const struct raw_req *q, struct ev_result *r)
{
	bool named = false;
	char pre[NAME_PREFIX_MAX];

	for (size_t i = 0; i < q->nt; i++)
		for (size_t k = 0; k < q->t[i]->n; k++) {
			const struct event_def *e = &q->t[i]->ev[k];
			if (e->code != q->code || (e->flags & EVF_FIXED))
				continue;
			if (e->flags & EVF_CTR_RESTRICTED)
				r->ev.counters = e->counters;
			if (q->known && !named) {
				const char *dot = pmh_strchr(e->name, '.');
				size_t l = dot ? (size_t)(dot - e->name) : pmh_strlen(e->name);
				pmh_fmt(r->ev.name, sizeof(r->ev.name), "%s:0x%02x",
					pmh_slice(pre, sizeof(pre), e->name, l), q->umask);
				named = true;
			}
		}
}

/* An encoding no document defines: refused where the document lists every
 * event, else a warning. */
static void raw_unknown(const struct raw_req *q, bool complete, enum pmu_driver_id d,
			unsigned family, struct ev_result *r)
{
	char m[EVENTS_MSG_MAX], fam[FAMILY_LABEL_MAX];
	const struct event_table *t0 = q->t[0];

	if (!q->nt) {
		pmh_fmt(m, sizeof(m), "no event catalogue for %s; encoding not checked",
			family_label(d, family, fam, sizeof(fam)));
		set(r, EV_WARN, m);
	} else if (complete) {
		bool code_known = false;
		for (size_t i = 0; i < q->nt; i++)
			for (size_t k = 0; k < q->t[i]->n; k++)
				code_known |= q->t[i]->ev[k].code == q->code;
		if (code_known)
			pmh_fmt(m, sizeof(m),
				"unit mask 0x%02x is not documented for event 0x%02x on %s (%s)",
				q->umask, q->code, t0->title, t0->doc);
		else
			pmh_fmt(m, sizeof(m), "event 0x%02x is reserved or undocumented on %s (%s)",
				q->code, t0->title, t0->doc);
		set(r, EV_REFUSED, m);
	} else {
		pmh_fmt(m, sizeof(m),
			"event 0x%x umask 0x%02x is not in the catalogue for %s; encoding not "
			"checked against a document",
			q->code, q->umask, family_label(d, family, fam, sizeof(fam)));
		set(r, EV_WARN, m);
	}
}

static void resolve_raw(const struct ev_spec *p, enum pmu_driver_id d, unsigned family,
			unsigned model, struct ev_result *r)
{
	char m[EVENTS_MSG_MAX], fam[FAMILY_LABEL_MAX];
	struct raw_req q = {.known = false};
	uint16_t max_code =
	    events_driver_is_amd(d) && family >= AMD_FAM15H ? EVENTS_CODE_MAX_AMD : EVENTS_CODE_MAX;
	bool complete = false;

	q.nt = events_tables_for(d, family, model, q.t, EVENTS_MAX_TABLES);
	for (size_t i = 0; i < q.nt; i++) {
		if (q.t[i]->netburst) {
			set(r, EV_REFUSED,
			    "NetBurst events are given as escr=ADDR,event=E,mask=M (see "
			    "events.h)");
			return;
		}
		max_code = q.t[i]->max_code; /* all tables of one family agree */
		complete |= q.t[i]->complete;
	}
	if (p->event.val > max_code) {
		pmh_fmt(m, sizeof(m), "event select 0x%llx does not fit the 0x%x field of %s",
			(unsigned long long)p->event.val, max_code,
			family_label(d, family, fam, sizeof(fam)));
		set(r, EV_REFUSED, m);
		return;
	}
	q.code = (uint16_t)p->event.val;
	q.umask = (uint8_t)p->umask.val;
	raw_match(&q, p->flags, r);
	if (!r->def)
		raw_by_code(&q, r);
	if (r->verdict != EV_REFUSED && !q.known)
		raw_unknown(&q, complete, d, family, r);
}

/* ---- NetBurst ESCR triples ---------------------------------------------- */

/* The first whole-event (not sub-event) entry for code; on ESCR escr, or on
 * any ESCR when escr is 0 (no ESCR has address 0). */
static const struct event_def *nb_parent(const struct event_table *t, uint16_t code, uint32_t escr)
{
	for (size_t k = 0; k < t->n; k++) {
		const struct event_def *e = &t->ev[k];
		if ((!escr || e->escr_msr == escr) && e->code == code && !(e->flags & EVF_SUB))
			return e;
	}
	return 0;
}

/* The ESCR name of a well-formed triple, or 0 with the refusal set. */
static const char *nb_check_fields(const struct ev_spec *p, const struct event_table *t,
				   struct ev_result *r)
{
	char m[EVENTS_MSG_MAX];
	const char *escr_name;

	if (!p->escr.given || !p->mask.given) {
		set(r, EV_REFUSED, "NetBurst raw events need escr=ADDR, event=E and mask=M");
		return 0;
	}
	escr_name = events_netburst_escr_name((uint32_t)p->escr.val);
	if (p->escr.val > NB_ESCR_MAX || !escr_name) {
		pmh_fmt(m, sizeof(m), "0x%llx is not a NetBurst ESCR address (facts sec. 5)",
			(unsigned long long)p->escr.val);
		set(r, EV_REFUSED, m);
		return 0;
	}
	if (p->event.val > t->max_code || p->mask.val > NB_MASK_MAX) {
		pmh_fmt(
		    m, sizeof(m),
		    "ESCR event select 0x%llx or event mask 0x%llx out of range (6 and 16 bits)",
		    (unsigned long long)p->event.val, (unsigned long long)p->mask.val);
		set(r, EV_REFUSED, m);
		return 0;
	}
	return escr_name;
}

/* The exact entry, else the event's entry on that ESCR with the mask given;
 * warns about mask bits its document does not define. */
static void nb_match(const struct ev_spec *p, const struct event_table *t, const char *escr_name,
		     struct ev_result *r)
{
	char m[EVENTS_MSG_MAX];
	uint16_t code = (uint16_t)p->event.val;
	uint32_t mask = (uint32_t)p->mask.val, escr = (uint32_t)p->escr.val;
	const struct event_def *e = events_find_raw(t, code, 0, escr, mask);
	const struct event_def *parent = nb_parent(t, code, escr);

	pmh_memset(&r->ev, 0, sizeof(r->ev));
	r->ev.code = code;
	r->ev.escr_msr = escr;
	r->ev.escr_mask = mask;
	r->ev.escr_select = (uint8_t)p->sel.val;
	pmh_fmt(r->ev.name, sizeof(r->ev.name), "raw:%s/0x%x/0x%x", escr_name, code, mask);
	if (e) {
		r->def = e;
		events_def_event(e, &r->ev);
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
}

/* An event the catalogue does not bind to this ESCR: it needs escr_sel=. */
static void nb_uncatalogued(const struct ev_spec *p, const struct event_table *t,
			    const char *escr_name, struct ev_result *r)
{
	char m[EVENTS_MSG_MAX];
	uint16_t code = (uint16_t)p->event.val;
	const struct event_def *other = nb_parent(t, code, 0);

	if (!p->sel.given || p->sel.val > NB_SEL_MAX) {
		pmh_fmt(m, sizeof(m),
			"event 0x%x on %s is not in the catalogue: give escr_sel=0..7", code,
			escr_name);
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
			"event 0x%x on %s is not in the catalogue; encoding not checked", code,
			escr_name);
	set(r, EV_WARN, m);
}

static void resolve_netburst(const struct ev_spec *p, const struct event_table *t,
			     struct ev_result *r)
{
	char m[EVENTS_MSG_MAX];
	const char *escr_name = nb_check_fields(p, t, r);

	if (!escr_name)
		return;
	nb_match(p, t, escr_name, r);
	if (r->def && p->sel.given && p->sel.val != r->def->escr_select) {
		pmh_fmt(m, sizeof(m), "%s needs CCCR ESCR-select %u, not %llu (facts sec. 5)",
			r->def->name, r->def->escr_select, (unsigned long long)p->sel.val);
		set(r, EV_REFUSED, m);
		return;
	}
	if (!r->def)
		nb_uncatalogued(p, t, escr_name, r);
}

/* ---- the whole spec ----------------------------------------------------- */

/* counter=N: the counter must exist and the event must be allowed on it. */
static void check_counter_item(const struct ev_spec *p, enum pmu_driver_id d, unsigned family,
			       unsigned model, struct ev_result *r)
{
	char m[EVENTS_MSG_MAX];
	const struct event_table *t[EVENTS_MAX_TABLES];
	size_t nt = events_tables_for(d, family, model, t, EVENTS_MAX_TABLES);
	uint64_t ctr = p->counter.val;
	unsigned nc = 0;

	for (size_t i = 0; i < nt; i++)
		if (t[i]->n_counters)
			nc = t[i]->n_counters;
	r->counter = ctr >= EVENTS_FLAT_COUNTERS ? EVENTS_FLAT_COUNTERS - 1 : (int)ctr;
	if (nc && ctr >= nc) {
		pmh_fmt(m, sizeof(m), "counter %llu does not exist: %s has %u counters",
			(unsigned long long)ctr, t[0]->title, nc);
		set(r, EV_REFUSED, m);
		return;
	}
	if (events_check_counter(&r->ev, (unsigned)ctr, m, sizeof(m)) != EV_OK)
		set(r, EV_REFUSED, m);
}

/* Raw encodings: the NetBurst ESCR form on NetBurst, event/umask elsewhere. */
static void resolve_encoding(const struct ev_spec *p, enum pmu_driver_id d, unsigned family,
			     unsigned model, struct ev_result *r)
{
	if (d == PMU_DRV_INTEL_NETBURST) {
		if (p->umask.given)
			set(r, EV_REFUSED,
			    "NetBurst events have no umask: use mask= (ESCR event mask)");
		else
			resolve_netburst(p, &events_intel_netburst, r);
	} else if (p->escr.given || p->mask.given || p->sel.given) {
		set(r, EV_REFUSED, "escr=/mask=/escr_sel= apply to NetBurst only");
	} else {
		resolve_raw(p, d, family, model, r);
	}
}

enum ev_verdict events_resolve(enum pmu_driver_id d, unsigned family, unsigned model,
			       const char *spec, struct ev_result *r)
{
	struct ev_spec p;
	char m[EVENTS_MSG_MAX], full[EVENTS_MSG_MAX], shown[EVENTS_MSG_MAX];

	pmh_memset(r, 0, sizeof(*r));
	r->verdict = EV_OK;
	r->counter = -1;
	if (d == PMU_DRV_NONE)
		return set(r, EV_REFUSED, "no PMU driver for this CPU");
	if (!spec)
		spec = "";
	if (ev_spec_parse(spec, &p, m, sizeof(m))) {
		pmh_fmt(full, sizeof(full), "event \"%s\": %s",
			pmh_escape(shown, sizeof(shown), spec, pmh_strlen(spec)), m);
		return set(r, EV_REFUSED, full);
	}
	r->flags = p.flags;
	if (p.name[0])
		resolve_named(&p, d, family, model, r);
	else
		resolve_encoding(&p, d, family, model, r);
	if (r->verdict != EV_REFUSED && p.counter.given)
		check_counter_item(&p, d, family, model, r);
	return r->verdict;
}
