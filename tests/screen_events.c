/* The screen's rows (screen.h): a row added to the table, a SKIP counted
 * under its reason; and event.semantics on the screen: a catalogue's
 * coverage line and each failing event as rows under the check's own row.
 * The check prints them (report_events.h names the lines) before its
 * result line, so they wait at the end of the rows until that row comes. */
#include "screen.h"
#include "report_events.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define PREFIX(line, p) (!pmh_strncmp(line, p, sizeof(p) - 1))
#define NO_REASON	SCREEN_NO_TEXT

/* A coverage line's text as the screen's width wants it: "amd-k8: 41 of
 * 87 events validated, 30 not validatable; 40 pass, 1 fail" (the check's
 * "rules " and a ", 0 skip" left out). */
static void coverage_text(char *out, size_t n, const char *t)
{
	const char *rules = t;

	while (*rules && pmh_strncmp(rules, "; rules ", 8))
		rules++;
	pmh_slice(out, n, t, (size_t)(rules - t));
	size_t l = pmh_strlen(out);
	if (*rules)
		pmh_fmt(out + l, n - l, "; %s", rules + 8);
	l = pmh_strlen(out);
	if (l > 8 && !pmh_strcmp(out + l - 8, ", 0 skip"))
		out[l - 8] = 0;
}

/* The end of the word at p. */
static const char *word_end(const char *p)
{
	while (*p && *p != ' ')
		p++;
	return p;
}

bool screen_row_kept(char kind)
{
	return kind == 'F' || kind == 'E' || kind == 'X';
}

/* The index of text in the reasons table, added when new. */
static uint8_t reason_of(struct screen *s, const char *text)
{
	char r[SCREEN_REASON_MAX];

	pmh_strlcpy(r, text, sizeof(r));
	for (unsigned i = 0; i < s->n_reasons; i++)
		if (!pmh_strcmp(s->reason[i], r))
			return (uint8_t)i;
	if (s->n_reasons == SCREEN_MAX_REASONS)
		return NO_REASON;
	pmh_strlcpy(s->reason[s->n_reasons], r, sizeof(r));
	return (uint8_t)s->n_reasons++;
}

/* An event row's text ('C', 'X'), or NO_REASON when the table is full. */
static uint8_t ev_text_of(struct screen *s, const char *text)
{
	if (s->n_ev_texts == SCREEN_MAX_EV_TEXTS)
		return NO_REASON;
	pmh_strlcpy(s->ev_text[s->n_ev_texts], text, SCREEN_REASON_MAX);
	return (uint8_t)s->n_ev_texts++;
}

/* Whether a SKIP row of the same check (id[0..n) up to "@cpuN") and
 * reason is in the table. */
static bool skip_listed(const struct screen *s, const char *id, size_t n, uint8_t reason)
{
	size_t k = 0;

	while (k < n && id[k] != '@')
		k++;
	for (unsigned i = 0; i < s->n_rows; i++) {
		const struct screen_row *w = &s->rows[i];
		if (w->kind == 'S' && w->reason == reason && !pmh_strncmp(w->id, id, k) &&
		    (!w->id[k] || w->id[k] == '@'))
			return true;
	}
	return false;
}

/* The row that goes from a full table: the oldest that is no failure, a
 * SKIP last (its row stands for its check on every CPU: one gone would
 * come back with the next CPU's SKIP and be hidden twice); the oldest of
 * all where every row is a failure. */
static unsigned evicted(const struct screen *s)
{
	for (unsigned skip = 0; skip < 2; skip++)
		for (unsigned i = 0; i < s->n_rows; i++)
			if (!screen_row_kept(s->rows[i].kind) && (skip || s->rows[i].kind != 'S'))
				return i;
	return 0;
}

