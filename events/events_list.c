/* Listing the catalogue of a family as text lines or as one JSON document. */
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "events.h"

static void emit(const struct events_sink *out, const char *s)
{
	if (out && out->line)
		out->line(out->ctx, s);
}

static void to_event(const struct event_def *e, struct pmu_event *ev)
{
	pmh_memset(ev, 0, sizeof(*ev));
	ev->code = e->code;
	ev->umask = e->umask;
	ev->escr_mask = e->escr_mask;
	ev->escr_select = e->escr_select;
	ev->escr_msr = e->escr_msr;
	ev->counters = e->counters;
	ev->fixed_only = (e->flags & EVF_FIXED) != 0;
}

/* Short notes for the flags, in the order printed. */
static void notes(const struct event_def *e, struct pmh_sb *sb, bool json)
{
	static const struct {
		uint16_t flag;
		const char *text;
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

size_t events_list(enum pmu_driver_id d, unsigned family, unsigned model, bool json,
		   const struct events_sink *out)
{
	const struct event_table *t[8];
	size_t nt = events_tables_for(d, family, model, t, 8), total = 0;
	char line[512], enc[128];
	struct pmh_sb sb;
	struct pmu_event ev;

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
	for (size_t i = 0; i < nt; i++) {
		pmh_sb_init(&sb, line, sizeof(line));
		if (json) {
			pmh_sb_add(&sb, "%s{\"id\": ", i ? "]}, " : "");
			pmh_sb_json_str(&sb, t[i]->id);
			pmh_sb_add(&sb, ", \"title\": ");
			pmh_sb_json_str(&sb, t[i]->title);
			pmh_sb_add(&sb, ", \"doc\": ");
			pmh_sb_json_str(&sb, t[i]->doc);
			pmh_sb_add(&sb, ", \"events\": [");
		} else {
			pmh_sb_add(&sb, "# %s: %s, %u entries (%s)", t[i]->id, t[i]->title,
				   (unsigned)t[i]->n, t[i]->doc);
		}
		emit(out, line);
		for (size_t k = 0; k < t[i]->n; k++) {
			const struct event_def *e = &t[i]->ev[k];
			to_event(e, &ev);
			events_format(&ev, t[i]->netburst, enc, sizeof(enc));
			pmh_sb_init(&sb, line, sizeof(line));
			if (json) {
				pmh_sb_add(&sb, "%s{\"name\": ", k ? "," : "");
				pmh_sb_json_str(&sb, e->name);
				if (t[i]->netburst)
					pmh_sb_add(&sb,
						   ", \"escr\": \"0x%x\", \"event\": \"0x%02x\", "
						   "\"mask\": \"0x%04x\", \"escr_sel\": %u",
						   e->escr_msr, e->code, e->escr_mask,
						   e->escr_select);
				else
					pmh_sb_add(&sb,
						   ", \"event\": \"0x%02x\", \"umask\": \"0x%02x\"",
						   e->code, e->umask);
				pmh_sb_add(&sb, ", \"counters\": \"0x%x\"", e->counters);
				if (e->fixed_index >= 0)
					pmh_sb_add(&sb, ", \"fixed\": %d", e->fixed_index);
				pmh_sb_add(&sb, ", \"encoding\": ");
				pmh_sb_json_str(&sb, enc);
				pmh_sb_add(&sb, ", \"notes\": [");
				notes(e, &sb, true);
				pmh_sb_add(&sb, "], \"description\": ");
				pmh_sb_json_str(&sb, e->desc);
				pmh_sb_add(&sb, "}");
			} else {
				pmh_sb_add(&sb, "%-40s %-36s %s", e->name, enc, e->desc);
				notes(e, &sb, false);
			}
			emit(out, line);
			total++;
		}
	}
	if (json) {
		pmh_fmt(line, sizeof(line), "%s], \"count\": %u}", nt ? "]}" : "", (unsigned)total);
		emit(out, line);
	}
	return total;
}
