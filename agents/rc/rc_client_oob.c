// SPDX-License-Identifier: MIT
/*
 * rc client, --cm oob-tls: QP exchange over TLS sessions. --oob-session
 * per-agent (default) opens one session at the first connection and pipelines
 * every REQ through it; per-conn gives each connection its own handshake (one
 * TLS session per client). A session that fails fails every connection still waiting on
 * it, and any that would start on it later, with the session's call and reason;
 * the traffic of the connections it brought up fails too: the server ends a
 * session only when it drops it or dies, and waiting for their QPs to learn it
 * would cost the retry bound (common/deadline.h).
 *
 * A DOWN (oob.h) fails at once the traffic of the connection the server lost.
 *
 * Flow control: a session carries at most OOB_WINDOW REQs unanswered (oob.h);
 * the endpoints of the others are made at their start and their REQs wait in
 * the session's queue (FIFO, through rcc.onext) until answers free the window.
 * An agent's one session (per-agent) starts at most RCC_OOB_LEAD connections
 * ahead of their answers (phase.h's lead): endpoints made all at "go" hold
 * memory for connections the server has not answered, so a point would end at
 * the client's memory before the server's. The lead is what the client makes
 * while one exchange is answered: an exchange's p99 of 0.75 s is ~470
 * endpoints at create_qp's 1.6 ms, so 16 windows (512 endpoints, ~9 MB an
 * agent); a shorter lead leaves the agent waiting for answers with nothing
 * made. per-conn sessions carry one REQ each, and --qp-share makes only its
 * K endpoints: no lead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "common/deadline.h"
#include "agents/ag.h"
#include "agents/rc/rc_client.h"
#include "agents/rc/rc_reply.h"
#include "agents/srv/sock.h"
#include "common/proto.h"

/* connections started and not settled on a per-agent session (see above) */
#define RCC_OOB_LEAD (16 * OOB_WINDOW)

int rcc_oob_init(struct rcc *x)
{
	const struct ag_opts *o = x->o;
	char err[320];
	uint32_t i;

	x->ssl = tls_ctx_new(false, o->tls_ca, o->tls_cert, o->tls_key, err, sizeof(err));
	if (!x->ssl) {
		ag_fatal("SSL_CTX_new", err, EINVAL);
		return -1;
	}
	x->nsess = o->oob_session == OPT_OOB_PER_CONN ? x->n : 1;
	/* --qp-share: K endpoints an agent, its other clients wait on them */
	if (o->oob_session != OPT_OOB_PER_CONN && !x->nqp)
		x->ph.lead = RCC_OOB_LEAD;
	x->sess = calloc(x->nsess, sizeof(*x->sess));
	if (!x->sess) {
		ag_fatal("calloc", "sessions", ENOMEM);
		return -1;
	}
	/* only the endpoints' owners send REQs */
	x->onext = calloc(x->nep, sizeof(*x->onext));
	if (!x->onext) {
		ag_fatal("calloc", "request queue", ENOMEM);
		return -1;
	}
	for (i = 0; i < x->nsess; i++) {
		x->sess[i].io.fd = -1;
		x->sess[i].qhead = x->sess[i].qtail = RCC_NONE;
	}
	return 0;
}

/* Fails session si and every connection waiting on it; later starts fail too. */
static void rcc_sess_fail(struct rcc *x, uint32_t si, const char *call, int err,
			  const char *why)
{
	struct rcc_sess *ss = &x->sess[si];
	uint32_t i, lo = 0, hi = x->n;

	ss->failed = true;
	ss->fail_call = call;
	ss->fail_err = err;
	snprintf(ss->fail_why, sizeof(ss->fail_why), "%s", why ? why : proto_errname(err));
	if (x->nsess > 1) {
		lo = si;
		hi = si + 1;
	}
	for (i = lo; i < hi; i++) {
		if (x->c[i].sess != si || (x->nqp && i >= x->nqp))
			continue;
		if (x->c[i].state == RCC_UP) {
			rcc_lost(x, i, call, err, ss->fail_why);
			continue;
		}
		if (x->c[i].state != RCC_SETUP)
			continue;
		rcc_fail(x, i, call, err, ss->fail_why, false);
		rc_ep_destroy(&x->dev, &x->ep[i]);
	}
	ss->inflight = 0;
	ss->qhead = ss->qtail = RCC_NONE;
	/* closing the fd takes it out of the epoll set */
	tls_io_free(&ss->io);
}

