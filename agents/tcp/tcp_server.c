// SPDX-License-Identifier: MIT
/*
 * TCP echo server, event model: --server-threads epoll loops over nonblocking
 * sockets. Loop 0 runs on the main thread and also reads stdin.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/srv/loops.h"
#include "agents/srv/srv.h"
#include "agents/tag.h"
#include "agents/tcp/tcp.h"
#include "common/proto.h"

/* one shared read buffer per loop; it also bounds a connection's pending echo */
#define TCPS_BUF (64 * 1024)
#define TCPS_EVENTS 256
#define TCPS_ACCEPT_BURST 64
#define TCPS_READ_BURST 8

enum { TCPS_T_LISTEN = 1, TCPS_T_CONN, TCPS_T_WAKE, TCPS_T_TICK, TCPS_T_CTL };
/*
 * a connection's tag carries its slot's generation, so an event still queued
 * for a closed fd is not applied to the next connection with the same fd
 * number (in this loop or another)
 */
#define TCPS_CTAG(fd, gen) TAG(TCPS_T_CONN, gen, fd)

/* the whole per-connection cost in user space: 32 bytes while idle */
struct tcps_conn {
	char *pend;		/* unsent echo, only after a partial write */
	uint32_t pend_off;
	uint32_t pend_len;
	int32_t prev, next;	/* the loop's list of connections with pend */
	uint32_t since;		/* monotonic second of the last write progress */
	struct ipa ip;		/* peer, for drop records */
	uint16_t port;
	uint16_t gen;		/* bumped on every accept into this slot */
	uint8_t live;
};

struct tcps_srv;

struct tcps_loop {
	struct srvl loop;	/* lid, wake, thread (loops.h) */
	struct tcps_srv *s;
	int ep;
	struct srv_lis lis;
	int32_t pend_head;
	uint8_t *buf;
};

struct tcps_srv {
	struct srvl_top top;	/* the loops, stop */
	const struct ag_opts *o;
	struct tcps_conn *conn;
	uint32_t nconn;
	struct ctl ctl;
	atomic_int maxfd;
	struct tcp_stats st;
};

static struct tcps_loop *tcps_at(struct tcps_srv *s, uint32_t i)
{
	return SRVL_OF(srvl_at(&s->top, i), struct tcps_loop, loop);
}

static uint32_t tcps_now_s(void)
{
	return (uint32_t)(clock_ns() / 1000000000ull);
}

static void tcps_peer(const struct tcps_conn *c, char *buf)
{
	struct sockaddr_storage sa;

	ipa_to_sa(&c->ip, c->port, &sa);
	sk_peer(buf, (struct sockaddr *)&sa);
}

static void tcps_unlink(struct tcps_loop *lp, int fd)
{
	struct tcps_conn *c = &lp->s->conn[fd];

	if (c->prev >= 0)
		lp->s->conn[c->prev].next = c->next;
	else
		lp->pend_head = c->next;
	if (c->next >= 0)
		lp->s->conn[c->next].prev = c->prev;
}

/* reason NULL: orderly close; otherwise a "drop" record */
static void tcps_close(struct tcps_loop *lp, int fd, const char *reason)
{
	struct tcps_srv *s = lp->s;
	struct tcps_conn *c = &s->conn[fd];
	char peer[SK_PEER_MAX];
	uint16_t gen;

	if (reason) {
		tcps_peer(c, peer);
		tcp_drop(&s->st, peer, reason);
	}
	if (c->pend) {
		tcps_unlink(lp, fd);
		free(c->pend);
	}
	/* clear the slot before close: another loop may get this fd number at once */
	gen = c->gen;
	memset(c, 0, sizeof(*c));
	c->gen = gen;
	atomic_fetch_sub(&s->st.live, 1);
	if (close(fd))
		ag_warn("close connection fd %d: %s", fd, strerror(errno));
}

