/* SPDX-License-Identifier: MIT */
/*
 * usage: every text made from rdmacap's option tables (harness/cli/cli.h and
 * common/opt.h), so that none of them can drift from what the parser takes:
 * the top-level usage, each command's --help (options grouped, each with one
 * line of meaning, its limits and default, then an example), the hidden
 * --help-all that help2man turns into build/rdmacap.1, and the hidden
 * --bash-completion script that make installs; and the message of a rejected
 * command line, which ends with the command's usage line.
 *
 * Uses: harness/cli/cli.h. Prints only on the FILE it is given.
 */
#ifndef RDC_HARNESS_USAGE_H
#define RDC_HARNESS_USAGE_H

#include <stdio.h>

#include "harness/cli/plan.h"

/* The commands and their usage lines. */
void usage_usage(FILE *f);

/* `rdmacap COMMAND --help`. 0, or -1 when f fails. */
int usage_cmd_help(FILE *f, enum hp_cmd c);

/*
 * A rejected command line: "rdmacap CMD: " and the message, then the command's
 * usage line, on f. Returns -1 (hp_parse's).
 */
int usage_fail(FILE *f, enum hp_cmd c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * argv[1] when it is not a command: --help/-h/help, --version, --help-all,
 * --bash-completion. 0 when word was one of them (printed on out), -1 if not.
 */
int usage_top(const char *word, FILE *out);

#endif
