/* SPDX-License-Identifier: MIT */
/*
 * report: the agent's fatal-error record. Every record is written by a writer of
 * common/proto.h; this adds the human line on stderr that goes with "error".
 */
#ifndef RDC_AGENTS_REPORT_H
#define RDC_AGENTS_REPORT_H

#include "common/proto.h"

/* "error call=C errno=E err=NAME" plus a human line on stderr naming obj */
void rep_fatal(const char *call, const char *obj, int err);

#endif
