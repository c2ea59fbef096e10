// SPDX-License-Identifier: MIT
/*
 * rc server, thread model (--server-model thread): a thread per session, kept
 * to measure against the event model. The main thread accepts TLS connections and
 * reads stdin; each session gets a thread with a blocking TLS socket (send and
 * receive timeouts of --timeout bound a stalled peer) and a completion channel
 * of its own, and waits in poll() on both. The device context and the PD are
 * shared; everything else belongs to the thread. Per-connection CQs only: the
 * shared CQ pool and the SRQ are the event model's (checked at start). An
 * endpoint that dies after its REP is told to its client with a DOWN (oob.h);
 * this model reads no async events: without an SRQ a QP in error flushes its
 * receive, which is how it learns.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <openssl/err.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/oob/oob.h"
#include "agents/rc/rc.h"
#include "agents/rc/rc_reply.h"
#include "agents/oob/tls.h"
#include "agents/srv/srv.h"
#include "agents/srv/threads.h"
#include "agents/tag.h"
#include "common/proto.h"

#define RCT_STACK (256 * 1024)
#define RCT_STOP_WAIT_S 10
enum { RCT_T_LISTEN = 1, RCT_T_CTL };

struct rct_srv {
	const struct ag_opts *o;
	struct rc_dev dev;
	SSL_CTX *ssl;
	struct srvt th;
	int ep;
	struct srv_lis lis;
	struct ctl ctl;
	atomic_uint_fast64_t accepted, echoed, bytes, dropped, rejected, cq_events;
	atomic_uint_fast64_t cq_arms, cq_spins;
	atomic_uint live, peak;
	uint32_t nsess;		/* sessions spawned: the next one's --cpus slot */
};

struct rct_ep {
	struct rc_ep e;
	uint32_t id;		/* the client's connection id */
	bool up;		/* its REP went out */
	uint8_t down_call;	/* why it died, for the DOWN (oob.h) */
	uint32_t down_status;
};

/* one session thread */
struct rct_sess {
	struct rct_srv *s;
	int fd;
	SSL *ssl;
	struct ibv_comp_channel *ch;
	struct poll_chan pl;	/* of ch */
	int cpu;		/* --cpus: the CPU its thread binds to, -1: none */
	struct rct_ep **eps;
	uint32_t neps, cap;
	bool dead;		/* an endpoint died in the poll: sweep after it */
	uint32_t ilen;
	uint8_t in[OOB_REC_LEN * 16];
	struct ipa addr;	/* the peer's, whose GID its REQs' must be */
	char peer[SK_PEER_MAX];
};

static void rct_drop(struct rct_srv *s, const char *peer, const char *reason)
{
	atomic_fetch_add(&s->dropped, 1);
	proto_drop(peer, reason);
}

static void rct_ep_free(struct rct_sess *t, uint32_t slot)
{
	struct rct_ep *x = t->eps[slot];
	struct rct_srv *s = t->s;

	if (x->up)
		atomic_fetch_sub(&s->live, 1);
	atomic_fetch_add(&s->echoed, rc_ep_atomics(&s->dev, &x->e));
	rc_ep_destroy(&s->dev, &x->e);
	free(x);
	t->eps[slot] = NULL;
}

static void rct_wc(void *arg, const struct ibv_wc *rwc)
{
	struct ibv_wc n = *rwc, *wc = &n;
	struct rct_sess *t = arg;
	struct rc_dev *d = &t->s->dev;
	uint32_t slot = RC_WR_SLOT(wc->wr_id);
	struct rct_ep *x;
	struct verbs_fail f;

	if (slot >= t->neps || !(x = t->eps[slot]) || x->e.dead ||
	    x->e.qp->qp_num != wc->qp_num)
		return;
	if (wc->status != IBV_WC_SUCCESS) {
		f.call = "ibv_poll_cq";
		f.err = (int)rc_ep_first_err(&x->e, wc->status);
		if (f.err != IBV_WC_WR_FLUSH_ERR)
			rct_drop(t->s, t->peer, verbs_wc_word((enum ibv_wc_status)f.err));
		goto dead;
	}
	if (wc->opcode == IBV_WC_SEND || wc->opcode == IBV_WC_RDMA_WRITE) {
		if (rc_ep_sent(d, &x->e, &f))
			goto dead;
		return;
	}
	/* iWARP: the note after the WRITE says what an immediate would have */
	if (x->e.write && d->wnote && rc_note_wc(rc_note(d, &x->e), wc)) {
		f.call = "request";
		f.err = EPROTO;
		goto dead;
	}
	if (wc->byte_len > d->size) {
		f.call = "request";
		f.err = EMSGSIZE;
		goto dead;
	}
	x->e.rq_out--;
	memcpy(rc_sbuf(&x->e), rc_rbuf(d, &x->e), wc->byte_len);
	x->e.imm = wc->wc_flags & IBV_WC_WITH_IMM;
	if (rc_post_recv(d, &x->e, &f) ||
	    rc_post_send(d, &x->e, wc->byte_len,
			 wc->wc_flags & IBV_WC_WITH_IMM ? ntohl(wc->imm_data) : 0, &f))
		goto dead;
	/* counted when posted: send completions are reaped lazily (rc.h) */
	atomic_fetch_add(&t->s->echoed, 1);
	atomic_fetch_add(&t->s->bytes, d->size);
	return;
dead:
	/* freed after the poll: its CQ may be the one being polled */
	x->e.dead = true;
	x->down_call = (uint8_t)oob_call_code(f.call);
	x->down_status = (uint32_t)f.err;
	t->dead = true;
}

