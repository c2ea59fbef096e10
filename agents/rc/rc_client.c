// SPDX-License-Identifier: MIT
/*
 * rc client agent: its setups for phase.h (start, deadline, events) and the
 * ping-pong data path.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/rc/rc_client.h"
#include "common/clock.h"
#include "common/deadline.h"
#include "common/proto.h"
#include "rdma/dev.h"

/* setups started per loop turn, so stdin and completions are served between */
#define RCC_BATCH 64
#define RCC_EVENTS 256

int rcc_dev_open(struct rcc *x, struct rdma_cm_id *cm)
{
	if (rc_dev_open(&x->dev, x->o, &x->local, cm))
		return -1;
	x->dev_up = true;
	if (ph_watch(&x->ph, x->dev.ctx->async_fd, EPOLLIN, PH_TAG(RCC_T_ASYNC, 0),
		     "async event fd"))
		return -1;
	return ph_watch(&x->ph, x->dev.ch->fd, EPOLLIN, PH_TAG(RCC_T_CHAN, 0),
			"completion channel");
}

void rcc_up(struct rcc *x, uint32_t i)
{
	struct rcc_conn *c = &x->c[i];

	c->state = RCC_UP;
	ph_up(&x->ph, i);
	/* a QP of its own, or the owner of a shared one */
	if (!x->nqp || i < x->nqp)
		x->ph.load.qps++;
	if (i < x->nqp)
		rcc_share_settle(x, i, true, NULL, 0);
}

static void rcc_fail_status(struct rcc *x, uint32_t i, const char *call, int err,
			    const char *ename, bool at_server, int status)
{
	struct rcc_conn *c = &x->c[i];

	if (c->state == RCC_FAILED || c->state == RCC_UP)
		return;
	/* phased (--cm-order): the step under way goes on without it */
	if (c->state == RCC_SETUP)
		rccp_failed(x, i);
	ph_fail(&x->ph, i, call, err, ename, at_server, status);
	c->state = RCC_FAILED;
	if (i < x->nqp)
		rcc_share_settle(x, i, false, call, err);
}

void rcc_fail(struct rcc *x, uint32_t i, const char *call, int err, const char *ename,
	      bool at_server)
{
	rcc_fail_status(x, i, call, err, ename, at_server, -1);
}

void rcc_rejected(struct rcc *x, uint32_t i, int status)
{
	rcc_fail_status(x, i, "rdma_connect", 0, "REJECTED", false, status);
}

/* --- data path --- */

/*
 * Client i's message's imm_data: its seq; with --qp-share the client's index
 * in the agent (below 2^20, --clients' limit) above the seq's low
 * RCC_IMM_SEQ_BITS bits. A late uc echo is at most DL_UC_TRIES round trips
 * old, far inside the 4096 those bits tell apart.
 */
#define RCC_IMM_SEQ_BITS 12

uint32_t rcc_imm(const struct rcc *x, uint32_t i)
{
	uint32_t seq = load_seq(&x->ph.load, i);

	if (!x->nqp)
		return seq;
	return i << RCC_IMM_SEQ_BITS | (seq & ((1u << RCC_IMM_SEQ_BITS) - 1));
}

/* the echo carries client i's imm_data (not the seq of one of its earlier round trips) */
static bool rcc_imm_is(const struct rcc *x, uint32_t i, const struct ibv_wc *wc)
{
	return (wc->wc_flags & IBV_WC_WITH_IMM) && ntohl(wc->imm_data) == rcc_imm(x, i);
}

/* client i's round trip on QP q (q == i unless --qp-share); 0 or -1 (failed) */
static int rcc_send(struct rcc *x, uint32_t q, uint32_t i)
{
	struct rc_ep *e = &x->ep[q];
	struct verbs_fail f;

	/* the echo's receive is posted before the message that causes it */
	if (!rc_op_onesided((enum opt_op)e->op) && !x->dev.use_srq && !e->rq_out &&
	    rc_post_recv(&x->dev, e, &f))
		goto fail;
	load_tx_fill(&x->ph.load, i, 0, rc_sbuf(e), x->o->size);
	/* a shared QP's messages say whose they are; uc's which send they answer */
	e->imm = x->nqp != 0 || x->rt;
	if (rc_post_send(&x->dev, e, x->o->size, rcc_imm(x, i), &f))
		goto fail;
	if (x->rt) {
		x->rt[q].t_first = x->rt[q].t_sent = clock_ns();
		x->rt[q].tries = 1;
		rcc_uc_arm(x, true);
	}
	return 0;
fail:
	load_fail(&x->ph.load, i, f.call, f.err, NULL);
	return -1;
}

