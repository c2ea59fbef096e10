// SPDX-License-Identifier: MIT
/*
 * TAP 13 / KTAP writer, kselftest conventions (see tap.h).
 *
 * Every line goes through tap_line(), which indents by level and flushes, so a
 * fork()ed child never inherits half a line and output stays in order.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap/tap.h"

static const char *const tap_names[] = {
	[TAP_PASS] = "pass",	   [TAP_FAIL] = "fail",	      [TAP_SKIP] = "skip",
	[TAP_XFAIL] = "xfail",	   [TAP_XPASS] = "xpass",     [TAP_TIMEOUT] = "timeout",
	[TAP_ERROR] = "error",
};

/* Directive words as KTAP spells them; PASS and FAIL have none. */
static const char *const tap_dirs[] = {
	[TAP_SKIP] = "SKIP",	   [TAP_XFAIL] = "XFAIL",     [TAP_XPASS] = "XPASS",
	[TAP_TIMEOUT] = "TIMEOUT", [TAP_ERROR] = "ERROR",
};

static void tap_line(struct tap *t, int indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void tap_line(struct tap *t, int indent, const char *fmt, ...)
{
	int was_bad = ferror(t->out);
	va_list ap;

	fprintf(t->out, "%*s", 2 * indent, "");
	va_start(ap, fmt);
	vfprintf(t->out, fmt, ap);
	va_end(ap);
	fputc('\n', t->out);
	/* Report a dead stream once: the error indicator is sticky. */
	if (fflush(t->out) == EOF && !was_bad)
		fprintf(stderr, "tap: write: %s\n", strerror(errno));
}

/* malloc'd result of vasprintf, or NULL; callers print a placeholder then. */
static char *tap_vfmt(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

/* A description must not contain '#' (it would start a directive) nor end the line. */
static void tap_sanitize(char *s, int hash)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r')
			*s = ' ';
		else if (hash && *s == '#')
			*s = '_';
	}
}

/* One line's worth of text: formatted and sanitized, or NULL (out of memory). */
static char *tap_vtext(const char *fmt, va_list ap, int hash)
{
	char *s = tap_vfmt(fmt, ap);

	if (s)
		tap_sanitize(s, hash);
	return s;
}

static struct tap_level *tap_cur(struct tap *t)
{
	return &t->lv[t->depth];
}

static void tap_level_reset(struct tap_level *l)
{
	memset(l, 0, sizeof(*l));
	l->plan = -1;
}

void tap_init(struct tap *t, FILE *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	tap_level_reset(&t->lv[0]);
	tap_line(t, 0, "TAP version 13");
}

void tap_plan(struct tap *t, int n)
{
	tap_cur(t)->plan = n;
	tap_line(t, t->depth, "1..%d", n);
}

void tap_skip_all(struct tap *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = tap_vtext(fmt, ap, 0);
	va_end(ap);
	tap_cur(t)->plan = 0;
	tap_line(t, t->depth, "1..0 # SKIP %s", s ? s : "(tap: out of memory)");
	free(s);
}

static void tap_vdiag(struct tap *t, const char *fmt, va_list ap)
{
	char *s = tap_vfmt(fmt, ap);
	char *line, *save = NULL;
	size_t len;

	if (!s) {
		tap_line(t, t->depth, "# (tap: out of memory)");
		return;
	}
	/* kselftest callers pass their own "\n"; don't turn it into an empty line. */
	len = strlen(s);
	while (len && s[len - 1] == '\n')
		s[--len] = '\0';
	if (!len) {
		tap_line(t, t->depth, "#");
		free(s);
		return;
	}
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		tap_line(t, t->depth, "# %s", line);
	free(s);
}

void tap_diag(struct tap *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(t, fmt, ap);
	va_end(ap);
}

void tap_kv(struct tap *t, const char *key, const char *fmt, ...)
{
	char *k = strdup(key), *v, *p;
	va_list ap;

	va_start(ap, fmt);
	v = tap_vfmt(fmt, ap);
	va_end(ap);
	if (!k || !v) {
		tap_line(t, t->depth, "# (tap: out of memory)");
		goto out;
	}
	/* Readers split on the first '=' and on whitespace: keep keys one token. */
	for (p = k; *p; p++)
		if (*p == '=' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '#')
			*p = '_';
	tap_sanitize(v, 0);
	tap_line(t, t->depth, "# %s=%s", k, v);
out:
	free(v);
	free(k);
}

static int tap_vresult(struct tap *t, enum tap_res r, const char *reason, const char *fmt,
		       va_list ap)
{
	struct tap_level *l = tap_cur(t);
	char *desc, *why = NULL;
	int bad;

	if ((unsigned)r > TAP_ERROR)
		r = TAP_ERROR;
	bad = r == TAP_FAIL || r == TAP_TIMEOUT || r == TAP_ERROR;
	desc = tap_vtext(fmt, ap, 1);
	if (reason) {
		why = strdup(reason);
		if (why)
			tap_sanitize(why, 0);
	}
	l->n++;
	l->cnt[r]++;
	if (r == TAP_PASS || r == TAP_FAIL) {
		/*
		 * A plain "# text" after the description would be read as a
		 * directive when the text starts with "skip" or "todo", so a
		 * pass/fail reason goes on its own line, before the result.
		 */
		if (why && *why)
			tap_line(t, t->depth, "# %s", why);
		tap_line(t, t->depth, "%s %d%s%s", bad ? "not ok" : "ok", l->n,
			 desc && *desc ? " " : "", desc ? desc : "(tap: out of memory)");
	} else {
		tap_line(t, t->depth, "%s %d%s%s # %s%s%s", bad ? "not ok" : "ok", l->n,
			 desc && *desc ? " " : "", desc ? desc : "(tap: out of memory)",
			 tap_dirs[r], why && *why ? " " : "", why ? why : "");
	}
	free(why);
	free(desc);
	return l->n;
}

