/* UCS-2 load options, as UEFI hands them over: the input read as
 * little-endian 16-bit units. Even first byte: a boot entry's string
 * (options_parse_cmdline); odd: the shell's argv, words split at NUL units
 * (options_parse_wide_args). Promises: every bad word is reported once, as
 * printable ASCII; the options stay in their ranges. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 64

/* The shell's argv: words between NUL units, each NUL-terminated in u. */
static size_t split(uint16_t *u, size_t n, const uint16_t **argv)
{
	size_t argc = 0;

	for (size_t i = 0; i < n && argc < MAX_WORDS; i++)
		if (u[i] && (i == 0 || !u[i - 1]))
			argv[argc++] = &u[i];
	return argc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint16_t *argv[MAX_WORDS];
	struct options o;
	int bad, complaints = 0;

	if (!size)
		return 0;
	size_t n = (size - 1) / 2;
	uint16_t *u = calloc(n + 1, sizeof(*u)); /* one more: the last word's NUL */

	fuzz_require(u != NULL, "memory");
	for (size_t i = 0; i < n; i++)
		u[i] = (uint16_t)(data[1 + 2 * i] | data[2 + 2 * i] << 8);
	options_default(&o);
	if (data[0] % 2 == 0)
		bad = options_parse_cmdline(&o, u, n, fuzz_err, &complaints);
	else
		bad = options_parse_wide_args(&o, split(u, n, argv), argv, fuzz_err, &complaints);
	fuzz_require(bad == complaints, "every bad word is reported once");
	fuzz_require_sane(&o);
	free(u);
	return 0;
}
