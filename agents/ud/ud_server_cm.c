// SPDX-License-Identifier: MIT
/*
 * ud server, --cm rdmacm: listening ids in rdma_cm's UDP port space
 * (RDMA_PS_UDP), one per --port, on loop 0's event channel. A client's
 * rdma_connect arrives as a SIDR REQ whose private data is the oob REQ record
 * (its QPN and GID: a SIDR REQ names neither); loop 0 checks it and gives the
 * request to the loops in turn (ud_server.h), and that loop admits it like an
 * oob-tls REQ and answers with rdma_accept carrying its own QP's number (the
 * CM adds its Q_Key, RDMA_UDP_QKEY) and the REP record, or rdma_reject with
 * the REJ record naming the failed call. The request's id has done its work
 * then and goes: UD keeps no connection, so the server's cm_id count stays at
 * its listeners. The listeners are bound to --addr before any QP exists:
 * their context is every loop's device (ud_dev_open), never a GID lookup.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/cm.h"
#include "agents/tag.h"
#include "agents/ud/ud_server.h"
#include "common/proto.h"

/* handed requests taken per lock: loop 0 waits on it for a copy, never a verbs call */
#define UDSCM_BATCH 32

int udscm_open(struct uds *s)
{
	s->cmch = agcm_channel("server");
	if (!s->cmch)
		return -1;
	if (agcm_listen(s->cmch, s->o, RDMA_PS_UDP, &s->listen))
		return -1;
	return tag_watch(s->ep, s->cmch->fd, EPOLLIN, TAG(UDS_T_CM, 0, 0), "rdma_cm channel");
}

/* The REQ record of a SIDR REQ's private data; the CM's padding must be zero. */
static const char *udscm_parse(struct rdma_cm_id *id, const struct rdma_ud_param *ud,
			     struct oob_rec *req)
{
	const uint8_t *pd = ud->private_data;
	uint8_t want[16];
	enum oob_err e;
	struct ipa peer;

	if (!pd || ud->private_data_len < OOB_REC_LEN)
		return "truncated";
	for (uint32_t i = OOB_REC_LEN; i < ud->private_data_len; i++)
		if (pd[i])
			return "bad_pad";
	e = oob_parse(pd, OOB_REC_LEN, OOB_T(OOB_REQ), req);
	if (e)
		return oob_strerror(e);
	if (req->op != OOB_OP_UD)
		return "bad_op";
	if (req->rkey != RDMA_UDP_QKEY)
		return "bad_qkey";
	/* the GID it claims is the address it came from (RoCEv2: IPv4-mapped or IPv6) */
	if (ipa_from_sa(&peer, rdma_get_peer_addr(id), NULL))
		return "bad_gid";
	ipa_gid(&peer, want);
	if (memcmp(req->gid, want, sizeof(want)))
		return "bad_gid";
	return NULL;
}

/* Admits req's client on loop s and answers id: accept naming s's QP, or reject. */
static void udscm_answer(struct uds *s, struct rdma_cm_id *id, const struct oob_rec *req)
{
	struct rdma_conn_param cp = { 0 };
	uint8_t buf[OOB_REC_LEN];
	struct oob_rec rep;
	struct verbs_fail f;
	bool ok;

	ok = !uds_admit(s, req, &f);
	uds_answer(s, req, ok ? NULL : &f, &rep);
	if (oob_encode(&rep, buf)) {
		ag_warn("REQ id %u: the answer does not encode", req->id);
		return;
	}
	cp.private_data = buf;
	cp.private_data_len = sizeof(buf);
	cp.qp_num = s->qp.qp->qp_num;
	if (ok ? rdma_accept(id, &cp) : rdma_reject(id, buf, sizeof(buf)))
		ag_warn("%s id %u: %s", ok ? "rdma_accept" : "rdma_reject", req->id,
			strerror(errno));
}

/*
 * Loop 0: a request checked and served here, or handed to the loop whose turn
 * it is; false when that loop destroys its id.
 */
static bool udscm_request(struct uds *s, struct rdma_cm_id *id, const struct rdma_ud_param *ud)
{
	struct uds_hand h = { .id = id };
	const char *why = udscm_parse(id, ud, &h.req);
	struct srvl *to;

	if (why) {
		char peer[IPA_STRLEN] = "?";
		struct ipa a;

		if (!ipa_from_sa(&a, rdma_get_peer_addr(id), NULL))
			ipa_str(&a, peer, sizeof(peer));
		ag_warn("rdma_cm request from %s dropped: %s", peer, why);
		proto_drop(peer, why);
		if (rdma_reject(id, NULL, 0))
			ag_warn("rdma_reject: %s", strerror(errno));
		return true;
	}
	to = srvl_next(s->loop.top);
	/* a request that cannot be queued is served here rather than lost */
	if (to->lid && !srvl_hand(to, &h))
		return false;
	udscm_answer(s, id, &h.req);
	return true;
}

void udscm_event(struct uds *s)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	bool req;
	int got;

	for (;;) {
		if ((got = agcm_get(s->cmch, "server", &ev))) {
			if (got < 0)
				s->stop = true;
			return;
		}
		id = ev->id;
		req = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST;
		if (req)
			req = udscm_request(s, id, &ev->param.ud);
		else if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			s->stop = true;
		/* ids are destroyed only once their event is acknowledged */
		if (rdma_ack_cm_event(ev))
			ag_warn("rdma_ack_cm_event: %s", strerror(errno));
		if (req && rdma_destroy_id(id))
			ag_warn("rdma_destroy_id: %s", strerror(errno));
	}
}

void udscm_handed(struct uds *s)
{
	struct uds_hand h[UDSCM_BATCH];
	uint32_t n;

	do {
		n = srvl_take(&s->loop, h, UDSCM_BATCH);
		for (uint32_t i = 0; i < n; i++) {
			udscm_answer(s, h[i].id, &h[i].req);
			if (rdma_destroy_id(h[i].id))
				ag_warn("rdma_destroy_id: %s", strerror(errno));
		}
	} while (n && !s->stop && !atomic_load(&s->loop.top->stop));
}

void udscm_close(struct uds *s)
{
	struct uds_hand h;

	/* the threads are joined: requests handed over and not served go unanswered */
	while (srvl_take(&s->loop, &h, 1))
		if (rdma_destroy_id(h.id))
			ag_warn("rdma_destroy_id: %s", strerror(errno));
	if (!s->loop.lid)
		agcm_close(&s->cmch, &s->listen, s->o->ports);
}
