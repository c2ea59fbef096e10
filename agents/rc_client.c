// SPDX-License-Identifier: MIT
/*
 * rc client agent: phases, deadlines and the ping-pong data path.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/rc_client.h"
#include "agents/report.h"

/* setups started per loop turn, so stdin and completions are served between */
#define RCC_BATCH 64
#define RCC_EVENTS 256

int rcc_watch(struct rcc *x, int fd, uint32_t events, uint64_t tag, const char *what)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	if (!epoll_ctl(x->ep, EPOLL_CTL_ADD, fd, &ev))
		return 0;
	rep_fatal("epoll_ctl", what, errno);
	return -1;
}

int rcc_dev_open(struct rcc *x, struct rdma_cm_id *cm)
{
	if (rc_dev_open(&x->dev, x->o, x->local, cm))
		return -1;
	x->dev_up = true;
	return rcc_watch(x, x->dev.ch->fd, EPOLLIN, RCC_TAG(RCC_T_CHAN, 0),
			 "completion channel");
}

static int rcc_arm(int tfd, uint64_t at, uint64_t *armed)
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

static void rcc_settle(struct rcc *x, bool ok)
{
	x->settled++;
	if (ok)
		x->nok++;
	else
		x->nfail++;
}

void rcc_up(struct rcc *x, uint32_t i)
{
	struct rcc_conn *c = &x->c[i];

	c->state = RCC_UP;
	rep_line("conn ok id=%u us=%llu", x->o->first_id + i,
		 (unsigned long long)((ag_now_ns() - c->t0) / 1000));
	load_attach(&x->load, i);
	rcc_settle(x, true);
}

void rcc_fail(struct rcc *x, uint32_t i, const char *call, int err, const char *ename,
	      bool at_server)
{
	struct rcc_conn *c = &x->c[i];

	if (c->state == RCC_FAILED || c->state == RCC_UP)
		return;
	rep_line("conn fail id=%u call=%s errno=%d err=%s%s", x->o->first_id + i, call, err,
		 ename ? ename : rep_errname(err), at_server ? " at=server" : "");
	c->state = RCC_FAILED;
	rcc_settle(x, false);
}

/* --- data path --- */

static void rcc_load_start(void *arg, uint32_t i)
{
	struct rcc *x = arg;
	struct rc_ep *e = &x->c[i].e;
	struct rc_fail f;

	/* the echo's receive is posted before the message that causes it */
	if (!x->dev.use_srq && !e->rq_out && rc_post_recv(&x->dev, e, &f)) {
		load_fail(&x->load, i, f.call, f.err, NULL);
		return;
	}
	load_tx_fill(&x->load, i, 0, rc_sbuf(e), x->o->size);
	if (rc_post_send(&x->dev, e, x->o->size, load_seq(&x->load, i), &f))
		load_fail(&x->load, i, f.call, f.err, NULL);
}

static const struct load_ops rcc_load_ops = { .start = rcc_load_start };

static void rcc_wc(void *arg, const struct ibv_wc *wc)
{
	struct rcc *x = arg;
	unsigned kind = RC_WR_KIND(wc->wr_id);
	uint32_t i, srq_slot = 0, want;
	struct rcc_conn *c = NULL;
	const uint8_t *buf;
	struct rc_fail f;

	if (kind == RC_WR_SRQ) {
		srq_slot = RC_WR_SLOT(wc->wr_id);
		i = rc_map_get(&x->dev.map, wc->qp_num);
	} else {
		i = RC_WR_SLOT(wc->wr_id);
	}
	if (i < x->n && x->c[i].e.qp && x->c[i].e.qp->qp_num == wc->qp_num &&
	    x->c[i].state == RCC_UP)
		c = &x->c[i];
	if (!c || wc->status != IBV_WC_SUCCESS) {
		if (kind == RC_WR_SRQ && rc_srq_repost(&x->dev, srq_slot, &f))
			ag_warn("%s SRQ slot %u: %s", f.call, srq_slot, strerror(f.err));
		if (c)
			load_fail(&x->load, i, "ibv_poll_cq", 0, rc_wc_word(wc->status));
		return;
	}
	switch (wc->opcode) {
	case IBV_WC_SEND:
	case IBV_WC_RDMA_WRITE:
		if (rc_ep_sent(&x->dev, &c->e, &f))
			load_fail(&x->load, i, f.call, f.err, NULL);
		return;
	case IBV_WC_RECV:
	case IBV_WC_RECV_RDMA_WITH_IMM:
		break;
	default:
		load_fail(&x->load, i, "ibv_poll_cq", EPROTO, NULL);
		return;
	}
	if (kind == RC_WR_RECV)
		c->e.rq_out--;
	if (c->e.write)
		buf = rc_rbuf(&x->dev, &c->e);
	else
		buf = x->dev.use_srq ? rc_srq_buf(&x->dev, srq_slot) : rc_rbuf(&x->dev, &c->e);
	/* a message is one completion: anything but the whole echo is an error */
	want = load_want(&x->load, i);
	if (!want || wc->byte_len != want)
		load_fail(&x->load, i, "ibv_poll_cq", EPROTO, NULL);
	else
		load_rx(&x->load, i, buf, wc->byte_len);
	if (kind == RC_WR_SRQ && rc_srq_repost(&x->dev, srq_slot, &f))
		load_fail(&x->load, i, f.call, f.err, NULL);
}

