/* The runner's self-test: a crash planted behind a prefix its seed holds.
 * scripts/fuzz.sh must report it as caught; a run that misses it fuzzes
 * nothing. */
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char planted[] = "PLANTED";

	if (size >= sizeof(planted) - 1 && !memcmp(data, planted, sizeof(planted) - 1))
		fuzz_require(false, "the planted crash");
	return 0;
}
