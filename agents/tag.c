// SPDX-License-Identifier: MIT
/*
 * epoll registration with the agent's one tag layout. See tag.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>

#include "agents/ag.h"
#include "agents/tag.h"

int tag_watch(int ep, int fd, uint32_t events, uint64_t tag, const char *what)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	if (!epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		return 0;
	ag_fatal("epoll_ctl", what, errno);
	return -1;
}

void tag_mod(int ep, int fd, uint32_t events, uint64_t tag, const char *what)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev))
		ag_warn("epoll_ctl %s: %s", what, strerror(errno));
}
