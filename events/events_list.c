/* The catalogue's front end: listing a family's tables as text lines or as
 * one JSON document, and the list_events / json / event options. Built on
 * the lookup (events.c) and the resolver (events_resolve.c). */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "events.h"

static void emit(const struct events_sink *out, const char *s)
{
	if (out && out->line)
		out->line(out->ctx, s);
}

/* Short notes for the flags, in the order printed (arrays, not pointers:
 * a pointer costs the image a relocation). */
static void notes(const struct event_def *e, struct pmh_sb *sb, bool json)
{
	static const struct {
		uint16_t flag;
		char text[24];
	} n[] = {
	    {EVF_DOC_WRONG, "documented incorrectly"},
	    {EVF_CORRECTED, "corrected variant"},
	    {EVF_NB, "northbridge"},
	    {EVF_FACTS_MAP, "fact-sheet map"},
	    {EVF_CTR_RESTRICTED, "counter-restricted"},
	    {EVF_FIXED, "fixed counter"},
	};
	bool first = true;
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		if (!(e->flags & n[i].flag))
			continue;
		if (json) {
			pmh_sb_add(sb, "%s", first ? "" : ",");
			pmh_sb_json_str(sb, n[i].text);
		} else {
			pmh_sb_add(sb, "%s%s", first ? " [" : ", ", n[i].text);
		}
		first = false;
	}
	if (!json && !first)
		pmh_sb_add(sb, "]");
}

#define LIST_LINE_MAX 512
#define ENCODING_MAX  128
/* Text listing columns: a name (at most 39 characters, struct pmu_event) and
 * an encoding with its counters, then the description. */
#define NAME_COLS     40
#define ENCODING_COLS 36

/* The line before the tables: the JSON document's head, or a note that the
 * family has no table. */
static void list_head(enum pmu_driver_id d, unsigned family, unsigned model, bool json, size_t nt,
		      const struct events_sink *out)
{
	char line[LIST_LINE_MAX];
	struct pmh_sb sb;

	if (json) {
		pmh_sb_init(&sb, line, sizeof(line));
		pmh_sb_add(&sb, "{\"schema\": \"pmuharness-events/1\", \"driver\": ");
		pmh_sb_json_str(&sb, pmu_driver_name(d));
		pmh_sb_add(&sb, ", \"family\": \"0x%x\", \"model\": ", family);
		if (model == EVENTS_ANY_MODEL)
			pmh_sb_add(&sb, "null, \"tables\": [");
		else
			pmh_sb_add(&sb, "\"0x%x\", \"tables\": [", model);
		emit(out, line);
	} else if (!nt) {
		pmh_fmt(line, sizeof(line), "# no event table for %s family 0x%x",
			pmu_driver_name(d), family);
		emit(out, line);
	}
}

/* A table's heading; in JSON it also closes the previous table (i > 0). */
static void table_head(const struct event_table *t, size_t i, bool json,
		       const struct events_sink *out)
{
	char line[LIST_LINE_MAX];
	struct pmh_sb sb;

	pmh_sb_init(&sb, line, sizeof(line));
	if (json) {
		pmh_sb_add(&sb, "%s{\"id\": ", i ? "]}, " : "");
		pmh_sb_json_str(&sb, t->id);
		pmh_sb_add(&sb, ", \"title\": ");
		pmh_sb_json_str(&sb, t->title);
		pmh_sb_add(&sb, ", \"doc\": ");
		pmh_sb_json_str(&sb, t->doc);
		pmh_sb_add(&sb, ", \"events\": [");
	} else {
		pmh_sb_add(&sb, "# %s: %s, %u entries (%s)", t->id, t->title, (unsigned)t->n,
			   t->doc);
	}
	emit(out, line);
}

/* One entry as a JSON object (after a comma unless it is the first). */
static void entry_json(const struct event_table *t, const struct event_def *e, bool first,
		       const char *enc, struct pmh_sb *sb)
{
	pmh_sb_add(sb, "%s{\"name\": ", first ? "" : ",");
	pmh_sb_json_str(sb, e->name);
	if (t->netburst)
		pmh_sb_add(sb,
			   ", \"escr\": \"0x%x\", \"event\": \"0x%02x\", \"mask\": \"0x%04x\", "
			   "\"escr_sel\": %u",
			   e->escr_msr, e->code, e->escr_mask, e->escr_select);
	else
		pmh_sb_add(sb, ", \"event\": \"0x%02x\", \"umask\": \"0x%02x\"", e->code, e->umask);
	pmh_sb_add(sb, ", \"counters\": \"0x%x\"", e->counters);
	if (e->fixed_index >= 0)
		pmh_sb_add(sb, ", \"fixed\": %d", e->fixed_index);
	pmh_sb_add(sb, ", \"encoding\": ");
	pmh_sb_json_str(sb, enc);
	pmh_sb_add(sb, ", \"notes\": [");
	notes(e, sb, true);
	pmh_sb_add(sb, "], \"description\": ");
	pmh_sb_json_str(sb, e->desc);
	pmh_sb_add(sb, "}");
}

/* A table's entries, one line each; returns how many. */
static size_t table_entries(const struct event_table *t, bool json, const struct events_sink *out)
{
	char line[LIST_LINE_MAX], enc[ENCODING_MAX];
	struct pmh_sb sb;
	struct pmu_event ev;

	for (size_t k = 0; k < t->n; k++) {
		const struct event_def *e = &t->ev[k];
		events_def_event(e, &ev);
		events_format(&ev, t->netburst, enc, sizeof(enc));
		pmh_sb_init(&sb, line, sizeof(line));
		if (json) {
			entry_json(t, e, k == 0, enc, &sb);
		} else {
			pmh_sb_add(&sb, "%-*s %-*s %s", NAME_COLS, e->name, ENCODING_COLS, enc,
				   e->desc);
			notes(e, &sb, false);
		}
		emit(out, line);
	}
	return t->n;
}

size_t events_list(enum pmu_driver_id d, unsigned family, unsigned model, bool json,
		   const struct events_sink *out)
{
	const struct event_table *t[EVENTS_MAX_TABLES];
	size_t nt = events_tables_for(d, family, model, t, EVENTS_MAX_TABLES), total = 0;
	char line[LIST_LINE_MAX];

	list_head(d, family, model, json, nt, out);
	for (size_t i = 0; i < nt; i++) {
		table_head(t[i], i, json, out);
		total += table_entries(t[i], json, out);
	}
	if (json) {
		pmh_fmt(line, sizeof(line), "%s], \"count\": %u}", nt ? "]}" : "", (unsigned)total);
		emit(out, line);
	}
	return total;
}

/* The option front end's lines are shorter than the listing's. */
#define OPTION_LINE_MAX 320

enum events_opt events_handle_options(enum pmu_driver_id d, unsigned family, unsigned model,
				      bool list, bool json, const char *event, const char *at,
				      const struct events_sink *out, struct ev_result *r)
{
	char line[OPTION_LINE_MAX], enc[ENCODING_MAX];
	struct pmh_sb sb;

	if (list) {
		events_list(d, family, model, json, out);
		return EVOPT_LISTED;
	}
	if (!event || !event[0])
		return EVOPT_NONE;
	events_resolve(d, family, model, event, r);
	if (r->verdict == EV_REFUSED) {
		pmh_fmt(line, sizeof(line), "error: event (%s): %s; the run goes on without it",
			at && at[0] ? at : "option", r->msg);
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
