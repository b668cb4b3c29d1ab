/* The machine's screen laid out on a character grid (screen.h): header,
 * progress, the results that fit, and the verdict box or crash panel. */
#include "screen.h"
#include "suite.h"
#include "report_events.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define HEAD_ROWS 6		 /* title, four identification rows, progress */
#define BOX_ROWS  5		 /* the verdict box: blank, word, reason, files, blank */
#define LABEL_W	  5		 /* "PASS " before a result's id */
#define ROW_TEXT  200		 /* one laid-out row before it is cut to the width */
#define NO_REASON SCREEN_NO_TEXT /* a row whose reason did not fit the reasons table */
#define TEXT	  SCREEN_ATTR(SC_LIGHTGRAY, SC_BLACK)
#define TITLE	  SCREEN_ATTR(SC_BLACK, SC_CYAN)
#define PROGRESS  SCREEN_ATTR(SC_BLACK, SC_LIGHTGRAY)

void screen_init(struct screen *s, unsigned w, unsigned h, struct screen_cell *grid)
{
	pmh_memset(s, 0, sizeof(*s));
	s->w = w;
	s->h = h;
	s->grid = grid;
	s->verdict = -1;
}

/* src into dst cut to w characters, at a space where there is one in the
 * second half, and "..." where it was cut: never a word cut in two. */
static void fit(char *dst, const char *src, unsigned w)
{
	size_t l = pmh_strlen(src), cut;

	if (l <= w) {
		pmh_memcpy(dst, src, l + 1);
		return;
	}
	cut = w > 3 ? w - 3 : 0;
	for (size_t i = cut; i > w / 2; i--)
		if (src[i] == ' ') {
			cut = i;
			break;
		}
	while (cut && src[cut - 1] == ' ')
		cut--;
	pmh_memcpy(dst, src, cut);
	pmh_memcpy(dst + cut, "...", 4);
}

/* Row r filled with attr and the text cut to the width from column 1. */
static void put(struct screen *s, unsigned r, const char *text, uint8_t attr)
{
	char line[ROW_TEXT + 4];
	struct screen_cell *c = s->grid + (size_t)r * s->w;
	unsigned wmax = s->w - 2 < ROW_TEXT ? s->w - 2 : ROW_TEXT;

	if (r >= s->h)
		return;
	fit(line, text, wmax);
	for (unsigned i = 0; i < s->w; i++) {
		c[i].attr = attr;
		c[i].ch = ' ';
	}
	for (unsigned i = 0; line[i]; i++)
		c[i + 1].ch = line[i];
}

static void put_centred(struct screen *s, unsigned r, const char *text, uint8_t attr)
{
	unsigned l = (unsigned)pmh_strlen(text);
	unsigned pad = l + 2 < s->w ? (s->w - l) / 2 - 1 : 0;
	char line[ROW_TEXT + 4];

	pmh_fmt(line, sizeof(line), "%*s%s", (int)pad, "", text);
	put(s, r, line, attr);
}

static void clear_run(struct screen *s)
{
	s->n_rows = s->n_reasons = s->dropped = s->n_ev_texts = s->ev_pending = 0;
	pmh_memset(s->reason_skips, 0, sizeof(s->reason_skips));
	s->crash.n = 0;
	s->files[0] = s->where[0] = s->why[0] = s->prompt[0] = s->progress[0] = 0;
	s->ended = false;
	s->verdict = -1;
}

static void title(struct screen *s, const char *version)
{
	pmh_fmt(s->head[0], sizeof(s->head[0]), "pmuharness %s - PMU validator", version);
}

static void ident(struct screen *s, const struct screen_ident *d)
{
	const char *u = "unknown";

	if (d->version)
		title(s, d->version);
	pmh_fmt(s->head[1], sizeof(s->head[1]), "CPU      %s", d->brand ? d->brand : u);
	pmh_fmt(s->head[2], sizeof(s->head[2]),
		"Family   0x%x model 0x%x stepping 0x%x   microcode %s", d->family, d->model,
		d->stepping, d->microcode_valid ? "" : "not read");
	if (d->microcode_valid) {
		size_t l = pmh_strlen(s->head[2]);
		pmh_fmt(s->head[2] + l, sizeof(s->head[2]) - l, "0x%x", d->microcode);
	}
	char v[16] = "", fx[32] = "";
	if (d->pmu_version)
		pmh_fmt(v, sizeof(v), " v%u", d->pmu_version);
	if (d->n_fixed)
		pmh_fmt(fx, sizeof(fx), ", %u x %u-bit fixed", d->n_fixed, d->fixed_width);
	pmh_fmt(s->head[3], sizeof(s->head[3]), "PMU      %s%s: %u x %u-bit general%s   APIC %s",
		d->driver ? d->driver : u, v, d->n_gp, d->gp_width, fx,
		d->apic_mode ? d->apic_mode : u);
	pmh_fmt(s->head[4], sizeof(s->head[4]), "Board    %s   Firmware %s",
		d->board ? d->board : u, d->firmware ? d->firmware : u);
}

