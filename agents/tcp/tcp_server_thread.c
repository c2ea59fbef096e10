// SPDX-License-Identifier: MIT
/*
 * TCP echo server, thread model (--server-model thread): thread per client
 * on a blocking socket, kept to measure against the event model. The main thread accepts and reads stdin in one epoll loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/tag.h"
#include "agents/tcp/tcp.h"
#include "common/proto.h"

#define TCPT_STACK (64 * 1024)
#define TCPT_BUF (16 * 1024)
#define TCPT_STOP_WAIT_S 5
enum { TCPT_T_LISTEN = 1, TCPT_T_CTL };

struct tcpt_srv {
	const struct ag_opts *o;
	struct tcp_stats st;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_attr_t attr;
	uint8_t *live;		/* by fd, under mu */
	uint32_t nconn;
	int maxfd;		/* under mu */
	bool stopping;		/* under mu */
	int ep;
	struct srv_lis lis;
	struct ctl ctl;
};

struct tcpt_conn {
	struct tcpt_srv *s;
	int fd;
	struct sockaddr_storage sa;
};

static const char *tcpt_echo(int fd, uint8_t *buf, struct tcp_stats *st)
{
	ssize_t r, w, off;

	for (;;) {
		r = read(fd, buf, TCPT_BUF);
		if (r == 0)
			return NULL;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return proto_errname(errno);
		}
		for (off = 0; off < r; off += w) {
			w = send(fd, buf + off, (size_t)(r - off), MSG_NOSIGNAL);
			if (w >= 0)
				continue;
			if (errno == EINTR) {
				w = 0;
				continue;
			}
			/* SO_SNDTIMEO ran out: the peer stopped reading */
			if (errno == EAGAIN)
				return "stall";
			return proto_errname(errno);
		}
		atomic_fetch_add(&st->bytes, (uint64_t)r);
	}
}

static void *tcpt_client(void *arg)
{
	struct tcpt_conn *tc = arg;
	struct tcpt_srv *s = tc->s;
	char peer[SK_PEER_MAX];
	uint8_t buf[TCPT_BUF];
	const char *reason;
	bool quiet;

	reason = tcpt_echo(tc->fd, buf, &s->st);
	pthread_mutex_lock(&s->mu);
	/* after our own shutdown() at stop, whatever the socket says is not news */
	quiet = s->stopping;
	s->live[tc->fd] = 0;
	if (close(tc->fd))
		ag_warn("close connection fd %d: %s", tc->fd, strerror(errno));
	pthread_mutex_unlock(&s->mu);
	if (reason && !quiet) {
		sk_peer(peer, (struct sockaddr *)&tc->sa);
		tcp_drop(&s->st, peer, reason);
	}
	pthread_mutex_lock(&s->mu);
	if (atomic_fetch_sub(&s->st.live, 1) == 1)
		pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	free(tc);
	return NULL;
}

static void tcpt_spawn(struct tcpt_srv *s, int fd, const struct sockaddr_storage *sa)
{
	struct timeval tv = { .tv_sec = s->o->timeout_s };
	char peer[SK_PEER_MAX];
	struct tcpt_conn *tc;
	pthread_t th;
	int one = 1, err;

	tcp_stats_up(&s->st);
	tc = malloc(sizeof(*tc));
	if (!tc) {
		err = ENOMEM;
		goto drop;
	}
	tc->s = s;
	tc->fd = fd;
	tc->sa = *sa;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		err = errno;
		goto drop_tc;
	}
	pthread_mutex_lock(&s->mu);
	s->live[fd] = 1;
	if (fd > s->maxfd)
		s->maxfd = fd;
	err = pthread_create(&th, &s->attr, tcpt_client, tc);
	if (err)
		s->live[fd] = 0;
	pthread_mutex_unlock(&s->mu);
	if (!err)
		return;
drop_tc:
	free(tc);
drop:
	sk_peer(peer, (const struct sockaddr *)sa);
	tcp_drop(&s->st, peer, proto_errname(err));
	atomic_fetch_sub(&s->st.live, 1);
	close(fd);
}

