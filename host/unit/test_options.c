/* pmuharness.cfg and load-option parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "../../tests/options.h"
#include "../../lib/str.h"

static char errors[8][200];
static int n_errors;

static void err(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_errors < 8)
		snprintf(errors[n_errors], sizeof(errors[0]), "%s", msg);
	n_errors++;
}

static int parse(struct options *o, const char *text)
{
	n_errors = 0;
	options_default(o);
	return options_parse_config(o, text, strlen(text), err, NULL);
}

static void defaults(void **st)
{
	(void)st;
	struct options o;
	options_default(&o);
	assert_int_equal(o.on_finish, FINISH_WAIT); /* real hardware default */
	assert_false(o.on_finish_set);
	assert_int_equal(o.repeat, 11);
	assert_int_equal(o.pmi, PMI_FIXED);
	assert_true(options_check_selected(&o, "overflow.pmi"));
}

static void good_file(void **st)
{
	(void)st;
	struct options o;
	int bad = parse(&o, "# a comment\n\n  on_finish = qemu-exit   # trailing\r\n"
			    "checks=apic.*,idt.restore\nrepeat = 5\npmi = nmi\n"
			    "preload = 1, 2, 1000, max\ncpus = 0,2\nverbose = yes\n");
	assert_int_equal(bad, 0);
	assert_int_equal(n_errors, 0);
	assert_int_equal(o.on_finish, FINISH_QEMU_EXIT);
	assert_true(o.on_finish_set);
	assert_int_equal(o.repeat, 5);
	assert_int_equal(o.pmi, PMI_NMI);
	assert_int_equal(o.n_preloads, 4);
	assert_int_equal(o.preloads[2], 1000);
	assert_int_equal(o.preloads[3], 0);
	assert_int_equal(o.n_cpus, 2);
	assert_int_equal(o.cpus[1], 2);
	assert_true(o.verbose);
	assert_true(options_check_selected(&o, "apic.lvt-pc"));
	assert_true(options_check_selected(&o, "idt.restore"));
	assert_false(options_check_selected(&o, "overflow.pmi"));
}

static void finish_values(void **st)
{
	(void)st;
	struct options o;
	const char *v[] = {"wait", "return", "poweroff", "qemu-exit"};
	for (int i = 0; i < 4; i++) {
		char text[64];
		snprintf(text, sizeof(text), "on_finish=%s", v[i]);
		assert_int_equal(parse(&o, text), 0);
		assert_int_equal(o.on_finish, (enum on_finish)i);
		assert_string_equal(options_finish_name(o.on_finish), v[i]);
	}
}

static void malformed_lines_reported_and_defaults_kept(void **st)
{
	(void)st;
	struct options o;
	int bad = parse(&o, "on_finish = sometimes\nthis is not a pair\n= 3\nrepeat = 0\n"
			    "repeat = lots\nunknown_key = 1\npmi =\nrepeat = 7\n");
	assert_int_equal(bad, 7);
	assert_int_equal(n_errors, 7);
	assert_non_null(strstr(errors[0], "line 1:"));
	assert_non_null(strstr(errors[0], "sometimes"));
	assert_non_null(strstr(errors[1], "line 2:"));
	assert_non_null(strstr(errors[2], "line 3:"));
	assert_non_null(strstr(errors[3], "line 4:"));
	assert_non_null(strstr(errors[5], "unknown key"));
	assert_non_null(strstr(errors[6], "line 7:"));
	assert_int_equal(o.on_finish, FINISH_WAIT); /* default kept */
	assert_false(o.on_finish_set);
	assert_int_equal(o.repeat, 7); /* the later good line still applies */
}

