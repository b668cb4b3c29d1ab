#include "options.h"
#include "../lib/str.h"
#include "../lib/fmt.h"

void options_default(struct options *o)
{
	pmh_memset(o, 0, sizeof(*o));
	o->on_finish = FINISH_WAIT;
	pmh_strlcpy(o->checks, "*", sizeof(o->checks));
	o->all_cpus = false; /* the boot CPU unless told otherwise */
	o->repeat = 11;
	o->pmi = PMI_FIXED;
	o->n_preloads = 4;
	o->preloads[0] = 1;
	o->preloads[1] = 2;
	o->preloads[2] = 1000;
	o->preloads[3] = 0; /* the largest the width allows */
	o->countdown = 3;
}

const char *options_finish_name(enum on_finish f)
{
	switch (f) {
	case FINISH_RETURN:
		return "return";
	case FINISH_POWEROFF:
		return "poweroff";
	case FINISH_QEMU_EXIT:
		return "qemu-exit";
	default:
		return "wait";
	}
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
	char item[32];
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
	if (!pmh_parse_u64(item, &v) || v > 0xffff || o->n_cpus >= OPT_MAX_CPUS)
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
		o->preloads[o->n_preloads++] = 0;
		return 0;
	}
	if (!pmh_parse_u64(item, &v) || v == 0)
		return -1;
	o->preloads[o->n_preloads++] = v;
	return 0;
}

