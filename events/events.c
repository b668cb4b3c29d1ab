/* Event catalogue: which tables apply to a CPU, lookup by name or encoding,
 * counter constraints and the one-line encoding text. Spec parsing is in
 * events_spec.c, resolving a spec in events_resolve.c, listing and the
 * option front end in events_list.c (each builds on this file). */
#include "events.h"
#include "../pmu/intel_arch.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

static const struct event_table *const all_tables[] = {
    &events_amd_k7,	&events_amd_k8,	       &events_amd_zen,	       &events_intel_p6,
    &events_intel_arch, &events_intel_skylake, &events_intel_netburst, &events_intel_knc,
};
_Static_assert(sizeof(all_tables) / sizeof(all_tables[0]) <= EVENTS_MAX_TABLES,
	       "EVENTS_MAX_TABLES must hold every table");

/* AMD legacy and core-extension drivers share the tables; the family decides. */
static bool driver_matches(enum pmu_driver_id want, enum pmu_driver_id have)
{
	return want == have || (events_driver_is_amd(want) && events_driver_is_amd(have));
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

const struct event_def *events_find(enum pmu_driver_id d, unsigned family, unsigned model,
				    const char *name, const struct event_table **table)
{
	const struct event_table *t[EVENTS_MAX_TABLES];
	size_t n = events_tables_for(d, family, model, t, EVENTS_MAX_TABLES);

	for (size_t i = 0; i < n; i++) {
		const struct event_def *e = events_find_in(t[i], name);
		if (e) {
			if (table)
				*table = t[i];
			return e;
		}
	}
	return 0;
}

const struct event_def *events_find_in(const struct event_table *t, const char *name)
{
	for (size_t k = 0; k < t->n; k++)
		if (!pmh_strcasecmp(t->ev[k].name, name))
			return &t->ev[k];
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

void events_def_event(const struct event_def *e, struct pmu_event *ev)
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

/* Room for a counter list: "0,1,...,31" is 85 characters. */
#define COUNTERS_TEXT_MAX 96

/* "0,1,5": the flat counters in a mask. */
static void counters_text(uint32_t mask, char *buf, size_t n)
{
	struct pmh_sb sb;
	pmh_sb_init(&sb, buf, n);
	for (unsigned i = 0; i < EVENTS_FLAT_COUNTERS; i++)
		if (mask & (1u << i))
			pmh_sb_add(&sb, "%s%u", sb.len ? "," : "", i);
}

enum ev_verdict events_check_counter(const struct pmu_event *ev, unsigned ctr, char *msg, size_t n)
{
	char list[COUNTERS_TEXT_MAX];
	if (ev->fixed_only) {
		pmh_fmt(msg, n,
			"%s is a fixed-counter event (fixed counter %d), not for counter %u",
			ev->name, events_fixed_index(ev), ctr);
		return EV_REFUSED;
	}
	if (ctr >= EVENTS_FLAT_COUNTERS || (ev->counters && !(ev->counters & (1u << ctr)))) {
		counters_text(ev->counters, list, sizeof(list));
		pmh_fmt(msg, n, "%s is not allowed on counter %u (allowed: %s)", ev->name, ctr,
			ev->counters ? list : "GP counters");
		return EV_REFUSED;
	}
	return EV_OK;
}

size_t events_format(const struct pmu_event *ev, bool netburst, char *buf, size_t n)
{
	struct pmh_sb sb;
	char list[COUNTERS_TEXT_MAX];

	pmh_sb_init(&sb, buf, n);
	if (netburst)
		pmh_sb_add(&sb, "escr=0x%x,event=0x%02x,mask=0x%04x,escr_sel=%u", ev->escr_msr,
			   ev->code, ev->escr_mask, ev->escr_select);
	else if (ev->code > EVENTS_CODE_MAX) /* AMD's 12-bit selects: three digits */
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