static void long_and_binary_input(void **st)
{
	(void)st;
	struct options o;
	char big[2000];
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = 0;
	assert_int_equal(parse(&o, big), 1);
	assert_non_null(strstr(errors[0], "longer than"));
	const char bin[] = {'r', 'e', 'p', 0, 1, 2, '\n', 'r', 'e', 'p', 'e', 'a', 't', '=', '3'};
	n_errors = 0;
	options_default(&o);
	options_parse_config(&o, bin, sizeof(bin), err, NULL);
	assert_int_equal(o.repeat, 3);
	assert_int_equal(n_errors, 1);
}

static void bad_lists_keep_previous(void **st)
{
	(void)st;
	struct options o;
	assert_int_equal(parse(&o, "preload = 1,,2\ncpus = 1,x\n"), 2);
	assert_int_equal(o.n_preloads, 4); /* defaults intact */
	assert_int_equal(o.preloads[0], 1);
	assert_int_equal(o.n_cpus, 0);
	assert_int_equal(parse(&o, "preload = 0\n"), 1);
}

static void load_options(void **st)
{
	(void)st;
	struct options o;
	char *argv[] = {"on_finish=return", "--repeat",	  "3",	  "--verbose",
			"checks=pmu.*",	    "--cpus=all", "bogus"};
	n_errors = 0;
	options_default(&o);
	int bad = options_parse_args(&o, 7, argv, err, NULL);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(errors[0], "bogus"));
	assert_int_equal(o.on_finish, FINISH_RETURN);
	assert_int_equal(o.repeat, 3);
	assert_true(o.verbose);
	assert_true(o.all_cpus);
	assert_true(options_check_selected(&o, "pmu.probe"));
	assert_false(options_check_selected(&o, "apic.nmi"));
}

/* The yes/no keys: bare on the command line, any spelling of yes/no in the
 * file; the ranges' edges; dashes in load-option names read as underscores. */
static void flags_and_ranges(void **st)
{
	(void)st;
	struct options o;
	char *argv[] = {"--list-events", "--json", "--verbose=no", "--countdown", "60"};
	n_errors = 0;
	options_default(&o);
	assert_int_equal(options_parse_args(&o, 5, argv, err, NULL), 0);
	assert_true(o.list_events);
	assert_true(o.json_events);
	assert_false(o.verbose);
	assert_int_equal(o.countdown, 60);
	assert_int_equal(parse(&o, "json = ON\nlist_events = off\nrepeat = 1001\n"), 0);
	assert_true(o.json_events);
	assert_false(o.list_events);
	assert_int_equal(o.repeat, 1001);
	assert_int_equal(parse(&o, "verbose = maybe\nrepeat = 1002\ncountdown = 61\n"), 3);
	assert_non_null(strstr(errors[0], "verbose: \"maybe\" is not yes/no"));
	assert_non_null(strstr(errors[1], "from 1 to 1001"));
	assert_non_null(strstr(errors[2], "0..60"));
	assert_false(o.verbose);
	assert_int_equal(o.repeat, 11);
	assert_int_equal(o.countdown, 3);
	assert_string_equal(options_finish_name((enum on_finish)99), "wait");
}

/* output: text (default) or lava from the file or a load option; a bad
 * value names every value of the table and keeps the previous one; the
 * help line lists the same values. */
static void collect(void *ctx, const char *l)
{
	if (strstr(l, "  output "))
		snprintf(ctx, 120, "%s", l);
}

static void output_values(void **st)
{
	(void)st;
	struct options o;
	char *argv[] = {"output=LAVA"};
	char help[120] = "";
	options_default(&o);
	assert_int_equal(o.output, OUTPUT_TEXT);
	assert_int_equal(options_parse_args(&o, 1, argv, err, NULL), 0);
	assert_int_equal(o.output, OUTPUT_LAVA);
	n_errors = 0;
	assert_int_equal(options_parse_config(&o, "output = junit\n", 15, err, NULL), 1);
	assert_non_null(strstr(errors[0], "output: \"junit\" is not one of text, lava"));
	assert_int_equal(o.output, OUTPUT_LAVA);
	assert_int_equal(parse(&o, "output = lava\n"), 0);
	assert_int_equal(o.output, OUTPUT_LAVA);
	options_help(collect, help);
	assert_non_null(strstr(help, "text | lava"));
}

