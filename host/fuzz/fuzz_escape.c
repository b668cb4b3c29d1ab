/* pmh_escape on any bytes, into a buffer size the first byte picks.
 * Promises: the output is terminated within the buffer, printable ASCII
 * only, each input byte as itself (printable) or \xNN, never cut
 * mid-escape, and with room enough all of the input is there. */
#include "fuzz.h"
#include "../../lib/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ESC_LEN 4 /* \xNN */

/* How many input bytes the output shows, walking both; aborts where the
 * output is not the input's escaping. */
static size_t shown(const char *out, const unsigned char *in, size_t l)
{
	size_t i = 0;

	while (*out) {
		fuzz_require(i < l, "no more output than input");
		if (in[i] >= 0x20 && in[i] <= 0x7e) {
			fuzz_require(*out == (char)in[i], "a printable byte as itself");
			out++;
		} else {
			char esc[ESC_LEN + 1];
			snprintf(esc, sizeof(esc), "\\x%02x", in[i]);
			fuzz_require(!strncmp(out, esc, ESC_LEN), "any other byte as \\xNN, whole");
			out += ESC_LEN;
		}
		i++;
	}
	return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	const unsigned char *in = data + 1;
	size_t l = size - 1, full = l * ESC_LEN + 1;
	size_t n = data[0] ? data[0] : full; /* 0: room for everything */
	char *dst = malloc(n);

	fuzz_require(dst != NULL, "memory");
	fuzz_require(pmh_escape(dst, n, (const char *)in, l) == dst, "returns dst");
	fuzz_require_printable(dst, n, "escaped text is printable ASCII");
	size_t got = shown(dst, in, l);
	if (n >= full)
		fuzz_require(got == l, "with room, all of the input is kept");
	free(dst);
	return 0;
}
