/* SPDX-License-Identifier: MIT */
/*
 * tests/t_tool.h - what the unit tests that check rdmacap's readers against a
 * reference tool (test_rnl, test_rdev, test_rnlstat) share: a skipped result, a
 * tool's stdout, and the monotonic clock in microseconds. Needs tap/tap.h
 * included first; uses libc and common/clock.h only.
 */
#ifndef RDC_TESTS_T_TOOL_H
#define RDC_TESTS_T_TOOL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/clock.h"

static inline void t_skip(struct tap *t, const char *desc, const char *why)
{
	tap_result(t, TAP_SKIP, why, "%s", desc);
}

/*
 * Runs cmd through sh, its stdout (cut at size - 1 bytes) into out as a string.
 * 0 when it exited 0; otherwise -1, and why as a "# " line on stdout.
 */
static inline int t_run(const char *cmd, char *out, size_t size)
{
	size_t len = 0, n;
	FILE *f;
	int st;

	f = popen(cmd, "r");
	if (!f) {
		printf("# popen %s: %s\n", cmd, strerror(errno));
		return -1;
	}
	while (len < size - 1 && (n = fread(out + len, 1, size - 1 - len, f)) > 0)
		len += n;
	out[len] = '\0';
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("# %s: exit status %d\n", cmd, st);
		return -1;
	}
	return 0;
}

static inline double t_now_us(void)
{
	return (double)clock_ns() / 1e3;
}

#endif
