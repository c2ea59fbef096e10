// SPDX-License-Identifier: MIT
/*
 * ud server, one event loop's clients and echo (the loops: ud_server.h and
 * ud_server_loop.c): one UD QP for every client of the loop. TLS sessions
 * (--cm oob-tls) carry the clients' REQs (their QPN, GID and Q_Key); each
 * client is admitted into the map (with what its --ah policy holds per
 * client: ud_server_ah.c) and gets a REP with this loop's QP number and
 * Q_Key, or a REJ naming the call that failed (ibv_create_ah at the device's
 * max_ah). A session takes its clients with it
 * when it ends; one that breaks the protocol or TLS is dropped
 * ("drop peer=.. reason=.."). A datagram from a sender not admitted, or with
 * no AH to answer it, is dropped and counted. The echo is sent from the
 * receive slot itself, which is posted again once the send completes: the SQ
 * is as deep as the RQ, so a reply never waits for room, and a full server
 * shows as an empty RQ (the device drops, the client resends), never as an
 * unbounded queue here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/tag.h"
#include "agents/ud/ud_server.h"
#include "common/proto.h"

void uds_sess_close(struct uds *s, uint32_t i, const char *why)
{
	struct uds_sess *ss = s->sess[i];

	if (why) {
		ag_warn("session %s dropped: %s", ss->peer, why);
		proto_drop(ss->peer, why);
	}
	for (uint32_t k = 0; k < ss->nkeys; k++)
		udsa_drop(s, &ss->keys[k]);
	tls_io_free(&ss->io);
	free(ss->keys);
	free(ss);
	s->sess[i] = NULL;
	s->gens[i]++;
}

void uds_accept(struct uds *s, uint32_t port)
{
	struct sockaddr_storage sa;
	struct uds_sess *ss;
	uint32_t i;
	int fd, one = 1;

	while ((fd = srv_accept(&s->lis, port, SOCK_NONBLOCK | SOCK_CLOEXEC, &sa)) >= 0) {
		for (i = 0; i < s->nsess && s->sess[i]; i++)
			;
		if (i == s->sess_cap) {
			uint32_t cap = s->sess_cap ? 2 * s->sess_cap : 64;
			struct uds_sess **v = realloc(s->sess, cap * sizeof(*v));
			uint16_t *g = v ? realloc(s->gens, cap * sizeof(*g)) : NULL;

			if (v)
				s->sess = v;
			if (!g) {
				close(fd);
				ag_warn("accept: no memory for a session");
				continue;
			}
			s->gens = g;
			memset(v + s->sess_cap, 0, (cap - s->sess_cap) * sizeof(*v));
			memset(g + s->sess_cap, 0, (cap - s->sess_cap) * sizeof(*g));
			s->sess_cap = cap;
		}
		ss = calloc(1, sizeof(*ss));
		if (!ss || tls_io_init(&ss->io, s->ssl, fd, true)) {
			ag_warn("session: %s", ss ? ss->io.why : "no memory");
			close(fd);
			free(ss);
			continue;
		}
		if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
			ag_warn("setsockopt TCP_NODELAY: %s", strerror(errno));
		sk_peer(ss->peer, (struct sockaddr *)&sa);
		s->sess[i] = ss;
		if (i == s->nsess)
			s->nsess++;
		ss->events = EPOLLIN;
		if (tag_watch(s->ep, fd, EPOLLIN, TAG(UDS_T_SESS, s->gens[i], i), "session"))
			uds_sess_close(s, i, "epoll_ctl");
	}
	if (errno != EAGAIN)
		ag_warn("accept on port %u: %s", s->o->port + port, strerror(errno));
}

int uds_admit(struct uds *s, const struct oob_rec *req, struct verbs_fail *f)
{
	struct ud_ahe *e = ud_ahmap_put(&s->ahs, req->gid, req->qpn);

	if (!e) {
		*f = (struct verbs_fail){ errno == ENOMEM ? "malloc" : "request", errno };
		goto rej;
	}
	e->lid = req->lid;
	if (udsa_admit(s, e, f)) {
		ud_ahmap_del(&s->ahs, e);
		goto rej;
	}
	srvl_up(&s->loop);
	return 0;
rej:
	if (s->rejected++ < 8)
		ag_warn("REQ id %u: %s: %s", req->id, f->call, strerror(f->err));
	return -1;
}

void uds_answer(const struct uds *s, const struct oob_rec *req, const struct verbs_fail *f,
	       struct oob_rec *rep)
{
	if (f) {
		*rep = (struct oob_rec){ .type = OOB_REJ, .id = req->id, .status = (uint32_t)f->err,
					 .call = (uint8_t)oob_call_code(f->call) };
		if (!rep->call)
			rep->call = OOB_CALL_REQUEST;
		return;
	}
	*rep = (struct oob_rec){ .type = OOB_REP, .id = req->id, .op = OOB_OP_UD,
				 .qpn = s->qp.qp->qp_num, .mtu = (uint8_t)s->dev.mtu,
				 .gidx = s->dev.gidx, .lid = s->dev.lid, .rkey = s->dev.qkey };
	memcpy(rep->gid, s->dev.gid.raw, 16);
}

/* A REP, or a REJ naming the failed call; -1 when the REQ is hostile. */
static int uds_req(struct uds *s, struct uds_sess *ss, const struct oob_rec *req, const char **why)
{
	struct verbs_fail f = { "malloc", ENOMEM };
	uint8_t buf[OOB_REC_LEN];
	struct oob_rec rep;
	struct uds_key *k;
	bool ok = false;

	if (req->op != OOB_OP_UD || req->rkey != s->dev.qkey) {
		*why = req->op != OOB_OP_UD ? "bad_op" : "bad_qkey";
		return -1;
	}
	if (ss->nkeys == ss->kcap) {
		uint32_t cap = ss->kcap ? 2 * ss->kcap : 64;

		k = realloc(ss->keys, cap * sizeof(*k));
		if (!k) {
			s->rejected++;
			goto answer;
		}
		ss->keys = k;
		ss->kcap = cap;
	}
	if (uds_admit(s, req, &f))
		goto answer;
	/* the session takes its clients' AHs with it when it ends */
	k = &ss->keys[ss->nkeys++];
	memcpy(k->gid, req->gid, 16);
	k->qpn = req->qpn;
	ok = true;
answer:
	uds_answer(s, req, ok ? NULL : &f, &rep);
	if (oob_encode(&rep, buf) || tls_io_queue(&ss->io, buf, sizeof(buf))) {
		*why = "ENOMEM";
		return -1;
	}
	return 0;
}

