// SPDX-License-Identifier: MIT
/*
 * The answers on an oob session: to a REQ an endpoint in RTS and a REP, or a
 * REJ; a DOWN when that endpoint is lost. See rc_reply.h.
 */
#include <errno.h>
#include <string.h>

#include "agents/rc/rc_reply.h"

const char *rc_reply_check(const struct oob_rec *req, const struct ipa *peer)
{
	uint8_t want[16];

	ipa_gid(peer, want);
	return memcmp(req->gid, want, sizeof(want)) ? "gid_not_peer" : NULL;
}

int rc_reply_accept(struct rc_dev *d, struct rc_ep *e, const struct oob_rec *req,
		  struct oob_rec *rep, struct verbs_fail *f)
{
	if (rc_op_rbuf((enum opt_op)e->op)) {
		/* the echo is written into the client's buffer: it must hold a message */
		if (req->rlen < d->size) {
			f->call = "request";
			f->err = EMSGSIZE;
			return -1;
		}
		e->rkey = req->rkey;
		e->raddr = req->addr;
		e->rlen = req->rlen;
	}
	if (rc_psn(&e->psn)) {
		f->call = "RAND_bytes";
		f->err = EIO;
		return -1;
	}
	if ((!e->ready && (rc_ep_init(d, e, f) || rc_post_recv(d, e, f))) ||
	    rc_ep_connect(d, e, req->qpn, req->psn, req->lid, req->gid, (enum ibv_mtu)req->mtu, f))
		return -1;
	rep->qpn = e->qp->qp_num;
	rep->psn = e->psn;
	memcpy(rep->gid, d->gid.raw, 16);
	rep->mtu = (uint8_t)d->mtu;
	rep->gidx = d->gidx;
	rep->lid = d->lid;
	if (rc_op_rbuf((enum opt_op)e->op)) {
		rep->rkey = e->rmr->rkey;
		rep->addr = (uintptr_t)rc_rbuf(d, e);
		rep->rlen = e->rbytes;
		rc_ep_expose(d, e, req->id);
	}
	return 0;
}

void rc_reply_reject(struct oob_rec *rep, uint32_t id, const struct verbs_fail *f)
{
	memset(rep, 0, sizeof(*rep));
	rep->type = OOB_REJ;
	rep->id = id;
	rep->status = (uint32_t)f->err;
	rep->call = (uint8_t)oob_call_code(f->call);
	if (!rep->call)
		rep->call = OOB_CALL_REQUEST;
}

void rc_reply_down(struct oob_rec *rep, uint32_t id, unsigned call, uint32_t status)
{
	memset(rep, 0, sizeof(*rep));
	rep->type = OOB_DOWN;
	rep->id = id;
	rep->call = (uint8_t)(call && call < OOB_CALL_MAX ? call : OOB_CALL_REQUEST);
	rep->status = status && status <= OOB_DOWN_STATUS_MAX ? status : EIO;
}

const char *rc_reply_down_word(const struct oob_rec *down, int *err)
{
	const char *w;

	*err = 0;
	switch (down->call) {
	case OOB_CALL_POLL_CQ:
		return verbs_wc_word((enum ibv_wc_status)down->status);
	case OOB_CALL_ASYNC_EVENT:
		w = rc_async_word((enum ibv_event_type)down->status);
		return w ? w : "ASYNC_EVENT";
	default:
		*err = (int)down->status;
		return oob_call_name(down->call);
	}
}