int tap_result(struct tap *t, enum tap_res r, const char *reason, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = tap_vresult(t, r, reason, fmt, ap);
	va_end(ap);
	return n;
}

int tap_ok(struct tap *t, int cond, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = tap_vresult(t, cond ? TAP_PASS : TAP_FAIL, NULL, fmt, ap);
	va_end(ap);
	return n;
}

void tap_sub_begin(struct tap *t)
{
	/* Nesting is fixed by the caller's code, not by input: overflow is a bug. */
	if (t->depth + 1 >= TAP_MAX_DEPTH) {
		fprintf(stderr, "tap: subtest nesting deeper than %d\n", TAP_MAX_DEPTH);
		abort();
	}
	t->depth++;
	tap_level_reset(tap_cur(t));
	/* KTAP: a nested level opens with its own version line; only the top is TAP 13. */
	tap_line(t, t->depth, "KTAP version 1");
}

static int tap_level_bad(const struct tap_level *l)
{
	if (l->cnt[TAP_FAIL] || l->cnt[TAP_TIMEOUT] || l->cnt[TAP_ERROR] || l->cnt[TAP_XPASS])
		return 1;
	return l->plan >= 0 && l->plan != l->n;
}

static int tap_level_skipped(const struct tap_level *l)
{
	return l->n == l->cnt[TAP_SKIP];
}

/*
 * A level that never set a plan (a search that doesn't know its length) gets a
 * trailing one; otherwise what kselftest's ksft_print_cnts() prints before Totals.
 */
static void tap_plan_note(struct tap *t, struct tap_level *l)
{
	if (l->plan < 0) {
		l->plan = l->n;
		tap_line(t, t->depth, "1..%d", l->n);
	} else if (l->plan != l->n) {
		tap_line(t, t->depth, "# Planned tests != run tests (%d != %d)", l->plan, l->n);
	}
}

enum tap_res tap_sub_end(struct tap *t, const char *fmt, ...)
{
	struct tap_level *l = tap_cur(t);
	enum tap_res r;
	va_list ap;

	if (t->depth == 0) {
		fprintf(stderr, "tap: tap_sub_end without tap_sub_begin\n");
		abort();
	}
	tap_plan_note(t, l);
	if (tap_level_bad(l))
		r = TAP_FAIL;
	else if (tap_level_skipped(l))
		r = TAP_SKIP;
	else
		r = TAP_PASS;
	t->depth--;
	va_start(ap, fmt);
	tap_vresult(t, r, NULL, fmt, ap);
	va_end(ap);
	return r;
}

void tap_bail(struct tap *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = tap_vtext(fmt, ap, 0);
	va_end(ap);
	/* A bail ends the whole stream, so it is unindented and counts as an error. */
	t->depth = 0;
	t->lv[0].cnt[TAP_ERROR]++;
	tap_line(t, 0, "Bail out! %s", s ? s : "(tap: out of memory)");
	free(s);
}

void tap_totals(struct tap *t)
{
	struct tap_level *l = &t->lv[0];
	const int *c = l->cnt;

	t->depth = 0;
	tap_plan_note(t, l);
	tap_line(t, 0, "# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d",
		 c[TAP_PASS], c[TAP_FAIL] + c[TAP_TIMEOUT], c[TAP_XFAIL], c[TAP_XPASS],
		 c[TAP_SKIP], c[TAP_ERROR]);
}

int tap_exit_code(const struct tap *t)
{
	const struct tap_level *l = &t->lv[0];

	if (tap_level_bad(l))
		return TAP_EXIT_FAIL;
	if (tap_level_skipped(l))
		return TAP_EXIT_SKIP;
	return TAP_EXIT_PASS;
}

int tap_hold_begin(struct tap *t, struct tap_hold *h)
{
	memset(h, 0, sizeof(*h));
	h->mem = open_memstream(&h->buf, &h->len);
	if (!h->mem)
		return -1;
	tap_init(t, h->mem);
	return 0;
}

int tap_hold_end(struct tap *t, struct tap_hold *h, FILE *out)
{
	const char *body;

	if (fclose(h->mem))
		tap_line(t, 0, "# held results: fclose: %s", strerror(errno));
	t->out = out;
	tap_line(t, 0, "TAP version 13");
	tap_plan(t, t->lv[0].n);
	/* the held stream's own version line is the one just written */
	body = h->buf ? strchr(h->buf, '\n') : NULL;
	if (body)
		fputs(body + 1, out);
	free(h->buf);
	h->buf = NULL;
	tap_totals(t);
	return tap_exit_code(t);
}

const char *tap_res_name(enum tap_res r)
{
	if ((unsigned)r > TAP_ERROR)
		return "unknown";
	return tap_names[r];
}
