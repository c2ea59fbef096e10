// SPDX-License-Identifier: MIT
/*
 * Unit tests of the TAP writer: each case writes a stream into a memstream and
 * compares the exact text; the last cases feed streams to Perl's prove, a real
 * TAP consumer, which must accept the good ones and reject the broken ones.
 * Reports in TAP through the writer under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap/tap.h"

struct tt {
	char *buf;
	size_t len;
	FILE *f;
	struct tap w; /* the writer under test */
	struct tap *out; /* this program's own report */
};

static int tt_open(struct tt *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		tap_diag(c->out, "open_memstream: %s", strerror(errno));
		return -1;
	}
	tap_init(&c->w, c->f);
	return 0;
}

static void tt_close(struct tt *c)
{
	if (c->f)
		fclose(c->f);
	c->f = NULL;
	free(c->buf);
	c->buf = NULL;
}

/* 1 if the stream so far equals 'want'; shows both otherwise. */
static int tt_expect(struct tt *c, const char *want)
{
	if (fflush(c->f) == EOF) {
		tap_diag(c->out, "fflush memstream: %s", strerror(errno));
		return 0;
	}
	if (!strcmp(c->buf, want))
		return 1;
	tap_diag(c->out, "--- expected\n%s", want);
	tap_diag(c->out, "--- got\n%s", c->buf);
	return 0;
}

static int tt_expect_int(struct tt *c, const char *what, int got, int want)
{
	if (got == want)
		return 1;
	tap_diag(c->out, "%s: got %d, want %d", what, got, want);
	return 0;
}

static int case_flat(struct tt *c)
{
	int ok;

	tap_plan(&c->w, 3);
	tap_kv(&c->w, "clients", "%d", 10);
	ok = tt_expect_int(c, "first number", tap_ok(&c->w, 1, "connect %d", 10), 1);
	ok &= tt_expect_int(c, "second number", tap_ok(&c->w, 0, "connect %d", 50), 2);
	tap_result(&c->w, TAP_SKIP, "no rxe", "storm");
	tap_totals(&c->w);
	ok &= tt_expect(c, "TAP version 13\n"
			   "1..3\n"
			   "# clients=10\n"
			   "ok 1 connect 10\n"
			   "not ok 2 connect 50\n"
			   "ok 3 storm # SKIP no rxe\n"
			   "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n");
	return ok & tt_expect_int(c, "exit code", tap_exit_code(&c->w), TAP_EXIT_FAIL);
}

static int case_directives(struct tt *c)
{
	tap_plan(&c->w, 6);
	tap_result(&c->w, TAP_XFAIL, "needs 7.1", "netns rxe");
	tap_result(&c->w, TAP_XPASS, "fixed?", "old bug");
	tap_result(&c->w, TAP_TIMEOUT, "30 seconds", "ramp 1000");
	tap_result(&c->w, TAP_ERROR, "fork: EAGAIN", "agents");
	tap_result(&c->w, TAP_SKIP, NULL, "bare skip");
	/* "skip ..." inline would turn this failure into a skip for TAP readers. */
	tap_result(&c->w, TAP_FAIL, "skipped 3 records", "parse");
	tap_totals(&c->w);
	return tt_expect(c, "TAP version 13\n"
			    "1..6\n"
			    "ok 1 netns rxe # XFAIL needs 7.1\n"
			    "ok 2 old bug # XPASS fixed?\n"
			    "not ok 3 ramp 1000 # TIMEOUT 30 seconds\n"
			    "not ok 4 agents # ERROR fork: EAGAIN\n"
			    "ok 5 bare skip # SKIP\n"
			    "# skipped 3 records\n"
			    "not ok 6 parse\n"
			    "# Totals: pass:0 fail:2 xfail:1 xpass:1 skip:1 error:1\n");
}

static int case_sanitize(struct tt *c)
{
	tap_plan(&c->w, 2);
	tap_ok(&c->w, 1, "a #1\ntwo\r");
	tap_result(&c->w, TAP_SKIP, "line\nbreak # kept", "%s", "");
	tap_kv(&c->w, "bad key=x", "v1\nv2");
	tap_diag(&c->w, "first\nsecond\n");
	tap_diag(&c->w, "\n");
	return tt_expect(c, "TAP version 13\n"
			    "1..2\n"
			    "ok 1 a _1 two \n"
			    "ok 2 # SKIP line break # kept\n"
			    "# bad_key_x=v1 v2\n"
			    "# first\n"
			    "# second\n"
			    "#\n");
}

