// SPDX-License-Identifier: MIT
/*
 * rc client, --cm rdmacm: one cm_id per connection on one event channel in
 * the client's epoll loop: resolve address, resolve route, connect. The
 * endpoint is made on the id's device after its address resolves (the first
 * resolution opens the agent's PD and channel there). A failing step is
 * reported with its call and the event's name: "conn fail id=.. call=rdma_connect
 * errno=0 err=REJECTED status=28", or, when the server said why in its reject,
 * the server's call with at=server.
 *
 * The endpoint (2 CQs, 2 MRs, a QP: the costly part, a millisecond or more
 * under emulation) is not made inside the event that asks for it: an address
 * that resolves queues its connection, and each loop turn makes RCC_CM_MAKE of
 * the queue after reading every CM event. So connections are made, routed and
 * connect while the others are still made, and a REP waits at most a turn for
 * the event read in which librdmacm moves our QP to RTS and sends the RTU
 * (late RTUs and REQs lost connections to UNREACHABLE when one event read made
 * thousands of endpoints). A first wave of REQs sent at once waited about
 * 2 s, the CM's retry, in the rxe VM (100 clients: established p50 2.1 s,
 * oob-tls's exchange 77 ms; a second agent's wave a moment later 94 ms): the
 * server's neighbour entry for this host is cold, we think; REQs that go out
 * one by one as endpoints are made leave that wait to the first few.
 *
 * An agent's first address goes alone, with a short kernel timeout
 * (rc_client_neigh.c says why).
 *
 * That is --cm-order pipelined. With phased, rc_client_phase.c holds each
 * connection after each step until all the agent's have made it, and makes the
 * calls of the next (routes before endpoints there, as cmtime makes them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "agents/ag.h"
#include "agents/cm.h"
#include "agents/rc/rc_client.h"
#include "common/deadline.h"
#include "common/proto.h"


/* endpoints made per loop turn, between two reads of the CM events */
#define RCC_CM_MAKE 8

int rcc_cm_init(struct rcc *x)
{
	/* only the endpoints' owners are made */
	x->cm_make = calloc(x->nep ? x->nep : 1, sizeof(*x->cm_make));
	if (!x->cm_make) {
		ag_fatal("malloc", "rdma_cm endpoint queue", ENOMEM);
		return -1;
	}
	x->cmch = agcm_channel("client");
	if (!x->cmch || rccn_init(x) || rccp_init(x))
		return -1;
	return ph_watch(&x->ph, x->cmch->fd, EPOLLIN, PH_TAG(RCC_T_CM, 0), "rdma_cm channel");
}

void rcc_cm_drop(struct rcc *x, uint32_t i)
{
	struct rcc_conn *c = &x->c[i];

	rc_ep_destroy(&x->dev, &x->ep[i]);
	if (c->id && rdma_destroy_id(c->id))
		ag_warn("rdma_destroy_id: %s", strerror(errno));
	c->id = NULL;
	c->step = RCC_CM_CONNECT;
}

void rcc_cm_start(struct rcc *x, uint32_t i)
{
	const struct ag_opts *o = x->o;
	struct rcc_conn *c = &x->c[i];
	uint8_t ack = DL_RC_ACK_TIMEOUT, tos = o->tclass;

	c->step = RCC_CM_CONNECT;
	/* counted before the calls, so that one failing here leaves the count */
	rccp_issued(x, i, CMPH_ADDR);
	if (rdma_create_id(x->cmch, &c->id, c, RDMA_PS_TCP)) {
		c->id = NULL;
		rcc_fail(x, i, "rdma_create_id", errno, NULL, false);
		return;
	}
	/* the ACK timeout of rc_ep_connect's QPs: a dead server is noticed alike */
	if (rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ack, sizeof(ack))) {
		rcc_fail(x, i, "rdma_set_option", errno, NULL, false);
		rcc_cm_drop(x, i);
		return;
	}
	/* --tclass: rdma_cm addresses this QP, and takes the class as its type of service */
	if (tos && rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
		rcc_fail(x, i, "rdma_set_option", errno, NULL, false);
		rcc_cm_drop(x, i);
		return;
	}
	c->step = RCC_CM_ADDR;
	if (!rccn_hold(x, i) && rcc_cm_resolve(x, i)) {
		rcc_fail(x, i, "rdma_resolve_addr", errno, NULL, false);
		rcc_cm_drop(x, i);
	}
}

int rcc_cm_resolve(struct rcc *x, uint32_t i)
{
	struct sockaddr_storage src, dst;

	ipa_to_sa(&x->local, 0, &src);
	ipa_to_sa(&x->o->addr, (uint16_t)(x->o->port + (x->o->first_id + i) % x->o->ports), &dst);
	return rdma_resolve_addr(x->c[i].id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
				 rccn_timeout_ms(x, i));
}

