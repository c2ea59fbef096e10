// SPDX-License-Identifier: MIT
/*
 * ud client: each client is one UD QP with its own CQ; the agent holds one
 * TLS session (--cm oob-tls) that carries every client's REQ, and one AH, to
 * the server's port; each client sends to the QP its REP named (one per
 * server loop, --server-threads). A round trip is one datagram each way;
 * one unanswered is resent by agents/rto.h's rule (the resend timeout
 * udc_rto, doubled after every resend), up to UD_TRIES sends, then fails its
 * client ("msg fail call=ud_retry err=ETIMEDOUT": lost).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ud/ud_client.h"
#include "common/clock.h"
#include "common/proto.h"

void udc_fail(struct udc *x, uint32_t i, const char *call, int err, const char *ename,
	     bool at_server)
{
	struct udc_conn *c = &x->c[i];

	if (c->state != UDC_SETUP)
		return;
	ph_fail(&x->ph, i, call, err, ename, at_server, -1);
	c->state = UDC_FAILED;
	ud_qp_destroy(&c->q);
}

/* --- data path --- */

/*
 * The resend timeout (agents/rto.h): UD_RTO_MS, or longer when this agent's
 * round trips take longer (the server's receive queue, a loaded host), at most
 * UD_RTO_MAX_MS. A fixed 100 ms under a queue of 800 round trips resent nearly
 * every one, and the echoes of the resends took the server's time from the rest.
 */
static uint64_t udc_rto(const struct udc *x)
{
	return rto_ns(&x->rto, UD_RTO_MS * 1000000ull, UD_RTO_MAX_MS * 1000000ull);
}

static int udc_send(struct udc *x, uint32_t i)
{
	struct udc_conn *c = &x->c[i];
	struct verbs_fail f;

	c->t_sent = clock_ns();
	if (!c->tries++)
		c->t_first = c->t_sent;
	/* the SQ is full: the tick resends later */
	if (c->sq_out >= c->q.nsend)
		return 0;
	if (ud_post_send(&x->dev, &c->q, i, 0, 0, x->o->size, load_seq(&x->ph.load, i), x->ah,
			 c->srv_qpn, x->srv_qkey, &f)) {
		load_fail(&x->ph.load, i, f.call, f.err, NULL);
		c->t_sent = 0;
		return -1;
	}
	c->sq_out++;
	return 0;
}

static void udc_tick_arm(struct udc *x, bool on)
{
	if (rto_tick_arm(x->tick, &x->ticking, on))
		ag_warn("timerfd_settime: %s", strerror(errno));
}

static void udc_load_start(void *arg, uint32_t i)
{
	struct udc *x = arg;

	load_tx_fill(&x->ph.load, i, 0, ud_sbuf(&x->dev, &x->c[i].q, 0), x->o->size);
	x->c[i].tries = 0;
	if (!udc_send(x, i))
		udc_tick_arm(x, true);
}

static const struct load_ops udc_load_ops = { .start = udc_load_start };

