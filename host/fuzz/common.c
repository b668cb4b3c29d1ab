/* The promises shared by the fuzz targets (fuzz.h). */
#include "fuzz.h"
#include "../../events/events_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_REPEAT_MAX	  1001 /* docs/user-guide.md "Options": repeat 1-1001 */
#define OPT_COUNTDOWN_MAX 60   /* docs/user-guide.md "Options": countdown 0-60 */
#define PRINT_MIN	  0x20
#define PRINT_MAX	  0x7e

void fuzz_require(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz: promise broken: %s\n", what);
	abort();
}

void fuzz_require_terminated(const char *s, size_t max, const char *what)
{
	fuzz_require(memchr(s, 0, max) != NULL, what);
}

void fuzz_require_printable(const char *s, size_t max, const char *what)
{
	fuzz_require_terminated(s, max, what);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		fuzz_require(*p >= PRINT_MIN && *p <= PRINT_MAX, what);
}

void fuzz_require_sane(const struct options *o)
{
	fuzz_require(o->on_finish <= FINISH_QEMU_EXIT, "on_finish is a known value");
	fuzz_require(o->pmi == PMI_FIXED || o->pmi == PMI_NMI, "pmi is fixed or nmi");
	fuzz_require_terminated(o->checks, sizeof(o->checks), "checks is terminated");
	fuzz_require(o->checks[0] != 0, "checks is never empty");
	fuzz_require(o->n_cpus <= OPT_MAX_CPUS, "cpus fit their array");
	fuzz_require(!o->all_cpus || !o->n_cpus, "cpus = all holds no list");
	fuzz_require(!o->cpus_serial || o->all_cpus, "cpus = serial is every CPU");
	fuzz_require(o->repeat >= 1 && o->repeat <= OPT_REPEAT_MAX, "repeat within 1-1001");
	fuzz_require(o->n_preloads >= 1 && o->n_preloads <= OPT_MAX_PRELOADS, "1 to 8 preloads");
	fuzz_require(o->countdown <= OPT_COUNTDOWN_MAX, "countdown within 0-60");
	fuzz_require_terminated(o->event, sizeof(o->event), "event is terminated");
	fuzz_require_printable(o->event_at, sizeof(o->event_at), "event_at is printable ASCII");
	if (o->event[0]) {
		struct ev_spec spec;
		char why[160];
		fuzz_require(!ev_spec_parse(o->event, &spec, why, sizeof(why)),
			     "a kept event parses");
	}
}

bool fuzz_options_equal(const struct options *a, const struct options *b)
{
	return a->on_finish == b->on_finish && a->on_finish_set == b->on_finish_set &&
	       !strcmp(a->checks, b->checks) && a->all_cpus == b->all_cpus &&
	       a->cpus_serial == b->cpus_serial && a->n_cpus == b->n_cpus &&
	       !memcmp(a->cpus, b->cpus, a->n_cpus * sizeof(a->cpus[0])) &&
	       a->repeat == b->repeat && a->pmi == b->pmi && a->n_preloads == b->n_preloads &&
	       !memcmp(a->preloads, b->preloads, a->n_preloads * sizeof(a->preloads[0])) &&
	       !strcmp(a->event, b->event) && !strcmp(a->event_at, b->event_at) &&
	       a->verbose == b->verbose && a->countdown == b->countdown &&
	       a->list_events == b->list_events && a->json_events == b->json_events &&
	       a->help == b->help;
}

/* A complaint is at most a few hundred characters; 4096 is plenty. */
#define COMPLAINT_MAX 4096

void fuzz_err(void *ctx, const char *msg)
{
	fuzz_require_printable(msg, COMPLAINT_MAX, "a complaint is printable ASCII");
	if (ctx)
		(*(int *)ctx)++;
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	fuzz_require(s != NULL, "memory");
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}