static int uds_records(struct uds *s, struct uds_sess *ss, const char **why)
{
	uint32_t off = 0;
	struct oob_rec r;
	enum oob_err e;

	for (;;) {
		e = oob_head(ss->in + off, ss->ilen - off, OOB_T(OOB_REQ));
		if (e == OOB_ESHORT || (!e && ss->ilen - off < OOB_REC_LEN))
			break;
		if (!e)
			e = oob_parse(ss->in + off, OOB_REC_LEN, OOB_T(OOB_REQ), &r);
		if (e) {
			*why = oob_strerror(e);
			return -1;
		}
		if (uds_req(s, ss, &r, why))
			return -1;
		off += OOB_REC_LEN;
	}
	memmove(ss->in, ss->in + off, ss->ilen - off);
	ss->ilen -= off;
	return 0;
}

void uds_sess_event(struct uds *s, uint32_t i, uint16_t gen)
{
	struct uds_sess *ss = i < s->nsess ? s->sess[i] : NULL;
	const char *why = NULL;
	uint32_t ev;
	ssize_t n;
	int r;

	if (!ss || s->gens[i] != gen)
		return;
	if (!ss->io.up) {
		r = tls_io_handshake(&ss->io);
		if (r == TLS_ERR) {
			uds_sess_close(s, i, ss->io.why);
			return;
		}
		if (r == TLS_AGAIN)
			goto mod;
	}
	for (;;) {
		n = tls_io_read(&ss->io, ss->in + ss->ilen, sizeof(ss->in) - ss->ilen);
		if (n == TLS_AGAIN)
			break;
		if (n <= 0) {
			/* a clean end at a record boundary is a client agent's goodbye */
			uds_sess_close(s, i, n || ss->ilen ? (n ? ss->io.why : "truncated") : NULL);
			return;
		}
		ss->ilen += (uint32_t)n;
		if (uds_records(s, ss, &why)) {
			uds_sess_close(s, i, why);
			return;
		}
	}
	if (tls_io_flush(&ss->io) == TLS_ERR) {
		uds_sess_close(s, i, ss->io.why);
		return;
	}
mod:
	ev = tls_io_events(&ss->io);
	if (ev != ss->events) {
		ss->events = ev;
		tag_mod(s->ep, ss->io.fd, ev, TAG(UDS_T_SESS, gen, i), "session");
	}
}

/* One completion of the QP: echo a datagram to its sender, or free a send slot. */
void uds_wc(void *arg, const struct ibv_wc *wc)
{
	struct uds *s = arg;
	uint32_t slot = (uint32_t)wc->wr_id, len;
	struct verbs_fail f;
	struct ud_ahe *e;
	struct ibv_ah *ah = NULL;
	uint8_t gid[16], *rb;

	if (wc->wr_id & UD_WR_SEND) {
		udsa_slot_done(s, slot);
		if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
			ag_warn("send completion: %s", verbs_wc_word(wc->status));
		goto repost;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			ag_warn("receive completion: %s", verbs_wc_word(wc->status));
		s->dropped++;
		return;
	}
	rb = ud_rbuf(&s->dev, &s->qp, slot);
	len = wc->byte_len - OPT_UD_GRH;
	e = wc->byte_len >= OPT_UD_GRH && !ud_grh_sgid(rb, gid) ?
		ud_ahmap_get(&s->ahs, gid, wc->src_qp) : NULL;
	if (e)
		ah = udsa_reply(s, e, wc, slot);
	if (!ah || !(wc->wc_flags & IBV_WC_WITH_IMM)) {
		s->dropped++;
		udsa_slot_done(s, slot);
	} else if (ud_post_send(&s->dev, &s->qp, 0, slot, OPT_UD_GRH, len, ntohl(wc->imm_data),
				ah, wc->src_qp, s->dev.qkey, &f)) {
		ag_warn("%s: %s", f.call, strerror(f.err));
		s->dropped++;
		udsa_slot_done(s, slot);
	} else {
		s->echoed++;
		s->bytes += len;
		return;	/* the slot is reposted when its send completes */
	}
repost:
	if (ud_post_recv(&s->dev, &s->qp, 0, slot, &f))
		ag_warn("%s slot %u: %s", f.call, slot, strerror(f.err));
}