static int tcps_mod(struct tcps_loop *lp, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events,
				  .data.u64 = TCPS_CTAG(fd, lp->s->conn[fd].gen) };

	if (!epoll_ctl(lp->ep, EPOLL_CTL_MOD, fd, &ev))
		return 0;
	tcps_close(lp, fd, proto_errname(errno));
	return -1;
}

static void tcps_add(struct tcps_loop *lp, int fd, const struct sockaddr_storage *sa)
{
	struct tcps_srv *s = lp->s;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	char peer[SK_PEER_MAX];
	struct tcps_conn *c;
	int one = 1, max;

	if ((uint32_t)fd >= s->nconn) {
		/* the fd limit was raised behind our back; the table cannot hold it */
		sk_peer(peer, (const struct sockaddr *)sa);
		atomic_fetch_add(&s->st.accepted, 1);
		tcp_drop(&s->st, peer, "EMFILE");
		close(fd);
		return;
	}
	c = &s->conn[fd];
	if (ipa_from_sa(&c->ip, (const struct sockaddr *)sa, &c->port))
		memset(&c->ip, 0, sizeof(c->ip));
	c->prev = c->next = -1;
	c->gen++;
	c->live = 1;
	ev.data.u64 = TCPS_CTAG(fd, c->gen);
	tcp_stats_up(&s->st);
	max = atomic_load(&s->maxfd);
	while (fd > max && !atomic_compare_exchange_weak(&s->maxfd, &max, fd))
		;
	/* ping-pong: never let Nagle hold an echo back */
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    epoll_ctl(lp->ep, EPOLL_CTL_ADD, fd, &ev))
		tcps_close(lp, fd, proto_errname(errno));
}

static void tcps_pause(struct tcps_loop *lp, int err)
{
	if (lp->lis.paused)
		return;
	ag_warn("accept on %s: %s; not accepting for a second", lp->s->o->addr_str,
		strerror(err));
	srv_lis_pause(&lp->lis, true);
}

static void tcps_accept(struct tcps_loop *lp, uint32_t port)
{
	struct sockaddr_storage sa;
	int i, fd, err;

	for (i = 0; i < TCPS_ACCEPT_BURST; i++) {
		fd = srv_accept(&lp->lis, port, SOCK_NONBLOCK | SOCK_CLOEXEC, &sa);
		if (fd >= 0) {
			tcps_add(lp, fd, &sa);
			continue;
		}
		err = errno;
		if (err == EAGAIN)
			return;
		if (!tcp_shed(&lp->lis, port, err, &lp->s->st))
			continue;
		tcps_pause(lp, err);
		return;
	}
}

/* 0: all echoed; 1: rest kept in pend, reading paused; -1: connection gone */
static int tcps_echo(struct tcps_loop *lp, int fd, size_t len)
{
	struct tcps_conn *c = &lp->s->conn[fd];
	ssize_t w;

	do
		w = send(fd, lp->buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w < 0 && errno != EAGAIN) {
		tcps_close(lp, fd, proto_errname(errno));
		return -1;
	}
	if (w < 0)
		w = 0;
	atomic_fetch_add(&lp->s->st.bytes, (uint64_t)w);
	if ((size_t)w == len)
		return 0;
	c->pend = malloc(len - (size_t)w);
	if (!c->pend) {
		tcps_close(lp, fd, "ENOMEM");
		return -1;
	}
	memcpy(c->pend, lp->buf + w, len - (size_t)w);
	c->pend_off = 0;
	c->pend_len = (uint32_t)(len - (size_t)w);
	c->since = tcps_now_s();
	c->prev = -1;
	c->next = lp->pend_head;
	if (c->next >= 0)
		lp->s->conn[c->next].prev = fd;
	lp->pend_head = fd;
	/* stop reading until the peer drains: backpressure, bounded memory */
	if (tcps_mod(lp, fd, EPOLLOUT))
		return -1;
	return 1;
}

