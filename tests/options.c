/* Harness options: defaults and one parse function per key (a table names
 * them); the text they come in is read by options_config.c (the file) and
 * options_args.c (load options). The keys, their ranges and the rules for
 * bad input are documented in docs/user-guide.md "Options". */
#include "options_parse.h"
#include "../lib/str.h"
#include "../lib/fmt.h"
#include "../events/events_spec.h"

#define REPEAT_DEFAULT	  11   /* median of 11 measurements */
#define REPEAT_MAX	  1001 /* docs/user-guide.md "Options": repeat 1-1001 */
#define COUNTDOWN_DEFAULT 3    /* seconds (docs/user-guide.md "Options") */
#define COUNTDOWN_MAX	  60
#define CPU_NUMBER_MAX	  0xffff /* cpus[] holds 16-bit CPU numbers */
#define PRELOAD_MAX_WIDTH 0	 /* preload 0: the largest the counter width allows */
#define ITEM_MAX	  32	 /* one item of a comma list, with NUL */
#define ERR_MAX		  OPT_ERR_MAX
#define SUGGEST_MAX	  2		    /* edits from an unknown key to the one suggested */
#define SHOWN_MAX	  (OPT_MSG_MAX * 4) /* a complaint escaped: at most 4 bytes per byte */

/* on_finish values, in enum on_finish order. The tables here hold their
 * names as arrays, not pointers: each pointer costs the image a relocation. */
static const char finish_names[][10] = {"wait", "return", "poweroff", "qemu-exit"};
#define N_FINISH (sizeof(finish_names) / sizeof(finish_names[0]))
_Static_assert(N_FINISH == FINISH_QEMU_EXIT + 1, "a name for every enum on_finish value");

/* output values, in enum output order: the parser, the message and the
 * help line all read this one table. */
static const char output_names[][15] = {"text", "lava", "kvm-unit-tests"};
#define N_OUTPUT (sizeof(output_names) / sizeof(output_names[0]))
_Static_assert(N_OUTPUT == OUTPUT_KUT + 1, "a name for every enum output value");

/* docs/user-guide.md "Options": preload = 1,2,1000,max */
static const uint64_t default_preloads[] = {1, 2, 1000, PRELOAD_MAX_WIDTH};
#define N_DEFAULT_PRELOADS (sizeof(default_preloads) / sizeof(default_preloads[0]))
_Static_assert(N_DEFAULT_PRELOADS <= OPT_MAX_PRELOADS, "default preloads fit");

void options_default(struct options *o)
{
	pmh_memset(o, 0, sizeof(*o));
	o->on_finish = FINISH_WAIT;
	pmh_strlcpy(o->checks, "*", sizeof(o->checks));
	o->all_cpus = false; /* the boot CPU unless told otherwise */
	o->cpus_serial = false;
	o->repeat = REPEAT_DEFAULT;
	o->pmi = PMI_FIXED;
	o->n_preloads = N_DEFAULT_PRELOADS;
	pmh_memcpy(o->preloads, default_preloads, sizeof(default_preloads));
	o->countdown = COUNTDOWN_DEFAULT;
}

const char *options_finish_name(enum on_finish f)
{
	return (unsigned)f < N_FINISH ? finish_names[f] : finish_names[FINISH_WAIT];
}

