/* Helpers shared by the libFuzzer targets: the promises every parser keeps,
 * checked after each input (a broken promise aborts, so libFuzzer keeps the
 * input as a reproducer). Host only. */
#ifndef PMH_HOST_FUZZ_FUZZ_H
#define PMH_HOST_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../tests/options.h"

/* The libFuzzer entry point each target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with what broke when ok is false. */
void fuzz_require(bool ok, const char *what);
/* s has a NUL within max bytes and only printable ASCII (0x20-0x7e) before it. */
void fuzz_require_printable(const char *s, size_t max, const char *what);
/* s has a NUL within max bytes. */
void fuzz_require_terminated(const char *s, size_t max, const char *what);
/* Every field of o within its documented range (docs/user-guide.md "Options"). */
void fuzz_require_sane(const struct options *o);
/* Whether two option sets hold the same values (field by field). */
bool fuzz_options_equal(const struct options *a, const struct options *b);
/* An options_err_fn: a complaint reaches the screen, so it must be
 * printable ASCII; counts complaints in *(int *)ctx. */
void fuzz_err(void *ctx, const char *msg);
/* A NUL-terminated copy of data (free it); an inner NUL ends the string. */
char *fuzz_cstr(const uint8_t *data, size_t size);

#endif
