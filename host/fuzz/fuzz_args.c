/* Load options (options_parse_args): the input split on NUL and blanks into
 * words, as a shell passes them. Promises: every bad word is reported once,
 * as printable ASCII; the options stay in their ranges. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 64 /* more than a shell line of 511 characters holds in practice */

static bool is_split(char c)
{
	return c == 0 || c == ' ' || c == '\t';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_WORDS];
	struct options o;
	int argc = 0, complaints = 0;

	fuzz_require(buf != NULL, "memory");
	memcpy(buf, data, size);
	buf[size] = 0;
	for (size_t i = 0; i < size && argc < MAX_WORDS; i++) {
		if (is_split(buf[i])) {
			buf[i] = 0;
			continue;
		}
		if (i == 0 || buf[i - 1] == 0)
			argv[argc++] = &buf[i];
	}
	options_default(&o);
	int bad = options_parse_args(&o, argc, argv, fuzz_err, &complaints);
	fuzz_require(bad == complaints, "every bad argument is reported once");
	fuzz_require_sane(&o);
	free(buf);
	return 0;
}