static int parse_bool(const char *v, bool *out)
{
	if (!pmh_strcasecmp(v, "1") || !pmh_strcasecmp(v, "yes") || !pmh_strcasecmp(v, "true") ||
	    !pmh_strcasecmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!pmh_strcasecmp(v, "0") || !pmh_strcasecmp(v, "no") || !pmh_strcasecmp(v, "false") ||
	    !pmh_strcasecmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -1;
}

/* Splits a comma list in place-free fashion: calls fn for each item. */
static int for_each_item(const char *v, int (*fn)(void *, const char *), void *arg)
{
	char item[ITEM_MAX];
	size_t n = 0;

	for (;; v++) {
		if (*v == ',' || !*v) {
			while (n && pmh_isspace(item[n - 1]))
				n--;
			item[n] = 0;
			if (!n || fn(arg, item))
				return -1;
			n = 0;
			if (!*v)
				return 0;
			continue;
		}
		if (pmh_isspace(*v) && !n)
			continue;
		if (n + 1 >= sizeof(item))
			return -1;
		item[n++] = *v;
	}
}

static int add_cpu(void *arg, const char *item)
{
	struct options *o = arg;
	uint64_t v;
	if (!pmh_parse_u64(item, &v) || v > CPU_NUMBER_MAX || o->n_cpus >= OPT_MAX_CPUS)
		return -1;
	o->cpus[o->n_cpus++] = (uint16_t)v;
	return 0;
}

static int add_preload(void *arg, const char *item)
{
	struct options *o = arg;
	uint64_t v;
	if (o->n_preloads >= OPT_MAX_PRELOADS)
		return -1;
	if (!pmh_strcasecmp(item, "max")) {
		o->preloads[o->n_preloads++] = PRELOAD_MAX_WIDTH;
		return 0;
	}
	if (!pmh_parse_u64(item, &v) || v == 0)
		return -1;
	o->preloads[o->n_preloads++] = v;
	return 0;
}

/* ---- one function per key: 0, or -1 with the complaint in err ---------- */

static int set_on_finish(struct options *o, const char *val, char *err, size_t errlen)
{
	for (unsigned i = 0; i < N_FINISH; i++)
		if (!pmh_strcasecmp(val, finish_names[i])) {
			o->on_finish = (enum on_finish)i;
			o->on_finish_set = true;
			return 0;
		}
	pmh_fmt(err, errlen, "on_finish: \"%s\" is not one of wait, return, poweroff, qemu-exit",
		val);
	return -1;
}

/* "a | b | c" from the output table into buf. */
static const char *output_list(char *buf, size_t n, const char *sep)
{
	struct pmh_sb sb;

	pmh_sb_init(&sb, buf, n);
	for (unsigned i = 0; i < N_OUTPUT; i++)
		pmh_sb_add(&sb, "%s%s", i ? sep : "", output_names[i]);
	return buf;
}

static int set_output(struct options *o, const char *val, char *err, size_t errlen)
{
	char names[32];

	for (unsigned i = 0; i < N_OUTPUT; i++)
		if (!pmh_strcasecmp(val, output_names[i])) {
			o->output = (enum output)i;
			return 0;
		}
	pmh_fmt(err, errlen, "output: \"%s\" is not one of %s", val,
		output_list(names, sizeof(names), ", "));
	return -1;
}

/* Every set_* function follows the rule of docs/user-guide.md "Options": a bad value leaves the key
 * as it was before the line (the previous valid value, else the default). */
static int set_checks(struct options *o, const char *val, char *err, size_t errlen)
{
	if (!*val || pmh_strlen(val) >= sizeof(o->checks)) {
		pmh_fmt(err, errlen, "checks: empty or longer than %u characters",
			(unsigned)sizeof(o->checks) - 1);
		return -1;
	}
	pmh_strlcpy(o->checks, val, sizeof(o->checks));
	return 0;
}

static int set_cpus(struct options *o, const char *val, char *err, size_t errlen)
{
	struct options saved = *o;
	o->cpus_serial = !pmh_strcasecmp(val, "serial");
	o->all_cpus = o->cpus_serial || !pmh_strcasecmp(val, "all");
	o->n_cpus = 0;
	if (o->all_cpus)
		return 0;
	if (for_each_item(val, add_cpu, o)) {
		*o = saved;
		pmh_fmt(err, errlen,
			"cpus: \"%s\" is not \"all\", \"serial\" or a list of CPU numbers", val);
		return -1;
	}
	return 0;
}

static int set_repeat(struct options *o, const char *val, char *err, size_t errlen)
{
	uint64_t n;
	if (!pmh_parse_u64(val, &n) || n < 1 || n > REPEAT_MAX) {
		pmh_fmt(err, errlen, "repeat: \"%s\" is not a number from 1 to %u", val,
			REPEAT_MAX);
		return -1;
	}
	o->repeat = (unsigned)n;
	return 0;
}

static int set_pmi(struct options *o, const char *val, char *err, size_t errlen)
{
	if (!pmh_strcasecmp(val, "fixed"))
		o->pmi = PMI_FIXED;
	else if (!pmh_strcasecmp(val, "nmi"))
		o->pmi = PMI_NMI;
	else {
		pmh_fmt(err, errlen, "pmi: \"%s\" is not fixed or nmi", val);
		return -1;
	}
	return 0;
}

static int set_pmi_unmask(struct options *o, const char *val, char *err, size_t errlen)
{
	bool family = !pmh_strcasecmp(val, "family");
	if (!family && pmh_strcasecmp(val, "always")) {
		pmh_fmt(err, errlen, "pmi_unmask: \"%s\" is not always or family", val);
		return -1;
	}
	o->pmi_unmask_family = family;
	return 0;
}

static int set_preload(struct options *o, const char *val, char *err, size_t errlen)
{
	struct options saved = *o;
	o->n_preloads = 0;
	if (for_each_item(val, add_preload, o)) {
		*o = saved;
		pmh_fmt(err, errlen,
			"preload: \"%s\" is not a list of positive counts or \"max\" (at most %d)",
			val, OPT_MAX_PRELOADS);
		return -1;
	}
	return 0;
}

/* The syntax is judged here, so a bad spec is named with its line; what it
 * means for the CPU is judged when the CPU is known (events_resolve). */
/* events = all | none | comma-separated globs of event names (default:
 * the family's validated set, the empty string). */
static int set_events(struct options *o, const char *val, char *err, size_t errlen)
{
	if (!*val || pmh_strlen(val) >= sizeof(o->events)) {
		pmh_fmt(err, errlen, "events: empty or longer than %u characters",
			(unsigned)sizeof(o->events) - 1);
		return -1;
	}
	for (const char *p = val; *p; p++)
		if (!((*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z') ||
		      *p == '_' || *p == '.' || *p == '*' || *p == '?' || *p == ',' || *p == '=' ||
		      *p == ' ')) {
			pmh_fmt(err, errlen,
				"events: '%c' is not allowed: all, none, or event-name globs "
				"such as L2_RQSTS.*,RETIRED_*",
				*p);
			return -1;
		}
	pmh_strlcpy(o->events, val, sizeof(o->events));
	return 0;
}

static int set_event(struct options *o, const char *val, const char *at, char *err, size_t errlen)
{
	struct ev_spec spec;
	char why[ERR_MAX];

	if (pmh_strlen(val) >= sizeof(o->event)) {
		pmh_fmt(err, errlen, "event: longer than %u characters",
			(unsigned)sizeof(o->event) - 1);
		return -1;
	}
	if (ev_spec_parse(val, &spec, why, sizeof(why))) {
		pmh_fmt(err, errlen, "event: %s", why);
		return -1;
	}
	pmh_strlcpy(o->event, val, sizeof(o->event));
	pmh_strlcpy(o->event_at, at, sizeof(o->event_at));
	return 0;
}

static int set_countdown(struct options *o, const char *val, char *err, size_t errlen)
{
	uint64_t n;
	if (!pmh_parse_u64(val, &n) || n > COUNTDOWN_MAX) {
		pmh_fmt(err, errlen, "countdown: \"%s\" is not a number of seconds 0..%u", val,
			COUNTDOWN_MAX);
		return -1;
	}
	o->countdown = (unsigned)n;
	return 0;
}

/* A yes/no key into its field. */
static int set_flag(bool *field, const char *key, const char *val, char *err, size_t errlen)
{
	if (parse_bool(val, field)) {
		pmh_fmt(err, errlen, "%s: \"%s\" is not yes/no/1/0/true/false/on/off", key, val);
		return -1;
	}
	return 0;
}

/* The keys; the yes/no ones last (a bare --flag on the command line means
 * yes). Names are arrays, not pointers: a pointer costs the image a
 * relocation. */
enum option_id {
	KEY_ON_FINISH,
	KEY_CHECKS,
	KEY_CPUS,
	KEY_REPEAT,
	KEY_PMI,
	KEY_PMI_UNMASK,
	KEY_PRELOAD,
	KEY_EVENT,
	KEY_EVENTS,
	KEY_COUNTDOWN,
	KEY_OUTPUT,
	KEY_VERBOSE, /* the first yes/no key */
	KEY_LIST_EVENTS,
	KEY_JSON,
	N_KEYS
};
static const char key_names[N_KEYS][12] = {
    [KEY_ON_FINISH] = "on_finish",     [KEY_CHECKS] = "checks", [KEY_CPUS] = "cpus",
    [KEY_REPEAT] = "repeat",	       [KEY_PMI] = "pmi",	[KEY_PMI_UNMASK] = "pmi_unmask",
    [KEY_PRELOAD] = "preload",	       [KEY_EVENT] = "event",	[KEY_EVENTS] = "events",
    [KEY_COUNTDOWN] = "countdown",     [KEY_OUTPUT] = "output", [KEY_VERBOSE] = "verbose",
    [KEY_LIST_EVENTS] = "list_events", [KEY_JSON] = "json",
};

/* The number of single-character edits from a to b (each under
 * OPT_KEY_MAX), for "did you mean". */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[OPT_KEY_MAX + 1];
	size_t la = pmh_strlen(a), lb = pmh_strlen(b);

	if (la > OPT_KEY_MAX || lb > OPT_KEY_MAX)
		return OPT_KEY_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned same = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
			unsigned best = diag + same;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The key closest to an unknown one, NULL when none is close (at most
 * SUGGEST_MAX edits). */
static const char *nearest_key(const char *key)
{
	unsigned best = SUGGEST_MAX + 1;
	const char *name = NULL;

	for (unsigned i = 0; i < N_KEYS; i++) {
		unsigned d = edit_distance(key, key_names[i]);
		if (d < best) {
			best = d;
			name = key_names[i];
		}
	}
	return name;
}

/* The key's id, N_KEYS when unknown; keys, like yes/no values, ignore case. */
static enum option_id find_key(const char *key)
{
	unsigned i = 0;
	while (i < N_KEYS && pmh_strcasecmp(key, key_names[i]))
		i++;
	return (enum option_id)i;
}

bool options_is_bool(const char *word)
{
	bool v;
	return parse_bool(word, &v) == 0;
}

bool options_is_flag(const char *key)
{
	enum option_id id = find_key(key);
	return id >= KEY_VERBOSE && id < N_KEYS;
}

static bool *flag_field(struct options *o, enum option_id id)
{
	return id == KEY_VERBOSE       ? &o->verbose
	       : id == KEY_LIST_EVENTS ? &o->list_events
				       : &o->json_events;
}

int options_set(struct options *o, const char *key, const char *val, const char *at, char *err,
		size_t errlen)
{
	enum option_id id = find_key(key);

	switch (id) {
	case KEY_ON_FINISH:
		return set_on_finish(o, val, err, errlen);
	case KEY_CHECKS:
		return set_checks(o, val, err, errlen);
	case KEY_CPUS:
		return set_cpus(o, val, err, errlen);
	case KEY_REPEAT:
		return set_repeat(o, val, err, errlen);
	case KEY_PMI:
		return set_pmi(o, val, err, errlen);
	case KEY_PMI_UNMASK:
		return set_pmi_unmask(o, val, err, errlen);
	case KEY_PRELOAD:
		return set_preload(o, val, err, errlen);
	case KEY_EVENT:
		return set_event(o, val, at, err, errlen);
	case KEY_EVENTS:
		return set_events(o, val, err, errlen);
	case KEY_COUNTDOWN:
		return set_countdown(o, val, err, errlen);
	case KEY_OUTPUT:
		return set_output(o, val, err, errlen);
	case KEY_VERBOSE:
	case KEY_LIST_EVENTS:
	case KEY_JSON:
		return set_flag(flag_field(o, id), key, val, err, errlen);
	default:
		if (nearest_key(key))
			pmh_fmt(err, errlen, "unknown key \"%s\" (did you mean %s?)", key,
				nearest_key(key));
		else
			pmh_fmt(err, errlen, "unknown key \"%s\" (help lists the keys)", key);
		return -1;
	}
}

void options_complain(options_err_fn errfn, void *ctx, const char *msg, int *bad)
{
	char shown[SHOWN_MAX];

	(*bad)++;
	if (errfn)
		errfn(ctx, pmh_escape(shown, sizeof(shown), msg, pmh_strlen(msg)));
}

bool options_check_selected(const struct options *o, const char *id)
{
	return pmh_glob_list(o->checks, id, false);
}

void options_help(void (*line)(void *ctx, const char *s), void *ctx)
{
	char l[120], names[32];

	line(ctx, "pmuharness options: \"key = value\" lines in " OPTIONS_CONFIG_NAME
		  " beside the binary, then load options (key=value, --key value, --flag), "
		  "which win:");
	line(ctx, "  on_finish   wait | return | poweroff | qemu-exit (default wait)");
	line(ctx, "  checks      comma-separated check-id globs, e.g. apic.*,overflow.pmi "
		  "(default *)");
	line(ctx, "  cpus        all, or CPU numbers such as 0,2,3 (default: the boot CPU)");
	pmh_fmt(l, sizeof(l), "  repeat      measurements per figure, 1-%u (default %u)",
		REPEAT_MAX, REPEAT_DEFAULT);
	line(ctx, l);
	line(ctx, "  pmi         fixed | nmi: the LVT delivery mode (default fixed)");
	line(ctx, "  pmi_unmask  always | family: unmask LVTPC after every PMI, or only where "
		  "the APIC masks it (default always)");
	line(ctx, "  preload     counts N for the -N preloads, max = the widest (default "
		  "1,2,1000,max)");
	line(ctx, "  event       an event name or raw spec, e.g. event=0xc0,umask=0x00 "
		  "(default none)");
	line(ctx, "  events      all | none | event-name globs for event.semantics "
		  "(default: the validated set)");
	pmh_fmt(l, sizeof(l), "  countdown   seconds before the run, 0-%u (default %u)",
		COUNTDOWN_MAX, COUNTDOWN_DEFAULT);
	line(ctx, l);
	pmh_fmt(l, sizeof(l), "  output      %s (default %s): lava adds LAVA's test signals;",
		output_list(names, sizeof(names), " | "), output_names[OUTPUT_TEXT]);
	line(ctx, l);
	line(ctx, "              kvm-unit-tests: its runner's result lines and exit statuses");
	line(ctx, "  verbose     yes/no: per-counter detail lines (default no)");
	line(ctx, "  list_events yes/no: print this CPU's event table instead of running");
	line(ctx, "  json        yes/no: with list_events, as JSON");
	line(ctx, "  help        (load options: help, --help or -h) this list; nothing runs");
}