void screen_event(struct screen *s, const struct screen_event *ev)
{
	unsigned sec = (unsigned)(ev->elapsed_us / 1000000u);

	switch (ev->kind) {
	case SEV_START:
		if (s->ended)
			clear_run(s);
		s->prompt[0] = 0; /* the countdown's, before the run */
		s->started = true;
		break;
	case SEV_IDENT:
		ident(s, ev->ident);
		break;
	case SEV_PROGRESS:
		s->cpu = ev->cpu;
		pmh_fmt(s->progress, sizeof(s->progress), "Check %u of %u: %s   elapsed %u:%02u",
			ev->i, ev->n, ev->id, sec / 60, sec % 60);
		pmh_strlcpy(s->crash.check, ev->id, sizeof(s->crash.check));
		s->crash.cpu = ev->cpu;
		break;
	case SEV_END:
		s->ended = true;
		s->verdict = ev->verdict;
		s->saved = ev->saved;
		pmh_fmt(s->progress, sizeof(s->progress), "Finished after %u:%02u", sec / 60,
			sec % 60);
		break;
	}
}

static size_t id_len(const char *id, char stop)
{
	size_t n = 0;
	while (id[n] && id[n] != '@' && id[n] != stop)
		n++;
	return n;
}

static bool starts(const char *s, const char *p)
{
	return !pmh_strncmp(s, p, pmh_strlen(p));
}

static bool has(const char *s, const char *word)
{
	for (size_t n = pmh_strlen(word); *s; s++)
		if (!pmh_strncmp(s, word, n))
			return true;
	return false;
}

void screen_line(struct screen *s, const char *line)
{
	static const char kinds[] = "PFS";
	static const char *const labels[] = {"PASS", "FAIL", "SKIP"};

	for (unsigned k = 0; k < 3; k++) {
		if (!starts(line, labels[k]))
			continue;
		/* "PASS id", or "PASS: id" (output = kvm-unit-tests) */
		const char *id = line + LABEL_W - 1 + (line[LABEL_W - 1] == ':');
		if (*id++ != ' ')
			continue;
		const char *e = id;
		while (*e && *e != ' ' && *e != ':')
			e++;
		const char *why = *e == ':' ? e + 1 : e;
		while (*why == ' ')
			why++;
		screen_result_row(s, kinds[k], id, (size_t)(e - id), why);
		return;
	}
	if (screen_event_line(s, line))
		return;
	if (starts(line, "pmuharness: "))
		title(s, line + 12);
	else if (starts(line, "verdict: "))
		pmh_strlcpy(s->why, line + 9, sizeof(s->why));
	else if (starts(line, "results.files: "))
		pmh_strlcpy(s->files, line + 15, sizeof(s->files));
	else if (starts(line, "error: ") || starts(line, "warning: ")) {
		bool err = line[0] == 'e';
		const char *why = line + (err ? 7 : 9);
		if (has(why, "results file") || has(why, "results JSON") || has(why, "log file"))
			pmh_strlcpy(s->where, why, sizeof(s->where));
		screen_add_row(s, err ? 'E' : 'W', "", 0, why);
	} else if (starts(line, "config: ")) {
		/* a bad line of pmuharness.cfg or the load options: printed
		 * before the layout is drawn, kept as an error row so that it
		 * does not scroll away unseen */
		screen_add_row(s, 'E', "", 0, line);
	}
}

void screen_prompt(struct screen *s, const char *line)
{
	if (starts(line, "results.saved: "))
		return; /* the verdict box says it */
	if (starts(line, "error: ") || starts(line, "warning: ")) {
		screen_line(s, line);
		return;
	}
	pmh_strlcpy(s->prompt, line, sizeof(s->prompt));
}

void screen_fatal(struct screen *s, const char *line)
{
	if (!line[0] || s->crash.n == SCREEN_CRASH_LINES)
		return;
	pmh_strlcpy(s->crash.line[s->crash.n++], starts(line, "fatal: ") ? line + 7 : line,
		    SCREEN_CRASH_LINE_MAX);
}

/* One entry of the results area: a row, or a SKIP reason shared by
 * several rows (two lines: the reason, then the checks). */
