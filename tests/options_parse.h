/* What the option readers share: options.c (the keys), options_config.c
 * (pmuharness.cfg) and options_args.c (load options). Not for other
 * callers: they use options.h. */
#ifndef PMH_TESTS_OPTIONS_PARSE_H
#define PMH_TESTS_OPTIONS_PARSE_H

#include "options.h"

#define OPT_KEY_MAX 40	/* a key, with NUL */
#define OPT_ERR_MAX 160 /* one key's complaint */
#define OPT_MSG_MAX 200 /* a complaint with its line or argument */

/* Counts one bad line or argument and hands the complaint to errfn,
 * escaped: it quotes what the user typed (docs/user-guide.md "Options": only plain ASCII reaches
 * the screen, serial port and log). */
void options_complain(options_err_fn errfn, void *ctx, const char *msg, int *bad);
/* True for the yes/no keys: a bare --flag means yes, "--flag no" no. */
bool options_is_flag(const char *key);
/* True for a yes/no word ("yes", "off", "1", ...), any case. */
bool options_is_bool(const char *word);

#endif
