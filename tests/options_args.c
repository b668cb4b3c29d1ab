/* Load options: the words after the image name, as the simulator's argv,
 * the UEFI shell's argv (UCS-2) or a boot entry's UCS-2 string. One reader
 * of words for all three, so that a word means the same wherever it comes
 * from: "key=value", "--key=value", "--key value" or "--flag"; any other
 * word is an error naming its number, and skipped (docs/user-guide.md "Options"). */
#include "options_parse.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define WORD_MAX    (OPTIONS_ARG_MAX + 1) /* a word, with NUL */
#define SHOWN_UNITS 48			  /* of a refused word, quoted in its message */
#define SHOWN_MAX   (SHOWN_UNITS * 6 + 4) /* each unit at most "\uXXXX", then "..." */
#define ASCII_FIRST 0x20		  /* printable ASCII: space ... */
#define ASCII_LAST  0x7e		  /* ... to tilde */

/* The reader between words: a --key that waits for its value word. */
struct args {
	struct options *o;
	options_err_fn errfn;
	void *ctx;
	int bad;
	unsigned argno;	       /* the current word's number, from 1 */
	char key[OPT_KEY_MAX]; /* the --key waiting ("" when none) */
	unsigned key_argno;
	bool key_is_flag; /* a --flag: yes unless a yes/no word follows */
};

