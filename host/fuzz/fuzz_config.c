/* pmuharness.cfg text (options_parse_config), bytes as read from the file:
 * ASCII, UTF-8 with or without BOM, UTF-16 either way round. Promises:
 * every bad line is reported once, as printable ASCII; the options stay in
 * their ranges; a UTF-16 text is read only when every character is ASCII. */
#include "fuzz.h"
#include "../../lib/str.h"

#define TEXT_ASCII_MAX 0x7f

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o;
	struct pmh_text t;
	int complaints = 0;

	options_default(&o);
	int bad = options_parse_config(&o, (const char *)data, size, fuzz_err, &complaints);
	fuzz_require(bad == complaints, "every bad line is reported once");
	fuzz_require_sane(&o);

	if (pmh_text_open(&t, (const char *)data, size)) {
		fuzz_require(t.n * t.unit <= size, "the text lies within the file");
		for (size_t i = 0; t.unit == 2 && i < t.n; i++)
			fuzz_require(pmh_text_at(&t, i) <= TEXT_ASCII_MAX,
				     "UTF-16 read as ASCII only");
	}
	return 0;
}
