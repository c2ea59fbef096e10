/* SPDX-License-Identifier: MIT */
/*
 * cli: rdmacap's own option table, for the parser (cli.c) and for everything
 * generated from it (usage.c: --help, the man page's text, bash completion).
 *
 * Offers: one row per option with the commands it applies to, its help group,
 * limits, default and one line of meaning. An option the agent also takes is a
 * row without a name: its word, limits, default and meaning are opt_defs[]'s
 * (common/opt.h); the row only says where rdmacap uses it.
 *
 * Uses: common/opt.h, harness/cli/plan.h. Never prints.
 */
#ifndef RDC_HARNESS_CLI_H
#define RDC_HARNESS_CLI_H

#include <stddef.h>

#include "common/opt.h"
#include "harness/cli/plan.h"

#define HP_B(c) (1u << (c))
#define HP_LOAD (HP_B(HP_RUN) | HP_B(HP_RAMP) | HP_B(HP_LIMIT) | HP_B(HP_STORM))

/* the groups of --help, in the order it lists them */
enum hp_group { HG_LOAD, HG_TOPO, HG_TRANSPORT, HG_LIMIT, HG_INPUT, HG_OUTPUT, HG_GENERAL, HG_N };

/* rdmacap's own options; those the agent also takes are HP_O_SHARED + enum opt_id */
enum {
	HP_O_CLIENTS = 256, HP_O_AGENTS, HP_O_TOPO, HP_O_JSON, HP_O_MAX, HP_O_START,
	HP_O_STEPS, HP_O_BUDGET, HP_O_RXE, HP_O_RUN, HP_O_DEEP, HP_O_BASELINE, HP_O_MD,
	HP_O_SVG, HP_O_THRESH, HP_O_VERBOSE, HP_O_HELP, HP_O_REPEAT, HP_O_FAULT, HP_O_FAULT_AT,
	HP_O_SERVER_ADDR, HP_O_TUNE, HP_O_HOSTS, HP_O_AGENT_PATH, HP_O_PUSH, HP_O_FIGURES,
	HP_O_LAUNCHER, HP_O_SERVER_HOST,
	HP_O_SHARED,
	HP_O_END = HP_O_SHARED + OPT_N,
};

struct hp_opt {
	const char *name;	/* NULL: a shared option, opt_defs[val - HP_O_SHARED] */
	int has_arg;
	int val;
	unsigned cmds;		/* HP_B() of the commands that take it */
	enum hp_group group;
	const char *arg;	/* own: the value's name in help, "N" */
	long min, max;		/* own plain numbers (max 0: not one) */
	const char *def;	/* own: the default, a value the row parses (set at start);
				 * shared: only the text of --help, if not the agent's */
	const char *help;	/* own: one line of meaning */
};

extern const struct hp_opt hp_opts[];
extern const size_t hp_nopts;
extern const char *const hp_names[HP_NCMD];
extern const char *const hp_usages[HP_NCMD];
/* ramp's --clients when none is given; the other load commands: the row's def */
extern const char hp_ramp_clients[];

/* The option's long name (own or shared). */
const char *hp_optname(const struct hp_opt *o);

/* Whether the option takes a value. */
int hp_opt_has_arg(const struct hp_opt *o);

#endif
