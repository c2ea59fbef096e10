// SPDX-License-Identifier: MIT
/*
 * rc server agent, event model: the loop and the echo (the endpoint table:
 * rc_server_ep.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/rc/rc_server.h"
#include "agents/tag.h"
#include "common/proto.h"

#define RCS_EVENTS 256

void rcs_drop(struct rcs_srv *s, const char *peer, const char *reason)
{
	s->dropped++;
	proto_drop(peer, reason);
}

int rcs_dev_open(struct rcs_srv *s, struct rdma_cm_id *cm)
{
	if (rc_dev_open(&s->dev, s->o, &s->o->addr, cm))
		return -1;
	s->dev_up = true;
	/* rdmacm's context is every loop's: its async events are loop 0's (rc_server.h) */
	if ((!cm || !s->loop.lid) && tag_watch(s->ep, s->dev.ctx->async_fd, EPOLLIN,
					  TAG(RCS_T_ASYNC, 0, 0), "async event fd"))
		return -1;
	return tag_watch(s->ep, s->dev.ch->fd, EPOLLIN, TAG(RCS_T_CHAN, 0, 0),
			"completion channel");
}

/* --- echo --- */

static void rcs_echo(struct rcs_srv *s, struct rcs_ep *x, const struct ibv_wc *rwc,
		    uint32_t srq_slot)
{
	struct rc_dev *d = &s->dev;
	struct verbs_fail f;
	const uint8_t *src;
	struct ibv_wc n = *rwc, *wc = &n;
	uint32_t len;

	if (RC_WR_KIND(wc->wr_id) == RC_WR_RECV)
		x->e.rq_out--;
	/* iWARP: the note after the WRITE says what an immediate would have */
	if (x->e.write && d->wnote &&
	    rc_note_wc(d->use_srq ? rc_srq_buf(d, srq_slot) : rc_note(d, &x->e), wc)) {
		if (d->use_srq && rc_srq_repost(d, srq_slot, &f))
			ag_warn("%s SRQ slot %u: %s", f.call, srq_slot, strerror(f.err));
		rcs_ep_kill(s, x, "bad_note", OOB_CALL_REQUEST, EPROTO);
		return;
	}
	len = wc->byte_len;
	if (len > d->size) {
		rcs_ep_kill(s, x, "oversized", OOB_CALL_REQUEST, EMSGSIZE);
		return;
	}
	if (x->e.write)
		src = rc_rbuf(d, &x->e);
	else
		src = d->use_srq ? rc_srq_buf(d, srq_slot) : rc_rbuf(d, &x->e);
	memcpy(rc_sbuf(&x->e), src, len);
	/* repost before echoing: the client's next message must find a receive */
	if (d->use_srq ? rc_srq_repost(d, srq_slot, &f) : rc_post_recv(d, &x->e, &f)) {
		rcs_ep_kill(s, x, f.call, oob_call_code(f.call), (uint32_t)f.err);
		return;
	}
	/* the echo carries what the message carried (--qp-share: its client's id) */
	x->e.imm = wc->wc_flags & IBV_WC_WITH_IMM;
	if (rc_post_send(d, &x->e, len, wc->wc_flags & IBV_WC_WITH_IMM ?
			 ntohl(wc->imm_data) : 0, &f)) {
		rcs_ep_kill(s, x, f.call, oob_call_code(f.call), (uint32_t)f.err);
		return;
	}
	/* counted when posted: send completions are reaped lazily (rc.h) */
	s->echoed++;
	s->bytes += d->size;
}

static void rcs_wc(void *arg, const struct ibv_wc *wc)
{
	struct rcs_srv *s = arg;
	unsigned kind = RC_WR_KIND(wc->wr_id);
	uint32_t slot, srq_slot = 0;
	struct rcs_ep *x = NULL;
	enum ibv_wc_status st;
	struct verbs_fail f;

	if (kind == RC_WR_SRQ) {
		srq_slot = RC_WR_SLOT(wc->wr_id);
		slot = rc_map_get(&s->dev.map, wc->qp_num);
		if (slot < s->eps_cap)
			x = s->eps[slot];
	} else {
		slot = RC_WR_SLOT(wc->wr_id);
		if (slot < s->eps_cap && s->eps[slot] && s->eps[slot]->e.gen == RC_WR_GEN(wc->wr_id))
			x = s->eps[slot];
	}
	if (x && (x->reaping || !x->e.qp || x->e.qp->qp_num != wc->qp_num))
		x = NULL;
	if (!x || wc->status != IBV_WC_SUCCESS) {
		/* a receive buffer of the SRQ goes back whatever happened to its QP */
		if (kind == RC_WR_SRQ && rc_srq_repost(&s->dev, srq_slot, &f))
			ag_warn("%s SRQ slot %u: %s", f.call, srq_slot, strerror(f.err));
		if (!x)
			return;
		/* a flush with no error behind it (the QP moved to ERR): no drop of its own */
		st = rc_ep_first_err(&x->e, wc->status);
		rcs_ep_kill(s, x, st != IBV_WC_WR_FLUSH_ERR ? verbs_wc_word(st) : NULL,
			   OOB_CALL_POLL_CQ, st);
		return;
	}
	switch (wc->opcode) {
	case IBV_WC_SEND:
	case IBV_WC_RDMA_WRITE:
		if (rc_ep_sent(&s->dev, &x->e, &f))
			rcs_ep_kill(s, x, f.call, oob_call_code(f.call), (uint32_t)f.err);
		break;
	case IBV_WC_RECV:
	case IBV_WC_RECV_RDMA_WITH_IMM:
		rcs_echo(s, x, wc, srq_slot);
		break;
	default:
		rcs_ep_kill(s, x, "bad_opcode", OOB_CALL_POLL_CQ, IBV_WC_GENERAL_ERR);
	}
}