/* One record to the peer (blocking, SO_SNDTIMEO); NULL or a drop reason. */
static const char *rct_send(struct rct_sess *t, const uint8_t rec[OOB_REC_LEN], char *why,
			   size_t wlen)
{
	size_t put;

	ERR_clear_error();
	errno = 0;
	if (SSL_write_ex(t->ssl, rec, OOB_REC_LEN, &put) != 1) {
		if (errno == EAGAIN)
			return "timeout";
		tls_why(t->ssl, 0, why, wlen);
		return why;
	}
	return NULL;
}

/* A dead endpoint that was up: its client learns it now (DOWN); NULL or a drop reason. */
static const char *rct_down(struct rct_sess *t, const struct rct_ep *x, char *why, size_t wlen)
{
	struct oob_rec down;
	uint8_t out[OOB_REC_LEN];

	rc_reply_down(&down, x->id, x->down_call, x->down_status);
	if (oob_encode(&down, out))
		return "EPROTO";
	return rct_send(t, out, why, wlen);
}

static int rct_req(struct rct_sess *t, const struct oob_rec *req, uint8_t out[OOB_REC_LEN])
{
	struct rct_srv *s = t->s;
	struct rc_dev *d = &s->dev;
	struct oob_rec rep = { .type = OOB_REP, .id = req->id, .op = req->op };
	struct verbs_fail f = { "malloc", ENOMEM };
	struct rct_ep *x, **v;

	if (t->neps == t->cap) {
		v = realloc(t->eps, (t->cap ? t->cap * 2 : 16) * sizeof(*v));
		if (!v)
			goto rej;
		t->eps = v;
		t->cap = t->cap ? t->cap * 2 : 16;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		goto rej;
	x->e.gen = 1;
	x->e.pl = &t->pl;
	if (rc_ep_create(d, &x->e, t->neps, rc_op_from_oob(req->op), NULL, &f)) {
		free(x);
		goto rej;
	}
	t->eps[t->neps++] = x;
	x->id = req->id;
	if (rc_reply_accept(d, &x->e, req, &rep, &f))
		goto rej_ep;
	if (oob_encode(&rep, out))
		goto rej_ep;
	x->up = true;
	atomic_fetch_add(&s->accepted, 1);
	{
		unsigned live = atomic_fetch_add(&s->live, 1) + 1, peak = atomic_load(&s->peak);

		while (live > peak && !atomic_compare_exchange_weak(&s->peak, &peak, live))
			;
	}
	return 0;
rej_ep:
	rct_ep_free(t, --t->neps);
rej:
	if (atomic_fetch_add(&s->rejected, 1) < 8)
		ag_warn("id %u from %s: %s: %s", req->id, t->peer, f.call, strerror(f.err));
	rc_reply_reject(&rep, req->id, &f);
	return oob_encode(&rep, out) ? -1 : 0;
}

/* Records in the input, each answered at once; NULL, or a drop reason. */
static const char *rct_records(struct rct_sess *t, char *why, size_t wlen)
{
	uint8_t out[OOB_REC_LEN];
	const char *reason;
	struct oob_rec req;
	enum oob_err e;

	while (t->ilen) {
		e = oob_head(t->in, t->ilen, OOB_T(OOB_REQ));
		if (e == OOB_ESHORT || (!e && t->ilen < OOB_REC_LEN))
			break;
		if (!e)
			e = oob_parse(t->in, OOB_REC_LEN, OOB_T(OOB_REQ), &req);
		if (e)
			return oob_strerror(e);
		if ((reason = rc_reply_check(&req, &t->addr)))
			return reason;
		if (rct_req(t, &req, out))
			return "ENOMEM";
		if ((reason = rct_send(t, out, why, wlen)))
			return reason;
		memmove(t->in, t->in + OOB_REC_LEN, t->ilen - OOB_REC_LEN);
		t->ilen -= OOB_REC_LEN;
	}
	return NULL;
}

/* NULL when the session ended cleanly; else the drop reason. */
static const char *rct_serve(struct rct_sess *t, char *why, size_t wlen)
{
	struct rct_srv *s = t->s;
	struct pollfd pf[2] = {
		{ .fd = t->fd, .events = POLLIN },
		{ .fd = t->ch->fd, .events = POLLIN },
	};
	uint64_t since = 0, left;
	const char *reason;
	size_t got, before;
	uint32_t i;
	int r;

	for (;;) {
		/* SSL may hold decrypted bytes the socket no longer shows */
		if (!SSL_pending(t->ssl)) {
			/* inside a record the peer owes us the rest within --timeout */
			left = (uint64_t)s->o->timeout_s * 1000;
			if (t->ilen) {
				if ((clock_ns() - since) / 1000000 >= left)
					return "timeout";
				left -= (clock_ns() - since) / 1000000;
			}
			/* hot CQs (--poll busy|adaptive): look, do not sleep */
			r = poll(pf, 2, poll_spinning(&t->pl) ? 0 : t->ilen ? (int)left : -1);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				snprintf(why, wlen, "%s", proto_errname(errno));
				return why;
			}
			if (!r && !poll_spinning(&t->pl))
				continue;
			if ((pf[1].revents & POLLIN) || poll_spinning(&t->pl)) {
				t->pl.n = (struct proto_cq){ 0 };
				if (poll_run(&t->pl, rct_wc, t))
					return "ibv_get_cq_event";
				atomic_fetch_add(&s->cq_events, t->pl.n.events);
				atomic_fetch_add(&s->cq_arms, t->pl.n.arms);
				atomic_fetch_add(&s->cq_spins, t->pl.n.spins);
				reason = NULL;
				for (i = 0; t->dead && i < t->neps; i++) {
					if (!t->eps[i] || !t->eps[i]->e.dead)
						continue;
					if (t->eps[i]->up && !reason)
						reason = rct_down(t, t->eps[i], why, wlen);
					rct_ep_free(t, i);
				}
				t->dead = false;
				if (reason)
					return reason;
			}
			if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
		}
		ERR_clear_error();
		errno = 0;
		r = SSL_read_ex(t->ssl, t->in + t->ilen, sizeof(t->in) - t->ilen, &got);
		if (r != 1) {
			if (SSL_get_error(t->ssl, r) == SSL_ERROR_ZERO_RETURN)
				return t->ilen ? "eof" : NULL;
			/* SO_RCVTIMEO ran out inside a TLS record */
			if (errno == EAGAIN)
				return "timeout";
			tls_why(t->ssl, r, why, wlen);
			return why;
		}
		before = t->ilen;
		t->ilen += (uint32_t)got;
		reason = rct_records(t, why, wlen);
		if (reason)
			return reason;
		/* the clock runs from the start of the oldest unfinished record */
		if (!before || t->ilen < before + got)
			since = clock_ns();
	}
}

