// SPDX-License-Identifier: MIT
/*
 * ud client, --cm rdmacm: one id per client in rdma_cm's UDP port space
 * resolves the server's address; the first resolution opens the agent's
 * device on that id's context (the device rdma_cm chose, never a GID lookup),
 * and each client's QP is made there once its id resolves. Then the route, and
 * rdma_connect sends a SIDR REQ whose private
 * data is the oob REQ record (the client's QPN and GID). The server's
 * rdma_accept arrives as RDMA_CM_EVENT_ESTABLISHED with its QPN and Q_Key
 * (param.ud) and the REP record, which must agree; a reject arrives as
 * RDMA_CM_EVENT_UNREACHABLE with the REJ record naming the server's failed
 * call. Either record goes to udc_answer, as over TLS. The id goes then: UD
 * has no connection to keep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "agents/ag.h"
#include "agents/cm.h"
#include "agents/ud/ud_client.h"
#include "common/deadline.h"
#include "common/proto.h"

enum { UDCM_ADDR, UDCM_ROUTE, UDCM_CONNECT };

int udcm_init(struct udc *x)
{
	x->cmch = agcm_channel("client");
	if (!x->cmch)
		return -1;
	return ph_watch(&x->ph, x->cmch->fd, EPOLLIN, PH_TAG(UDC_T_CM, 0), "rdma_cm channel");
}

void udcm_drop(struct udc *x, uint32_t i)
{
	struct udc_conn *c = &x->c[i];

	if (c->id && rdma_destroy_id(c->id))
		ag_warn("rdma_destroy_id: %s", strerror(errno));
	c->id = NULL;
}

void udcm_start(struct udc *x, uint32_t i)
{
	const struct ag_opts *o = x->o;
	struct udc_conn *c = &x->c[i];
	uint32_t id = o->first_id + i;
	struct sockaddr_storage src, dst;

	ipa_to_sa(&x->local, 0, &src);
	ipa_to_sa(&o->addr, (uint16_t)(o->port + id % o->ports), &dst);
	c->step = UDCM_ADDR;
	if (rdma_create_id(x->cmch, &c->id, c, RDMA_PS_UDP)) {
		c->id = NULL;
		udc_fail(x, i, "rdma_create_id", errno, NULL, false);
		return;
	}
	if (rdma_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
			      DL_CM_STEP_MS)) {
		udc_fail(x, i, "rdma_resolve_addr", errno, NULL, false);
		udcm_drop(x, i);
	}
}

static void udcm_connect(struct udc *x, uint32_t i)
{
	struct udc_conn *c = &x->c[i];
	uint8_t buf[OOB_REC_LEN];
	struct rdma_conn_param cp = { .private_data = buf, .private_data_len = sizeof(buf),
				      .qp_num = c->q.qp->qp_num };

	ph_step(&x->ph, i, PROTO_STEP_ROUTE);
	udc_req(x, i, buf);
	c->step = UDCM_CONNECT;
	if (rdma_connect(c->id, &cp))
		udc_fail(x, i, "rdma_connect", errno, NULL, false);
}

/* The server's record in the SIDR REP: REP with ESTABLISHED, REJ with UNREACHABLE. */
static bool udcm_answer(struct udc *x, uint32_t i, const struct rdma_cm_event *ev)
{
	const struct rdma_ud_param *ud = &ev->param.ud;
	unsigned type = ev->event == RDMA_CM_EVENT_ESTABLISHED ? OOB_T(OOB_REP) : OOB_T(OOB_REJ);
	const char *why = NULL;
	struct oob_rec r;
	enum oob_err e;

	if (!ud->private_data || ud->private_data_len < OOB_REC_LEN)
		return false;
	e = oob_parse(ud->private_data, OOB_REC_LEN, type, &r);
	if (e || r.id != x->o->first_id + i)
		return false;
	/* the CM's word on the server's QP and Q_Key is the record's */
	if (r.type == OOB_REP && (r.qpn != ud->qp_num || r.rkey != ud->qkey))
		why = "bad_server";
	if (why || udc_answer(x, &r, &why))
		udc_fail(x, i, "rdma_connect", EPROTO, why, false);
	return true;
}

/* Address resolved: the agent's device (the first id's), client i's QP, the route. */
static void udcm_addr(struct udc *x, uint32_t i)
{
	struct udc_conn *c = &x->c[i];

	ph_step(&x->ph, i, PROTO_STEP_ADDR);
	if (!x->dev.ctx && udc_dev_open(x, c->id)) {
		x->ph.phase = PH_STOP;
		return;
	}
	/* one device per agent: its QPs share one completion channel and one AH */
	if (c->id->verbs != x->dev.ctx) {
		udc_fail(x, i, "rdma_resolve_addr", EXDEV, NULL, false);
		return;
	}
	if (udc_qp(x, i))
		return;
	c->step = UDCM_ROUTE;
	if (rdma_resolve_route(c->id, DL_CM_STEP_MS))
		udc_fail(x, i, "rdma_resolve_route", errno, NULL, false);
}

static void udcm_on(struct udc *x, uint32_t i, const struct rdma_cm_event *ev)
{
	int status = ev->status < 0 ? -ev->status : ev->status;
	const char *word = agcm_word(ev->event);

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		udcm_addr(x, i);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		udcm_connect(x, i);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_UNREACHABLE:
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
			ph_step(&x->ph, i, PROTO_STEP_CONN);
		if (!udcm_answer(x, i, ev))
			udc_fail(x, i, "rdma_connect", status, word, false);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		udc_fail(x, i, "rdma_resolve_addr", status, word, false);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		udc_fail(x, i, "rdma_resolve_route", status, word, false);
		break;
	default:
		udc_fail(x, i, "rdma_connect", status, word, false);
		break;
	}
}

void udcm_event(struct udc *x)
{
	struct rdma_cm_event *ev;
	struct udc_conn *c;
	uint32_t i;
	int got;

	for (;;) {
		if ((got = agcm_get(x->cmch, "client", &ev))) {
			if (got < 0)
				x->ph.phase = PH_STOP;
			return;
		}
		c = ev->id->context;
		i = (uint32_t)(c - x->c);
		if (c->state == UDC_SETUP)
			udcm_on(x, i, ev);
		/* ids are destroyed only once their event is acknowledged */
		if (agcm_ack(ev))
			x->ph.phase = PH_STOP;
		if (c->state != UDC_SETUP)
			udcm_drop(x, i);
		if (x->ph.phase == PH_STOP)
			return;
	}
}

const char *udcm_pending_call(const struct udc *x, uint32_t i)
{
	switch (x->c[i].step) {
	case UDCM_ADDR: return "rdma_resolve_addr";
	case UDCM_ROUTE: return "rdma_resolve_route";
	default: return "rdma_connect";
	}
}

void udcm_fini(struct udc *x)
{
	for (uint32_t i = 0; x->c && i < x->n; i++)
		udcm_drop(x, i);
	if (x->cmch)
		rdma_destroy_event_channel(x->cmch);
	x->cmch = NULL;
}
