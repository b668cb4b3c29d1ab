/* event.semantics on the screen (screen.h): a catalogue's coverage line
 * and each failing event as rows under the check's own row. The check
 * prints them (report_events.h names the lines) before its result line,
 * so they wait at the end of the rows until that row comes. */
#include "screen.h"
#include "report_events.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define PREFIX(line, p) (!pmh_strncmp(line, p, sizeof(p) - 1))

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

	screen_add_row(s, kind, id, id_len, why); /* may move the waiting rows up */
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
