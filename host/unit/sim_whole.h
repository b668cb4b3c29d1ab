/* Shared by the unit tests that pin what a whole run prints on a simulated
 * CPU (the hypervisor models): one power-on and one harness_run as the
 * simulator's command line does it, every line kept for the asserts.
 * Include after cmocka.h and sim.h. */
#ifndef PMH_TESTS_UNIT_SIM_WHOLE_H
#define PMH_TESTS_UNIT_SIM_WHOLE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../tests/harness.h"
#include "../../tests/platform.h"

#define WHOLE_LOG (1u << 20)
static char whole_log[WHOLE_LOG];
static size_t whole_len;

static inline void whole_line(void *ctx, const char *s)
{
	(void)ctx;
	size_t n = strlen(s);
	assert_true(whole_len + n + 2 < WHOLE_LOG);
	memcpy(whole_log + whole_len, s, n);
	whole_len += n;
	whole_log[whole_len++] = '\n';
	whole_log[whole_len] = 0;
}

static inline void *whole_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return calloc(1, n);
}

static inline void whole_free(void *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

/* Model with fault f, the realism effects in real drawn from seed, and the
 * "key=value" options in args (NULL: none): the run's exit value, its
 * lines in whole_log. */
static inline enum pmh_exit run_whole(const char *model, enum sim_fault f, uint32_t real,
				      uint64_t seed, const char *args)
{
	static struct suite ws;
	static struct harness h;
	struct platform plat = {.line = whole_line, .alloc = whole_alloc, .free = whole_free};
	char buf[512], *argv[16];
	int argc = 0;

	whole_len = 0;
	whole_log[0] = 0;
	memset(&h, 0, sizeof(h));
	memset(&ws, 0, sizeof(ws));
	h.suite = &ws;
	options_default(&h.opt);
	if (args) {
		snprintf(buf, sizeof(buf), "%s", args);
		for (char *w = strtok(buf, " "); w && argc < 16; w = strtok(0, " "))
			argv[argc++] = w;
		assert_int_equal(options_parse_args(&h.opt, argc, argv, 0, 0), 0);
	}
	assert_int_equal(sim_start_real(model, f, real, seed), 0);
	return harness_run(&plat, &h);
}

/* Whether the run printed a line that starts with head and holds every
 * piece of text in want (NULL-terminated); fails the test naming the
 * line it looked for when it did not. */
static inline bool whole_has(const char *head, const char *const *want)
{
	for (const char *l = whole_log; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		bool ok = !strncmp(l, head, strlen(head));
		for (unsigned i = 0; ok && want && want[i]; i++) {
			const char *f = strstr(l, want[i]);
			ok = f && f < l + n;
		}
		if (ok)
			return true;
		l += n + (e != 0);
	}
	return false;
}
#define assert_line(head, ...)                                                                     \
	do {                                                                                       \
		static const char *const w_[] = {__VA_ARGS__, 0};                                  \
		if (!whole_has(head, w_))                                                          \
			fail_msg("no line \"%s...\" with the text asked for; the run:\n%s", head,  \
				 whole_log);                                                       \
	} while (0)
#endif
