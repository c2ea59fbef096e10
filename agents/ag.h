/* SPDX-License-Identifier: MIT */
/*
 * ag: what every agent file shares: common/clock.h, warnings on stderr, the
 * fatal-error record (written by common/proto.h's writer, with the human line
 * on stderr that goes with it), a nonblocking fd for the epoll loop, a thread
 * bound to a CPU. Uses libc and common/ only.
 */
#ifndef RDC_AGENTS_AG_H
#define RDC_AGENTS_AG_H

#include <fcntl.h>

#include "common/clock.h"

#define AG_PROG "rdmacap-agent"

/* "rdmacap-agent: <msg>" on stderr; never on stdout, which carries records. */
void ag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "error call=C errno=E err=NAME" plus a human line on stderr naming obj */
void ag_fatal(const char *call, const char *obj, int err);

/*
 * Binds the calling thread (not its process) to cpu (--cpus): 0, or -1 after
 * ag_fatal("sched_setaffinity", "cpu N"). A loop binds before it makes its
 * verbs objects, so their memory is touched first on the CPU that polls them.
 */
int ag_pin(int cpu);

/* Adds O_NONBLOCK to fd's flags: 0, or -1 with errno (the caller reports it). */
static inline int ag_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

#endif