struct item {
	uint8_t row, lines;
	bool group, keep;
};

/* The SKIPs of a reason: all of them, not only the rows kept. */
static unsigned skips(const struct screen *s, uint8_t reason)
{
	return reason < SCREEN_MAX_REASONS ? s->reason_skips[reason] : 0;
}

static unsigned items_of(const struct screen *s, struct item *it)
{
	bool seen[SCREEN_MAX_REASONS] = {0};
	unsigned n = 0;

	for (unsigned i = 0; i < s->n_rows; i++) {
		const struct screen_row *r = &s->rows[i];
		bool grp = r->kind == 'S' && r->reason != NO_REASON && skips(s, r->reason) > 1;
		if (grp && seen[r->reason])
			continue;
		if (grp)
			seen[r->reason] = true;
		it[n++] = (struct item){(uint8_t)i, (uint8_t)(grp ? 2 : 1), grp, false};
	}
	return n;
}

/* Marks what fits in avail lines, one kept for the count of the hidden:
 * failures and errors first, then the shared SKIP reasons, then the
 * newest. Returns how many rows are hidden. */
static unsigned choose(const struct screen *s, struct item *it, unsigned n, unsigned avail)
{
	unsigned total = s->dropped ? 1 : 0, hidden = s->dropped;

	for (unsigned i = 0; i < n; i++)
		total += it[i].lines;
	if (total <= avail) {
		for (unsigned i = 0; i < n; i++)
			it[i].keep = true;
		return hidden;
	}
	avail = avail ? avail - 1 : 0;
	for (unsigned pass = 0; pass < 3; pass++) {
		for (unsigned i = n; i-- > 0;) {
			char k = s->rows[it[i].row].kind;
			bool want = pass == 0	? screen_row_kept(k)
				    : pass == 1 ? it[i].group || k == 'C'
						: true;
			if (!it[i].keep && want && it[i].lines <= avail) {
				it[i].keep = true;
				avail -= it[i].lines;
			}
		}
	}
	for (unsigned i = 0; i < n; i++)
		hidden += !it[i].keep;
	return hidden;
}

/* "SKIP count.* (5), apic.nmi": the checks that share a reason, once
 * each however many CPUs skipped them, a family of several as family.*. */
static void group_ids(const struct screen *s, uint8_t reason, char *out, size_t cap)
{
	struct pmh_sb sb;
	char id[SCREEN_ID_MAX];
	const char *first = 0;
	unsigned k = 0;

	pmh_sb_init(&sb, out, cap);
	pmh_sb_add(&sb, "SKIP");
	for (unsigned i = 0; i <= s->n_rows; i++) {
		const struct screen_row *r = i < s->n_rows ? &s->rows[i] : 0;
		if (r && (r->kind != 'S' || r->reason != reason))
			continue;
		bool dup = false;
		for (unsigned j = 0; r && j < i && !dup; j++)
			dup = s->rows[j].kind == 'S' && s->rows[j].reason == reason &&
			      id_len(s->rows[j].id, 0) == id_len(r->id, 0) &&
			      !pmh_strncmp(s->rows[j].id, r->id, id_len(r->id, 0));
		if (dup)
			continue;
		size_t fl = first ? id_len(first, '.') : 0;
		if (r && first && id_len(r->id, '.') == fl && !pmh_strncmp(r->id, first, fl)) {
			k++;
			continue;
		}
		if (first) {
			pmh_slice(id, sizeof(id), first, k > 1 ? fl : id_len(first, 0));
			pmh_sb_add(&sb, "%s%s%s", sb.len > 4 ? ", " : " ", id, k > 1 ? ".*" : "");
			if (k > 1)
				pmh_sb_add(&sb, " (%u)", k);
		}
		first = r ? r->id : 0;
		k = 1;
	}
}