int options_set(struct options *o, const char *key, const char *val, char *err, size_t errlen)
{
	uint64_t n;
	bool b;

	if (!pmh_strcmp(key, "on_finish")) {
		if (!pmh_strcmp(val, "wait"))
			o->on_finish = FINISH_WAIT;
		else if (!pmh_strcmp(val, "return"))
			o->on_finish = FINISH_RETURN;
		else if (!pmh_strcmp(val, "poweroff"))
			o->on_finish = FINISH_POWEROFF;
		else if (!pmh_strcmp(val, "qemu-exit"))
			o->on_finish = FINISH_QEMU_EXIT;
		else {
			pmh_fmt(err, errlen,
				"on_finish: \"%s\" is not one of wait, return, poweroff, qemu-exit", val);
			return -1;
		}
		o->on_finish_set = true;
		return 0;
	}
	if (!pmh_strcmp(key, "checks")) {
		if (!*val || pmh_strlcpy(o->checks, val, sizeof(o->checks)) >= sizeof(o->checks)) {
			pmh_fmt(err, errlen, "checks: empty or longer than %u characters",
				(unsigned)sizeof(o->checks) - 1);
			pmh_strlcpy(o->checks, "*", sizeof(o->checks));
			return -1;
		}
		return 0;
	}
	if (!pmh_strcmp(key, "cpus")) {
		if (!pmh_strcmp(val, "all")) {
			o->all_cpus = true;
			o->n_cpus = 0;
			return 0;
		}
		o->all_cpus = false;
		o->n_cpus = 0;
		if (for_each_item(val, add_cpu, o)) {
			o->n_cpus = 0;
			pmh_fmt(err, errlen, "cpus: \"%s\" is not \"all\" or a list of CPU numbers", val);
			return -1;
		}
		return 0;
	}
	if (!pmh_strcmp(key, "repeat")) {
		if (!pmh_parse_u64(val, &n) || n < 1 || n > 1001) {
			pmh_fmt(err, errlen, "repeat: \"%s\" is not a number from 1 to 1001", val);
			return -1;
		}
		o->repeat = (unsigned)n;
		return 0;
	}
	if (!pmh_strcmp(key, "pmi")) {
		if (!pmh_strcmp(val, "fixed"))
			o->pmi = PMI_FIXED;
		else if (!pmh_strcmp(val, "nmi"))
			o->pmi = PMI_NMI;
		else {
			pmh_fmt(err, errlen, "pmi: \"%s\" is not fixed or nmi", val);
			return -1;
		}
		return 0;
	}
	if (!pmh_strcmp(key, "preload")) {
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
	if (!pmh_strcmp(key, "event")) {
		if (pmh_strlcpy(o->event, val, sizeof(o->event)) >= sizeof(o->event)) {
			o->event[0] = 0;
			pmh_fmt(err, errlen, "event: longer than %u characters",
				(unsigned)sizeof(o->event) - 1);
			return -1;
		}
		return 0;
	}
	if (!pmh_strcmp(key, "verbose") || !pmh_strcmp(key, "list_events") ||
	    !pmh_strcmp(key, "json")) {
		if (parse_bool(val, &b)) {
			pmh_fmt(err, errlen, "%s: \"%s\" is not yes/no/1/0/true/false/on/off", key, val);
			return -1;
		}
		if (key[0] == 'v')
			o->verbose = b;
		else if (key[0] == 'l')
			o->list_events = b;
		else
			o->json_events = b;
		return 0;
	}
	if (!pmh_strcmp(key, "countdown")) {
		if (!pmh_parse_u64(val, &n) || n > 60) {
			pmh_fmt(err, errlen, "countdown: \"%s\" is not a number of seconds 0..60", val);
			return -1;
		}
		o->countdown = (unsigned)n;
		return 0;
	}
	pmh_fmt(err, errlen, "unknown key \"%s\"", key);
	return -1;
}

int options_parse_config(struct options *o, const char *text, size_t len, options_err_fn errfn,
			 void *ctx)
{
	char line[256], key[40], msg[200], err[160];
	size_t pos = 0;
	unsigned lineno = 0;
	int bad = 0;

	while (pos < len) {
		size_t n = 0;
		bool toolong = false;

		lineno++;
		while (pos < len && text[pos] != '\n') {
			if (n + 1 < sizeof(line))
				line[n++] = text[pos];
			else
				toolong = true;
			pos++;
		}
		pos++; /* the newline */
		line[n] = 0;

		/* strip comment and surrounding blanks */
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
		if (!*s)
			continue;
		if (toolong) {
			pmh_fmt(msg, sizeof(msg), "line %u: longer than %u characters, ignored", lineno,
				(unsigned)sizeof(line) - 1);
			goto bad;
		}
		const char *eq = pmh_strchr(s, '=');
		if (!eq) {
			pmh_fmt(msg, sizeof(msg), "line %u: expected \"key = value\", got \"%s\"", lineno,
				s);
			goto bad;
		}
		size_t kl = (size_t)(eq - s);
		while (kl && pmh_isspace(s[kl - 1]))
			kl--;
		if (!kl || kl >= sizeof(key)) {
			pmh_fmt(msg, sizeof(msg), "line %u: missing or over-long key", lineno);
			goto bad;
		}
		pmh_memcpy(key, s, kl);
		key[kl] = 0;
		const char *val = eq + 1;
		while (pmh_isspace(*val))
			val++;
		if (!*val) {
			pmh_fmt(msg, sizeof(msg), "line %u: %s has no value", lineno, key);
			goto bad;
		}
		if (options_set(o, key, val, err, sizeof(err)) == 0)
			continue;
		pmh_fmt(msg, sizeof(msg), "line %u: %s", lineno, err);
	bad:
		bad++;
		if (errfn)
			errfn(ctx, msg);
	}
	return bad;
}

int options_parse_args(struct options *o, int argc, char *const argv[], options_err_fn errfn,
		       void *ctx)
{
	char key[40], err[160], msg[200];
	int bad = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *val = 0;
		size_t kl;

		if (a[0] == '-' && a[1] == '-')
			a += 2;
		const char *eq = pmh_strchr(a, '=');
		kl = eq ? (size_t)(eq - a) : pmh_strlen(a);
		if (!kl || kl >= sizeof(key)) {
			pmh_fmt(msg, sizeof(msg), "argument \"%s\": bad option name", argv[i]);
			bad++;
			if (errfn)
				errfn(ctx, msg);
			continue;
		}
		pmh_memcpy(key, a, kl);
		key[kl] = 0;
		for (char *p = key; *p; p++)
			if (*p == '-')
				*p = '_';
		if (eq)
			val = eq + 1;
		else if (!pmh_strcmp(key, "verbose") || !pmh_strcmp(key, "list_events") ||
			 !pmh_strcmp(key, "json"))
			val = "1";
		else if (i + 1 < argc)
			val = argv[++i];
		else
			val = "";
		if (options_set(o, key, val, err, sizeof(err))) {
			pmh_fmt(msg, sizeof(msg), "argument \"%s\": %s", argv[i], err);
			bad++;
			if (errfn)
				errfn(ctx, msg);
		}
	}
	return bad;
}

bool options_check_selected(const struct options *o, const char *id)
{
	char pat[64];
	const char *p = o->checks;

	while (*p) {
		size_t n = 0;
		while (*p && *p != ',') {
			if (!pmh_isspace(*p) && n + 1 < sizeof(pat))
				pat[n++] = *p;
			p++;
		}
		pat[n] = 0;
		if (n && pmh_glob(pat, id))
			return true;
		if (*p)
			p++;
	}
	return false;
}