/* --- setup scheduling --- */

static void rcc_start(struct rcc *x, uint32_t i)
{
	x->c[i].t0 = ag_now_ns();
	x->c[i].state = RCC_SETUP;
	if (x->o->cm == AG_CM_RDMACM)
		rcc_cm_start(x, i);
	else
		rcc_oob_start(x, i);
}

/* Starts the setups that are due; true when more are due right now. */
static bool rcc_start_due(struct rcc *x)
{
	uint64_t step = (uint64_t)x->o->stagger_ms * 1000000ull, now = ag_now_ns(), due;
	int budget = RCC_BATCH;

	while (x->next < x->n) {
		due = x->t_go + step * x->next;
		if (due > now) {
			rcc_arm(x->stag, due, &x->stag_armed);
			return false;
		}
		if (!budget--)
			return true;
		rcc_start(x, x->next++);
	}
	return false;
}

/* setups start in order and share one timeout, so deadlines come in order too */
static void rcc_dl_arm(struct rcc *x)
{
	while (x->dl_head < x->next && x->c[x->dl_head].state != RCC_SETUP)
		x->dl_head++;
	if (x->dl_head < x->next)
		rcc_arm(x->dl, x->c[x->dl_head].t0 + (uint64_t)x->o->timeout_s * 1000000000ull,
			&x->dl_armed);
}