static void results(struct screen *s, unsigned top, unsigned bottom)
{
	static const char kinds[] = "PFSEW";
	static const char *const labels[] = {"PASS", "FAIL", "SKIP", "ERROR", "WARN"};
	static const uint8_t attrs[] = {SC_LIGHTGREEN, SC_LIGHTRED, SC_YELLOW, SC_LIGHTRED,
					SC_YELLOW};
	struct item it[SCREEN_MAX_ROWS];
	unsigned n = items_of(s, it), r = top;
	unsigned hidden = choose(s, it, n, bottom > top ? bottom - top : 0);
	char line[ROW_TEXT];

	if (hidden) {
		pmh_fmt(line, sizeof(line), "... %u more rows hidden (every row is in the log)",
			hidden);
		put(s, r++, line, TEXT);
	}
	for (unsigned i = 0; i < n && r < bottom; i++) {
		const struct screen_row *w = &s->rows[it[i].row];
		if (!it[i].keep)
			continue;
		if (w->kind == 'C' || w->kind == 'X') { /* under event.semantics' row */
			put(s, r++, screen_event_row_text(s, w, line, sizeof(line)),
			    w->kind == 'X' ? SC_LIGHTRED : SC_LIGHTCYAN);
			continue;
		}
		const char *why = w->reason == NO_REASON ? "(see the log)" : s->reason[w->reason];
		unsigned k = (unsigned)(pmh_strchr(kinds, w->kind) - kinds);
		if (it[i].group) {
			pmh_fmt(line, sizeof(line), "%u skipped: %s", skips(s, w->reason), why);
			put(s, r++, line, SC_YELLOW);
			group_ids(s, w->reason, line, sizeof(line));
			put(s, r++, line, SC_BROWN);
			continue;
		}
		pmh_fmt(line, sizeof(line), "%-5s %s%s%s", labels[k], w->id, w->id[0] ? "  " : "",
			why);
		put(s, r++, line, attrs[k]);
	}
}

/* The end: the verdict in spaced capitals on its colour, its reason, and
 * where the results went or why they are not in files. */
static void verdict_box(struct screen *s, unsigned top)
{
	static const uint8_t attr[] = {[RV_PASS] = SCREEN_PASS,
				       [RV_FAIL] = SCREEN_FAIL,
				       [RV_ERROR] = SCREEN_ERROR,
				       [RV_NO_PMU] = SCREEN_NO_PMU,
				       [RV_NO_VERDICT] = SCREEN_NO_VERDICT};
	enum run_verdict v = s->verdict >= 0 && s->verdict <= RV_NO_VERDICT
				 ? (enum run_verdict)s->verdict
				 : RV_ERROR;
	const char *name = run_verdict_name(v);
	char word[32], line[ROW_TEXT];
	size_t n = 0;

	for (size_t i = 0; name[i] && n + 3 < sizeof(word); i++) {
		word[n++] = name[i];
		word[n++] = ' ';
	}
	word[n ? n - 1 : 0] = 0;
	pmh_fmt(line, sizeof(line), "*****   %s   *****", word);
	put(s, top, "", attr[v]);
	put_centred(s, top + 1, line, attr[v]);
	put_centred(s, top + 2, s->why, attr[v]);
	if (s->saved)
		pmh_fmt(line, sizeof(line), "Results saved beside the binary: %s", s->files);
	else
		pmh_fmt(line, sizeof(line), "Results NOT saved to files: %s",
			s->where[0]   ? s->where
			: s->files[0] ? "see the lines above"
				      : "no results files were opened");
	put_centred(s, top + 3, line, attr[v]);
	put(s, top + 4, "", attr[v]);
}

static void crash_panel(struct screen *s, unsigned top)
{
	char line[ROW_TEXT];

	/* An AP's checks report no progress: the last one started is said
	 * with its CPU, not claimed as the one that crashed. */
	pmh_fmt(line, sizeof(line), "CRASH: unexpected exception; last check started: %s on CPU %u",
		s->crash.check[0] ? s->crash.check : "none", s->crash.cpu);
	put(s, top, line, SCREEN_CRASH);
	for (unsigned i = 0; i < s->crash.n; i++)
		put(s, top + 1 + i, s->crash.line[i], SCREEN_CRASH);
}

void screen_render(struct screen *s)
{
	unsigned bottom = s->h - 1;
	char line[ROW_TEXT];

	for (size_t i = 0; i < (size_t)s->w * s->h; i++)
		s->grid[i] = (struct screen_cell){' ', TEXT};
	pmh_fmt(line, sizeof(line), "%s   CPU %u", s->head[0][0] ? s->head[0] : "pmuharness",
		s->cpu);
	put(s, 0, line, TITLE);
	for (unsigned r = 1; r < HEAD_ROWS - 1; r++)
		put(s, r, s->head[r], SC_WHITE);
	put(s, HEAD_ROWS - 1, s->progress, PROGRESS);
	put(s, bottom, s->prompt, TEXT);
	if (s->ended && bottom >= HEAD_ROWS + BOX_ROWS) {
		bottom -= BOX_ROWS;
		verdict_box(s, bottom);
	}
	if (s->crash.n && bottom >= HEAD_ROWS + s->crash.n + 1) {
		bottom -= s->crash.n + 1;
		crash_panel(s, bottom);
	}
	results(s, HEAD_ROWS, bottom);
}
