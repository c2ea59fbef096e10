// SPDX-License-Identifier: MIT
/*
 * The device's async events (rc.h): a QP the device moved to error is known
 * here at once, also when no work request of it is left to flush (an SRQ
 * receive is not the QP's, so a dead QP on an SRQ never completes one).
 */
#include <errno.h>

#include "agents/ag.h"
#include "agents/rc/rc.h"

int rc_async_open(struct rc_dev *d)
{
	if (ag_nonblock(d->ctx->async_fd)) {
		ag_fatal("fcntl", "async event fd", errno);
		return -1;
	}
	return 0;
}

/* the event's name without IBV_EVENT_: records keep 23 characters of a word */
const char *rc_async_word(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "QP_LAST_WQE_REACHED";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	default: return NULL;
	}
}

int rc_async_poll(struct rc_dev *d, rc_async_cb cb, void *arg)
{
	struct ibv_async_event ev;
	struct rc_async a;

	while (!ibv_get_async_event(d->ctx, &ev)) {
		a = (struct rc_async){ .word = rc_async_word(ev.event_type),
					.type = ev.event_type };
		if (a.word && ev.event_type == IBV_EVENT_PORT_ERR)
			a.all = ev.element.port_num == d->port;
		else if (a.word && ev.event_type == IBV_EVENT_DEVICE_FATAL)
			a.all = a.fatal = true;
		else if (a.word)
			a.ep = ev.element.qp->qp_context;
		/* acked before the role acts: destroying a QP waits for its acks */
		ibv_ack_async_event(&ev);
		if (a.ep || a.all)
			cb(arg, &a);
	}
	if (errno != EAGAIN && errno != EINTR) {
		ag_fatal("ibv_get_async_event", ibv_get_device_name(d->ctx->device), errno);
		return -1;
	}
	return 0;
}

bool rc_ep_failed(struct rc_ep *e)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	if (!e->qp || ibv_query_qp(e->qp, &qa, IBV_QP_STATE, &ia))
		return false;
	return qa.qp_state == IBV_QPS_ERR;
}