static void tcpt_accept(struct tcpt_srv *s, uint32_t port)
{
	struct sockaddr_storage sa;
	int i, fd, err;

	for (i = 0; i < 64; i++) {
		/* no SOCK_NONBLOCK: the client thread blocks on its socket */
		fd = srv_accept(&s->lis, port, SOCK_CLOEXEC, &sa);
		if (fd >= 0) {
			if ((uint32_t)fd >= s->nconn) {
				close(fd);
				continue;
			}
			tcpt_spawn(s, fd, &sa);
			continue;
		}
		err = errno;
		if (err == EAGAIN)
			return;
		if (!tcp_shed(&s->lis, port, err, &s->st))
			continue;
		ag_warn("accept on %s: %s", s->o->addr_str, strerror(err));
		return;
	}
}

/* Unblock every client thread and wait (bounded) until they have closed. */
static void tcpt_stop(struct tcpt_srv *s)
{
	struct timespec ts;
	int fd, err = 0;

	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	for (fd = 0; fd <= s->maxfd; fd++)
		if (s->live[fd] && shutdown(fd, SHUT_RDWR))
			ag_warn("shutdown fd %d: %s", fd, strerror(errno));
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		abort();
	ts.tv_sec += TCPT_STOP_WAIT_S;
	while (atomic_load(&s->st.live) && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	pthread_mutex_unlock(&s->mu);
	if (err == ETIMEDOUT)
		ag_warn("%u client threads still running after %d s", atomic_load(&s->st.live),
			TCPT_STOP_WAIT_S);
}

static int tcpt_loop(struct tcpt_srv *s)
{
	struct epoll_event ev[64];
	enum ctl_cmd cmd;
	int i, n;

	for (;;) {
		if (proto_dead())
			return 0;
		while (!s->ctl.pollable && (cmd = ctl_next(&s->ctl)) != CTL_NONE)
			if (cmd == CTL_STOP || cmd == CTL_EOF)
				return 0;
		n = epoll_wait(s->ep, ev, 64, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ag_fatal("epoll_wait", "accept loop", errno);
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (TAG_TYPE(ev[i].data.u64) == TCPT_T_LISTEN) {
				tcpt_accept(s, TAG_VAL(ev[i].data.u64));
				continue;
			}
			while ((cmd = ctl_next(&s->ctl)) != CTL_NONE)
				if (cmd == CTL_STOP || cmd == CTL_EOF)
					return 0;
		}
	}
}

static int tcpt_init(struct tcpt_srv *s)
{
	const struct ag_opts *o = s->o;
	pthread_condattr_t ca;
	int err;

	s->nconn = tcp_fd_limit();
	s->live = calloc(s->nconn, 1);
	if (!s->live) {
		ag_fatal("calloc", "connection table", ENOMEM);
		return -1;
	}
	if ((err = pthread_condattr_init(&ca)) ||
	    (err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) ||
	    (err = pthread_cond_init(&s->cv, &ca)) ||
	    (err = pthread_mutex_init(&s->mu, NULL)) ||
	    (err = pthread_attr_init(&s->attr)) ||
	    (err = pthread_attr_setstacksize(&s->attr, TCPT_STACK)) ||
	    (err = pthread_attr_setdetachstate(&s->attr, PTHREAD_CREATE_DETACHED))) {
		ag_fatal("pthread_init", "client threads", err);
		return -1;
	}
	pthread_condattr_destroy(&ca);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		ag_fatal("epoll_create1", "accept loop", errno);
		return -1;
	}
	if (ctl_init(&s->ctl, STDIN_FILENO) || ctl_watch(&s->ctl, s->ep, TAG(TCPT_T_CTL, 0, 0)))
		return -1;
	return srv_lis_open(&s->lis, o, s->ep, TCPT_T_LISTEN, false, true);
}

int tcp_server_thread_run(const struct ag_opts *o)
{
	struct tcpt_srv s = { .o = o, .maxfd = -1, .ep = -1 };
	int ret = 1;

	if (tcpt_init(&s))
		goto out;
	proto_hello_server(o->ports, o->port, -1);
	if (tcpt_loop(&s))
		goto out;
	srv_lis_close(&s.lis);
	tcpt_stop(&s);
	tcp_result(&s.st, o->size);
	proto_bye();
	ret = 0;
out:
	/* client threads that outlived tcpt_stop still use s: leave mutex and table be */
	srv_lis_close(&s.lis);
	if (s.ep >= 0)
		close(s.ep);
	if (!ret && !atomic_load(&s.st.live))
		free(s.live);
	return ret;
}
