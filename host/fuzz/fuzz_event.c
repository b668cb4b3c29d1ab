/* Event specifications: the syntax (ev_spec_parse) and their meaning for a
 * CPU (events_resolve, via events_handle_options as the harness calls it)
 * for every driver and the family/model the first byte picks. Promises:
 * reasons are terminated and given on refusal; every line printed is
 * printable ASCII; a resolved counter is a flat counter; the resolved
 * encoding formats as printable ASCII. */
#include "fuzz.h"
#include "../../events/events.h"
#include "../../events/events_spec.h"

#include <stdlib.h>
#include <string.h>

/* A spread of families and models: P5/P6, Core, Skylake, KNC/KNL, NetBurst,
 * K7, K8, Fam10h-16h, Zen 1-5, and an unknown one. */
static const struct {
	unsigned family, model;
} cpus[] = {
    {5, 1},	  {6, 9},	{6, 0x0f},
    {6, 0x1a},	  {6, 0x5e},	{6, 0x55},
    {6, 0x8f},	  {0x0b, 1},	{6, 0x57},
    {0x0f, 2},	  {0x0f, 6},	{6, 2},
    {0x0f, 0x21}, {0x10, 4},	{0x15, 2},
    {0x16, 0x30}, {0x17, 1},	{0x19, 0x21},
    {0x1a, 0x11}, {0x42, 0x99}, {6, EVENTS_ANY_MODEL},
};
#define N_CPUS (sizeof(cpus) / sizeof(cpus[0]))

#define LINE_MAX_SEEN 4096

static void line_printable(void *ctx, const char *s)
{
	(void)ctx;
	fuzz_require_printable(s, LINE_MAX_SEEN, "an event line is printable ASCII");
}

static void check_syntax(const char *spec)
{
	struct ev_spec p;
	char msg[160];

	msg[0] = 0;
	if (ev_spec_parse(spec, &p, msg, sizeof(msg))) {
		fuzz_require_printable(msg, sizeof(msg), "a syntax error is printable ASCII");
		fuzz_require(msg[0] != 0, "a syntax error has a reason");
	} else {
		fuzz_require_terminated(p.name, sizeof(p.name), "the name is terminated");
	}
}

static void check_resolve(enum pmu_driver_id d, unsigned fam, unsigned model, const char *spec)
{
	const struct events_sink out = {line_printable, NULL};
	struct ev_result r;
	char enc[128];

	memset(&r, 0, sizeof(r));
	enum events_opt eo =
	    events_handle_options(d, fam, model, false, false, spec, "fuzz input", &out, &r);
	if (!spec[0]) {
		fuzz_require(eo == EVOPT_NONE, "no event, nothing to do");
		return;
	}
	fuzz_require(r.verdict <= EV_REFUSED, "a known verdict");
	fuzz_require_terminated(r.msg, sizeof(r.msg), "the reason is terminated");
	fuzz_require((eo == EVOPT_REFUSED) == (r.verdict == EV_REFUSED), "refused when refused");
	if (r.verdict == EV_REFUSED) {
		fuzz_require(r.msg[0] != 0, "a refusal has a reason");
		return;
	}
	fuzz_require(r.counter < EVENTS_FLAT_COUNTERS, "counter= is a flat counter");
	events_format(&r.ev, d == PMU_DRV_INTEL_NETBURST, enc, sizeof(enc));
	fuzz_require_printable(enc, sizeof(enc), "the encoding is printable ASCII");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned fam = cpus[data[0] % N_CPUS].family, model = cpus[data[0] % N_CPUS].model;
	char *spec = fuzz_cstr(data + 1, size - 1);

	check_syntax(spec);
	for (int d = PMU_DRV_NONE; d < PMU_DRV_COUNT; d++)
		check_resolve((enum pmu_driver_id)d, fam, model, spec);
	free(spec);
	return 0;
}
