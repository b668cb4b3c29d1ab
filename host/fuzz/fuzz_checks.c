/* The checks option against the real check ids (options_check_selected,
 * pmh_glob). Input: a glob list up to the first NUL, then a string. Promises:
 * pmh_glob agrees with a plain dynamic-programming glob; a list selects an
 * id exactly when one of its globs matches it. */
#include "fuzz.h"
#include "../../lib/str.h"
#include "../../tests/suite.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CHECKS 256

/* '*' any run, '?' any one character; the whole string must match. */
static bool ref_glob(const char *p, const char *s)
{
	size_t pl = strlen(p), sl = strlen(s);
	bool *m = calloc((pl + 1) * (sl + 1), sizeof(bool)); /* m[i][j]: p[i..] matches s[j..] */

	fuzz_require(m != NULL, "memory");
#define M(i, j) m[(i) * (sl + 1) + (j)]
	M(pl, sl) = true;
	for (size_t i = pl; i-- > 0;)
		for (size_t j = sl + 1; j-- > 0;) {
			if (p[i] == '*')
				M(i, j) = M(i + 1, j) || (j < sl && M(i, j + 1));
			else
				M(i, j) =
				    j < sl && (p[i] == '?' || p[i] == s[j]) && M(i + 1, j + 1);
		}
	bool r = M(0, 0);
#undef M
	free(m);
	return r;
}

/* The list's globs (split at commas, blanks removed, cut to 63
 * characters), each matched with ref_glob. */
static bool ref_selected(const char *list, const char *id)
{
	char pat[64];
	size_t n = 0;

	for (const char *c = list;; c++) {
		if (*c == ',' || !*c) {
			pat[n] = 0;
			if (n && ref_glob(pat, id))
				return true;
			if (!*c)
				return false;
			n = 0;
		} else if (!pmh_isspace(*c) && n + 1 < sizeof(pat)) {
			pat[n++] = *c;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct check *list[MAX_CHECKS];
	struct options o;
	char *pat = fuzz_cstr(data, size);
	size_t pl = strlen(pat);
	const char *str = pl < size ? pat + pl + 1 : "";

	fuzz_require(pmh_glob(pat, str) == ref_glob(pat, str), "pmh_glob matches like a glob");
	options_default(&o);
	pmh_strlcpy(o.checks, pat, sizeof(o.checks));
	size_t n = suite_checks(list, MAX_CHECKS);
	fuzz_require(n > 0, "the check table is linked in");
	for (size_t i = 0; i < n; i++)
		fuzz_require(options_check_selected(&o, list[i]->id) ==
				 ref_selected(o.checks, list[i]->id),
			     "a check is selected exactly when a glob matches its id");
	free(pat);
	return 0;
}