static void udc_on_tick(struct udc *x)
{
	uint64_t now = clock_ns(), exp, rto = udc_rto(x);
	bool due = false;

	if (read(x->tick, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("tick: %s", strerror(errno));
	for (uint32_t i = 0; i < x->n; i++) {
		struct udc_conn *c = &x->c[i];

		if (!c->t_sent || load_want(&x->ph.load, i) == 0) {
			c->t_sent = 0;
			continue;
		}
		due = true;
		if (!rto_due(rto, now, c->t_sent, c->tries))
			continue;
		if (c->tries >= UD_TRIES) {
			c->t_sent = 0;
			load_fail(&x->ph.load, i, "ud_retry", ETIMEDOUT, NULL);
			continue;
		}
		x->ph.load.retried++;
		udc_send(x, i);
	}
	if (!due)
		udc_tick_arm(x, false);
}

static void udc_wc(void *arg, const struct ibv_wc *wc)
{
	struct udc *x = arg;
	uint32_t i = (uint32_t)(wc->wr_id >> 32) & 0x7fffffffu, slot = (uint32_t)wc->wr_id;
	struct udc_conn *c = i < x->n ? &x->c[i] : NULL;
	struct verbs_fail f;

	if (!c || c->state != UDC_UP || !c->q.qp || c->q.qp->qp_num != wc->qp_num)
		return;
	if (wc->wr_id & UD_WR_SEND) {
		c->sq_out--;
		if (wc->status != IBV_WC_SUCCESS)
			load_fail(&x->ph.load, i, "ibv_poll_cq", 0, verbs_wc_word(wc->status));
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			load_fail(&x->ph.load, i, "ibv_poll_cq", 0, verbs_wc_word(wc->status));
		return;
	}
	/* an echo of an earlier send of a round trip already done is late */
	if (!c->t_sent || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    ntohl(wc->imm_data) != load_seq(&x->ph.load, i) ||
	    load_want(&x->ph.load, i) != x->o->size) {
		x->ph.load.late++;
	} else if (wc->byte_len != OPT_UD_GRH + x->o->size) {
		load_fail(&x->ph.load, i, "ibv_poll_cq", EPROTO, NULL);
		return;
	} else {
		c->t_sent = 0;
		rto_sample(&x->rto, clock_ns() - c->t_first);
		if (ud_post_recv(&x->dev, &c->q, i, slot, &f)) {
			load_fail(&x->ph.load, i, f.call, f.err, NULL);
			return;
		}
		load_rx(&x->ph.load, i, ud_rbuf(&x->dev, &c->q, slot) + OPT_UD_GRH, x->o->size);
		return;
	}
	if (ud_post_recv(&x->dev, &c->q, i, slot, &f))
		load_fail(&x->ph.load, i, f.call, f.err, NULL);
}

/* --- the session --- */

static void udc_sess_fail(struct udc *x, const char *call, int err, const char *why)
{
	x->sess_failed = true;
	x->fail_call = call;
	x->fail_err = err;
	snprintf(x->fail_why, sizeof(x->fail_why), "%s", why ? why : proto_errname(err));
	for (uint32_t i = 0; i < x->n; i++)
		udc_fail(x, i, call, err, x->fail_why, false);
	x->waiting = 0;
	tls_io_free(&x->io);
}

static void udc_sess_update(struct udc *x)
{
	struct epoll_event ev = { .data.u64 = PH_TAG(UDC_T_SESS, 0) };

	ev.events = x->connecting ? EPOLLOUT : tls_io_events(&x->io);
	if (ev.events == x->events)
		return;
	if (epoll_ctl(x->ph.ep, EPOLL_CTL_MOD, x->io.fd, &ev)) {
		udc_sess_fail(x, "epoll_ctl", errno, NULL);
		return;
	}
	x->events = ev.events;
}

static int udc_sess_open(struct udc *x)
{
	const struct ag_opts *o = x->o;
	struct sockaddr_storage sa, src;
	socklen_t sl = ipa_to_sa(&o->addr, (uint16_t)o->port, &sa);
	socklen_t srcl = ipa_to_sa(&o->bind, 0, &src);
	const char *call = "socket";
	int fd, one = 1;

	fd = socket(o->addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (tls_io_init(&x->io, x->ssl, fd, false)) {
		x->io.fd = fd;
		udc_sess_fail(x, "SSL_new", 0, x->io.why);
		return -1;
	}
	call = "setsockopt";
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		goto fail;
	call = "bind";
	if (o->has_bind && bind(fd, (struct sockaddr *)&src, srcl))
		goto fail;
	call = "epoll_ctl";
	x->events = EPOLLOUT;
	if (ph_watch(&x->ph, fd, EPOLLOUT, PH_TAG(UDC_T_SESS, 0), "session"))
		return -1;
	x->connecting = true;
	call = "connect";
	if (connect(fd, (struct sockaddr *)&sa, sl) && errno != EINPROGRESS)
		goto fail;
	return 0;
fail:
	udc_sess_fail(x, call, errno, NULL);
	return -1;
}

int udc_answer(struct udc *x, const struct oob_rec *r, const char **why)
{
	uint32_t i = r->id - x->o->first_id;
	struct verbs_fail f;

	if (i >= x->n || (x->c[i].state != UDC_SETUP && x->c[i].state != UDC_FAILED)) {
		*why = "bad_id";
		return -1;
	}
	if (x->c[i].state == UDC_FAILED)	/* after our own timeout: late, not hostile */
		return 0;
	x->waiting--;
	if (r->type == OOB_REJ) {
		udc_fail(x, i, oob_call_name(r->call), (int)r->status, NULL, true);
		return 0;
	}
	if (r->op != OOB_OP_UD) {
		*why = "bad_op";
		return -1;
	}
	/* one port, one Q_Key; the QP is the server loop's that took this client */
	if (x->ah && (memcmp(r->gid, x->srv_gid, 16) || r->rkey != x->srv_qkey)) {
		*why = "bad_server";
		return -1;
	}
	if (!x->ah) {
		x->ah = ud_ah_create(&x->dev, r->lid, r->gid, &f);
		if (!x->ah) {
			udc_fail(x, i, f.call, f.err, NULL, false);
			return 0;
		}
		memcpy(x->srv_gid, r->gid, 16);
		x->srv_qkey = r->rkey;
	}
	x->c[i].srv_qpn = r->qpn;
	x->c[i].state = UDC_UP;
	ph_up(&x->ph, i);
	return 0;
}

static int udc_records(struct udc *x)
{
	unsigned types = OOB_T(OOB_REP) | OOB_T(OOB_REJ);
	const char *why = NULL;
	uint32_t off = 0;
	struct oob_rec r;
	enum oob_err e;

	for (;;) {
		e = oob_head(x->in + off, x->ilen - off, types);
		if (e == OOB_ESHORT || (!e && x->ilen - off < OOB_REC_LEN))
			break;
		if (!e)
			e = oob_parse(x->in + off, OOB_REC_LEN, types, &r);
		if (e)
			why = oob_strerror(e);
		if (e || udc_answer(x, &r, &why)) {
			udc_sess_fail(x, "SSL_read", EPROTO, why);
			return -1;
		}
		off += OOB_REC_LEN;
	}
	memmove(x->in, x->in + off, x->ilen - off);
	x->ilen -= off;
	return 0;
}

static void udc_sess_run(struct udc *x)
{
	socklen_t sl = sizeof(int);
	int r, err = 0;
	ssize_t n;

	if (!x->io.ssl)
		return;
	if (x->connecting) {
		if (getsockopt(x->io.fd, SOL_SOCKET, SO_ERROR, &err, &sl))
			err = errno;
		if (err) {
			udc_sess_fail(x, "connect", err, NULL);
			return;
		}
		x->connecting = false;
	}
	if (!x->io.up) {
		r = tls_io_handshake(&x->io);
		if (r == TLS_ERR) {
			udc_sess_fail(x, "SSL_connect", 0, x->io.why);
			return;
		}
		if (r == TLS_AGAIN) {
			udc_sess_update(x);
			return;
		}
	}
	if (tls_io_flush(&x->io) == TLS_ERR) {
		udc_sess_fail(x, "SSL_write", 0, x->io.why);
		return;
	}
	while ((n = tls_io_read(&x->io, x->in + x->ilen, sizeof(x->in) - x->ilen)) > 0) {
		x->ilen += (uint32_t)n;
		if (udc_records(x))
			return;
	}
	if (n != TLS_AGAIN) {
		udc_sess_fail(x, "SSL_read", 0, n ? x->io.why : "eof");
		return;
	}
	udc_sess_update(x);
}

/* --- setups --- */

void udc_req(const struct udc *x, uint32_t i, uint8_t buf[OOB_REC_LEN])
{
	struct oob_rec req = { .type = OOB_REQ, .id = x->o->first_id + i, .op = OOB_OP_UD,
			       .qpn = x->c[i].q.qp->qp_num, .mtu = (uint8_t)x->dev.mtu,
			       .gidx = x->dev.gidx, .lid = x->dev.lid, .rkey = x->dev.qkey };

	memcpy(req.gid, x->dev.gid.raw, 16);
	if (oob_encode(&req, buf))
		memset(buf, 0, OOB_REC_LEN);	/* the server refuses it, named */
}

int udc_dev_open(struct udc *x, struct rdma_cm_id *cm)
{
	if (ud_dev_open(&x->dev, x->o, &x->local, cm))
		return -1;
	return ph_watch(&x->ph, x->dev.ch->fd, EPOLLIN, PH_TAG(UDC_T_CHAN, 0),
			"completion channel");
}

int udc_qp(struct udc *x, uint32_t i)
{
	struct udc_conn *c = &x->c[i];
	struct verbs_fail f;

	if (!ud_qp_create(&x->dev, &c->q, UD_CLI_RECV, 1, UD_CLI_SEND, i, &f))
		return 0;
	ph_fail(&x->ph, i, f.call, f.err, NULL, false, -1);
	c->state = UDC_FAILED;
	return -1;
}

static void udc_start(void *arg, uint32_t i)
{
	struct udc *x = arg;
	struct udc_conn *c = &x->c[i];
	uint8_t buf[OOB_REC_LEN];
	bool oob = x->o->cm == OPT_CM_OOB_TLS;

	c->state = UDC_SETUP;
	if (oob && !x->io.ssl && !x->sess_failed && udc_sess_open(x))
		return;
	if (x->sess_failed) {
		udc_fail(x, i, x->fail_call, x->fail_err, x->fail_why, false);
		return;
	}
	/* rdmacm: the QP is made on the id's device once its address resolves */
	if (!oob) {
		udcm_start(x, i);
		return;
	}
	if (udc_qp(x, i))
		return;
	udc_req(x, i, buf);
	if (tls_io_queue(&x->io, buf, sizeof(buf))) {
		udc_fail(x, i, "request", ENOMEM, NULL, false);
		return;
	}
	x->waiting++;
	if (x->io.up)
		udc_sess_run(x);
}

static bool udc_pending(void *arg, uint32_t i)
{
	return ((struct udc *)arg)->c[i].state == UDC_SETUP;
}

static void udc_expire(void *arg, uint32_t i)
{
	struct udc *x = arg;

	if (x->o->cm == OPT_CM_RDMACM) {
		udc_fail(x, i, udcm_pending_call(x, i), 0, "timeout", false);
		udcm_drop(x, i);
		return;
	}
	udc_fail(x, i, x->connecting ? "connect" : x->io.up ? "SSL_read" : "SSL_connect", 0,
		"timeout", false);
	x->waiting--;
}

static int udc_event(void *arg, uint32_t t, uint32_t v, uint32_t events)
{
	struct udc *x = arg;
	uint64_t nev = 0;

	(void)v;
	(void)events;
	switch (t) {
	case UDC_T_CHAN:
		return poll_events(x->dev.ch, &nev, udc_wc, x);
	case UDC_T_SESS:
		udc_sess_run(x);
		break;
	case UDC_T_TICK:
		udc_on_tick(x);
		break;
	case UDC_T_CM:
		udcm_event(x);
		break;
	}
	return 0;
}

static const struct ph_ops udc_ph_ops = {
	.batch = UDC_BATCH, .events = UDC_EVENTS, .start = udc_start,
	.pending = udc_pending, .expire = udc_expire, .event = udc_event,
};

static int udc_init(struct udc *x)
{
	const struct ag_opts *o = x->o;
	char err[320];

	x->io.fd = -1;
	x->tick = -1;
	if (ph_init(&x->ph, o, &udc_ph_ops, &udc_load_ops, x))
		return -1;
	x->ph.load.resends = true;
	x->n = o->clients;
	x->c = calloc(x->n, sizeof(*x->c));
	if (!x->c) {
		ag_fatal("calloc", "client state", ENOMEM);
		return -1;
	}
	if (ag_opts_local(o, &x->local))
		return -1;
	/* rdmacm: the device is the first resolved id's (udcm_event) */
	if (o->cm != OPT_CM_RDMACM && udc_dev_open(x, NULL))
		return -1;
	x->tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (x->tick < 0) {
		ag_fatal("timerfd_create", "retry tick", errno);
		return -1;
	}
	if (ph_watch(&x->ph, x->tick, EPOLLIN, PH_TAG(UDC_T_TICK, 0), "retry tick"))
		return -1;
	if (o->cm == OPT_CM_RDMACM)
		return udcm_init(x);
	x->ssl = tls_ctx_new(false, o->tls_ca, o->tls_cert, o->tls_key, err, sizeof(err));
	if (!x->ssl) {
		ag_fatal("SSL_CTX_new", err, EINVAL);
		return -1;
	}
	return 0;
}

static void udc_fini(struct udc *x)
{
	int err;

	udcm_fini(x);
	for (uint32_t i = 0; x->c && i < x->n; i++)
		if (x->c[i].q.qp || x->c[i].q.cq.cq)
			ud_qp_destroy(&x->c[i].q);
	if (x->ah && (err = ibv_destroy_ah(x->ah)))
		ag_warn("ibv_destroy_ah: %s", strerror(err));
	if (x->io.ssl || x->io.fd >= 0)
		tls_io_free(&x->io);
	SSL_CTX_free(x->ssl);
	if (x->tick >= 0)
		close(x->tick);
	ud_dev_close(&x->dev);
	ph_fini(&x->ph);
	free(x->c);
}

int ud_client_run(const struct ag_opts *o)
{
	struct udc x = { .o = o };
	int ret = 1;

	if (udc_init(&x))
		goto out;
	proto_hello_client(o->first_id, o->clients);
	ret = ph_loop(&x.ph) ? 1 : 0;
out:
	udc_fini(&x);
	if (!ret)
		proto_bye();
	return ret;
}