/* A QP in error (rc_async.c): its endpoint goes, named by the event. */
static void rcs_async(void *arg, const struct rc_async *a)
{
	struct rcs_srv *s = arg;
	struct rcs_ep *x;
	uint32_t i;

	if (a->ep) {
		i = a->ep->slot;
		if (i < s->neps && s->eps[i] && &s->eps[i]->e == a->ep)
			rcs_ep_kill(s, s->eps[i], a->word, OOB_CALL_ASYNC_EVENT, a->type);
		return;
	}
	for (i = 0; i < s->neps; i++)
		if ((x = s->eps[i]) && x->up && (a->fatal || rc_ep_failed(&x->e)))
			rcs_ep_kill(s, x, a->word, OOB_CALL_ASYNC_EVENT, a->type);
}

/* --- loop --- */

static int rcs_ctl(struct rcs_srv *s)
{
	enum ctl_cmd cmd;

	while ((cmd = ctl_next(&s->ctl)) != CTL_NONE) {
		if (cmd == CTL_STOP || cmd == CTL_EOF) {
			s->stop = true;
			return 0;
		}
		ag_warn("stdin: '%s' is not a server command, ignored", ctl_name(cmd));
	}
	return 0;
}

static int rcs_turns(struct rcs_srv *s)
{
	struct epoll_event ev[RCS_EVENTS];
	/* stdin that cannot be polled (loop 0) is read every 100 ms */
	int tmo = !s->loop.lid && !s->ctl.pollable ? 100 : -1;
	bool filling;
	uint32_t t;
	int i, n;

	while (!s->stop && !atomic_load(&s->loop.top->stop) && !proto_dead()) {
		if (!s->loop.lid && !s->ctl.pollable)
			rcs_ctl(s);
		if (s->stop)
			break;
		/* hot CQs (--poll busy|adaptive) are polled on every turn */
		if (poll_hot(&s->dev.pl, rcs_wc, s) < 0)
			return -1;
		filling = s->npool < rcs_ep_want(s);
		n = epoll_wait(s->ep, ev, RCS_EVENTS, s->nready || filling ||
			       poll_spinning(&s->dev.pl) ? 0 : tmo);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ag_fatal("epoll_wait", "server loop", errno);
			return -1;
		}
		/* the lead is kept up in turns with nothing else to do */
		if (!n && filling)
			rcs_ep_fill(s, RCS_POOL_BATCH);
		for (i = 0; i < n && !s->stop; i++) {
			t = TAG_TYPE(ev[i].data.u64);
			switch (t) {
			case RCS_T_CTL:
				rcs_ctl(s);
				break;
			case RCS_T_CHAN:
				if (rc_dev_poll(&s->dev, rcs_wc, s))
					return -1;
				break;
			case RCS_T_ASYNC:
				if (rc_async_poll(&s->dev, rcs_async, s))
					return -1;
				break;
			case RCS_T_TICK:
				srvl_ticked(&s->loop);
				rcs_oob_tick(s);
				break;
			case RCS_T_LISTEN:
				rcs_oob_listen_event(s, TAG_VAL(ev[i].data.u64));
				break;
			case RCS_T_SESS:
				rcs_oob_sess_event(s, TAG_VAL(ev[i].data.u64),
						  TAG_GEN(ev[i].data.u64), ev[i].events);
				break;
			case RCS_T_CM:
				rcs_cm_event(s);
				break;
			case RCS_T_WAKE:
				srvl_woken(&s->loop);
				if (s->cmch)
					rcs_cm_handed(s);
				break;
			}
			rcs_ep_reap(s);
		}
		if (!s->stop && s->nready) {
			rcs_oob_ready(s);
			rcs_ep_reap(s);
		}
	}
	return 0;
}

/* A loop's run (srvl_fn); a loop of its own thread binds to its --cpus first. */
static int rcs_loop(struct srvl *l)
{
	struct rcs_srv *s = SRVL_OF(l, struct rcs_srv, loop);

	if (l->lid && s->o->ncpus && ag_pin(s->o->cpus[l->lid]))
		return -1;
	return rcs_turns(s);
}

