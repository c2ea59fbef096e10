/* SPDX-License-Identifier: MIT */
/*
 * ag: helpers shared by every agent file (clock, stderr logging).
 */
#ifndef RDC_AGENTS_AG_H
#define RDC_AGENTS_AG_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define AG_PROG "rdmacap-agent"

static inline uint64_t ag_now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail on Linux; a failure means a broken libc */
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		abort();
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "rdmacap-agent: <msg>" on stderr; never on stdout, which carries records. */
void ag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