static void *rct_thread(void *arg)
{
	struct rct_sess *t = arg;
	struct rct_srv *s = t->s;
	char why[TLS_WHY_MAX];
	const char *reason = NULL;
	bool quiet;
	uint32_t i;
	int r;

	if (t->cpu >= 0 && ag_pin(t->cpu)) {
		reason = "sched_setaffinity";
		goto out;
	}
	ERR_clear_error();
	r = SSL_accept(t->ssl);
	if (r != 1) {
		tls_why(t->ssl, r, why, sizeof(why));
		reason = errno == EAGAIN ? "handshake_timeout" : why;
		goto out;
	}
	t->ch = ibv_create_comp_channel(s->dev.ctx);
	if (!t->ch) {
		reason = proto_errname(errno);
		goto out;
	}
	if (ag_nonblock(t->ch->fd)) {
		reason = proto_errname(errno);
		goto out_ch;
	}
	poll_chan_init(&t->pl, t->ch, s->o->poll);
	reason = rct_serve(t, why, sizeof(why));
out_ch:
	for (i = 0; i < t->neps; i++)
		if (t->eps[i])
			rct_ep_free(t, i);
	poll_chan_fini(&t->pl);
	if (ibv_destroy_comp_channel(t->ch))
		ag_warn("ibv_destroy_comp_channel: %s", strerror(errno));
out:
	free(t->eps);
	/* SSL_set_fd's BIO leaves the fd to us: srvt_end closes it */
	SSL_free(t->ssl);
	quiet = srvt_end(&s->th, t->fd);
	if (reason && !quiet)
		rct_drop(s, t->peer, reason);
	free(t);
	srvt_gone(&s->th);
	return NULL;
}

