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
#include <sys/timerfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/load.h"
#include "agents/report.h"
#include "agents/tcp.h"

#define TC_BUF (64 * 1024)
/* connects started per loop turn, so stdin and completions are served between */
#define TC_BATCH 512
#define TC_EVENTS 512

enum { TC_T_CTL = 1, TC_T_STAGGER, TC_T_DEADLINE, TC_T_LOAD, TC_T_CONN };
#define TC_TAG(t, v) (((uint64_t)(t) << 32) | (uint32_t)(v))

enum tc_state { TC_NEW, TC_CONNECTING, TC_UP, TC_FAILED, TC_CLOSED };
enum tc_phase { TP_WAIT_GO, TP_CONNECT, TP_WAIT_RUN, TP_RUN, TP_HOLD, TP_STOP };

struct tc_conn {
	uint64_t t0;	/* ns at the connection's first call */
	int fd;
	uint32_t tx;	/* bytes of the current message sent */
	uint8_t state;
	uint8_t out;	/* EPOLLOUT is armed */
};

struct tc_ctx {
	const struct ag_opts *o;
	struct ctl ctl;
	struct load load;
	struct tc_conn *c;
	uint32_t n, next, dl_head, settled, nok, nfail;
	int ep, stag, dl;
	uint64_t t_go, stag_armed, dl_armed;
	enum tc_phase phase;
	bool run_pending, loaded;
	uint8_t *txb, *rxb;
};

static int tc_arm(int tfd, uint64_t at, uint64_t *armed)
{
	struct itimerspec its = { 0 };

	if (at == *armed)
		return 0;
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL)) {
		ag_warn("timerfd_settime: %s", strerror(errno));
		return -1;
	}
	*armed = at;
	return 0;
}

static void tc_close(struct tc_ctx *x, uint32_t i)
{
	struct tc_conn *c = &x->c[i];

	if (c->fd >= 0 && close(c->fd))
		ag_warn("close connection %u: %s", x->o->first_id + i, strerror(errno));
	c->fd = -1;
	c->state = TC_CLOSED;
}

static void tc_settle(struct tc_ctx *x, bool ok)
{
	x->settled++;
	if (ok)
		x->nok++;
	else
		x->nfail++;
}

static void tc_fail(struct tc_ctx *x, uint32_t i, const char *call, int err,
		    const char *ename)
{
	struct tc_conn *c = &x->c[i];

	rep_line("conn fail id=%u call=%s errno=%d err=%s", x->o->first_id + i, call,
		 err, ename ? ename : rep_errname(err));
	if (c->fd >= 0 && close(c->fd))
		ag_warn("close connection %u: %s", x->o->first_id + i, strerror(errno));
	c->fd = -1;
	c->state = TC_FAILED;
	tc_settle(x, false);
}

static int tc_mod(struct tc_ctx *x, uint32_t i, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = TC_TAG(TC_T_CONN, i) };

	return epoll_ctl(x->ep, EPOLL_CTL_MOD, x->c[i].fd, &ev);
}

static void tc_up(struct tc_ctx *x, uint32_t i)
{
	struct tc_conn *c = &x->c[i];

	/* from here on a readable socket means echo, stray bytes or the peer's end */
	if (tc_mod(x, i, EPOLLIN | EPOLLRDHUP)) {
		tc_fail(x, i, "epoll_ctl", errno, NULL);
		return;
	}
	c->state = TC_UP;
	rep_line("conn ok id=%u us=%llu", x->o->first_id + i,
		 (unsigned long long)((ag_now_ns() - c->t0) / 1000));
	load_attach(&x->load, i);
	tc_settle(x, true);
}