/* Text encodings: a UTF-8 BOM is skipped; UTF-16 (BOM or NULs) of plain
 * ASCII is read line by line; other UTF-16 is refused as a whole; a NUL or
 * control character makes its line an error, never cuts it silently. */
static int parse_bytes(struct options *o, const char *b, size_t n)
{
	n_errors = 0;
	options_default(o);
	return options_parse_config(o, b, n, err, NULL);
}

static size_t utf16(char *out, const char *s, int bom, int be)
{
	size_t n = 0;
	if (bom) {
		out[n++] = be ? (char)0xfe : (char)0xff;
		out[n++] = be ? (char)0xff : (char)0xfe;
	}
	for (; *s; s++) {
		out[n++] = be ? 0 : *s;
		out[n++] = be ? *s : 0;
	}
	return n;
}

static void encodings(void **st)
{
	(void)st;
	struct options o;
	char b[256];
	assert_int_equal(parse(&o, "\xef\xbb\xbfrepeat = 4\n"), 0);
	assert_int_equal(o.repeat, 4);
	for (int form = 0; form < 4; form++) {
		size_t n = utf16(b, "repeat = 6\r\non_finish = qemu-exit\r\n", form & 1, form >> 1);
		assert_int_equal(parse_bytes(&o, b, n), 0);
		assert_int_equal(o.repeat, 6);
		assert_int_equal(o.on_finish, FINISH_QEMU_EXIT);
	}
	size_t n = utf16(b, "repeat = 6\n# caf\xe9\n", 1, 0);
	assert_int_equal(parse_bytes(&o, b, n), 1);
	assert_non_null(strstr(errors[0], "UTF-16"));
	assert_int_equal(o.repeat, 11);
	const char nul[] = "repeat = 5\0junk\nverbose = yes\n";
	assert_int_equal(parse_bytes(&o, nul, sizeof(nul) - 1), 1);
	assert_non_null(strstr(errors[0], "line 1: control character 0x00"));
	assert_int_equal(o.repeat, 11);
	assert_true(o.verbose);
	assert_int_equal(parse(&o, "repeat = 5\rPASS\nrepeat = 8\r\n"), 1);
	assert_non_null(strstr(errors[0], "line 1:"));
	assert_int_equal(o.repeat, 8);
}

/* What the user typed reaches the messages escaped: printable ASCII as is,
 * every other byte as \xNN. */
static void messages_escaped(void **st)
{
	(void)st;
	struct options o;
	assert_int_equal(parse(&o, "on_finish = caf\xe9\xff\n"), 1);
	assert_non_null(strstr(errors[0], "\"caf\\xe9\\xff\""));
	for (const char *p = errors[0]; *p; p++)
		assert_true(*p >= 0x20 && *p <= 0x7e);
	char *argv[] = {"--pmi=\x1b[2J\rx"};
	n_errors = 0;
	assert_int_equal(options_parse_args(&o, 1, argv, err, NULL), 1);
	assert_non_null(strstr(errors[0], "\\x1b[2J\\x0dx"));
	char b[8];
	assert_string_equal(pmh_escape(b, sizeof(b), "a\x01z", 3), "a\\x01z");
	assert_string_equal(pmh_escape(b, 5, "ab\x01", 3), "ab"); /* never half an escape */
}

/* A number needs a digit: "_" and "0x_" are errors, not 0. */
static void numbers_need_digits(void **st)
{
	(void)st;
	struct options o;
	uint64_t v;
	assert_false(pmh_parse_u64("_", &v));
	assert_false(pmh_parse_u64("0x_", &v));
	assert_false(pmh_parse_u64("0b", &v));
	assert_true(pmh_parse_u64("1_000", &v));
	assert_int_equal(v, 1000);
	assert_int_equal(parse(&o, "cpus = _\nrepeat = 0x_\npreload = __\n"), 3);
	assert_int_equal(o.n_cpus, 0);
	assert_int_equal(o.repeat, 11);
	assert_int_equal(o.preloads[0], 1);
}

