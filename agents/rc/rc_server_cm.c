// SPDX-License-Identifier: MIT
/*
 * rc server, --cm rdmacm: listening cm_ids on --addr, one per --port, with the
 * event channel in the server's epoll loop. A connect request gets an endpoint
 * on the cm_id's device (same resource models as oob-tls) and rdma_accept. A
 * pooled endpoint (rc_server.h) has a QP of ours, not the id's:
 * rdma_init_qp_attr moves it to RTR and RTS and rdma_accept names it by qp_num
 * (as rdma-core's newer cmtime server does with the QP it makes); an iWARP
 * device has no pool, and every QP is rdma_create_qp's on the request's id,
 * connected by the iw_cm. The device is the listener's (bound to --addr) or
 * the first request's: never a GID lookup, so any fabric rdma_cm serves. A request
 * the server cannot serve is rejected with private data naming the
 * failed call. The listen backlog is capped by net.rdma_ucm.max_backlog, read
 * here and reported in the hello record.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/cm.h"
#include "agents/rc/rc_server.h"
#include "agents/tag.h"
#include "common/deadline.h"
#include "common/proto.h"

#define RCS_MAX_BACKLOG "/proc/sys/net/rdma_ucm/max_backlog"

static long rcs_max_backlog(void)
{
	FILE *f = fopen(RCS_MAX_BACKLOG, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int rcs_cm_open(struct rcs_srv *s)
{
	const struct ag_opts *o = s->o;
	struct rdma_cm_id *l0;

	if (s->loop.lid) {
		s->cmch = agcm_channel("server");
		if (!s->cmch)
			return -1;
		/* a listener bound to a device's address: its context is known now */
		l0 = rcs_at(s->loop.top, 0)->listen[0];
		if (l0->verbs && rcs_dev_open(s, l0))
			return -1;
		return tag_watch(s->ep, s->cmch->fd, EPOLLIN, TAG(RCS_T_CM, 0, 0),
				 "rdma_cm channel");
	}

	/* the sysctl lives in init_net only: a server in a namespace cannot see it */
	s->max_backlog = rcs_max_backlog();
	if (s->max_backlog < 0)
		ag_warn("rdma_listen backlog %u: the kernel caps it at net.rdma_ucm.max_backlog "
			"(not visible in this network namespace)", o->backlog);
	else if (s->max_backlog < (long)o->backlog)
		ag_warn("rdma_listen backlog %u is capped at net.rdma_ucm.max_backlog=%ld",
			o->backlog, s->max_backlog);
	s->cmch = agcm_channel("server");
	if (!s->cmch)
		return -1;
	if (agcm_listen(s->cmch, o, RDMA_PS_TCP, &s->listen))
		return -1;
	/* bound to a device's address: its context is known before any request */
	if (s->listen[0]->verbs && rcs_dev_open(s, s->listen[0]))
		return -1;
	return tag_watch(s->ep, s->cmch->fd, EPOLLIN, TAG(RCS_T_CM, 0, 0), "rdma_cm channel");
}

static void rcs_cm_peer(struct rdma_cm_id *id, char *buf)
{
	struct ipa a;

	if (ipa_from_sa(&a, rdma_get_peer_addr(id), NULL))
		memset(&a, 0, sizeof(a));
	ipa_str_port(&a, ntohs(rdma_get_dst_port(id)), buf, SK_PEER_MAX);
}

static void rcs_cm_reject(struct rcs_srv *s, struct rdma_cm_id *id, uint32_t cid,
			 const struct verbs_fail *f)
{
	struct oob_cm rej = { .type = OOB_REJ, .id = cid, .status = (uint32_t)f->err };
	uint8_t buf[OOB_CM_LEN];

	rej.call = (uint8_t)oob_call_code(f->call);
	if (!rej.call)
		rej.call = OOB_CALL_REQUEST;
	if (s->rejected++ < 8)
		ag_warn("rdma_cm id %u: %s: %s", cid, f->call, strerror(f->err));
	if (oob_cm_encode(&rej, buf) || rdma_reject(id, buf, sizeof(buf)))
		ag_warn("rdma_reject: %s", strerror(errno));
}