static void rcc_sess_update(struct rcc *x, uint32_t si)
{
	struct rcc_sess *ss = &x->sess[si];
	struct epoll_event ev = { .data.u64 = PH_TAG(RCC_T_SESS, si) };

	ev.events = ss->connecting ? EPOLLOUT : tls_io_events(&ss->io);
	if (ev.events == ss->events)
		return;
	if (epoll_ctl(x->ph.ep, EPOLL_CTL_MOD, ss->io.fd, &ev)) {
		rcc_sess_fail(x, si, "epoll_ctl", errno, NULL);
		return;
	}
	ss->events = ev.events;
}

static int rcc_sess_open(struct rcc *x, uint32_t si, uint32_t id)
{
	const struct ag_opts *o = x->o;
	struct rcc_sess *ss = &x->sess[si];
	struct sockaddr_storage sa, src;
	socklen_t sl = ipa_to_sa(&o->addr, (uint16_t)(o->port + id % o->ports), &sa);
	socklen_t srcl = ipa_to_sa(&o->bind, 0, &src);
	struct epoll_event ev = { .events = EPOLLOUT, .data.u64 = PH_TAG(RCC_T_SESS, si) };
	const char *call;
	int fd, one = 1;

	fd = socket(o->addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rcc_sess_fail(x, si, "socket", errno, NULL);
		return -1;
	}
	if (tls_io_init(&ss->io, x->ssl, fd, false)) {
		ss->io.fd = fd;
		rcc_sess_fail(x, si, "SSL_new", 0, ss->io.why);
		return -1;
	}
	call = "setsockopt";
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		goto fail;
	/* the port is picked at connect() per 4-tuple, as in the tcp transport */
	if (o->has_bind &&
	    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)))
		goto fail;
	call = "bind";
	if (o->has_bind && bind(fd, (struct sockaddr *)&src, srcl))
		goto fail;
	call = "epoll_ctl";
	if (epoll_ctl(x->ph.ep, EPOLL_CTL_ADD, fd, &ev))
		goto fail;
	ss->events = EPOLLOUT;
	ss->connecting = true;
	call = "connect";
	if (connect(fd, (struct sockaddr *)&sa, sl) && errno != EINPROGRESS)
		goto fail;
	return 0;
fail:
	rcc_sess_fail(x, si, call, errno, NULL);
	return -1;
}

/*
 * The server lost connection i after its REP (oob.h DOWN): its traffic fails
 * now, named by the server's word. One for a connection that got no REP on this
 * session, or a second one, is a lie.
 */
static int rcc_down(struct rcc *x, uint32_t i, const struct oob_rec *r, const char **why)
{
	struct rcc_conn *c = &x->c[i];
	const char *word;
	int err;

	if (!c->rep) {
		*why = "bad_id";
		return -1;
	}
	c->rep = false;
	word = rc_reply_down_word(r, &err);
	rcc_lost(x, i, "server", err, word);
	return 0;
}

/* One answer from the server; -1 when it is a protocol violation. */
static int rcc_answer(struct rcc *x, uint32_t si, const struct oob_rec *r, const char **why)
{
	struct rcc_sess *ss = &x->sess[si];
	uint32_t i = r->id - x->o->first_id;
	struct rcc_conn *c;
	struct rc_ep *ep;
	struct verbs_fail f;

	if (i >= x->n || x->c[i].sess != si) {
		*why = "bad_id";
		return -1;
	}
	if (r->type == OOB_DOWN)
		return rcc_down(x, i, r, why);
	c = &x->c[i];
	/* an answer to a REQ never sent, or answered already, is a lie */
	if (!c->req_sent || (c->state != RCC_SETUP && c->state != RCC_FAILED)) {
		*why = "bad_id";
		return -1;
	}
	/* only a QP's owner sends a REQ, so only an owner gets here: it has an endpoint */
	ep = &x->ep[i];
	c->req_sent = false;
	ss->inflight--;
	/* the server holds an endpoint for it now, which it may lose */
	c->rep = r->type == OOB_REP;
	/* an answer after our own timeout is late, not hostile */
	if (c->state == RCC_FAILED)
		return 0;
	if (r->type == OOB_REJ) {
		rcc_fail(x, i, oob_call_name(r->call), (int)r->status, NULL, true);
		rc_ep_destroy(&x->dev, ep);
		return 0;
	}
	if (r->op != rc_op_oob((enum opt_op)ep->op)) {
		*why = "bad_op";
		return -1;
	}
	if (rc_op_rbuf((enum opt_op)ep->op)) {
		if (r->rlen < x->o->size) {
			rcc_fail(x, i, "request", EMSGSIZE, NULL, false);
			rc_ep_destroy(&x->dev, ep);
			return 0;
		}
		ep->rkey = r->rkey;
		ep->raddr = r->addr;
		ep->rlen = r->rlen;
	}
	ph_step(&x->ph, i, PROTO_STEP_XCHG);
	if (rc_ep_connect(&x->dev, ep, r->qpn, r->psn, r->lid, r->gid, (enum ibv_mtu)r->mtu, &f)) {
		rcc_fail(x, i, f.call, f.err, NULL, false);
		rc_ep_destroy(&x->dev, ep);
		return 0;
	}
	ph_step(&x->ph, i, PROTO_STEP_RTS);
	rcc_up(x, i);
	return 0;
}

