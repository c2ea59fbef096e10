/* SPDX-License-Identifier: MIT */
/*
 * ag: helpers shared by every agent file (common/clock.h, stderr logging).
 */
#ifndef RDC_AGENTS_AG_H
#define RDC_AGENTS_AG_H

#include "common/clock.h"

#define AG_PROG "rdmacap-agent"

/* "rdmacap-agent: <msg>" on stderr; never on stdout, which carries records. */
void ag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