/*
 * A connect request. What was refused is destroyed by the caller once the event
 * is acknowledged: *kill_ep (with its id), or a bare *kill_id.
 */
static void rcs_cm_request(struct rcs_srv *s, struct rdma_cm_id *id, const void *pdata,
			  uint8_t plen, struct rcs_ep **kill_ep, struct rdma_cm_id **kill_id)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = DL_RC_RNR_RETRY,
	};
	uint8_t ack = DL_RC_ACK_TIMEOUT;
	struct verbs_fail f = { "request", EPROTO };
	char peer[SK_PEER_MAX];
	uint8_t buf[OOB_CM_LEN];
	struct oob_cm req, rep = { .type = OOB_REP };
	enum oob_err e;
	struct rcs_ep *x;

	e = oob_cm_parse(pdata, plen, OOB_T(OOB_REQ), &req);
	if (e) {
		rcs_cm_peer(id, peer);
		rcs_drop(s, peer, oob_strerror(e));
		if (rdma_reject(id, NULL, 0))
			ag_warn("rdma_reject: %s", strerror(errno));
		*kill_id = id;
		return;
	}
	if (!s->dev_up && rcs_dev_open(s, id)) {
		s->stop = true;
		*kill_id = id;
		return;
	}
	if (id->verbs != s->dev.ctx) {
		/* one device context per agent; a second device is a setup error */
		f.call = "request";
		f.err = EXDEV;
		rcs_cm_reject(s, id, req.id, &f);
		*kill_id = id;
		return;
	}
	x = rcs_ep_take(s, rc_op_from_oob(req.op), id, &f);
	if (!x) {
		rcs_cm_reject(s, id, req.id, &f);
		*kill_id = id;
		return;
	}
	if (rc_op_rbuf((enum opt_op)x->e.op)) {
		if (req.rlen < s->dev.size) {
			f.call = "request";
			f.err = EMSGSIZE;
			goto rej;
		}
		x->e.rkey = req.rkey;
		x->e.raddr = req.addr;
		x->e.rlen = req.rlen;
		rep.op = req.op;
		rep.rkey = x->e.rmr->rkey;
		rep.addr = (uintptr_t)rc_rbuf(&s->dev, &x->e);
		rep.rlen = x->e.rbytes;
		rc_ep_expose(&s->dev, &x->e, req.id);
	}
	rep.id = req.id;
	/* the ACK timeout of rc_ep_connect's QPs, so a dead client is noticed alike:
	 * librdmacm's RTS of the id's own QP takes it from the id; ours
	 * (rc_ep_cm_state) sets it itself, a system call less per request */
	if (id->qp && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ack,
				      sizeof(ack)))
		goto drop;
	if (!x->e.ready && ((!id->qp && rc_ep_cm_state(&x->e, IBV_QPS_INIT, &f)) ||
			    rc_post_recv(&s->dev, &x->e, &f)))
		goto rej;
	/* uc, or a pooled QP: ours to RTS before the REP; the CM learns its number from cp */
	if (!id->qp && (rc_ep_cm_state(&x->e, IBV_QPS_RTR, &f) ||
			rc_ep_cm_state(&x->e, IBV_QPS_RTS, &f)))
		goto rej;
	cp.qp_num = x->e.qp->qp_num;
	if (oob_cm_encode(&rep, buf)) {
		f.err = EPROTO;
		goto rej;
	}
	cp.private_data = buf;
	cp.private_data_len = sizeof(buf);
	id->context = x;
	if (rdma_accept(id, &cp))
		goto drop;
	return;
drop:
	rcs_cm_peer(id, peer);
	rcs_drop(s, peer, proto_errname(errno));
	*kill_ep = x;
	return;
rej:
	rcs_cm_reject(s, id, req.id, &f);
	*kill_ep = x;
}

/*
 * Loop 0: request ev goes to another loop, in turn; 0 when it went (the event
 * acknowledged here), 1 when it stays here (its turn is loop 0's), -1 when it
 * could not be handed (rejected, acknowledged, destroyed).
 */