/* Records in the input; -1 when the session failed. */
static int rcc_records(struct rcc *x, uint32_t si)
{
	struct rcc_sess *ss = &x->sess[si];
	unsigned types = OOB_T(OOB_REP) | OOB_T(OOB_REJ) | OOB_T(OOB_DOWN);
	const char *why = NULL;
	struct oob_rec r;
	enum oob_err e;
	uint32_t off = 0;

	for (;;) {
		e = oob_head(ss->in + off, ss->ilen - off, types);
		if (e == OOB_ESHORT || (!e && ss->ilen - off < OOB_REC_LEN))
			break;
		if (!e)
			e = oob_parse(ss->in + off, OOB_REC_LEN, types, &r);
		if (e) {
			why = oob_strerror(e);
			goto hostile;
		}
		if (rcc_answer(x, si, &r, &why))
			goto hostile;
		off += OOB_REC_LEN;
	}
	memmove(ss->in, ss->in + off, ss->ilen - off);
	ss->ilen -= off;
	return 0;
hostile:
	rcc_sess_fail(x, si, "SSL_read", EPROTO, why);
	return -1;
}

/* Connection i's REQ into session si's output; -1 with f set when it cannot go. */
static int rcc_req(struct rcc *x, struct rcc_sess *ss, uint32_t i, struct verbs_fail *f)
{
	const struct rc_ep *ep = &x->ep[i];
	struct oob_rec req = { .type = OOB_REQ, .id = x->o->first_id + i };
	uint8_t buf[OOB_REC_LEN];

	req.qpn = ep->qp->qp_num;
	req.psn = ep->psn;
	memcpy(req.gid, x->dev.gid.raw, 16);
	req.mtu = (uint8_t)x->dev.mtu;
	req.gidx = x->dev.gidx;
	req.lid = x->dev.lid;
	req.op = (uint8_t)rc_op_oob((enum opt_op)ep->op);
	if (rc_op_rbuf((enum opt_op)ep->op)) {
		req.rkey = ep->rmr->rkey;
		req.addr = (uintptr_t)rc_rbuf(&x->dev, ep);
		req.rlen = ep->rbytes;
	}
	if (oob_encode(&req, buf)) {
		f->call = "request";
		f->err = EPROTO;
		return -1;
	}
	if (tls_io_queue(&ss->io, buf, sizeof(buf))) {
		f->call = "malloc";
		f->err = ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * Sends the queued REQs of session si the window allows (those that expired
 * while queued are skipped); -1 when the session failed.
 */
static int rcc_sess_pump(struct rcc *x, uint32_t si)
{
	struct rcc_sess *ss = &x->sess[si];
	struct verbs_fail f;
	uint32_t i;
	bool sent = false;

	while (ss->inflight < OOB_WINDOW && ss->qhead != RCC_NONE) {
		i = ss->qhead;
		ss->qhead = x->onext[i];
		if (ss->qhead == RCC_NONE)
			ss->qtail = RCC_NONE;
		if (x->c[i].state != RCC_SETUP)
			continue;
		if (rcc_req(x, ss, i, &f)) {
			rcc_fail(x, i, f.call, f.err, NULL, false);
			rc_ep_destroy(&x->dev, &x->ep[i]);
			continue;
		}
		x->c[i].req_sent = true;
		ss->inflight++;
		sent = true;
	}
	if (!sent || !ss->io.up)
		return 0;
	if (tls_io_flush(&ss->io) == TLS_ERR) {
		rcc_sess_fail(x, si, "SSL_write", 0, ss->io.why);
		return -1;
	}
	return 0;
}

/* The handshake of session si is done: the TLS step of those waiting on it ends. */
static void rcc_sess_up(struct rcc *x, uint32_t si)
{
	uint32_t i, lo = 0, hi = x->n;

	if (x->nsess > 1) {
		lo = si;
		hi = si + 1;
	}
	for (i = lo; i < hi; i++)
		if (x->c[i].state == RCC_SETUP && x->c[i].sess == si)
			ph_step(&x->ph, i, PROTO_STEP_TLS);
}

static void rcc_sess_run(struct rcc *x, uint32_t si)
{
	struct rcc_sess *ss = &x->sess[si];
	socklen_t sl = sizeof(int);
	ssize_t n;
	int r, err = 0;

	if (ss->connecting) {
		if (getsockopt(ss->io.fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err) {
			rcc_sess_fail(x, si, "connect", err, NULL);
			return;
		}
		ss->connecting = false;
		/* the session's EOF or timeout is how a dead server shows (deadline.h) */
		if (sk_detect(ss->io.fd, DL_TCP_KEEPIDLE_S)) {
			rcc_sess_fail(x, si, "setsockopt", errno, NULL);
			return;
		}
	}
	if (!ss->io.up) {
		r = tls_io_handshake(&ss->io);
		if (r == TLS_ERR) {
			rcc_sess_fail(x, si, "SSL_connect", 0, ss->io.why);
			return;
		}
		if (r == TLS_AGAIN) {
			rcc_sess_update(x, si);
			return;
		}
		rcc_sess_up(x, si);
	}
	if (tls_io_flush(&ss->io) == TLS_ERR) {
		rcc_sess_fail(x, si, "SSL_write", 0, ss->io.why);
		return;
	}
	for (;;) {
		n = tls_io_read(&ss->io, ss->in + ss->ilen, sizeof(ss->in) - ss->ilen);
		if (n > 0) {
			ss->ilen += (uint32_t)n;
			/* the answers free the window: the next REQs go at once */
			if (rcc_records(x, si) || rcc_sess_pump(x, si))
				return;
			continue;
		}
		if (n == TLS_AGAIN)
			break;
		/* the server ends a session only when it drops it, or dies */
		rcc_sess_fail(x, si, "SSL_read", 0, n ? ss->io.why : "eof");
		return;
	}
	rcc_sess_update(x, si);
}

void rcc_oob_event(struct rcc *x, uint32_t si, uint32_t events)
{
	(void)events;
	if (si >= x->nsess || !x->sess[si].io.ssl)
		return;
	rcc_sess_run(x, si);
}

void rcc_oob_start(struct rcc *x, uint32_t i)
{
	const struct ag_opts *o = x->o;
	uint32_t si = x->nsess > 1 ? i : 0;
	struct rcc_sess *ss = &x->sess[si];
	struct rcc_conn *c = &x->c[i];
	struct rc_ep *ep = &x->ep[i];
	struct verbs_fail f;

	c->sess = si;
	if (!ss->io.ssl && !ss->failed && rcc_sess_open(x, si, o->first_id + i))
		return;	/* the session's failure failed this connection */
	if (ss->failed) {
		rcc_fail(x, i, ss->fail_call, ss->fail_err, ss->fail_why, false);
		return;
	}
	if (rc_ep_create(&x->dev, ep, i, o->op, NULL, &f))
		goto fail;
	if (rc_psn(&ep->psn)) {
		f.call = "RAND_bytes";
		f.err = EIO;
		goto fail_ep;
	}
	if (rc_ep_init(&x->dev, ep, &f) || rc_post_recv(&x->dev, ep, &f))
		goto fail_ep;
	ph_step(&x->ph, i, PROTO_STEP_QP);
	/* on a session that is up already the TLS step is its reuse: next to nothing */
	if (ss->io.up)
		ph_step(&x->ph, i, PROTO_STEP_TLS);
	x->onext[i] = RCC_NONE;
	if (ss->qtail != RCC_NONE)
		x->onext[ss->qtail] = i;
	else
		ss->qhead = i;
	ss->qtail = i;
	if (rcc_sess_pump(x, si))
		return;
	if (ss->io.up)
		rcc_sess_update(x, si);
	return;
fail_ep:
	rc_ep_destroy(&x->dev, ep);
fail:
	rcc_fail(x, i, f.call, f.err, NULL, false);
}

const char *rcc_oob_pending_call(const struct rcc *x, uint32_t i)
{
	const struct rcc_sess *ss = &x->sess[x->c[i].sess];

	if (ss->connecting)
		return "connect";
	return ss->io.up ? "SSL_read" : "SSL_connect";
}

void rcc_oob_fini(struct rcc *x)
{
	uint32_t i;

	for (i = 0; x->sess && i < x->nsess; i++)
		if (x->sess[i].io.ssl || x->sess[i].io.fd >= 0)
			tls_io_free(&x->sess[i].io);
	free(x->sess);
	free(x->onext);
	SSL_CTX_free(x->ssl);
	x->sess = NULL;
	x->onext = NULL;
	x->ssl = NULL;
}