/* q's round trip is over: the next client waiting for q goes */
void rcc_share_go(struct rcc *x, uint32_t q)
{
	uint32_t k;

	while ((k = rcc_share_next(x, q)) != RCC_NONE && rcc_send(x, q, k))
		;
}

static void rcc_load_start(void *arg, uint32_t i)
{
	struct rcc *x = arg;
	uint32_t q = x->nqp ? i % x->nqp : i;

	if (x->nqp && !rcc_share_take(x, q, i))
		return;
	if (rcc_send(x, q, i) && x->nqp)
		rcc_share_go(x, q);
}

/* the client whose round trip QP q carries */
uint32_t rcc_who(const struct rcc *x, uint32_t q)
{
	return x->nqp ? x->qp[q].cur : q;
}

static const struct load_ops rcc_load_ops = { .start = rcc_load_start };

/*
 * A READ or fetch-and-add completed: the round trip is done. A read brings the
 * server's payload of this connection (seq 0, rc.h); an add brings the
 * counter before it, which is the round trips done so far.
 */
static void rcc_onesided(struct rcc *x, uint32_t q, const struct ibv_wc *wc)
{
	struct rc_ep *e = &x->ep[q];
	const uint8_t *buf = rc_rbuf(&x->dev, e);
	uint32_t i = rcc_who(x, q);
	struct verbs_fail f;
	uint64_t old;
	bool ok;

	if (i == RCC_NONE || rc_ep_sent(&x->dev, e, &f)) {
		load_fail(&x->ph.load, i == RCC_NONE ? q : i, i == RCC_NONE ? "ibv_poll_cq" : f.call,
			  i == RCC_NONE ? EPROTO : f.err, NULL);
		return;
	}
	/* the server's buffer is its QP owner's (the id of the REQ) */
	if (wc->opcode == IBV_WC_RDMA_READ) {
		ok = load_payload_check(x->o->first_id + q, 0, 0, buf, x->o->size) == x->o->size;
	} else {
		memcpy(&old, buf, sizeof(old));
		ok = old == (x->nqp ? x->qp[q].done : load_seq(&x->ph.load, i));
	}
	if (x->nqp)
		x->qp[q].done++;
	load_checked(&x->ph.load, i, ok);
	if (x->nqp)
		rcc_share_go(x, q);
}

/*
 * uc: an echo that is not of the round trip in flight on q answers an earlier
 * send (a resent round trip's first echo came after all, or both did): counted
 * and dropped. UC delivers a QP's messages in order, so such an echo lands
 * before the one it could overwrite (--op write: the same recv half); only a
 * reordering network could put it after. Its receive is replaced when a round
 * trip still waits for one. true: it was late.
 */
static bool rcc_late(struct rcc *x, uint32_t q, uint32_t i, const struct ibv_wc *wc)
{
	struct rc_ep *e = &x->ep[q];
	struct verbs_fail f;
	bool now = i != RCC_NONE && load_want(&x->ph.load, i) && rcc_imm_is(x, i, wc);

	if (!x->rt || now)
		return false;
	x->ph.load.late++;
	if (i != RCC_NONE && load_want(&x->ph.load, i) && !x->dev.use_srq && !e->rq_out &&
	    rc_post_recv(&x->dev, e, &f))
		load_fail(&x->ph.load, i, f.call, f.err, NULL);
	return true;
}

/* The echo of QP q's round trip arrived in buf. */
static void rcc_echo(struct rcc *x, uint32_t q, const struct ibv_wc *wc, const uint8_t *buf)
{
	uint32_t i = rcc_who(x, q), want;

	if (rcc_late(x, q, i, wc))
		return;
	if (x->rt) {
		x->rt[q].t_sent = 0;
		rto_sample(&x->rto, clock_ns() - x->rt[q].t_first);
	}
	if (i == RCC_NONE) {
		load_fail(&x->ph.load, q, "ibv_poll_cq", EPROTO, "unasked_echo");
		return;
	}
	/* a message is one completion: anything but the whole echo is an error */
	want = load_want(&x->ph.load, i);
	if (x->nqp && !rcc_imm_is(x, i, wc))
		load_fail(&x->ph.load, i, "ibv_poll_cq", EPROTO, "bad_client_id");
	else if (!want || wc->byte_len != want)
		load_fail(&x->ph.load, i, "ibv_poll_cq", EPROTO, NULL);
	else
		load_rx(&x->ph.load, i, buf, wc->byte_len);
	if (x->nqp)
		rcc_share_go(x, q);
}

