/* Load options as the firmware hands them over (the UEFI shell's UCS-2
 * argv, a boot entry's UCS-2 string) and a config file larger than what
 * the platform reads: every word and line gets a verdict, none is lost or
 * glued to another, and nothing is dropped without a message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "../../tests/options.h"
#include "../../lib/str.h"

#define MAX_ERRORS 8
#define UNITS_MAX  4096

static char errors[MAX_ERRORS][240];
static int n_errors;
static uint16_t units[UNITS_MAX];

static void err(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_errors < MAX_ERRORS)
		snprintf(errors[n_errors], sizeof(errors[0]), "%s", msg);
	n_errors++;
}

/* s as UCS-2 in units[] ('~' stands for U+00E9, which ASCII source cannot
 * hold); returns the count with the terminating NUL. */
static size_t wide(const char *s)
{
	size_t n = 0;
	for (; *s && n + 1 < UNITS_MAX; s++)
		units[n++] = *s == '~' ? 0xe9 : (uint8_t)*s;
	units[n++] = 0;
	return n;
}

static int cmdline(struct options *o, const char *s)
{
	size_t n = wide(s);
	n_errors = 0;
	options_default(o);
	return options_parse_cmdline(o, units, n, err, NULL);
}

/* The shell lets the user leave out ".efi": the first word is the image's
 * name whatever it looks like, as long as it is not an option. */
static void image_name_without_efi(void **st)
{
	(void)st;
	struct options o;
	assert_int_equal(cmdline(&o, "pmuharness checks=apic.nmi"), 0);
	assert_string_equal(o.checks, "apic.nmi");
	assert_int_equal(cmdline(&o, "\\EFI\\Boot\\pmuharness.efi repeat=3"), 0);
	assert_int_equal(o.repeat, 3);
	/* a boot entry that passes only options: every word is one */
	assert_int_equal(cmdline(&o, "repeat=4 --verbose"), 0);
	assert_int_equal(o.repeat, 4);
	assert_true(o.verbose);
	assert_int_equal(cmdline(&o, "--repeat 6 checks=pmu.*"), 0);
	assert_int_equal(o.repeat, 6);
	assert_string_equal(o.checks, "pmu.*");
}

/* No word limit and no length limit: the 51st word and a word past
 * character 511 count like the first. */
static void many_words_and_long_lines(void **st)
{
	(void)st;
	struct options o;
	char line[3000];
	size_t n = (size_t)snprintf(line, sizeof(line), "pmuharness");

	for (int i = 0; i < 50; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " verbose=no");
	snprintf(line + n, sizeof(line) - n, " repeat=9 countdown=7");
	assert_true(strlen(line) > 511);
	assert_int_equal(cmdline(&o, line), 0);
	assert_int_equal(o.repeat, 9);
	assert_int_equal(o.countdown, 7);
	assert_false(o.verbose);
}

/* One non-ASCII character refuses its word, named with its number and the
 * character; the other words apply. */
static void non_ascii_refuses_one_word(void **st)
{
	(void)st;
	struct options o;
	assert_int_equal(cmdline(&o, "pmuharness checks=caf~ repeat=4"), 1);
	assert_non_null(strstr(errors[0], "argument 1 \"checks=caf\\u00e9\""));
	assert_non_null(strstr(errors[0], "U+00E9"));
	assert_string_equal(o.checks, "*");
	assert_int_equal(o.repeat, 4);
	/* the value word of a --key: the key goes with it */
	assert_int_equal(cmdline(&o, "x --checks caf~ --repeat 5"), 1);
	assert_non_null(strstr(errors[0], "the value of argument 1"));
	assert_string_equal(o.checks, "*");
	assert_int_equal(o.repeat, 5);
}

static void bad_words_named(void **st)
{
	(void)st;
	struct options o;
	char line[400];

	memset(line, 'a', sizeof(line));
	memcpy(line, "x checks=", 9);
	line[sizeof(line) - 1] = 0;
	assert_int_equal(cmdline(&o, line), 1);
	assert_non_null(strstr(errors[0], "longer than 255 characters"));
	assert_int_equal(cmdline(&o, "x repeat=2 bogus --repeat"), 2);
	assert_non_null(strstr(errors[0], "argument 2 \"bogus\": not an option"));
	assert_non_null(strstr(errors[1], "argument 3 \"--repeat\": no value follows"));
	assert_int_equal(o.repeat, 2);
	/* quotes group blanks into one word and are dropped */
	assert_int_equal(cmdline(&o, "x \"checks=apic.*, count.*\""), 0);
	assert_string_equal(o.checks, "apic.*, count.*");
}

/* The user guide's "--key value" holds for the yes/no keys too: "--verbose no"
 * is no; a bare --flag before another option, or last, is yes. */
static void flags_take_yes_no_words(void **st)
{
	(void)st;
	struct options o;
	assert_int_equal(cmdline(&o, "x --verbose yes --json off --list-events"), 0);
	assert_true(o.verbose);
	assert_false(o.json_events);
	assert_true(o.list_events);
	assert_int_equal(cmdline(&o, "x --verbose repeat=2 --json --verbose NO"), 0);
	assert_int_equal(o.repeat, 2);
	assert_true(o.json_events);
	assert_false(o.verbose);
	/* a refused word after a flag: the flag stands, the word alone goes */
	assert_int_equal(cmdline(&o, "x --verbose caf~"), 1);
	assert_true(o.verbose);
	assert_non_null(strstr(errors[0], "argument 2 \"caf\\u00e9\": character U+00E9"));
}

/* help, --help and -h ask for the option list (nothing else runs); an
 * unknown key names the nearest real one. */