/* Address resolved: its endpoint waits in the queue. 0 or -1 (fatal). */
static int rcc_cm_addr(struct rcc *x, uint32_t i, bool *kill)
{
	struct rcc_conn *c = &x->c[i];

	ph_step(&x->ph, i, PROTO_STEP_ADDR);
	rccn_resolved(x);
	if (!x->dev_up && rcc_dev_open(x, c->id))
		return -1;
	if (c->id->verbs != x->dev.ctx) {
		rcc_fail(x, i, "rdma_resolve_addr", EXDEV, NULL, false);
		*kill = true;
		return 0;
	}
	/* phased: it waits for the others' addresses; routes come next */
	if (rcc_phased(x)) {
		rccp_finished(x, i);
		return 0;
	}
	c->step = RCC_CM_MAKE;
	x->cm_make[x->cm_tail++] = i;
	return 0;
}

int rcc_cm_ep(struct rcc *x, uint32_t i)
{
	struct rcc_conn *c = &x->c[i];
	struct rc_ep *ep = &x->ep[i];
	struct verbs_fail f;

	if (rc_ep_create(&x->dev, ep, i, x->o->op, c->id, &f) ||
	    (!c->id->qp && rc_ep_cm_state(ep, IBV_QPS_INIT, &f)) ||
	    rc_post_recv(&x->dev, ep, &f)) {
		rcc_fail(x, i, f.call, f.err, NULL, false);
		rcc_cm_drop(x, i);
		return -1;
	}
	ph_step(&x->ph, i, PROTO_STEP_QP);
	return 0;
}

/* Connection i's endpoint on the id's device, then the route. */
static void rcc_cm_make1(struct rcc *x, uint32_t i)
{
	struct rcc_conn *c = &x->c[i];

	if (rcc_cm_ep(x, i))
		return;
	c->step = RCC_CM_ROUTE;
	if (rdma_resolve_route(c->id, DL_CM_STEP_MS)) {
		rcc_fail(x, i, "rdma_resolve_route", errno, NULL, false);
		rcc_cm_drop(x, i);
	}
}

bool rcc_cm_make(struct rcc *x)
{
	uint32_t i, k = 0;
	bool held = rccn_release(x);

	if (rcc_phased(x))
		return rccp_turn(x) || held;
	while (x->cm_head < x->cm_tail && k < RCC_CM_MAKE && x->ph.phase != PH_STOP) {
		i = x->cm_make[x->cm_head++];
		/* failed or dropped while it waited (its deadline) */
		if (x->c[i].state != RCC_SETUP || x->c[i].step != RCC_CM_MAKE || !x->c[i].id)
			continue;
		rcc_cm_make1(x, i);
		k++;
	}
	return x->cm_head < x->cm_tail || held;
}

void rcc_cm_connect(struct rcc *x, uint32_t i, bool *kill)
{
	struct rcc_conn *c = &x->c[i];
	struct rc_ep *ep = &x->ep[i];
	struct oob_cm req = { .type = OOB_REQ, .id = x->o->first_id + i };
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = DL_RC_RETRY_CNT,
		.rnr_retry_count = DL_RC_RNR_RETRY,
	};
	uint8_t buf[OOB_CM_LEN];

	if (rc_op_rbuf((enum opt_op)ep->op)) {
		req.op = (uint8_t)rc_op_oob((enum opt_op)ep->op);
		req.rkey = ep->rmr->rkey;
		req.addr = (uintptr_t)rc_rbuf(&x->dev, ep);
		req.rlen = ep->rbytes;
	}
	if (oob_cm_encode(&req, buf)) {
		rcc_fail(x, i, "request", EPROTO, NULL, false);
		*kill = true;
		return;
	}
	cp.private_data = buf;
	cp.private_data_len = sizeof(buf);
	/* a QP of our own (uc): the CM learns it here */
	cp.qp_num = ep->qp->qp_num;
	c->step = RCC_CM_CONNECT;
	if (rdma_connect(c->id, &cp)) {
		rcc_fail(x, i, "rdma_connect", errno, NULL, false);
		*kill = true;
	}
}

static void rcc_cm_established(struct rcc *x, uint32_t i, const struct rdma_cm_event *ev,
			       bool *kill)
{
	struct rcc_conn *c = &x->c[i];
	struct rc_ep *ep = &x->ep[i];
	struct oob_cm rep;
	struct verbs_fail f;
	enum oob_err e;

	e = oob_cm_parse(ev->param.conn.private_data, ev->param.conn.private_data_len,
			 OOB_T(OOB_REP), &rep);
	if (!e && rep.op != rc_op_oob((enum opt_op)ep->op))
		e = OOB_EOP;
	if (!e && rc_op_rbuf((enum opt_op)ep->op) && rep.rlen < x->o->size)
		e = OOB_EBUF;
	if (e) {
		rcc_fail(x, i, "rdma_connect", EPROTO, oob_strerror(e), false);
		*kill = true;
		return;
	}
	if (rc_op_rbuf((enum opt_op)ep->op)) {
		ep->rkey = rep.rkey;
		ep->raddr = rep.addr;
		ep->rlen = rep.rlen;
	}
	/* uc: CONNECT_RESPONSE, our QP to RTS, then the RTU */
	if (!c->id->qp && (rc_ep_cm_state(ep, IBV_QPS_RTR, &f) ||
			   rc_ep_cm_state(ep, IBV_QPS_RTS, &f))) {
		rcc_fail(x, i, f.call, f.err, NULL, false);
		*kill = true;
		return;
	}
	if (!c->id->qp && rdma_establish(c->id)) {
		rcc_fail(x, i, "rdma_establish", errno, NULL, false);
		*kill = true;
		return;
	}
	ph_step(&x->ph, i, PROTO_STEP_CONN);
	rccp_finished(x, i);
	rcc_up(x, i);
}