static void tcps_read(struct tcps_loop *lp, int fd)
{
	ssize_t r;
	int i;

	for (i = 0; i < TCPS_READ_BURST; i++) {
		r = read(fd, lp->buf, TCPS_BUF);
		if (r == 0) {
			tcps_close(lp, fd, NULL);
			return;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				tcps_close(lp, fd, proto_errname(errno));
			return;
		}
		if (tcps_echo(lp, fd, (size_t)r) || r < TCPS_BUF)
			return;
	}
}

static void tcps_flush(struct tcps_loop *lp, int fd)
{
	struct tcps_conn *c = &lp->s->conn[fd];
	ssize_t w;

	do
		w = send(fd, c->pend + c->pend_off, c->pend_len - c->pend_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		if (errno != EAGAIN)
			tcps_close(lp, fd, proto_errname(errno));
		return;
	}
	atomic_fetch_add(&lp->s->st.bytes, (uint64_t)w);
	c->pend_off += (uint32_t)w;
	c->since = tcps_now_s();
	if (c->pend_off < c->pend_len)
		return;
	tcps_unlink(lp, fd);
	free(c->pend);
	c->pend = NULL;
	tcps_mod(lp, fd, EPOLLIN | EPOLLRDHUP);
}

static void tcps_conn_event(struct tcps_loop *lp, int fd, uint16_t gen, uint32_t events)
{
	struct tcps_conn *c = &lp->s->conn[fd];
	socklen_t sl = sizeof(int);
	int err = 0;

	if (!c->live || c->gen != gen)
		return;
	if (events & EPOLLERR) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err) {
			tcps_close(lp, fd, proto_errname(err));
			return;
		}
	}
	if (c->pend) {
		if (events & (EPOLLOUT | EPOLLHUP))
			tcps_flush(lp, fd);
		return;
	}
	tcps_read(lp, fd);
}

/* Each tick: drop peers that have not taken their echo for --timeout s. */
static void tcps_tick(struct tcps_loop *lp)
{
	struct tcps_srv *s = lp->s;
	uint32_t now = tcps_now_s();
	int32_t fd, next;

	srvl_ticked(&lp->loop);
	for (fd = lp->pend_head; fd >= 0; fd = next) {
		next = s->conn[fd].next;
		if (now - s->conn[fd].since >= s->o->timeout_s)
			tcps_close(lp, fd, "stall");
	}
	srv_lis_pause(&lp->lis, false);
}

static void tcps_ctl(struct tcps_srv *s)
{
	enum ctl_cmd cmd;

	while ((cmd = ctl_next(&s->ctl)) != CTL_NONE) {
		if (cmd == CTL_STOP || cmd == CTL_EOF) {
			srvl_stop_all(&s->top);
			return;
		}
		/* go/run concern clients; the server serves from hello on */
	}
}

/* A loop's run (srvl_fn): its errors stop every loop, not the result. */
static int tcps_loop_run(struct srvl *l)
{
	struct tcps_loop *lp = SRVL_OF(l, struct tcps_loop, loop);
	struct tcps_srv *s = lp->s;
	struct epoll_event ev[TCPS_EVENTS];
	uint32_t t, v;
	uint16_t gen;
	int i, n;

	while (!atomic_load(&s->top.stop)) {
		if (l->lid == 0 && !s->ctl.pollable) {
			tcps_ctl(s);
			if (atomic_load(&s->top.stop))
				break;
		}
		if (proto_dead()) {
			srvl_stop_all(&s->top);
			break;
		}
		n = epoll_wait(lp->ep, ev, TCPS_EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ag_warn("epoll_wait loop %u: %s", l->lid, strerror(errno));
			srvl_stop_all(&s->top);
			break;
		}
		for (i = 0; i < n; i++) {
			t = TAG_TYPE(ev[i].data.u64);
			gen = TAG_GEN(ev[i].data.u64);
			v = TAG_VAL(ev[i].data.u64);
			switch (t) {
			case TCPS_T_CONN:
				tcps_conn_event(lp, (int)v, gen, ev[i].events);
				break;
			case TCPS_T_LISTEN:
				tcps_accept(lp, v);
				break;
			case TCPS_T_TICK:
				tcps_tick(lp);
				break;
			case TCPS_T_CTL:
				tcps_ctl(s);
				break;
			case TCPS_T_WAKE:
				break;
			}
		}
	}
	return 0;
}

