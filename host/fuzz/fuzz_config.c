/* pmuharness.cfg text (options_parse_config), bytes as read from the file:
 * ASCII, UTF-8 with or without BOM, UTF-16 either way round; and the same
 * file read only in part (options_parse_config_cut, cut at two thirds).
 * Promises: every bad line is reported once, as printable ASCII; the
 * options stay in their ranges; a UTF-16 text is read only when every
 * character is ASCII; a cut file applies exactly its whole lines before the
 * cut, never the half-read one. */
#include "fuzz.h"
#include "../../lib/str.h"

#include <string.h>

#define TEXT_ASCII_MAX 0x7f

static void check_text(const uint8_t *data, size_t size)
{
	struct pmh_text t;

	if (!pmh_text_open(&t, (const char *)data, size))
		return;
	fuzz_require(t.n * t.unit <= size, "the text lies within the file");
	for (size_t i = 0; t.unit == 2 && i < t.n; i++)
		fuzz_require(pmh_text_at(&t, i) <= TEXT_ASCII_MAX, "UTF-16 read as ASCII only");
}

static bool bytes(const uint8_t *data, size_t size)
{
	struct pmh_text t;
	return pmh_text_open(&t, (const char *)data, size) && t.unit == 1;
}

/* Read up to len of size bytes: the same options as the whole lines alone. */
static void check_cut(const uint8_t *data, size_t size)
{
	size_t len = size - size / 3, whole = len;
	struct options cut, ref;
	int complaints = 0;

	if (len == size)
		return;
	while (whole && data[whole - 1] != '\n')
		whole--;
	options_default(&cut);
	int bad =
	    options_parse_config_cut(&cut, (const char *)data, len, size, fuzz_err, &complaints);
	fuzz_require(bad == complaints && bad > 0, "a cut is reported, every bad line once");
	fuzz_require_sane(&cut);
	if (!bytes(data, size) || !bytes(data, len) || !bytes(data, whole))
		return; /* UTF-16: a line ends in two bytes */
	options_default(&ref);
	options_parse_config(&ref, (const char *)data, whole, NULL, NULL);
	fuzz_require(fuzz_options_equal(&cut, &ref), "a cut file applies its whole lines only");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o;
	int complaints = 0;

	options_default(&o);
	int bad = options_parse_config(&o, (const char *)data, size, fuzz_err, &complaints);
	fuzz_require(bad == complaints, "every bad line is reported once");
	fuzz_require_sane(&o);
	check_text(data, size);
	check_cut(data, size);
	return 0;
}