static void rct_spawn(struct rct_srv *s, int fd, const struct sockaddr_storage *sa)
{
	struct rct_sess *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t) {
		err = ENOMEM;
		goto fail;
	}
	t->s = s;
	t->fd = fd;
	/* the harness gave one CPU per session it will open; they take them in turn */
	t->cpu = s->o->ncpus ? s->o->cpus[s->nsess++ % s->o->ncpus] : -1;
	sk_peer(t->peer, (const struct sockaddr *)sa);
	if (ipa_from_sa(&t->addr, (const struct sockaddr *)sa, NULL))
		memset(&t->addr, 0, sizeof(t->addr));
	t->ssl = SSL_new(s->ssl);
	if (!t->ssl || SSL_set_fd(t->ssl, fd) != 1) {
		ERR_clear_error();
		err = ENOMEM;
		goto fail;
	}
	err = srvt_spawn(&s->th, fd, rct_thread, t);
	if (!err)
		return;
fail:
	if (t)
		SSL_free(t->ssl);
	free(t);
	close(fd);
	{
		char peer[SK_PEER_MAX];

		sk_peer(peer, (const struct sockaddr *)sa);
		rct_drop(s, peer, proto_errname(err));
	}
}

static void rct_accept(struct rct_srv *s, uint32_t port)
{
	struct sockaddr_storage sa;
	int i, fd;

	for (i = 0; i < 64; i++) {
		fd = srv_accept(&s->lis, port, SOCK_CLOEXEC, &sa);
		if (fd >= 0) {
			rct_spawn(s, fd, &sa);
			continue;
		}
		if (errno == EAGAIN)
			return;
		ag_warn("accept: %s", strerror(errno));
		return;
	}
}

static int rct_loop(struct rct_srv *s)
{
	struct epoll_event ev[16];
	enum ctl_cmd cmd;
	int i, n;

	for (;;) {
		n = epoll_wait(s->ep, ev, 16, s->ctl.pollable ? -1 : 100);
		if (n < 0 && errno != EINTR) {
			ag_fatal("epoll_wait", "accept loop", errno);
			return -1;
		}
		for (i = 0; i < n; i++)
			if (TAG_TYPE(ev[i].data.u64) == RCT_T_LISTEN)
				rct_accept(s, TAG_VAL(ev[i].data.u64));
		while ((cmd = ctl_next(&s->ctl)) != CTL_NONE)
			if (cmd == CTL_STOP || cmd == CTL_EOF)
				return 0;
		if (proto_dead())
			return 0;
	}
}

int rc_server_thread_run(const struct ag_opts *o)
{
	struct rct_srv s = { .o = o, .ep = -1 };
	char err[320];
	int ret = 1;
	bool clean = true;

	/* a peer silent inside a handshake or a record for --timeout is dropped */
	s.th = (struct srvt){ .what = "session threads", .timeout_s = o->timeout_s,
			      .rcvtimeo = true, .wait_s = RCT_STOP_WAIT_S };
	if (srvt_init(&s.th, RCT_STACK))
		return 1;
	if (rc_dev_open(&s.dev, o, &o->addr, NULL))
		goto out_th;
	s.ssl = tls_ctx_new(true, o->tls_ca, o->tls_cert, o->tls_key, err, sizeof(err));
	if (!s.ssl) {
		ag_fatal("SSL_CTX_new", err, EINVAL);
		goto out_dev;
	}
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (s.ep < 0) {
		ag_fatal("epoll_create1", "accept loop", errno);
		goto out_ssl;
	}
	if (srv_lis_open(&s.lis, o, s.ep, RCT_T_LISTEN, false, false) ||
	    ctl_init(&s.ctl, STDIN_FILENO) || ctl_watch(&s.ctl, s.ep, TAG(RCT_T_CTL, 0, 0)))
		goto out_ep;
	proto_hello_server(o->ports, o->port, -1);
	if (rct_loop(&s))
		goto out_ep;
	ret = 0;
out_ep:
	clean = srvt_stop(&s.th);
	srv_lis_close(&s.lis);
	if (s.ep >= 0)
		close(s.ep);
out_ssl:
	if (clean)
		SSL_CTX_free(s.ssl);
out_dev:
	/* threads that did not leave still use the PD: leave it to exit() */
	if (clean)
		rc_dev_close(&s.dev);
out_th:
	if (clean)
		srvt_fini(&s.th);
	if (!ret) {
		proto_result_server(&(struct proto_result_server){
			.accepted = atomic_load(&s.accepted), .peak = atomic_load(&s.peak),
			.echoed = atomic_load(&s.echoed), .bytes = atomic_load(&s.bytes),
			.dropped = atomic_load(&s.dropped), .rejected = atomic_load(&s.rejected),
			.cq_events = atomic_load(&s.cq_events), .ah = PROTO_NONE,
			.ah_made = PROTO_NONE, .cq_arms = atomic_load(&s.cq_arms),
			.cq_spins = atomic_load(&s.cq_spins) });
		proto_bye();
	}
	return ret;
}