static int tcps_loop_init(struct tcps_srv *s, struct tcps_loop *lp)
{
	const struct ag_opts *o = s->o;

	lp->s = s;
	lp->pend_head = -1;
	lp->ep = -1;
	lp->buf = malloc(TCPS_BUF);
	if (!lp->buf) {
		ag_fatal("malloc", "event loop", ENOMEM);
		return -1;
	}
	lp->ep = epoll_create1(EPOLL_CLOEXEC);
	if (lp->ep < 0) {
		ag_fatal("epoll_create1", "event loop", errno);
		return -1;
	}
	if (srvl_wake_open(&lp->loop, lp->ep, TAG(TCPS_T_WAKE, 0, 0)))
		return -1;
	if (srvl_tick_open(&lp->loop, lp->ep, TAG(TCPS_T_TICK, 0, 0)))
		return -1;
	return srv_lis_open(&lp->lis, o, lp->ep, TCPS_T_LISTEN, s->top.n > 1, true);
}

static void tcps_loop_fini(struct tcps_loop *lp)
{
	srv_lis_close(&lp->lis);
	if (lp->ep >= 0)
		close(lp->ep);
	free(lp->buf);
}

/* After every loop has stopped: orderly close of what is left, no records. */
static void tcps_close_all(struct tcps_srv *s)
{
	int fd, max = atomic_load(&s->maxfd);

	for (fd = 0; fd <= max; fd++) {
		if (!s->conn[fd].live)
			continue;
		free(s->conn[fd].pend);
		s->conn[fd].live = 0;
		atomic_fetch_sub(&s->st.live, 1);
		if (close(fd))
			ag_warn("close connection fd %d: %s", fd, strerror(errno));
	}
}

int tcp_server_run(const struct ag_opts *o)
{
	struct tcps_srv s = { .o = o };
	int ret = 1;
	uint32_t i;

	if (o->model == OPT_MODEL_THREAD)
		return tcp_server_thread_run(o);
	atomic_init(&s.maxfd, -1);
	if (srvl_init(&s.top, o->server_threads, sizeof(struct tcps_loop), 0, "event loop"))
		return 1;
	s.nconn = srv_fd_limit();
	/* calloc maps zero pages: only slots of fds actually used cost memory */
	s.conn = calloc(s.nconn, sizeof(*s.conn));
	if (!s.conn) {
		ag_fatal("calloc", "connection table", ENOMEM);
		goto out;
	}
	if (ctl_init(&s.ctl, STDIN_FILENO))
		goto out;
	for (i = 0; i < s.top.n; i++)
		if (tcps_loop_init(&s, tcps_at(&s, i)))
			goto out_loops;
	if (ctl_watch(&s.ctl, tcps_at(&s, 0)->ep, TAG(TCPS_T_CTL, 0, 0)))
		goto out_loops;
	proto_hello_server(o->ports, o->port, -1);
	ret = srvl_run(&s.top, tcps_loop_run) ? 1 : 0;
	if (!ret) {
		tcps_close_all(&s);
		tcp_result(&s.st, o->size);
	}
out_loops:
	for (i = 0; i < s.top.n; i++)
		if (tcps_at(&s, i)->s)
			tcps_loop_fini(tcps_at(&s, i));
	if (!ret)
		proto_bye();
out:
	srvl_fini(&s.top);
	free(s.conn);
	return ret;
}