static void rcc_wc(void *arg, const struct ibv_wc *wc)
{
	struct rcc *x = arg;
	unsigned kind = RC_WR_KIND(wc->wr_id);
	uint32_t i, srq_slot = 0;
	struct rcc_conn *c = NULL;
	struct rc_ep *e = NULL;
	const uint8_t *buf;
	struct verbs_fail f;
	struct ibv_wc wn;

	if (kind == RC_WR_SRQ) {
		srq_slot = RC_WR_SLOT(wc->wr_id);
		i = rc_map_get(&x->dev.map, wc->qp_num);
	} else {
		i = RC_WR_SLOT(wc->wr_id);
	}
	/* only a QP's owner has an endpoint */
	if (i < x->nep && x->ep[i].qp && x->ep[i].qp->qp_num == wc->qp_num &&
	    x->c[i].state == RCC_UP) {
		c = &x->c[i];
		e = &x->ep[i];
	}
	if (!c || wc->status != IBV_WC_SUCCESS) {
		if (kind == RC_WR_SRQ && rc_srq_repost(&x->dev, srq_slot, &f))
			ag_warn("%s SRQ slot %u: %s", f.call, srq_slot, strerror(f.err));
		/* the QP is in error: every client riding it (--qp-share) is lost */
		if (c)
			rcc_lost(x, i, "ibv_poll_cq", 0,
				 verbs_wc_word(rc_ep_first_err(e, wc->status)));
		return;
	}
	switch (wc->opcode) {
	case IBV_WC_SEND:
	case IBV_WC_RDMA_WRITE:
		if (rc_ep_sent(&x->dev, e, &f))
			load_fail(&x->ph.load, i, f.call, f.err, NULL);
		return;
	case IBV_WC_RDMA_READ:
	case IBV_WC_FETCH_ADD:
		rcc_onesided(x, i, wc);
		return;
	case IBV_WC_RECV:
	case IBV_WC_RECV_RDMA_WITH_IMM:
		break;
	default:
		load_fail(&x->ph.load, i, "ibv_poll_cq", EPROTO, NULL);
		return;
	}
	if (kind == RC_WR_RECV)
		e->rq_out--;
	if (e->write)
		buf = rc_rbuf(&x->dev, e);
	else
		buf = x->dev.use_srq ? rc_srq_buf(&x->dev, srq_slot) : rc_rbuf(&x->dev, e);
	/* iWARP: the note after the WRITE says what an immediate would have */
	wn = *wc;
	if (e->write && x->dev.wnote &&
	    rc_note_wc(kind == RC_WR_SRQ ? rc_srq_buf(&x->dev, srq_slot) : rc_note(&x->dev, e), &wn))
		load_fail(&x->ph.load, i, "ibv_poll_cq", EPROTO, "bad_note");
	else
		rcc_echo(x, i, &wn, buf);
	if (kind == RC_WR_SRQ && rc_srq_repost(&x->dev, srq_slot, &f))
		load_fail(&x->ph.load, i, f.call, f.err, NULL);
}

void rcc_lost(struct rcc *x, uint32_t q, const char *call, int err, const char *ename)
{
	uint32_t k;

	if (x->c[q].state != RCC_UP)
		return;
	for (k = q; k < x->n; k += x->nqp ? x->nqp : x->n)
		load_fail(&x->ph.load, k, call, err, ename);
}

/*
 * Without the device's word a client on an SRQ would wait for the traffic
 * deadline: its echo's receive is the SRQ's, which a dead QP does not flush.
 */
static void rcc_qp_dead(struct rcc *x, uint32_t q, const char *word)
{
	rcc_lost(x, q, "ibv_get_async_event", 0, word);
}

static void rcc_async(void *arg, const struct rc_async *a)
{
	struct rcc *x = arg;
	struct verbs_fail f;
	uint32_t i;

	if (a->ep) {
		i = a->ep->slot;
		if (i < x->nep && &x->ep[i] == a->ep)
			rcc_qp_dead(x, i, a->word);
		return;
	}
	for (i = 0; i < x->nep; i++) {
		if (x->c[i].state != RCC_UP)
			continue;
		if (a->fatal || rc_ep_failed(&x->ep[i]))
			rcc_qp_dead(x, i, a->word);
		/*
		 * A QP still up may end in a send's RETRY_EXC_ERR, which lands on
		 * its lazy send CQ (rc.h) and, on rxe, need not flush the receive
		 * the client waits on: watch that CQ from now on.
		 */
		else if (x->ep[i].scq && poll_cq_want(x->ep[i].scq, true, &f))
			load_fail(&x->ph.load, i, f.call, f.err, NULL);
	}
}

/* --- setup scheduling --- */

static void rcc_start(void *arg, uint32_t i)
{
	struct rcc *x = arg;

	if (i >= x->nqp && x->nqp) {
		rcc_share_start(x, i);
		return;
	}
	x->c[i].state = RCC_SETUP;
	if (x->o->cm == OPT_CM_RDMACM)
		rcc_cm_start(x, i);
	else
		rcc_oob_start(x, i);
}

