/* SPDX-License-Identifier: MIT */
/*
 * clock: the one monotonic clock of both programs (agent latencies, orchestrator
 * deadlines), and a thread's CPU time (the server loops' figures). May use libc only.
 */
#ifndef RDC_COMMON_CLOCK_H
#define RDC_COMMON_CLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail on Linux; a failure means a broken libc */
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		abort();
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU nanoseconds of the calling thread (CLOCK_THREAD_CPUTIME_ID); 0: unreadable. */
static inline uint64_t clock_thread_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The same clock in seconds. */
static inline double clock_s(void)
{
	return (double)clock_ns() / 1e9;
}

#endif
