// SPDX-License-Identifier: MIT
/*
 * The listeners, accept and shedding of every server model. See srv.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/srv/srv.h"
#include "agents/tag.h"

int srv_lis_open(struct srv_lis *l, const struct ag_opts *o, int ep, uint8_t type,
		 bool reuseport, bool shed)
{
	uint32_t i;

	l->o = o;
	l->n = 0;
	l->ep = ep;
	l->type = type;
	l->reserve = -1;
	l->paused = false;
	l->fd = malloc(o->ports * sizeof(*l->fd));
	if (!l->fd) {
		ag_fatal("malloc", "listeners", ENOMEM);
		return -1;
	}
	if (shed) {
		l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (l->reserve < 0) {
			ag_fatal("open", "/dev/null", errno);
			return -1;
		}
	}
	for (i = 0; i < o->ports; i++) {
		l->fd[i] = sk_listen(o, o->port + i, 1, reuseport);
		if (l->fd[i] < 0)
			return -1;
		l->n++;
		if (tag_watch(ep, l->fd[i], EPOLLIN, TAG(type, 0, i), "listener"))
			return -1;
	}
	return 0;
}

void srv_lis_close(struct srv_lis *l)
{
	uint32_t i;

	/* never opened (a zeroed struct): nothing, not even reserve, is ours */
	if (!l->fd)
		return;
	for (i = 0; i < l->n; i++)
		close(l->fd[i]);
	free(l->fd);
	l->fd = NULL;
	l->n = 0;
	if (l->reserve >= 0)
		close(l->reserve);
	l->reserve = -1;
}

void srv_lis_pause(struct srv_lis *l, bool pause)
{
	uint32_t i;

	if (l->paused == pause)
		return;
	for (i = 0; i < l->n; i++)
		tag_mod(l->ep, l->fd[i], pause ? 0 : EPOLLIN, TAG(l->type, 0, i), "listener");
	l->paused = pause;
}

int srv_accept(struct srv_lis *l, uint32_t i, int flags, struct sockaddr_storage *sa)
{
	socklen_t sl;
	int fd;

	do {
		sl = sizeof(*sa);
		fd = accept4(l->fd[i], (struct sockaddr *)sa, &sl, flags);
	} while (fd < 0 && (errno == EINTR || errno == ECONNABORTED));
	return fd;
}

int srv_shed(struct srv_lis *l, uint32_t i, int err, char *peer)
{
	struct sockaddr_storage sa;
	int fd, aerr;

	if ((err != EMFILE && err != ENFILE) || l->reserve < 0)
		return -1;
	close(l->reserve);
	fd = srv_accept(l, i, SOCK_CLOEXEC, &sa);
	aerr = errno;
	if (fd >= 0) {
		sk_peer(peer, (struct sockaddr *)&sa);
		close(fd);
	}
	l->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* an empty queue is fine: the caller's next accept sees EAGAIN */
	if (fd >= 0)
		return 1;
	return aerr == EAGAIN ? 0 : -1;
}

uint32_t srv_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1u << 24))
		return 1u << 24;
	return (uint32_t)rl.rlim_cur;
}