static bool rcc_pending(void *arg, uint32_t i)
{
	struct rcc *x = arg;

	return x->c[i].state == RCC_SETUP || x->c[i].state == RCC_WAIT;
}

static void rcc_expire(void *arg, uint32_t i)
{
	struct rcc *x = arg;
	struct rcc_conn *c = &x->c[i];

	/* held back by the session's lead (rc_client_oob.c): it would have queued there */
	if (c->state == RCC_NEW) {
		rcc_fail(x, i, rcc_oob_pending_call(x, i), 0, "timeout", false);
		return;
	}
	if (c->state == RCC_WAIT) {
		/* its QP's owner times out too (started first), naming the step */
		rcc_fail(x, i, x->qp[i % x->nqp].fail_call ? x->qp[i % x->nqp].fail_call :
			 "qp-share", 0, "timeout", false);
		return;
	}
	if (x->o->cm == OPT_CM_RDMACM) {
		rcc_fail(x, i, rcc_cm_pending_call(x, i), 0, "timeout", false);
		rcc_cm_drop(x, i);
	} else {
		rcc_fail(x, i, rcc_oob_pending_call(x, i), 0, "timeout", false);
		rc_ep_destroy(&x->dev, &x->ep[i]);
	}
}

static int rcc_event(void *arg, uint32_t t, uint32_t v, uint32_t events)
{
	struct rcc *x = arg;

	switch (t) {
	case RCC_T_CHAN:
		return rc_dev_poll(&x->dev, rcc_wc, x);
	case RCC_T_ASYNC:
		return rc_async_poll(&x->dev, rcc_async, x);
	case RCC_T_SESS:
		rcc_oob_event(x, v, events);
		break;
	case RCC_T_CM:
		rcc_cm_event(x);
		break;
	case RCC_T_TICK:
		rcc_uc_tick(x);
		break;
	}
	return 0;
}

static int rcc_spin(void *arg)
{
	struct rcc *x = arg;

	bool more = x->o->cm == OPT_CM_RDMACM && rcc_cm_make(x);
	int got = poll_hot(&x->dev.pl, rcc_wc, x);

	if (got < 0)
		return -1;
	/*
	 * completions it delivered may have finished the load: the loop looks
	 * (ph_progress) before it sleeps, even when their CQ is armed again
	 */
	return more || got > 0 || poll_spinning(&x->dev.pl);
}

static const struct ph_ops rcc_ph_ops = {
	.batch = RCC_BATCH, .events = RCC_EVENTS, .start = rcc_start,
	.pending = rcc_pending, .expire = rcc_expire, .event = rcc_event, .spin = rcc_spin,
};

static int rcc_init(struct rcc *x)
{
	const struct ag_opts *o = x->o;
	uint32_t i;

	if (ph_init(&x->ph, o, &rcc_ph_ops, &rcc_load_ops, x))
		return -1;
	x->ph.load.cq = &x->dev.pl.n;
	x->n = o->clients;
	x->c = calloc(x->n, sizeof(*x->c));
	if (!x->c) {
		ag_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	if (rcc_share_init(x))
		return -1;
	x->nep = x->nqp ? x->nqp : x->n;
	x->ep = calloc(x->nep, sizeof(*x->ep));
	if (!x->ep) {
		ag_fatal("calloc", "endpoints", ENOMEM);
		return -1;
	}
	for (i = 0; i < x->nep; i++)
		x->ep[i].gen = 1;
	if (o->transport == OPT_TR_UC && rcc_uc_init(x))
		return -1;
	if (ag_opts_local(o, &x->local))
		return -1;
	if (o->cm == OPT_CM_RDMACM)
		return rcc_cm_init(x);
	if (rcc_dev_open(x, NULL))
		return -1;
	return rcc_oob_init(x);
}

static void rcc_fini(struct rcc *x)
{
	uint32_t i;

	/* QPs and their CQs and MRs, then the PD's owner, then sessions and ids */
	for (i = 0; x->ep && i < x->nep; i++)
		rc_ep_destroy(&x->dev, &x->ep[i]);
	if (x->dev_up)
		rc_dev_close(&x->dev);
	if (x->o->cm == OPT_CM_RDMACM)
		rcc_cm_fini(x);
	else
		rcc_oob_fini(x);
	if (x->tick >= 0)
		close(x->tick);
	free(x->rt);
	ph_fini(&x->ph);
	rcc_share_fini(x);
	free(x->ep);
	free(x->c);
}

int rc_client_run(const struct ag_opts *o)
{
	struct rcc x = { .o = o, .tick = -1 };
	int ret = 1;

	if (rcc_init(&x))
		goto out;
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
out:
	rcc_fini(&x);
	if (!ret)
		proto_bye();
	return ret;
}