static void rcc_dl_expire(struct rcc *x)
{
	uint64_t now = ag_now_ns(), t = (uint64_t)x->o->timeout_s * 1000000000ull, exp;
	struct rcc_conn *c;
	uint32_t i;

	if (read(x->dl, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("read deadline timer: %s", strerror(errno));
	x->dl_armed = 0;
	for (; x->dl_head < x->next; x->dl_head++) {
		i = x->dl_head;
		c = &x->c[i];
		if (c->state != RCC_SETUP)
			continue;
		if (c->t0 + t > now)
			break;
		if (x->o->cm == AG_CM_RDMACM) {
			rcc_fail(x, i, rcc_cm_pending_call(x, i), 0, "timeout", false);
			rcc_cm_drop(x, i);
		} else {
			rcc_fail(x, i, rcc_oob_pending_call(x, i), 0, "timeout", false);
			x->sess[c->sess].waiting--;
			rc_ep_destroy(&x->dev, &c->e);
		}
	}
	rcc_dl_arm(x);
}

/* --- phases --- */

static void rcc_run(struct rcc *x)
{
	x->phase = RCP_RUN;
	if (load_run(&x->load))
		x->phase = RCP_STOP;
}

static void rcc_ctl(struct rcc *x)
{
	enum ctl_cmd cmd;

	while ((cmd = ctl_next(&x->ctl)) != CTL_NONE) {
		switch (cmd) {
		case CTL_GO:
			if (x->phase != RCP_WAIT_GO) {
				ag_warn("stdin: 'go' twice ignored");
				break;
			}
			x->t_go = ag_now_ns();
			x->phase = RCP_CONNECT;
			break;
		case CTL_RUN:
			if (x->phase == RCP_WAIT_RUN)
				rcc_run(x);
			else if (x->phase == RCP_WAIT_GO || x->phase == RCP_CONNECT)
				x->run_pending = true;
			else
				ag_warn("stdin: 'run' twice ignored");
			break;
		default:
			x->phase = RCP_STOP;
			return;
		}
	}
}

static bool rcc_progress(struct rcc *x)
{
	bool busy = false;

	if (x->phase == RCP_CONNECT) {
		busy = rcc_start_due(x);
		rcc_dl_arm(x);
		if (x->next == x->n && x->settled == x->n) {
			rep_line("connected ok=%u fail=%u us=%llu", x->nok, x->nfail,
				 (unsigned long long)((ag_now_ns() - x->t_go) / 1000));
			x->phase = RCP_WAIT_RUN;
			if (x->run_pending)
				rcc_run(x);
		}
	}
	if (x->phase == RCP_RUN && load_finished(&x->load)) {
		load_report(&x->load);
		x->phase = RCP_HOLD;
	}
	return busy;
}

static int rcc_loop(struct rcc *x)
{
	struct epoll_event ev[RCC_EVENTS];
	bool busy = false;
	uint32_t t, v;
	int i, n;

	while (x->phase != RCP_STOP && !rep_dead()) {
		if (!x->ctl.pollable) {
			rcc_ctl(x);
			busy |= rcc_progress(x);
			if (x->phase == RCP_STOP)
				break;
		}
		n = epoll_wait(x->ep, ev, RCC_EVENTS, busy ? 0 : x->ctl.pollable ? -1 : 100);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rep_fatal("epoll_wait", "client loop", errno);
			return -1;
		}
		for (i = 0; i < n && x->phase != RCP_STOP; i++) {
			t = (uint32_t)(ev[i].data.u64 >> 32);
			v = (uint32_t)ev[i].data.u64;
			switch (t) {
			case RCC_T_CTL:
				rcc_ctl(x);
				break;
			case RCC_T_CHAN:
				if (rc_dev_poll(&x->dev, rcc_wc, x))
					return -1;
				break;
			case RCC_T_SESS:
				rcc_oob_event(x, v, ev[i].events);
				break;
			case RCC_T_CM:
				rcc_cm_event(x);
				break;
			case RCC_T_STAGGER:
				if (read(x->stag, &x->stag_armed, 8) < 0 && errno != EAGAIN)
					ag_warn("read stagger timer: %s", strerror(errno));
				x->stag_armed = 0;
				break;
			case RCC_T_DEADLINE:
				rcc_dl_expire(x);
				break;
			case RCC_T_LOAD:
				if (load_on_timer(&x->load))
					x->phase = RCP_STOP;
				break;
			}
		}
		busy = rcc_progress(x);
	}
	return 0;
}

static int rcc_init(struct rcc *x)
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
	if (!x->c) {
		rep_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	for (i = 0; i < x->n; i++)
		x->c[i].e.gen = 1;
	if (load_init(&x->load, &lc, &rcc_load_ops, x)) {
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
	if (rcc_watch(x, x->stag, EPOLLIN, RCC_TAG(RCC_T_STAGGER, 0), "stagger timer") ||
	    rcc_watch(x, x->dl, EPOLLIN, RCC_TAG(RCC_T_DEADLINE, 0), "deadline timer") ||
	    rcc_watch(x, load_timer_fd(&x->load), EPOLLIN, RCC_TAG(RCC_T_LOAD, 0),
		      "think timer"))
		return -1;
	if (ctl_init(&x->ctl, STDIN_FILENO) ||
	    ctl_watch(&x->ctl, x->ep, RCC_TAG(RCC_T_CTL, 0)))
		return -1;
	if (o->has_bind) {
		x->local = o->bind;
	} else if (rc_route_src(o->addr, &x->local)) {
		rep_fatal("connect", "route to the server (source address)", errno);
		return -1;
	}
	if (o->cm == AG_CM_RDMACM)
		return rcc_cm_init(x);
	if (rcc_dev_open(x, NULL))
		return -1;
	return rcc_oob_init(x);
}

static void rcc_fini(struct rcc *x)
{
	uint32_t i;

	/* QPs and their CQs and MRs, then the PD's owner, then sessions and ids */
	for (i = 0; x->c && i < x->n; i++)
		rc_ep_destroy(&x->dev, &x->c[i].e);
	if (x->dev_up)
		rc_dev_close(&x->dev);
	if (x->o->cm == AG_CM_RDMACM)
		rcc_cm_fini(x);
	else
		rcc_oob_fini(x);
	if (x->dl >= 0)
		close(x->dl);
	if (x->stag >= 0)
		close(x->stag);
	if (x->ep >= 0)
		close(x->ep);
	if (x->loaded)
		load_fini(&x->load);
	free(x->c);
}

int rc_client_run(const struct ag_opts *o)
{
	struct rcc x = { .o = o, .ep = -1, .stag = -1, .dl = -1 };
	int ret = 1;

	if (rcc_init(&x))
		goto out;
	rep_line("hello role=client pid=%d first=%u clients=%u", (int)getpid(),
		 o->first_id, o->clients);
	ret = rcc_loop(&x) ? 1 : 0;
out:
	rcc_fini(&x);
	if (!ret)
		rep_line("bye");
	return ret;
}