static int case_exit_codes(struct tt *c)
{
	int ok = 1;

	tap_plan(&c->w, 2);
	tap_ok(&c->w, 1, "a");
	tap_result(&c->w, TAP_XFAIL, NULL, "b");
	ok &= tt_expect_int(c, "pass+xfail", tap_exit_code(&c->w), TAP_EXIT_PASS);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_plan(&c->w, 2);
	tap_result(&c->w, TAP_SKIP, "x", "a");
	tap_result(&c->w, TAP_SKIP, "y", "b");
	ok &= tt_expect_int(c, "all skipped", tap_exit_code(&c->w), TAP_EXIT_SKIP);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_skip_all(&c->w, "not root (uid %d)", 1000);
	tap_totals(&c->w);
	ok &= tt_expect(c, "TAP version 13\n"
			   "1..0 # SKIP not root (uid 1000)\n"
			   "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	ok &= tt_expect_int(c, "skip all", tap_exit_code(&c->w), TAP_EXIT_SKIP);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_plan(&c->w, 3);
	tap_ok(&c->w, 1, "a");
	tap_totals(&c->w);
	ok &= tt_expect(c, "TAP version 13\n"
			   "1..3\n"
			   "ok 1 a\n"
			   "# Planned tests != run tests (3 != 1)\n"
			   "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	ok &= tt_expect_int(c, "plan mismatch", tap_exit_code(&c->w), TAP_EXIT_FAIL);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_ok(&c->w, 1, "a");
	tap_result(&c->w, TAP_SKIP, NULL, "b");
	tap_totals(&c->w);
	ok &= tt_expect(c, "TAP version 13\n"
			   "ok 1 a\n"
			   "ok 2 b # SKIP\n"
			   "1..2\n"
			   "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0\n");
	ok &= tt_expect_int(c, "trailing plan", tap_exit_code(&c->w), TAP_EXIT_PASS);
	return ok;
}

static int case_bail(struct tt *c)
{
	tap_plan(&c->w, 2);
	tap_ok(&c->w, 1, "a");
	tap_sub_begin(&c->w);
	tap_bail(&c->w, "lost agent %d", 7);
	tap_totals(&c->w);
	return tt_expect(c, "TAP version 13\n"
			    "1..2\n"
			    "ok 1 a\n"
			    "  KTAP version 1\n"
			    "Bail out! lost agent 7\n"
			    "# Planned tests != run tests (2 != 1)\n"
			    "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:1\n") &
	       tt_expect_int(c, "bail", tap_exit_code(&c->w), TAP_EXIT_FAIL);
}

/* A ramp: one passing, one failing, one skipped and one short load point. */
static int case_nested(struct tt *c)
{
	int ok = 1;

	tap_plan(&c->w, 5);
	tap_sub_begin(&c->w);
	tap_plan(&c->w, 2);
	tap_kv(&c->w, "qp", "%d", 10);
	tap_ok(&c->w, 1, "connect");
	tap_result(&c->w, TAP_XFAIL, NULL, "old kernel");
	ok &= tt_expect_int(c, "sub pass", tap_sub_end(&c->w, "clients=%d", 10), TAP_PASS);

	tap_sub_begin(&c->w);
	tap_plan(&c->w, 2);
	tap_ok(&c->w, 1, "connect");
	tap_sub_begin(&c->w);
	tap_plan(&c->w, 1);
	tap_ok(&c->w, 0, "leak check");
	ok &= tt_expect_int(c, "inner", tap_sub_end(&c->w, "counters"), TAP_FAIL);
	ok &= tt_expect_int(c, "sub fail", tap_sub_end(&c->w, "clients=50"), TAP_FAIL);

	tap_sub_begin(&c->w);
	tap_skip_all(&c->w, "no rxe");
	ok &= tt_expect_int(c, "sub skip", tap_sub_end(&c->w, "clients=100"), TAP_SKIP);

	tap_sub_begin(&c->w);
	tap_plan(&c->w, 2);
	tap_ok(&c->w, 1, "connect");
	ok &= tt_expect_int(c, "sub short", tap_sub_end(&c->w, "clients=500"), TAP_FAIL);

	tap_sub_begin(&c->w);
	tap_result(&c->w, TAP_XPASS, NULL, "surprise");
	ok &= tt_expect_int(c, "sub xpass", tap_sub_end(&c->w, "clients=1000"), TAP_FAIL);
	tap_totals(&c->w);
	ok &= tt_expect(c, "TAP version 13\n"
			   "1..5\n"
			   "  KTAP version 1\n"
			   "  1..2\n"
			   "  # qp=10\n"
			   "  ok 1 connect\n"
			   "  ok 2 old kernel # XFAIL\n"
			   "ok 1 clients=10\n"
			   "  KTAP version 1\n"
			   "  1..2\n"
			   "  ok 1 connect\n"
			   "    KTAP version 1\n"
			   "    1..1\n"
			   "    not ok 1 leak check\n"
			   "  not ok 2 counters\n"
			   "not ok 2 clients=50\n"
			   "  KTAP version 1\n"
			   "  1..0 # SKIP no rxe\n"
			   "ok 3 clients=100 # SKIP\n"
			   "  KTAP version 1\n"
			   "  1..2\n"
			   "  ok 1 connect\n"
			   "  # Planned tests != run tests (2 != 1)\n"
			   "not ok 4 clients=500\n"
			   "  KTAP version 1\n"
			   "  ok 1 surprise # XPASS\n"
			   "  1..1\n"
			   "not ok 5 clients=1000\n"
			   "# Totals: pass:1 fail:3 xfail:0 xpass:0 skip:1 error:0\n");
	return ok & tt_expect_int(c, "exit", tap_exit_code(&c->w), TAP_EXIT_FAIL);
}

static int case_names(struct tt *c)
{
	static const char *const want[] = { "pass", "fail", "skip", "xfail",
					    "xpass", "timeout", "error" };
	int ok = 1;
	int i;

	for (i = TAP_PASS; i <= TAP_ERROR; i++)
		if (strcmp(tap_res_name(i), want[i])) {
			tap_diag(c->out, "tap_res_name(%d) = %s", i, tap_res_name(i));
			ok = 0;
		}
	return ok & !strcmp(tap_res_name((enum tap_res)99), "unknown");
}

/*
 * Exit status of "prove -e cat FILE" on the stream written so far, -1 if it
 * could not run. prove exits 0 only for a stream it parsed as passing.
 */
static int tt_prove(struct tt *c)
{
	char path[] = "/tmp/test_tap.XXXXXX";
	int fd, st, devnull;
	pid_t pid;

	if (fflush(c->f) == EOF) {
		tap_diag(c->out, "fflush memstream: %s", strerror(errno));
		return -1;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		tap_diag(c->out, "mkstemp %s: %s", path, strerror(errno));
		return -1;
	}
	if (write(fd, c->buf, c->len) != (ssize_t)c->len) {
		tap_diag(c->out, "write %s: %s", path, strerror(errno));
		st = -1;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		tap_diag(c->out, "fork: %s", strerror(errno));
		st = -1;
		goto out;
	}
	if (!pid) {
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execlp("prove", "prove", "-e", "cat", path, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		tap_diag(c->out, "waitpid prove: %s", strerror(errno));
		st = -1;
		goto out;
	}
	st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (st == 127)
		st = -1;
out:
	close(fd);
	unlink(path);
	return st;
}

static int tt_have_prove(void)
{
	return !system("command -v prove >/dev/null 2>&1");
}

static int case_prove_accepts(struct tt *c)
{
	int ok = 1;

	/* Nested levels, diagnostics, every passing directive and Totals. */
	tap_plan(&c->w, 4);
	tap_kv(&c->w, "n", "1");
	tap_sub_begin(&c->w);
	tap_plan(&c->w, 1);
	tap_ok(&c->w, 1, "inner");
	tap_sub_end(&c->w, "sub");
	tap_result(&c->w, TAP_SKIP, "why", "s");
	tap_result(&c->w, TAP_XFAIL, "known", "x");
	tap_ok(&c->w, 1, "desc with # hash");
	tap_totals(&c->w);
	ok &= tt_expect_int(c, "prove on good stream", tt_prove(c), 0);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_skip_all(&c->w, "nothing to do");
	tap_totals(&c->w);
	return ok & tt_expect_int(c, "prove on skip-all", tt_prove(c), 0);
}

static int case_prove_rejects(struct tt *c)
{
	int ok = 1;

	tap_plan(&c->w, 3);
	tap_ok(&c->w, 1, "a");
	tap_totals(&c->w);
	ok &= tt_expect_int(c, "prove on plan mismatch", tt_prove(c) > 0, 1);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_plan(&c->w, 1);
	tap_result(&c->w, TAP_TIMEOUT, "5 seconds", "slow");
	ok &= tt_expect_int(c, "prove on timeout", tt_prove(c) > 0, 1);
	tt_close(c);

	if (tt_open(c))
		return 0;
	tap_plan(&c->w, 1);
	tap_result(&c->w, TAP_FAIL, "skip me", "reason must not hide the failure");
	ok &= tt_expect_int(c, "prove on fail with reason", tt_prove(c) > 0, 1);
	return ok;
}

struct tt_case {
	const char *name;
	int (*fn)(struct tt *c);
	int prove;
};

static const struct tt_case tt_cases[] = {
	{ "flat stream, numbering, kv, totals", case_flat, 0 },
	{ "directives", case_directives, 0 },
	{ "sanitized descriptions and diagnostics", case_sanitize, 0 },
	{ "exit codes, skip-all, plan mismatch, trailing plan", case_exit_codes, 0 },
	{ "bail out", case_bail, 0 },
	{ "nested subtests and parent results", case_nested, 0 },
	{ "result names", case_names, 0 },
	{ "prove accepts good streams", case_prove_accepts, 1 },
	{ "prove rejects broken streams", case_prove_rejects, 1 },
};

int main(void)
{
	size_t n = sizeof(tt_cases) / sizeof(tt_cases[0]);
	int have_prove = tt_have_prove();
	struct tap out;
	struct tt c;
	size_t i;

	tap_init(&out, stdout);
	tap_plan(&out, n);
	for (i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		c.out = &out;
		if (tt_cases[i].prove && !have_prove) {
			tap_result(&out, TAP_SKIP, "prove not found", "%s", tt_cases[i].name);
			continue;
		}
		if (tt_open(&c)) {
			tap_result(&out, TAP_ERROR, "open_memstream", "%s", tt_cases[i].name);
			continue;
		}
		tap_ok(&out, tt_cases[i].fn(&c), "%s", tt_cases[i].name);
		tt_close(&c);
	}
	tap_totals(&out);
	return tap_exit_code(&out);
}