static void tc_start(struct tc_ctx *x, uint32_t i)
{
	const struct ag_opts *o = x->o;
	struct tc_conn *c = &x->c[i];
	uint32_t id = o->first_id + i;
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)(o->port + id % o->ports)),
		.sin_addr = o->addr,
	};
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = o->bind };
	struct epoll_event ev = { .events = EPOLLOUT, .data.u64 = TC_TAG(TC_T_CONN, i) };
	const char *call;
	int one = 1;

	c->t0 = ag_now_ns();
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		tc_fail(x, i, "socket", errno, NULL);
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
	if (o->has_bind && bind(c->fd, (struct sockaddr *)&src, sizeof(src)))
		goto fail;
	call = "epoll_ctl";
	if (epoll_ctl(x->ep, EPOLL_CTL_ADD, c->fd, &ev))
		goto fail;
	c->state = TC_CONNECTING;
	if (!connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		tc_up(x, i);
		return;
	}
	call = "connect";
	if (errno == EINPROGRESS)
		return;
fail:
	tc_fail(x, i, call, errno, NULL);
}

/* Starts the connects that are due; true when more are due right now. */
static bool tc_start_due(struct tc_ctx *x)
{
	uint64_t step = (uint64_t)x->o->stagger_ms * 1000000ull, now = ag_now_ns(), due;
	int budget = TC_BATCH;

	while (x->next < x->n) {
		due = x->t_go + step * x->next;
		if (due > now) {
			tc_arm(x->stag, due, &x->stag_armed);
			return false;
		}
		if (!budget--)
			return true;
		tc_start(x, x->next++);
	}
	return false;
}

/* connects start in order and share one timeout, so deadlines come in order too */
static void tc_dl_arm(struct tc_ctx *x)
{
	while (x->dl_head < x->next && x->c[x->dl_head].state != TC_CONNECTING)
		x->dl_head++;
	if (x->dl_head < x->next)
		tc_arm(x->dl, x->c[x->dl_head].t0 +
		       (uint64_t)x->o->timeout_s * 1000000000ull, &x->dl_armed);
}

static void tc_dl_expire(struct tc_ctx *x)
{
	uint64_t now = ag_now_ns(), t = (uint64_t)x->o->timeout_s * 1000000000ull, exp;
	struct tc_conn *c;

	if (read(x->dl, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("read deadline timer: %s", strerror(errno));
	x->dl_armed = 0;
	for (; x->dl_head < x->next; x->dl_head++) {
		c = &x->c[x->dl_head];
		if (c->state != TC_CONNECTING)
			continue;
		if (c->t0 + t > now)
			break;
		tc_fail(x, x->dl_head, "connect", 0, "timeout");
	}
	tc_dl_arm(x);
}

static void tc_broken(struct tc_ctx *x, uint32_t i, const char *call, int err,
		      const char *ename)
{
	load_fail(&x->load, i, call, err, ename);
	tc_close(x, i);
}

static void tc_tx(struct tc_ctx *x, uint32_t i)
{
	struct tc_conn *c = &x->c[i];
	uint32_t size = x->o->size;
	size_t len;
	ssize_t w;

	while (c->tx < size) {
		len = size - c->tx < TC_BUF ? size - c->tx : TC_BUF;
		load_tx_fill(&x->load, i, c->tx, x->txb, len);
		w = send(c->fd, x->txb, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w >= 0) {
			c->tx += (uint32_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			tc_broken(x, i, "send", errno, NULL);
			return;
		}
		if (!c->out) {
			if (tc_mod(x, i, EPOLLIN | EPOLLRDHUP | EPOLLOUT)) {
				tc_broken(x, i, "epoll_ctl", errno, NULL);
				return;
			}
			c->out = 1;
		}
		return;
	}
	if (c->out) {
		if (tc_mod(x, i, EPOLLIN | EPOLLRDHUP)) {
			tc_broken(x, i, "epoll_ctl", errno, NULL);
			return;
		}
		c->out = 0;
	}
}

static void tc_load_start(void *arg, uint32_t i)
{
	struct tc_ctx *x = arg;

	x->c[i].tx = 0;
	tc_tx(x, i);
}

static const struct load_ops tc_load_ops = { .start = tc_load_start };

static void tc_rx(struct tc_ctx *x, uint32_t i)
{
	struct tc_conn *c = &x->c[i];
	uint32_t want;
	ssize_t r;

	/* a completed round trip may start the next, or fail this one: recheck fd */
	while (c->fd >= 0) {
		want = load_want(&x->load, i);
		/* nothing due: one byte tells EOF from stray data */
		r = read(c->fd, x->rxb, want ? (want < TC_BUF ? want : TC_BUF) : 1);
		if (r > 0) {
			if (!want) {
				load_fail(&x->load, i, "recv", EPROTO, NULL);
				tc_close(x, i);
				return;
			}
			switch (load_rx(&x->load, i, x->rxb, (size_t)r)) {
			case -1:
				tc_close(x, i);
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
			tc_broken(x, i, "recv", 0, "eof");
		else
			tc_broken(x, i, "recv", errno, NULL);
		return;
	}
}

/* Outside traffic a connection should be silent; anything else ends it. */
static void tc_quiet_event(struct tc_ctx *x, uint32_t i)
{
	struct tc_conn *c = &x->c[i];
	ssize_t r;
	int err;

	do
		r = read(c->fd, x->rxb, TC_BUF);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return;
	err = r < 0 ? errno : r > 0 ? EPROTO : 0;
	/* before "run" a loss is news; after the result it is just the end */
	if (x->phase == TP_WAIT_RUN || x->phase == TP_CONNECT)
		load_fail(&x->load, i, "recv", err, err ? NULL : "eof");
	tc_close(x, i);
}

static void tc_conn_event(struct tc_ctx *x, uint32_t i, uint32_t events)
{
	struct tc_conn *c = &x->c[i];
	socklen_t sl = sizeof(int);
	int err = 0;

	if (c->state == TC_CONNECTING) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err)
			tc_fail(x, i, "connect", err, NULL);
		else if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			tc_up(x, i);
		return;
	}
	if (c->state != TC_UP)
		return;
	if (x->phase != TP_RUN || load_finished(&x->load)) {
		tc_quiet_event(x, i);
		return;
	}
	if (events & EPOLLERR) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err) {
			tc_broken(x, i, "recv", err, NULL);
			return;
		}
	}
	if ((events & EPOLLOUT) && c->out)
		tc_tx(x, i);
	if (c->fd >= 0 && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)))
		tc_rx(x, i);
}