static int rcs_init(struct rcs_srv *s)
{
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		ag_fatal("epoll_create1", "server loop", errno);
		return -1;
	}
	/* deadlines of TLS sessions are checked on the tick */
	if (srvl_tick_open(&s->loop, s->ep, TAG(RCS_T_TICK, 0, 0)) ||
	    srvl_wake_open(&s->loop, s->ep, TAG(RCS_T_WAKE, 0, 0)))
		return -1;
	/* stdin is loop 0's */
	if (!s->loop.lid && (ctl_init(&s->ctl, STDIN_FILENO) ||
			ctl_watch(&s->ctl, s->ep, TAG(RCS_T_CTL, 0, 0))))
		return -1;
	if (s->o->cm == OPT_CM_RDMACM) {
		if (rcs_cm_open(s))
			return -1;
	} else if (rcs_dev_open(s, NULL) || rcs_oob_open(s)) {
		return -1;
	}
	return 0;
}

/* A loop's endpoints and device; the listeners go after every loop's (rcs_fini). */
static void rcs_fini_eps(struct rcs_srv *s)
{
	uint32_t i;

	rcs_ep_reap(s);
	if (s->o->cm != OPT_CM_RDMACM)
		rcs_oob_close(s);
	/* endpoints (with rdmacm, their ids), the device, then the listeners: the
	 * last id takes librdmacm's PD, which must be empty by then */
	for (i = 0; i < s->neps; i++)
		if (s->eps[i])
			rcs_ep_free(s, s->eps[i]);
	if (s->dev_up)
		rc_dev_close(&s->dev);
	s->dev_up = false;
}

static void rcs_fini(struct rcs_srv *s)
{
	if (s->o->cm == OPT_CM_RDMACM)
		rcs_cm_close(s);
	free(s->pool);
	free(s->eps);
	free(s->free);
	free(s->gens);
	free(s->reap);
	if (s->ep >= 0)
		close(s->ep);
}

/*
 * The result before the teardown: freeing 20,000 endpoints one by one took
 * longer under TCG than the harness waits before SIGKILL, and the figures
 * went with the process. The endpoints still held add their atomics here.
 * With more than one loop, each loop's accepted connections and CPU time.
 */
static void rcs_result(struct srvl_top *t)
{
	struct proto_result_server r = { .peak = atomic_load(&t->peak), .ah = PROTO_NONE,
					 .ah_made = PROTO_NONE };
	char loops[SRVL_LOOPS_LEN];
	struct rcs_srv *s;

	for (uint32_t l = 0; l < t->n; l++) {
		s = rcs_at(t, l);
		for (uint32_t i = 0; i < s->neps; i++)
			if (s->eps[i])
				s->echoed += rc_ep_atomics(&s->dev, &s->eps[i]->e);
		s->counted = true;
		r.accepted += s->loop.accepted;
		r.echoed += s->echoed;
		r.bytes += s->bytes;
		r.dropped += s->dropped;
		r.rejected += s->rejected;
		r.cq_events += s->dev.pl.n.events;
		r.cq_arms += s->dev.pl.n.arms;
		r.cq_spins += s->dev.pl.n.spins;
	}
	r.loops = srvl_loops(t, loops);
	proto_result_server(&r);
}

/* Loop 0 first: another loop's rdmacm device is loop 0's listener's. */
static int rcs_start(struct srvl_top *t, const struct ag_opts *o)
{
	/*
	 * --cpus: the main thread makes each loop's objects on that loop's CPU,
	 * then keeps loop 0's, which it runs; each other loop's thread binds to
	 * its own at its start (rcs_loop)
	 */
	for (uint32_t i = 0; i < t->n; i++)
		if ((o->ncpus && ag_pin(o->cpus[i])) || rcs_init(rcs_at(t, i)))
			return -1;
	for (uint32_t i = 0; i < t->n; i++) {
		if (o->ncpus && ag_pin(o->cpus[i]))
			return -1;
		rcs_ep_pool(rcs_at(t, i));
	}
	return o->ncpus ? ag_pin(o->cpus[0]) : 0;
}

int rc_server_run(const struct ag_opts *o)
{
	struct srvl_top t;
	struct rcs_srv *s;
	uint32_t i;
	int ret = 1;

	if (o->model == OPT_MODEL_THREAD)
		return rc_server_thread_run(o);
	if (srvl_init(&t, o->server_threads, sizeof(struct rcs_srv), sizeof(struct rcs_hand),
		      "server loop"))
		return 1;
	for (i = 0; i < t.n; i++) {
		s = rcs_at(&t, i);
		s->o = o;
		s->ep = -1;
	}
	if (rcs_start(&t, o))
		goto out;
	proto_hello_server(o->ports, o->port,
			   o->cm == OPT_CM_RDMACM ? rcs_at(&t, 0)->max_backlog : -1);
	ret = srvl_run(&t, rcs_loop) ? 1 : 0;
	if (!ret)
		rcs_result(&t);
out:
	for (i = 0; i < t.n; i++)
		rcs_fini_eps(rcs_at(&t, i));
	for (i = t.n; i--;)
		rcs_fini(rcs_at(&t, i));
	srvl_fini(&t);
	if (!ret)
		proto_bye();
	return ret;
}
