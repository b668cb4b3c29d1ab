/* One key at a time (options_set): the first byte picks the key, the rest is
 * the value. Promises: a refused value leaves every option as it was, with
 * a reason; an accepted one stays in range; numbers parse as an independent
 * reading (strtoull on the digits) says; the cpus list resolves to
 * ascending, distinct, enabled processors. */
#include "fuzz.h"
#include "../../lib/str.h"
#include "../../tests/cpu_select.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Every key, spelled as documented and in other cases, and unknown ones. */
static const char *const keys[] = {
    "on_finish", "checks",    "cpus",	 "repeat",	"pmi",	"preload",
    "event",	 "countdown", "verbose", "list_events", "json", "CPUS",
    "Repeat",	 "ON_FINISH", "Json",	 "bogus",	"",
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* A number as docs/user-guide.md "Options" defines it (decimal, 0x or 0b, '_' between digits,
 * at least one digit, 64 bits), read with strtoull. */
static bool ref_parse_u64(const char *s, uint64_t *out)
{
	int base = 10;
	char digits[200]; /* significant digits: 199 overflow 64 bits in any base */
	size_t n = 0;
	bool any = false;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	for (; *s; s++) {
		if (*s == '_')
			continue;
		const char *set = base == 16  ? "0123456789abcdefABCDEF"
				  : base == 2 ? "01"
					      : "0123456789";
		if (!strchr(set, *s) || n + 1 >= sizeof(digits))
			return false;
		any = true;
		if (n || *s != '0') /* leading zeros add nothing */
			digits[n++] = *s;
	}
	if (!any)
		return false;
	if (!n)
		digits[n++] = '0';
	digits[n] = 0;
	errno = 0;
	*out = strtoull(digits, NULL, base);
	return errno != ERANGE;
}

static void check_number(const char *val)
{
	uint64_t a = 0, b = 0;
	bool ok = pmh_parse_u64(val, &a), ref = ref_parse_u64(val, &b);

	fuzz_require(ok == ref, "pmh_parse_u64 accepts what the user guide calls a number");
	fuzz_require(!ok || a == b, "pmh_parse_u64 reads the documented value");
}

static void warn_ok(void *ctx, const char *msg)
{
	fuzz_err(ctx, msg);
}

/* Processors as firmware reports them: BSP 0, CPU 2 disabled. */
static void check_select(const struct options *o)
{
	static const uint32_t flags[] = {CPUSEL_BSP | CPUSEL_ENABLED | CPUSEL_HEALTHY,
					 CPUSEL_ENABLED | CPUSEL_HEALTHY, 0,
					 CPUSEL_ENABLED | CPUSEL_HEALTHY, CPUSEL_ENABLED};
	const unsigned n = sizeof(flags) / sizeof(flags[0]), max = 3;
	uint16_t out[3];

	unsigned k = cpu_select(o, flags, n, out, max, warn_ok, NULL);
	fuzz_require(k <= max, "no more CPUs than room");
	for (unsigned i = 0; i < k; i++) {
		fuzz_require(out[i] < n && (flags[out[i]] & CPUSEL_ENABLED), "an enabled CPU");
		fuzz_require(!i || out[i] > out[i - 1], "ascending and distinct");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o, before;
	char err[160];

	if (!size)
		return 0;
	const char *key = keys[data[0] % N_KEYS];
	char *val = fuzz_cstr(data + 1, size - 1);

	check_number(val);
	options_default(&o);
	o.repeat = 7; /* an earlier valid value, which a refused one must keep */
	before = o;
	err[0] = 0;
	if (options_set(&o, key, val, "fuzz input", err, sizeof(err))) {
		fuzz_require_terminated(err, sizeof(err), "the reason is terminated");
		fuzz_require(err[0] != 0, "a refusal has a reason");
		fuzz_require(fuzz_options_equal(&o, &before), "a refused value changes nothing");
	}
	fuzz_require_sane(&o);
	check_select(&o);
	free(val);
	return 0;
}