static int rcs_cm_hand(struct rcs_srv *s, struct rdma_cm_event *ev)
{
	struct rcs_srv *to = SRVL_OF(srvl_next(s->loop.top), struct rcs_srv, loop);
	struct rcs_hand h = { .id = ev->id };
	char peer[SK_PEER_MAX];

	if (to == s)
		return 1;
	h.len = ev->param.conn.private_data_len < sizeof(h.pdata) ?
		ev->param.conn.private_data_len : sizeof(h.pdata);
	if (ev->param.conn.private_data)
		memcpy(h.pdata, ev->param.conn.private_data, h.len);
	if (agcm_ack(ev))
		s->stop = true;
	if (rdma_migrate_id(h.id, to->cmch) || srvl_hand(&to->loop, &h))
		goto err;
	return 0;
err:
	rcs_cm_peer(h.id, peer);
	rcs_drop(s, peer, proto_errname(errno));
	if (rdma_reject(h.id, NULL, 0))
		ag_warn("rdma_reject: %s", strerror(errno));
	if (rdma_destroy_id(h.id))
		ag_warn("rdma_destroy_id: %s", strerror(errno));
	return -1;
}

void rcs_cm_handed(struct rcs_srv *s)
{
	struct rcs_ep *kill_ep;
	struct rdma_cm_id *kill;
	struct rcs_hand h;

	while (srvl_take(&s->loop, &h, 1)) {
		kill = NULL;
		kill_ep = NULL;
		rcs_cm_request(s, h.id, h.pdata, h.len, &kill_ep, &kill);
		if (kill && rdma_destroy_id(kill))
			ag_warn("rdma_destroy_id: %s", strerror(errno));
		if (kill_ep)
			rcs_ep_free(s, kill_ep);
		if (s->stop)
			return;
	}
}

void rcs_cm_event(struct rcs_srv *s)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *kill;
	enum rdma_cm_event_type type;
	struct rcs_ep *x, *kill_ep;
	char peer[SK_PEER_MAX];
	int got;

	while (!s->stop) {
		if ((got = agcm_get(s->cmch, "server", &ev))) {
			if (got < 0)
				s->stop = true;
			return;
		}
		type = ev->event;
		x = ev->id->context;
		kill = NULL;
		kill_ep = NULL;
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			x = NULL;
			if (s->loop.top->n > 1 && rcs_cm_hand(s, ev) <= 0)
				continue;	/* handed over (or refused): acknowledged */
			rcs_cm_request(s, ev->id, ev->param.conn.private_data,
				       ev->param.conn.private_data_len, &kill_ep, &kill);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (x && !x->up)
				rcs_ep_up(s, x);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			/* the client's goodbye, or its death: both end the connection */
			break;
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			if (x) {
				rcs_cm_peer(ev->id, peer);
				rcs_drop(s, peer, agcm_word(type));
			}
			break;
		default:
			break;
		}
		/* an id is destroyed only after its event is acknowledged */
		if (agcm_ack(ev))
			s->stop = true;
		if (kill && rdma_destroy_id(kill))
			ag_warn("rdma_destroy_id: %s", strerror(errno));
		if (kill_ep)
			rcs_ep_free(s, kill_ep);
		/* the reap list is empty here: the loop reaps after every event */
		if (x && (type == RDMA_CM_EVENT_DISCONNECTED ||
			  type == RDMA_CM_EVENT_CONNECT_ERROR ||
			  type == RDMA_CM_EVENT_UNREACHABLE || type == RDMA_CM_EVENT_REJECTED))
			rcs_ep_free(s, x);
	}
}

void rcs_cm_close(struct rcs_srv *s)
{
	struct rcs_hand h;

	/* what was handed and never served: rejected by the id's end */
	while (srvl_take(&s->loop, &h, 1))
		if (rdma_destroy_id(h.id))
			ag_warn("rdma_destroy_id: %s", strerror(errno));
	agcm_close(&s->cmch, &s->listen, s->loop.lid ? 0 : s->o->ports);
}
