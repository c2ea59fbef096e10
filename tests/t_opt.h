/* SPDX-License-Identifier: MIT */
/*
 * tests/t_opt.h - what the option tests (test_opt: the table walked through both
 * parsers; test_optrules: the cross-option rules) share: the test's state, a
 * command line given as one string to rdmacap's parser (hp_parse) or the
 * agent's (ag_opts_parse, a line that starts "rdmacap-agent"), and tables of
 * lines each parser must refuse, or take with what the JSON plan then records.
 * Included by one file of each program: it defines the state it works on.
 */
#ifndef RDC_TESTS_T_OPT_H
#define RDC_TESTS_T_OPT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agents/opts.h"
#include "harness/cli/plan.h"
#include "harness/figures/json.h"
#include "tap/tap.h"

#define T_N(a) (sizeof(a) / sizeof((a)[0]))

static struct tap t;
static struct hp_plan plan;
static struct ag_opts ag;
/* what each parser last wrote: rdmacap's stderr, the agent's error */
static char herr[1024], aerr[256];

/* line split at blanks into argv[], NULL-terminated; the words live in buf */
static inline int t_words(const char *line, char *buf, size_t len, char **argv, int max)
{
	int argc = 0;

	snprintf(buf, len, "%s", line);
	for (char *s = strtok(buf, " "); s && argc < max - 1; s = strtok(NULL, " "))
		argv[argc++] = s;
	argv[argc] = NULL;
	return argc;
}

/* "rdmacap ..." through hp_parse into plan, its stderr into herr */
static inline int h_line(const char *line)
{
	char buf[512], *argv[32];
	int argc = t_words(line, buf, sizeof(buf), argv, 32), rc;
	FILE *f = fmemopen(herr, sizeof(herr), "w");

	memset(herr, 0, sizeof(herr));
	rc = hp_parse(&plan, argc, argv, f);
	fclose(f);
	return rc;
}

/* "rdmacap-agent ..." through ag_opts_parse into ag, its error into aerr */
static inline int a_line(const char *line)
{
	char buf[512], *argv[32];
	int argc = t_words(line, buf, sizeof(buf), argv, 32);

	memset(aerr, 0, sizeof(aerr));
	return ag_opts_parse(&ag, argc, argv, aerr, sizeof(aerr));
}

/* the first line of rdmacap's message, for the test's description */
static inline const char *h_msg(void)
{
	herr[strcspn(herr, "\n")] = '\0';
	return herr;
}

/* a line either parser must refuse, with want in its message */
struct t_no {
	const char *line, *want;
};

static inline void t_refused(const struct t_no *no, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool agent = !strncmp(no[i].line, "rdmacap-agent ", 14);
		int rc = agent ? a_line(no[i].line) : h_line(no[i].line);
		const char *msg = agent ? aerr : h_msg();

		tap_ok(&t, rc == -1 && strstr(msg, no[i].want), "%s: refused (%s)", no[i].line,
		       msg);
	}
}

/* the plan's JSON value of key as a word: a string, true|false, a number, or "-" when absent */
static inline const char *t_plan_word(json_t *js, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(js, key);

	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else
		snprintf(buf, len, "-");
	return buf;
}

/* whether the plan's JSON holds every "key=word" of the blank-separated list kvs */
static inline bool t_plan_has(json_t *js, const char *kvs)
{
	char list[256], num[32], *sp;

	snprintf(list, sizeof(list), "%s", kvs);
	for (char *kv = strtok_r(list, " ", &sp); kv; kv = strtok_r(NULL, " ", &sp)) {
		char *eq = strchr(kv, '=');

		if (!eq)
			return false;
		*eq = '\0';
		if (strcmp(t_plan_word(js, kv, num, sizeof(num)), eq + 1))
			return false;
	}
	return true;
}

/* a line rdmacap must take, and what its plan then records: "key=word ..." */
struct t_yes {
	const char *line, *plan;
};

static inline void t_taken(const struct t_yes *yes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_t *js = h_line(yes[i].line) ? NULL : js_plan(&plan);

		tap_ok(&t, js && t_plan_has(js, yes[i].plan), "%s: taken, the plan records %s (%s)",
		       yes[i].line, yes[i].plan, h_msg());
		json_decref(js);
	}
}

#endif
