// SPDX-License-Identifier: MIT
/*
 * TCP client agent: --clients nonblocking connects in one epoll loop, each with
 * its own deadline, then the round trips of load.h over the connections that
 * came up. Phases follow proto.h: hello, go, conn ok/fail..., connected, run,
 * result, stop/EOF, bye.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/load.h"
#include "agents/phase.h"
#include "agents/srv/sock.h"
#include "agents/tcp/tcp.h"
#include "common/proto.h"

#define TCPC_BUF (64 * 1024)
/* connects started per loop turn, so stdin and completions are served between */
#define TCPC_BATCH 512
#define TCPC_EVENTS 512

enum { TCPC_T_CONN = PH_T_USER };

enum tcpc_state { TCPC_NEW, TCPC_CONNECTING, TCPC_UP, TCPC_FAILED, TCPC_CLOSED };

struct tcpc_conn {
	int fd;
	uint32_t tx;	/* bytes of the current message sent */
	uint8_t state;
	uint8_t out;	/* EPOLLOUT is armed */
};

struct tcpc_ctx {
	const struct ag_opts *o;
	struct ph ph;
	struct tcpc_conn *c;
	uint32_t n;
	uint8_t *txb, *rxb;
};

static void tcpc_close(struct tcpc_ctx *x, uint32_t i)
{
	struct tcpc_conn *c = &x->c[i];

	if (c->fd >= 0 && close(c->fd))
		ag_warn("close connection %u: %s", x->o->first_id + i, strerror(errno));
	c->fd = -1;
	c->state = TCPC_CLOSED;
}

static void tcpc_fail(struct tcpc_ctx *x, uint32_t i, const char *call, int err,
		    const char *ename)
{
	struct tcpc_conn *c = &x->c[i];

	ph_fail(&x->ph, i, call, err, ename, false, -1);
	if (c->fd >= 0 && close(c->fd))
		ag_warn("close connection %u: %s", x->o->first_id + i, strerror(errno));
	c->fd = -1;
	c->state = TCPC_FAILED;
}

static int tcpc_mod(struct tcpc_ctx *x, uint32_t i, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = PH_TAG(TCPC_T_CONN, i) };

	return epoll_ctl(x->ph.ep, EPOLL_CTL_MOD, x->c[i].fd, &ev);
}

static void tcpc_up(struct tcpc_ctx *x, uint32_t i)
{
	struct tcpc_conn *c = &x->c[i];

	/* established: a dead server is noticed within common/deadline.h's bound
	 * (set only now, so a slow accept under load keeps connect's own retries) */
	if (sk_detect(c->fd, x->o->keepidle_s)) {
		tcpc_fail(x, i, "setsockopt", errno, NULL);
		return;
	}
	/* from here on a readable socket means echo, stray bytes or the peer's end */
	if (tcpc_mod(x, i, EPOLLIN | EPOLLRDHUP)) {
		tcpc_fail(x, i, "epoll_ctl", errno, NULL);
		return;
	}
	c->state = TCPC_UP;
	ph_up(&x->ph, i);
}

static void tcpc_start(void *arg, uint32_t i)
{
	struct tcpc_ctx *x = arg;
	const struct ag_opts *o = x->o;
	struct tcpc_conn *c = &x->c[i];
	uint32_t id = o->first_id + i;
	struct sockaddr_storage sa, src;
	socklen_t sl = ipa_to_sa(&o->addr, (uint16_t)(o->port + id % o->ports), &sa);
	socklen_t srcl = ipa_to_sa(&o->bind, 0, &src);
	struct epoll_event ev = { .events = EPOLLOUT, .data.u64 = PH_TAG(TCPC_T_CONN, i) };
	const char *call;
	int one = 1;

	c->fd = socket(o->addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		tcpc_fail(x, i, "socket", errno, NULL);
		return;
	}
	call = "setsockopt";
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		goto fail;
	/*
	 * Without NO_PORT, bind() would pick a port unique on its own; with it the
	 * port is chosen at connect() per 4-tuple, so --ports still multiplies the
	 * ~28k ephemeral ports.
	 */
	if (o->has_bind &&
	    setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)))
		goto fail;
	call = "bind";
	if (o->has_bind && bind(c->fd, (struct sockaddr *)&src, srcl))
		goto fail;
	call = "epoll_ctl";
	if (epoll_ctl(x->ph.ep, EPOLL_CTL_ADD, c->fd, &ev))
		goto fail;
	c->state = TCPC_CONNECTING;
	if (!connect(c->fd, (struct sockaddr *)&sa, sl)) {
		tcpc_up(x, i);
		return;
	}
	call = "connect";
	if (errno == EINPROGRESS)
		return;
fail:
	tcpc_fail(x, i, call, errno, NULL);
}

static bool tcpc_pending(void *arg, uint32_t i)
{
	struct tcpc_ctx *x = arg;

	return x->c[i].state == TCPC_CONNECTING;
}

static void tcpc_expire(void *arg, uint32_t i)
{
	tcpc_fail(arg, i, "connect", 0, "timeout");
}

static void tcpc_broken(struct tcpc_ctx *x, uint32_t i, const char *call, int err,
		      const char *ename)
{
	load_fail(&x->ph.load, i, call, err, ename);
	tcpc_close(x, i);
}