/* The user guide's rule: a bad value keeps what the key had before the line, for
 * every key; keys and word values ignore case. */
static void bad_value_keeps_previous(void **st)
{
	(void)st;
	struct options o;
	char long_checks[200];
	memset(long_checks, 'a', sizeof(long_checks));
	long_checks[sizeof(long_checks) - 1] = 0;
	char text[400];
	snprintf(text, sizeof(text),
		 "checks = apic.*\ncpus = 1,2\nevent = 0xc0\nrepeat = 3\npreload = 5\n"
		 "checks = %s\ncpus = 1,x\nevent = 0xzz\nrepeat = 0\npreload = 0\n",
		 long_checks);
	assert_int_equal(parse(&o, text), 5);
	assert_true(options_check_selected(&o, "apic.nmi"));
	assert_false(options_check_selected(&o, "pmu.probe"));
	assert_int_equal(o.n_cpus, 2);
	assert_int_equal(o.cpus[1], 2);
	assert_string_equal(o.event, "0xc0");
	assert_int_equal(o.repeat, 3);
	assert_int_equal(o.n_preloads, 1);
	assert_int_equal(parse(&o, "Repeat = 2\nON_FINISH = Qemu-Exit\nPMI = NMI\nCPUS = ALL\n"),
			 0);
	assert_int_equal(o.repeat, 2);
	assert_int_equal(o.on_finish, FINISH_QEMU_EXIT);
	assert_int_equal(o.pmi, PMI_NMI);
	assert_true(o.all_cpus);
	assert_false(o.cpus_serial);
	/* serial: every CPU, one after another; a later value replaces it,
	 * and a bad one leaves it */
	assert_int_equal(parse(&o, "cpus = Serial\n"), 0);
	assert_true(o.all_cpus);
	assert_true(o.cpus_serial);
	assert_int_equal(parse(&o, "cpus = serial\ncpus = serially\n"), 1);
	assert_true(o.cpus_serial);
	assert_int_equal(parse(&o, "cpus = serial\ncpus = all\n"), 0);
	assert_true(o.all_cpus);
	assert_false(o.cpus_serial);
	assert_int_equal(parse(&o, "cpus = serial\ncpus = 0,1\n"), 0);
	assert_false(o.all_cpus);
	assert_false(o.cpus_serial);
}

/* A bad event spec is a config error with its line (the run goes on); an
 * over-long line is an error naming it and is not applied in part. */
static void event_and_long_lines(void **st)
{
	(void)st;
	struct options o;
	assert_int_equal(parse(&o, "repeat = 2\nevent = event=0xc0,counter=4294967296\n"), 1);
	assert_non_null(strstr(errors[0], "line 2: event:"));
	assert_string_equal(o.event, "");
	char text[800];
	snprintf(text, sizeof(text), "# %0300d\nrepeat = 7%0300d\nrepeat = 9\n", 0, 0);
	assert_int_equal(parse(&o, text), 1);
	assert_non_null(strstr(errors[0], "line 2: longer than 255"));
	assert_int_equal(o.repeat, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(good_file),
	    cmocka_unit_test(finish_values),
	    cmocka_unit_test(malformed_lines_reported_and_defaults_kept),
	    cmocka_unit_test(long_and_binary_input),
	    cmocka_unit_test(bad_lists_keep_previous),
	    cmocka_unit_test(load_options),
	    cmocka_unit_test(flags_and_ranges),
	    cmocka_unit_test(output_values),
	    cmocka_unit_test(encodings),
	    cmocka_unit_test(messages_escaped),
	    cmocka_unit_test(numbers_need_digits),
	    cmocka_unit_test(bad_value_keeps_previous),
	    cmocka_unit_test(event_and_long_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
