/* SPDX-License-Identifier: MIT */
/*
 * report: protocol records on stdout (see proto.h) and the latency histogram.
 *
 * Every record is written with one write(2) so lines from several threads never
 * interleave. Once stdout is gone (EPIPE: the orchestrator died) rep_dead() turns
 * true and the agent should shut down.
 */
#ifndef RDC_AGENTS_REPORT_H
#define RDC_AGENTS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agents/proto.h"

int rep_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool rep_dead(void);
/* Symbolic errno ("ECONNREFUSED"); "0" for 0 and "EUNKNOWN" for the unknown. */
const char *rep_errname(int err);
/* "error call=C errno=E err=NAME" plus a human line on stderr naming obj */
void rep_fatal(const char *call, const char *obj, int err);
/* records to fd instead of stdout (unit tests) */
void rep_set_fd(int fd);

struct rep_hist {
	uint64_t n[PROTO_HIST_BUCKETS];
	uint64_t total;
};

void rep_hist_add(struct rep_hist *h, uint64_t ns);
/* Longest encoding: every bucket "NNN:20digits," */
#define REP_HIST_STR_MAX (PROTO_HIST_BUCKETS * 26 + 2)
/* Returns the length written (NUL-terminated), or -1 if buf is too small. */
int rep_hist_encode(const struct rep_hist *h, char *buf, size_t len);
/* Strict inverse of rep_hist_encode; returns 0, or -1 on any malformed input. */
int rep_hist_decode(struct rep_hist *h, const char *s);

#endif
