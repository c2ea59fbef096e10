// SPDX-License-Identifier: MIT
/*
 * TCP echo server, thread model (--server-model thread): thread per client
 * on a blocking socket, kept to measure against the event model. The main thread accepts and reads stdin in one epoll loop.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/srv/threads.h"
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
	struct srvt th;
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
	quiet = srvt_end(&s->th, tc->fd);
	if (reason && !quiet) {
		sk_peer(peer, (struct sockaddr *)&tc->sa);
		tcp_drop(&s->st, peer, reason);
	}
	atomic_fetch_sub(&s->st.live, 1);
	free(tc);
	srvt_gone(&s->th);
	return NULL;
}

static void tcpt_spawn(struct tcpt_srv *s, int fd, const struct sockaddr_storage *sa)
{
	char peer[SK_PEER_MAX];
	struct tcpt_conn *tc;
	int err;

	tcp_stats_up(&s->st);
	tc = malloc(sizeof(*tc));
	if (!tc) {
		err = ENOMEM;
		goto drop;
	}
	tc->s = s;
	tc->fd = fd;
	tc->sa = *sa;
	err = srvt_spawn(&s->th, fd, tcpt_client, tc);
	if (!err)
		return;
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
	struct tcpt_srv s = { .o = o, .ep = -1 };
	bool clean = false;
	int ret = 1;

	/* no SO_RCVTIMEO: an idle client is no fault, only one that stops reading */
	s.th = (struct srvt){ .what = "client threads", .timeout_s = o->timeout_s,
			      .wait_s = TCPT_STOP_WAIT_S };
	if (srvt_init(&s.th, TCPT_STACK))
		return 1;
	if (tcpt_init(&s))
		goto out;
	proto_hello_server(o->ports, o->port, -1);
	if (tcpt_loop(&s))
		goto out;
	srv_lis_close(&s.lis);
	clean = srvt_stop(&s.th);
	tcp_result(&s.st, o->size);
	proto_bye();
	ret = 0;
out:
	/* client threads that outlived the stop still use s: leave it be */
	srv_lis_close(&s.lis);
	if (s.ep >= 0)
		close(s.ep);
	if (clean)
		srvt_fini(&s.th);
	return ret;
}