static void tcpc_tx(struct tcpc_ctx *x, uint32_t i)
{
	struct tcpc_conn *c = &x->c[i];
	uint32_t size = x->o->size;
	size_t len;
	ssize_t w;

	while (c->tx < size) {
		len = size - c->tx < TCPC_BUF ? size - c->tx : TCPC_BUF;
		load_tx_fill(&x->ph.load, i, c->tx, x->txb, len);
		w = send(c->fd, x->txb, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w >= 0) {
			c->tx += (uint32_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			tcpc_broken(x, i, "send", errno, NULL);
			return;
		}
		if (!c->out) {
			if (tcpc_mod(x, i, EPOLLIN | EPOLLRDHUP | EPOLLOUT)) {
				tcpc_broken(x, i, "epoll_ctl", errno, NULL);
				return;
			}
			c->out = 1;
		}
		return;
	}
	if (c->out) {
		if (tcpc_mod(x, i, EPOLLIN | EPOLLRDHUP)) {
			tcpc_broken(x, i, "epoll_ctl", errno, NULL);
			return;
		}
		c->out = 0;
	}
}

static void tcpc_load_start(void *arg, uint32_t i)
{
	struct tcpc_ctx *x = arg;

	x->c[i].tx = 0;
	tcpc_tx(x, i);
}

static const struct load_ops tcpc_load_ops = { .start = tcpc_load_start };

static void tcpc_rx(struct tcpc_ctx *x, uint32_t i)
{
	struct tcpc_conn *c = &x->c[i];
	uint32_t want;
	ssize_t r;

	/* a completed round trip may start the next, or fail this one: recheck fd */
	while (c->fd >= 0) {
		want = load_want(&x->ph.load, i);
		/* nothing due: one byte tells EOF from stray data */
		r = read(c->fd, x->rxb, want ? (want < TCPC_BUF ? want : TCPC_BUF) : 1);
		if (r > 0) {
			if (!want) {
				load_fail(&x->ph.load, i, "recv", EPROTO, NULL);
				tcpc_close(x, i);
				return;
			}
			switch (load_rx(&x->ph.load, i, x->rxb, (size_t)r)) {
			case -1:
				tcpc_close(x, i);
				return;
			case 1:
				/*
				 * One message in flight per connection: the next echo is
				 * not here yet, a read now would only say EAGAIN.
				 */
				return;
			}
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r == 0)
			tcpc_broken(x, i, "recv", 0, "eof");
		else
			tcpc_broken(x, i, "recv", errno, NULL);
		return;
	}
}

/* Outside traffic a connection should be silent; anything else ends it. */
static void tcpc_quiet_event(struct tcpc_ctx *x, uint32_t i)
{
	struct tcpc_conn *c = &x->c[i];
	ssize_t r;
	int err;

	do
		r = read(c->fd, x->rxb, TCPC_BUF);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return;
	err = r < 0 ? errno : r > 0 ? EPROTO : 0;
	/* before "run" a loss is news; after the result it is just the end */
	if (x->ph.phase == PH_WAIT_RUN || x->ph.phase == PH_CONNECT)
		load_fail(&x->ph.load, i, "recv", err, err ? NULL : "eof");
	tcpc_close(x, i);
}

static int tcpc_event(void *arg, uint32_t t, uint32_t i, uint32_t events)
{
	struct tcpc_ctx *x = arg;
	struct tcpc_conn *c = &x->c[i];
	socklen_t sl = sizeof(int);
	int err = 0;

	if (t != TCPC_T_CONN)
		return 0;

	if (c->state == TCPC_CONNECTING) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err)
			tcpc_fail(x, i, "connect", err, NULL);
		else if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			tcpc_up(x, i);
		return 0;
	}
	if (c->state != TCPC_UP)
		return 0;
	if (x->ph.phase != PH_RUN || load_finished(&x->ph.load)) {
		tcpc_quiet_event(x, i);
		return 0;
	}
	if (events & EPOLLERR) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err) {
			tcpc_broken(x, i, "recv", err, NULL);
			return 0;
		}
	}
	if ((events & EPOLLOUT) && c->out)
		tcpc_tx(x, i);
	if (c->fd >= 0 && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)))
		tcpc_rx(x, i);
	return 0;
}

static const struct ph_ops tcpc_ph_ops = {
	.batch = TCPC_BATCH, .events = TCPC_EVENTS, .start = tcpc_start,
	.pending = tcpc_pending, .expire = tcpc_expire, .event = tcpc_event,
};

static int tcpc_init(struct tcpc_ctx *x)
{
	uint32_t i;

	if (ph_init(&x->ph, x->o, &tcpc_ph_ops, &tcpc_load_ops, x))
		return -1;
	x->n = x->o->clients;
	x->c = calloc(x->n, sizeof(*x->c));
	x->txb = malloc(TCPC_BUF);
	x->rxb = malloc(TCPC_BUF);
	if (!x->c || !x->txb || !x->rxb) {
		ag_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	for (i = 0; i < x->n; i++)
		x->c[i].fd = -1;
	return 0;
}

int tcp_client_run(const struct ag_opts *o)
{
	struct tcpc_ctx x = { .o = o };
	int ret = 1;
	uint32_t i;

	if (tcpc_init(&x))
		goto out;
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
	for (i = 0; i < x.n; i++)
		if (x.c[i].fd >= 0)
			tcpc_close(&x, i);
	if (!ret)
		proto_bye();
out:
	ph_fini(&x.ph);
	free(x.rxb);
	free(x.txb);
	free(x.c);
	return ret;
}
