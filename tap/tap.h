/* SPDX-License-Identifier: MIT */
/*
 * tap: a TAP 13 / KTAP writer with kselftest conventions.
 *
 *   TAP version 13
 *   1..N
 *   # key=value            diagnostics, before the result they describe
 *   ok 1 desc
 *   not ok 2 desc
 *   ok 3 desc # SKIP reason
 *     KTAP version 1       a subtest (KTAP nesting): 2-space indent per level, own
 *     1..2                 version line and plan, then the parent's result line at
 *                          the outer level
 *     ok 1 ...
 *   ok 4 subtest-desc
 *   # Totals: pass:P fail:F xfail:X xpass:Y skip:S error:E
 *
 * Exit codes follow kselftest: 0 pass, 1 fail, 4 skip (everything skipped),
 * 2 usage error (TAP_EXIT_USAGE, chosen by the caller).
 *
 * A subtest's result at the parent level is computed from its own results: any
 * fail/error/xpass makes the parent "not ok", all-skip makes it a SKIP, otherwise ok.
 * Only the outermost level counts into Totals. The writer flushes after every line
 * so that output interleaved with forked children stays ordered.
 */
#ifndef RDC_TAP_H
#define RDC_TAP_H

#include <stdarg.h>
#include <stdio.h>

enum tap_res {
	TAP_PASS,
	TAP_FAIL,
	TAP_SKIP,
	TAP_XFAIL,
	TAP_XPASS,
	TAP_TIMEOUT, /* "not ok N desc # TIMEOUT reason" */
	TAP_ERROR,   /* "not ok N desc # ERROR reason" */
};

enum {
	TAP_EXIT_PASS = 0,
	TAP_EXIT_FAIL = 1,
	TAP_EXIT_USAGE = 2,
	TAP_EXIT_SKIP = 4,
};

#define TAP_MAX_DEPTH 8

struct tap_level {
	int plan;     /* -1 until tap_plan() */
	int n;        /* results written at this level */
	int cnt[7];   /* per enum tap_res */
};

struct tap {
	FILE *out;
	int depth; /* 0 = top level */
	struct tap_level lv[TAP_MAX_DEPTH];
};

/* Starts a stream: prints "TAP version 13". */
void tap_init(struct tap *t, FILE *out);
/* "1..n" at the current level. */
void tap_plan(struct tap *t, int n);
/* "1..0 # SKIP reason" for a level where nothing runs. */
void tap_skip_all(struct tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "# ..." at the current level's indent. */
void tap_diag(struct tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "# key=value" diagnostic. */
void tap_kv(struct tap *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * One result. 'reason' is the directive text for SKIP/XFAIL/XPASS/TIMEOUT/ERROR
 * (may be NULL). Returns the result's number.
 */
int tap_result(struct tap *t, enum tap_res r, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* ok/not ok from a condition. */
int tap_ok(struct tap *t, int cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Opens a nested level: prints the indented "KTAP version 1" line. */
void tap_sub_begin(struct tap *t);
/* Closes it and writes the parent's result line for it; returns that result. */
enum tap_res tap_sub_end(struct tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "Bail out! msg" */
void tap_bail(struct tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "# Totals: ..." (and the planned != run note) for the top level. */
void tap_totals(struct tap *t);
/* kselftest exit code for the top level: 0 pass, 1 fail, 4 all skipped. */
int tap_exit_code(const struct tap *t);
/*
 * Results held back until their number is known, so that the plan comes first
 * as KTAP wants: tap_hold_begin() starts t on a memory stream, tap_hold_end()
 * prints the version line, the plan, the results and the totals on out and
 * returns tap_exit_code(). begin returns -1 (errno) without memory.
 */
struct tap_hold {
	FILE *mem;
	char *buf;
	size_t len;
};
int tap_hold_begin(struct tap *t, struct tap_hold *h);
int tap_hold_end(struct tap *t, struct tap_hold *h, FILE *out);
/* "pass", "fail", "skip", ... for JSON and logs. Result descriptions are
 * sanitized by the writer: '#' and newlines in them become '_' / ' '. */
const char *tap_res_name(enum tap_res r);

#endif
