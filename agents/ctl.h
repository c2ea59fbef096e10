/* SPDX-License-Identifier: MIT */
/*
 * ctl: orchestrator commands on stdin ("go", "run", "stop"; EOF means stop).
 * "kill" never reaches the caller: ctl_next SIGKILLs the process (proto.h).
 *
 * The fd is made nonblocking and watched by the caller's epoll loop; on
 * readiness call ctl_next() until it returns CTL_NONE. Unknown lines are logged
 * and skipped. When the fd cannot be polled (a regular file or /dev/null)
 * ctl.pollable is false and the caller calls ctl_next() every loop turn.
 */
#ifndef RDC_AGENTS_CTL_H
#define RDC_AGENTS_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ctl_cmd { CTL_NONE, CTL_GO, CTL_RUN, CTL_STOP, CTL_EOF };

struct ctl {
	int fd;
	bool eof;
	bool skipping;	/* inside an overlong line, dropping until '\n' */
	bool pollable;
	size_t len;
	char buf[256];
};

int ctl_init(struct ctl *c, int fd);
/* Add to epfd with data.u64 = tag; a regular file makes pollable false. */
int ctl_watch(struct ctl *c, int epfd, uint64_t tag);
enum ctl_cmd ctl_next(struct ctl *c);
/* For messages: "go", "run", ... */
const char *ctl_name(enum ctl_cmd cmd);

#endif