static void tc_run(struct tc_ctx *x)
{
	x->phase = TP_RUN;
	if (load_run(&x->load))
		x->phase = TP_STOP;
}

static void tc_ctl(struct tc_ctx *x)
{
	enum ctl_cmd cmd;

	while ((cmd = ctl_next(&x->ctl)) != CTL_NONE) {
		switch (cmd) {
		case CTL_GO:
			if (x->phase != TP_WAIT_GO) {
				ag_warn("stdin: 'go' twice ignored");
				break;
			}
			x->t_go = ag_now_ns();
			x->phase = TP_CONNECT;
			break;
		case CTL_RUN:
			if (x->phase == TP_WAIT_RUN)
				tc_run(x);
			else if (x->phase == TP_WAIT_GO || x->phase == TP_CONNECT)
				x->run_pending = true;	/* run once connected */
			else
				ag_warn("stdin: 'run' twice ignored");
			break;
		default:
			x->phase = TP_STOP;
			return;
		}
	}
}

/* Phase changes that follow from events; true when the loop must not block. */
static bool tc_progress(struct tc_ctx *x)
{
	bool busy = false;

	if (x->phase == TP_CONNECT) {
		busy = tc_start_due(x);
		tc_dl_arm(x);
		if (x->next == x->n && x->settled == x->n) {
			rep_line("connected ok=%u fail=%u us=%llu", x->nok, x->nfail,
				 (unsigned long long)((ag_now_ns() - x->t_go) / 1000));
			x->phase = TP_WAIT_RUN;
			if (x->run_pending)
				tc_run(x);
		}
	}
	if (x->phase == TP_RUN && load_finished(&x->load)) {
		load_report(&x->load);
		x->phase = TP_HOLD;
	}
	return busy;
}