bool screen_add_row(struct screen *s, char kind, const char *id, size_t id_len, const char *why)
{
	struct screen_row *r;
	uint8_t reason = kind == 'C' || kind == 'X' ? NO_REASON : reason_of(s, why);

	if (kind == 'S' && reason != NO_REASON) {
		s->reason_skips[reason]++;
		if (skip_listed(s, id, id_len, reason))
			return false;
	}
	if (s->n_rows == SCREEN_MAX_ROWS) { /* the oldest that is no failure goes */
		unsigned i = evicted(s);
		if (i + 1 < s->ev_pending) /* the waiting rows move up one */
			s->ev_pending--;
		for (; i + 1 < s->n_rows; i++)
			s->rows[i] = s->rows[i + 1];
		s->n_rows--;
		s->dropped++;
	}
	r = &s->rows[s->n_rows++];
	r->kind = kind;
	pmh_slice(r->id, sizeof(r->id), id, id_len);
	r->reason = kind == 'C' || kind == 'X' ? ev_text_of(s, why) : reason;
	return true;
}

/* "  event.coverage: amd-k8: 41 of 87 ..." as a 'C' row with the text
 * after the key; "  event: FAIL TABLE NAME (ENC) ...: RULE, expected 5..9,
 * got 3..." as an 'X' row named NAME with the text from "expected". Both
 * wait for the check's own row. */
bool screen_event_line(struct screen *s, const char *line)
{
	const char *id, *e, *t;
	char kind, cov[SCREEN_REASON_MAX];

	while (*line == ' ')
		line++;
	if (PREFIX(line, EVENT_LINE_COVERAGE)) {
		kind = 'C';
		id = e = t = line + sizeof(EVENT_LINE_COVERAGE) - 1;
	} else if (PREFIX(line, EVENT_LINE_FAIL)) {
		kind = 'X';
		id = line + sizeof(EVENT_LINE_FAIL) - 1; /* the table, then the name */
		e = word_end(id);
		if (*e == ' ' && e[1] && e[1] != '(') {
			id = e + 1;
			e = word_end(id);
		}
		for (t = e; *t && pmh_strncmp(t, "expected ", 9);)
			t++;
		t = *t ? t : e;
	} else {
		return false;
	}
	while (*t == ' ' || *t == ':')
		t++;
	if (kind == 'C') {
		coverage_text(cov, sizeof(cov), t);
		t = cov;
	}
	screen_add_row(s, kind, id, (size_t)(e - id), t);
	if (!s->ev_pending)
		s->ev_pending = s->n_rows; /* 1 + the new row's index */
	return true;
}

/* rows[to] to rows[at], the rows between one down. */
static void move_up(struct screen *s, unsigned at, unsigned to)
{
	struct screen_row r = s->rows[to];

	for (unsigned i = to; i > at; i--)
		s->rows[i] = s->rows[i - 1];
	s->rows[at] = r;
}

void screen_result_row(struct screen *s, char kind, const char *id, size_t id_len, const char *why)
{
	size_t l = sizeof(EVENT_CHECK_ID) - 1;

	/* a SKIP counted in another CPU's row adds none: nothing to move */
	if (!screen_add_row(s, kind, id, id_len, why)) { /* may move the waiting rows up */
		s->ev_pending = 0;
		return;
	}
	unsigned at = s->ev_pending ? s->ev_pending - 1 : s->n_rows;
	s->ev_pending = 0; /* another check's row: they wait no more */
	if (at >= s->n_rows - 1 || id_len < l || pmh_strncmp(id, EVENT_CHECK_ID, l) ||
	    (id_len > l && id[l] != '@'))
		return;
	/* event.semantics' row before the rows that waited for it, and each
	 * catalogue's coverage (printed after its rows) before its failures */
	move_up(s, at, s->n_rows - 1);
	for (unsigned i = at + 1, first = i; i < s->n_rows; i++) {
		if (s->rows[i].kind != 'C')
			continue;
		move_up(s, first, i);
		first = i + 1;
	}
}

const char *screen_event_row_text(const struct screen *s, const struct screen_row *w, char *buf,
				  size_t n)
{
	const char *t = w->reason == SCREEN_NO_TEXT ? "(see the log)" : s->ev_text[w->reason];

	if (w->kind == 'X')
		pmh_fmt(buf, n, "    FAIL %s  %s", w->id, t);
	else
		pmh_fmt(buf, n, "    %s", t);
	return buf;
}
