/* pmuharness.cfg: "key = value" lines read into the options (options.c),
 * every bad line named by its number and skipped, under the rules docs/user-guide.md
 * states (Options): the default kept, the run going on, user text escaped. */
#include "options_parse.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define CONFIG_LINE_MAX 256  /* a pmuharness.cfg line, with NUL */
#define ASCII_CTRL_END	0x20 /* bytes below are control characters ... */
#define ASCII_DEL	0x7f /* ... and so is DEL */

/* A line as read: cut when longer than the buffer, or holding a control
 * character (the first one is kept for the message). */
struct line_read {
	bool toolong;
	unsigned ctrl; /* 0 = none */
	bool has_ctrl;
};

static bool is_ctrl(const struct pmh_text *t, size_t i, unsigned c)
{
	if (c == '\t')
		return false;
	if (c == '\r') /* a CR only before the newline (CRLF) or at the end */
		return i + 1 < t->n && pmh_text_at(t, i + 1) != '\n';
	return c < ASCII_CTRL_END || c == ASCII_DEL;
}

/* Copies the line at *pos into line, cut to fit, and moves *pos past its
 * newline. */
static struct line_read next_line(const struct pmh_text *t, size_t *pos, char *line, size_t size)
{
	struct line_read r = {false, 0, false};
	size_t n = 0;

	for (unsigned c; *pos < t->n && (c = pmh_text_at(t, *pos)) != '\n'; (*pos)++) {
		if (is_ctrl(t, *pos, c) && !r.has_ctrl) {
			r.has_ctrl = true;
			r.ctrl = c;
		}
		if (n + 1 < size)
			line[n++] = (char)c;
		else
			r.toolong = true;
	}
	(*pos)++; /* the newline */
	line[n] = 0;
	return r;
}

/* The line without its comment and surrounding blanks. */
static char *strip_line(char *line)
{
	char *s = line;
	for (char *p = line; *p; p++)
		if (*p == '#') {
			*p = 0;
			break;
		}
	while (pmh_isspace(*s))
		s++;
	size_t l = pmh_strlen(s);
	while (l && pmh_isspace(s[l - 1]))
		s[--l] = 0;
	return s;
}

/* A line that is read but not applied: too long (unless a comment) or
 * with a control character. 0 when it can be parsed. */
static int line_unusable(const struct line_read *r, const char *line, unsigned lineno, char *msg,
			 size_t n)
{
	const char *s = line;
	while (pmh_isspace(*s))
		s++;
	if (r->has_ctrl) {
		pmh_fmt(msg, n, "line %u: control character 0x%02x, line ignored", lineno, r->ctrl);
		return -1;
	}
	if (r->toolong && *s != '#') {
		pmh_fmt(msg, n, "line %u: longer than %u characters, ignored", lineno,
			CONFIG_LINE_MAX - 1);
		return -1;
	}
	return 0;
}

/* One non-blank "key = value" line: 0, or -1 with the complaint in msg. */
static int config_line(struct options *o, const char *s, unsigned lineno, char *msg, size_t n)
{
	char key[OPT_KEY_MAX], err[OPT_ERR_MAX], at[sizeof(((struct options *)0)->event_at)];

	const char *eq = pmh_strchr(s, '=');
	if (!eq) {
		pmh_fmt(msg, n, "line %u: expected \"key = value\", got \"%s\"", lineno, s);
		return -1;
	}
	size_t kl = (size_t)(eq - s);
	while (kl && pmh_isspace(s[kl - 1]))
		kl--;
	if (!kl || kl >= sizeof(key)) {
		pmh_fmt(msg, n, "line %u: missing or over-long key", lineno);
		return -1;
	}
	pmh_slice(key, sizeof(key), s, kl);
	const char *val = eq + 1;
	while (pmh_isspace(*val))
		val++;
	if (!*val) {
		pmh_fmt(msg, n, "line %u: %s has no value", lineno, key);
		return -1;
	}
	pmh_fmt(at, sizeof(at), OPTIONS_CONFIG_NAME " line %u", lineno);
	if (options_set(o, key, val, at, err, sizeof(err)) == 0)
		return 0;
	pmh_fmt(msg, n, "line %u: %s", lineno, err);
	return -1;
}

/* The line the platform's read limit cut (the file is larger than what
 * was read): neither it nor anything after it is applied. */
static void cut_here(unsigned lineno, bool mid_line, size_t len, size_t size, options_err_fn errfn,
		     void *ctx, int *bad)
{
	char msg[OPT_MSG_MAX];

	pmh_fmt(msg, sizeof(msg),
		"line %u: the file is %llu bytes and only the first %llu are read: %s", lineno,
		(unsigned long long)size, (unsigned long long)len,
		mid_line ? "this line, cut there, and the rest are ignored"
			 : "this line and the rest are ignored");
	options_complain(errfn, ctx, msg, bad);
}

int options_parse_config_cut(struct options *o, const char *text, size_t len, size_t size,
			     options_err_fn errfn, void *ctx)
{
	char line[CONFIG_LINE_MAX], msg[OPT_MSG_MAX];
	struct pmh_text t;
	size_t pos = 0;
	unsigned lineno = 0;
	int bad = 0;

	if (!pmh_text_open(&t, text, len)) {
		options_complain(errfn, ctx,
				 "UTF-16 text that is not plain ASCII: file ignored (save it as "
				 "ASCII or UTF-8)",
				 &bad);
		return bad;
	}
	while (pos < t.n) {
		struct line_read r = next_line(&t, &pos, line, sizeof(line));

		lineno++;
		if (size > len && pos > t.n) { /* no newline before the cut */
			cut_here(lineno, true, len, size, errfn, ctx, &bad);
			return bad;
		}
		if (line_unusable(&r, line, lineno, msg, sizeof(msg))) {
			options_complain(errfn, ctx, msg, &bad);
			continue;
		}
		const char *s = strip_line(line);
		if (*s && config_line(o, s, lineno, msg, sizeof(msg)))
			options_complain(errfn, ctx, msg, &bad);
	}
	if (size > len)
		cut_here(lineno + 1, false, len, size, errfn, ctx, &bad);
	return bad;
}

int options_parse_config(struct options *o, const char *text, size_t len, options_err_fn errfn,
			 void *ctx)
{
	return options_parse_config_cut(o, text, len, len, errfn, ctx);
}