static void complain(struct args *a, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void complain(struct args *a, const char *f, ...)
{
	char msg[OPT_MSG_MAX];
	va_list ap;

	va_start(ap, f);
	pmh_vfmt(msg, sizeof(msg), f, ap);
	va_end(ap);
	options_complain(a->errfn, a->ctx, msg, &a->bad);
}

/* The option name up to eq (or the end) with '-' read as '_'; -1 when it is
 * empty or too long. */
static int arg_key(const char *k, const char *eq, char *key, size_t n)
{
	size_t kl = eq ? (size_t)(eq - k) : pmh_strlen(k);

	if (!kl || kl >= n)
		return -1;
	pmh_slice(key, n, k, kl);
	for (char *p = key; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}

static void apply(struct args *a, const char *key, const char *val, unsigned argno,
		  const char *word)
{
	char err[OPT_ERR_MAX], at[sizeof(a->o->event_at)];

	pmh_fmt(at, sizeof(at), "argument %u", argno);
	if (options_set(a->o, key, val, at, err, sizeof(err)))
		complain(a, "argument %u \"%s\": %s", a->argno, word, err);
}

/* One plain-ASCII word. */
static void arg_word(struct args *a, const char *w)
{
	const char *k = w, *eq;
	char key[OPT_KEY_MAX];

	if (a->key[0] && (!a->key_is_flag || options_is_bool(w))) {
		apply(a, a->key, w, a->key_argno, w); /* the value of the --key before */
		a->key[0] = 0;
		return;
	}
	if (a->key[0]) { /* a bare --flag, then another word */
		apply(a, a->key, "1", a->key_argno, a->key);
		a->key[0] = 0;
	}
	if (!pmh_strcasecmp(w, "help") || !pmh_strcasecmp(w, "--help") || !pmh_strcmp(w, "-h") ||
	    !pmh_strcmp(w, "-?")) {
		a->o->help = true;
		return;
	}
	bool dashed = k[0] == '-' && k[1] == '-';
	if (dashed)
		k += 2;
	eq = pmh_strchr(k, '=');
	if (!dashed && !eq) {
		complain(a, "argument %u \"%s\": not an option (key=value, --key value or --flag)",
			 a->argno, w);
		return;
	}
	if (arg_key(k, eq, key, sizeof(key))) {
		complain(a, "argument %u \"%s\": bad option name", a->argno, w);
		return;
	}
	if (eq) {
		apply(a, key, eq + 1, a->argno, w);
	} else {
		pmh_strlcpy(a->key, key, sizeof(a->key));
		a->key_argno = a->argno;
		a->key_is_flag = options_is_flag(key);
	}
}

/* A word that could not be read (not plain ASCII, too long): a --key
 * waiting for it goes with it. */
static void refuse_word(struct args *a, const char *shown, const char *why)
{
	if (a->key[0] && a->key_is_flag) /* not a yes/no word: the flag stands */
		apply(a, a->key, "1", a->key_argno, a->key);
	else if (a->key[0])
		complain(a, "argument %u \"%s\", the value of argument %u: %s; option ignored",
			 a->argno, shown, a->key_argno, why);
	if (!a->key[0] || a->key_is_flag)
		complain(a, "argument %u \"%s\": %s; ignored", a->argno, shown, why);
	a->key[0] = 0;
}

static int args_end(struct args *a)
{
	if (a->key[0] && a->key_is_flag)
		apply(a, a->key, "1", a->key_argno, a->key);
	else if (a->key[0])
		complain(a, "argument %u \"--%s\": no value follows", a->key_argno, a->key);
	return a->bad;
}

int options_parse_args(struct options *o, int argc, char *const argv[], options_err_fn errfn,
		       void *ctx)
{
	struct args a = {.o = o, .errfn = errfn, .ctx = ctx};

	for (int i = 0; i < argc; i++) {
		a.argno = (unsigned)i + 1;
		arg_word(&a, argv[i]);
	}
	return args_end(&a);
}

/* ---- UCS-2 words ------------------------------------------------------ */

/* A word read from UCS-2 units: the ASCII text, or why it is refused. */
struct word {
	char s[WORD_MAX];
	size_t n;	   /* characters read (also past WORD_MAX) */
	unsigned bad_unit; /* the first unit outside printable ASCII */
	bool has_bad;
	char shown[SHOWN_MAX]; /* the start of it, for a message */
	size_t shown_n;
};

static void word_add(struct word *w, unsigned u)
{
	bool ok = u >= ASCII_FIRST && u <= ASCII_LAST;

	if (!ok && !w->has_bad) {
		w->has_bad = true;
		w->bad_unit = u;
	}
	if (w->n + 1 < sizeof(w->s))
		w->s[w->n] = (char)u;
	w->n++;
	if (w->n <= SHOWN_UNITS)
		w->shown_n +=
		    ok ? pmh_fmt(w->shown + w->shown_n, sizeof(w->shown) - w->shown_n, "%c", (int)u)
		       : pmh_fmt(w->shown + w->shown_n, sizeof(w->shown) - w->shown_n, "\\u%04x",
				 u);
	else if (w->n == SHOWN_UNITS + 1)
		w->shown_n += pmh_fmt(w->shown + w->shown_n, sizeof(w->shown) - w->shown_n, "...");
}

static void word_end(struct word *w)
{
	w->s[w->n < sizeof(w->s) ? w->n : sizeof(w->s) - 1] = 0;
}

/* The word's verdict: applied, or refused with the reason. */
static void wide_word(struct args *a, struct word *w)
{
	char why[64];

	word_end(w);
	if (w->has_bad) {
		pmh_fmt(why, sizeof(why), "character U+%04X is not printable ASCII", w->bad_unit);
		refuse_word(a, w->shown, why);
	} else if (w->n > OPTIONS_ARG_MAX) {
		pmh_fmt(why, sizeof(why), "longer than %u characters", OPTIONS_ARG_MAX);
		refuse_word(a, w->shown, why);
	} else {
		arg_word(a, w->s);
	}
}

int options_parse_wide_args(struct options *o, size_t argc, const uint16_t *const argv[],
			    options_err_fn errfn, void *ctx)
{
	struct args a = {.o = o, .errfn = errfn, .ctx = ctx};
	struct word w;

	for (size_t i = 0; i < argc; i++) {
		pmh_memset(&w, 0, sizeof(w));
		for (const uint16_t *p = argv[i]; p && *p; p++)
			word_add(&w, *p);
		a.argno = (unsigned)i + 1;
		wide_word(&a, &w);
	}
	return args_end(&a);
}

static bool blank(unsigned u)
{
	return u == ' ' || u == '\t';
}

/* Reads the word at *pos (blanks skipped before it; '"' groups blanks into
 * it and is dropped); false at the end of the text. */
static bool next_word(const uint16_t *t, size_t n, size_t *pos, struct word *w)
{
	bool quoted = false;

	while (*pos < n && blank(t[*pos]))
		(*pos)++;
	if (*pos >= n)
		return false;
	pmh_memset(w, 0, sizeof(*w));
	for (; *pos < n && (quoted || !blank(t[*pos])); (*pos)++) {
		if (t[*pos] == '"')
			quoted = !quoted;
		else
			word_add(w, t[*pos]);
	}
	return true;
}

/* A control character (other than a blank) before the first NUL: not text. */
static bool binary(const uint16_t *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i] < ASCII_FIRST && !blank(t[i]))
			return true;
	return false;
}

int options_parse_cmdline(struct options *o, const uint16_t *text, size_t units,
			  options_err_fn errfn, void *ctx)
{
	struct args a = {.o = o, .errfn = errfn, .ctx = ctx};
	struct word w;
	size_t n = 0, pos = 0;

	while (n < units && text[n])
		n++;
	if (binary(text, n)) {
		complain(&a, "not text (a boot entry's binary data, %llu bytes): ignored",
			 (unsigned long long)n * 2);
		return a.bad;
	}
	for (bool first = true; next_word(text, n, &pos, &w); first = false) {
		word_end(&w);
		/* a loader's own image path, "\EFI\pmuharness.efi": no option */
		if (first && w.s[0] != '-' && !pmh_strchr(w.s, '=') && pmh_strcasecmp(w.s, "help"))
			continue;
		a.argno++;
		wide_word(&a, &w);
	}
	return args_end(&a);
}