static int tc_loop(struct tc_ctx *x)
{
	struct epoll_event ev[TC_EVENTS];
	bool busy = false;
	uint32_t t, v;
	int i, n;

	while (x->phase != TP_STOP && !rep_dead()) {
		if (!x->ctl.pollable) {
			tc_ctl(x);
			busy |= tc_progress(x);
			if (x->phase == TP_STOP)
				break;
		}
		n = epoll_wait(x->ep, ev, TC_EVENTS, busy ? 0 : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rep_fatal("epoll_wait", "client loop", errno);
			return -1;
		}
		for (i = 0; i < n && x->phase != TP_STOP; i++) {
			t = (uint32_t)(ev[i].data.u64 >> 32);
			v = (uint32_t)ev[i].data.u64;
			switch (t) {
			case TC_T_CONN:
				tc_conn_event(x, v, ev[i].events);
				break;
			case TC_T_CTL:
				tc_ctl(x);
				break;
			case TC_T_STAGGER:
				if (read(x->stag, &x->stag_armed, 8) < 0 && errno != EAGAIN)
					ag_warn("read stagger timer: %s", strerror(errno));
				x->stag_armed = 0;
				break;
			case TC_T_DEADLINE:
				tc_dl_expire(x);
				break;
			case TC_T_LOAD:
				if (load_on_timer(&x->load))
					x->phase = TP_STOP;
				break;
			}
		}
		busy = tc_progress(x);
	}
	return 0;
}

static int tc_watch(struct tc_ctx *x, int fd, uint64_t tag, const char *what)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	if (!epoll_ctl(x->ep, EPOLL_CTL_ADD, fd, &ev))
		return 0;
	rep_fatal("epoll_ctl", what, errno);
	return -1;
}

static int tc_init(struct tc_ctx *x)
{
	const struct ag_opts *o = x->o;
	struct load_cfg lc = {
		.nconn = o->clients, .first_id = o->first_id, .msgs = o->msgs,
		.size = o->size, .think_ms = o->think_ms, .workers = o->workers,
		.timeout_s = o->timeout_s,
	};
	uint32_t i;

	x->n = o->clients;
	x->c = calloc(x->n, sizeof(*x->c));
	x->txb = malloc(TC_BUF);
	x->rxb = malloc(TC_BUF);
	if (!x->c || !x->txb || !x->rxb) {
		rep_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	for (i = 0; i < x->n; i++)
		x->c[i].fd = -1;
	if (load_init(&x->load, &lc, &tc_load_ops, x)) {
		rep_fatal("load_init", "traffic engine", ENOMEM);
		return -1;
	}
	x->loaded = true;
	x->ep = epoll_create1(EPOLL_CLOEXEC);
	if (x->ep < 0) {
		rep_fatal("epoll_create1", "client loop", errno);
		return -1;
	}
	x->stag = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	x->dl = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (x->stag < 0 || x->dl < 0) {
		rep_fatal("timerfd_create", "client timers", errno);
		return -1;
	}
	if (tc_watch(x, x->stag, TC_TAG(TC_T_STAGGER, 0), "stagger timer") ||
	    tc_watch(x, x->dl, TC_TAG(TC_T_DEADLINE, 0), "deadline timer") ||
	    tc_watch(x, load_timer_fd(&x->load), TC_TAG(TC_T_LOAD, 0), "think timer"))
		return -1;
	if (ctl_init(&x->ctl, STDIN_FILENO) ||
	    ctl_watch(&x->ctl, x->ep, TC_TAG(TC_T_CTL, 0)))
		return -1;
	return 0;
}

int tcp_client_run(const struct ag_opts *o)
{
	struct tc_ctx x = { .o = o, .ep = -1, .stag = -1, .dl = -1 };
	int ret = 1;
	uint32_t i;

	if (tc_init(&x))
		goto out;
	rep_line("hello role=client pid=%d first=%u clients=%u", (int)getpid(),
		 o->first_id, o->clients);
	ret = tc_loop(&x) ? 1 : 0;
	for (i = 0; i < x.n; i++)
		if (x.c[i].fd >= 0)
			tc_close(&x, i);
	if (!ret)
		rep_line("bye");
out:
	if (x.dl >= 0)
		close(x.dl);
	if (x.stag >= 0)
		close(x.stag);
	if (x.ep >= 0)
		close(x.ep);
	if (x.loaded)
		load_fini(&x.load);
	free(x.rxb);
	free(x.txb);
	free(x.c);
	return ret;
}