static void help_and_nearest_key(void **st)
{
	(void)st;
	static const char *const asks[] = {"pmuharness help", "x --help", "x -h", "help"};
	struct options o;
	char *argv[] = {"--repat", "3", "checks=x", "--zzzzzzzz=1"};

	for (unsigned i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		assert_int_equal(cmdline(&o, asks[i]), 0);
		assert_true(o.help);
	}
	assert_int_equal(cmdline(&o, "x checks=help"), 0);
	assert_false(o.help);
	n_errors = 0;
	options_default(&o);
	assert_int_equal(options_parse_args(&o, 4, argv, err, NULL), 2);
	assert_non_null(strstr(errors[0], "unknown key \"repat\" (did you mean repeat?)"));
	assert_non_null(strstr(errors[1], "unknown key \"zzzzzzzz\" (help lists the keys)"));
}

/* A '*' in the pattern is a wildcard even where the string holds a '*'
 * (found by the checks fuzz target). */
static void glob_star_before_literal(void **st)
{
	(void)st;
	assert_true(pmh_glob("*a*", "a*beff"));
	assert_true(pmh_glob("a*", "a*"));
	assert_true(pmh_glob("*", "*"));
	assert_false(pmh_glob("*b", "a*"));
	assert_true(pmh_glob("apic.*", "apic.nmi"));
}

/* A boot entry's binary data is one message, not a run with no options
 * and no word said. */
static void binary_blob(void **st)
{
	(void)st;
	struct options o;
	size_t n = wide("WINDOWS repeat=3");
	units[7] = 0x01;
	n_errors = 0;
	options_default(&o);
	assert_int_equal(options_parse_cmdline(&o, units, n, err, NULL), 1);
	assert_non_null(strstr(errors[0], "not text"));
	assert_int_equal(o.repeat, 11);
	/* past the first NUL nothing is read (a boot entry's size may count
	 * more than the string) */
	n = wide("x repeat=3 --verbose");
	units[10] = 0;
	options_default(&o);
	assert_int_equal(options_parse_cmdline(&o, units, n, err, NULL), 0);
	assert_int_equal(o.repeat, 3);
	assert_false(o.verbose);
}

/* The shell's own argv: no image name in it, each word judged alone. */
static void shell_argv(void **st)
{
	(void)st;
	static const uint16_t a0[] = {'c', 'h', 'e', 'c', 'k', 's', '=',
				      'r', 'd', 'p', 'm', 'c', 0};
	static const uint16_t a1[] = {'r', 'e', 'p', 'e', 'a', 't', '=', '1', 0xff21, 0};
	static const uint16_t a2[] = {'-', '-', 'c', 'o', 'u', 'n', 't', 'd', 'o', 'w', 'n', 0};
	static const uint16_t a3[] = {'0', 0};
	const uint16_t *const argv[] = {a0, a1, a2, a3};
	struct options o;

	n_errors = 0;
	options_default(&o);
	assert_int_equal(options_parse_wide_args(&o, 4, argv, err, NULL), 1);
	assert_string_equal(o.checks, "rdpmc");
	assert_int_equal(o.repeat, 11);
	assert_int_equal(o.countdown, 0);
	assert_non_null(strstr(errors[0], "argument 2 \"repeat=1\\uff21\""));
}

/* Where the event option was set travels with it, for the message when
 * the CPU refuses it later. */
static void event_origin(void **st)
{
	(void)st;
	struct options o;
	const char cfg[] = "# events\nevent = INST_RETIRED.ANY\n";
	char *argv[] = {"--repeat", "3", "--event", "event=0xc0"};

	options_default(&o);
	assert_int_equal(options_parse_config(&o, cfg, strlen(cfg), NULL, NULL), 0);
	assert_string_equal(o.event_at, "pmuharness.cfg line 2");
	assert_int_equal(options_parse_args(&o, 4, argv, NULL, NULL), 0);
	assert_string_equal(o.event, "event=0xc0");
	assert_string_equal(o.event_at, "argument 3");
}

/* A file larger than the platform reads: the line the cut crosses is not
 * applied half-read, and the cut is said. */
static void config_cut(void **st)
{
	(void)st;
	struct options o;
	const char mid[] = "repeat = 5\nrepeat = 7";
	const char edge[] = "repeat = 5\n";

	n_errors = 0;
	options_default(&o);
	assert_int_equal(options_parse_config_cut(&o, mid, strlen(mid), 40000, err, NULL), 1);
	assert_int_equal(o.repeat, 5);
	assert_non_null(strstr(errors[0], "line 2: the file is 40000 bytes and only the first 21"));
	assert_non_null(strstr(errors[0], "cut there"));
	n_errors = 0;
	assert_int_equal(options_parse_config_cut(&o, edge, strlen(edge), 40000, err, NULL), 1);
	assert_non_null(strstr(errors[0], "line 2: the file is 40000 bytes"));
	/* read whole: the last line needs no newline */
	assert_int_equal(options_parse_config_cut(&o, mid, strlen(mid), strlen(mid), err, NULL), 0);
	assert_int_equal(o.repeat, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(image_name_without_efi),
	    cmocka_unit_test(many_words_and_long_lines),
	    cmocka_unit_test(non_ascii_refuses_one_word),
	    cmocka_unit_test(bad_words_named),
	    cmocka_unit_test(flags_take_yes_no_words),
	    cmocka_unit_test(help_and_nearest_key),
	    cmocka_unit_test(glob_star_before_literal),
	    cmocka_unit_test(binary_blob),
	    cmocka_unit_test(shell_argv),
	    cmocka_unit_test(event_origin),
	    cmocka_unit_test(config_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