static void rcc_cm_rejected(struct rcc *x, uint32_t i, const struct rdma_cm_event *ev)
{
	struct oob_cm rej;

	if (!oob_cm_parse(ev->param.conn.private_data, ev->param.conn.private_data_len,
			  OOB_T(OOB_REJ), &rej)) {
		rcc_fail(x, i, oob_call_name(rej.call), (int)rej.status, NULL, true);
		return;
	}
	/* no word of ours: the CM's own reject (no listener, backlog full, ...) */
	rcc_rejected(x, i, ev->status);
}

void rcc_cm_event(struct rcc *x)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	struct rcc_conn *c;
	int status, got;
	uint32_t i;
	bool kill;

	for (;;) {
		if ((got = agcm_get(x->cmch, "client", &ev))) {
			if (got < 0)
				x->ph.phase = PH_STOP;
			return;
		}
		type = ev->event;
		status = ev->status < 0 ? -ev->status : 0;
		c = ev->id->context;
		i = (uint32_t)(c - x->c);
		kill = false;
		if (c->state == RCC_SETUP) {
			switch (type) {
			case RDMA_CM_EVENT_ADDR_RESOLVED:
				if (rcc_cm_addr(x, i, &kill))
					x->ph.phase = PH_STOP;
				break;
			case RDMA_CM_EVENT_ROUTE_RESOLVED:
				ph_step(&x->ph, i, PROTO_STEP_ROUTE);
				/* phased: it waits for the others' routes; endpoints come next */
				if (rcc_phased(x))
					rccp_finished(x, i);
				else
					rcc_cm_connect(x, i, &kill);
				break;
			case RDMA_CM_EVENT_ESTABLISHED:
			case RDMA_CM_EVENT_CONNECT_RESPONSE:	/* uc: an id without QP */
				rcc_cm_established(x, i, ev, &kill);
				break;
			case RDMA_CM_EVENT_REJECTED:
				rcc_cm_rejected(x, i, ev);
				kill = true;
				break;
			case RDMA_CM_EVENT_ADDR_ERROR:
				if (rccn_retry(x, i, status, &kill))
					break;
				rcc_fail(x, i, "rdma_resolve_addr", status, agcm_word(type), false);
				kill = true;
				break;
			case RDMA_CM_EVENT_ROUTE_ERROR:
				rcc_fail(x, i, "rdma_resolve_route", status, agcm_word(type), false);
				kill = true;
				break;
			case RDMA_CM_EVENT_UNREACHABLE:
			case RDMA_CM_EVENT_CONNECT_ERROR:
			case RDMA_CM_EVENT_DISCONNECTED:
				rcc_fail(x, i, "rdma_connect", status, agcm_word(type), false);
				kill = true;
				break;
			default:
				break;
			}
		} else if (type == RDMA_CM_EVENT_DISCONNECTED ||
			   type == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			/* the server went away: the rest of this connection's traffic fails */
			rcc_lost(x, i, "rdma_cm", 0, agcm_word(type));
		}
		/* ids are destroyed only once their event is acknowledged */
		if (agcm_ack(ev))
			x->ph.phase = PH_STOP;
		if (kill)
			rcc_cm_drop(x, i);
		if (x->ph.phase == PH_STOP)
			return;
	}
}

const char *rcc_cm_pending_call(const struct rcc *x, uint32_t i)
{
	if (rcc_phased(x))
		return rccp_pending_call(x, i);
	switch (x->c[i].step) {
	case RCC_CM_ADDR: return "rdma_resolve_addr";
	case RCC_CM_MAKE: return "rdma_create_qp";
	case RCC_CM_ROUTE: return "rdma_resolve_route";
	default: return "rdma_connect";
	}
}

void rcc_cm_fini(struct rcc *x)
{
	uint32_t i;

	for (i = 0; x->c && i < x->n; i++)
		if (x->c[i].id) {
			if (rdma_destroy_id(x->c[i].id))
				ag_warn("rdma_destroy_id: %s", strerror(errno));
			x->c[i].id = NULL;
		}
	if (x->cmch)
		rdma_destroy_event_channel(x->cmch);
	x->cmch = NULL;
	free(x->cm_make);
	x->cm_make = NULL;
	rccn_fini(x);
	rccp_fini(x);
}
