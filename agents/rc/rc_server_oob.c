// SPDX-License-Identifier: MIT
/*
 * rc server, --cm oob-tls: TLS listeners and nonblocking sessions that carry
 * the QP exchange records (oob.h). Each REQ gets an endpoint in RTS and a REP,
 * or a REJ naming the call that failed. A session that breaks the protocol,
 * asks for a GID that is not its own (rc_reply_check: the RTR would wait on ARP
 * inside this loop), keeps blocking the loop in the kernel (RCS_SLOW_MAX), fails
 * TLS, stalls past --timeout inside a handshake or a record, or ends in the
 * middle of a record is dropped ("drop peer=.. reason=..") with its endpoints;
 * the others go on. A session that ends cleanly at a record boundary
 * takes its endpoints with it: that is how a client agent says goodbye. An
 * endpoint lost after its REP (its QP in error, a failed post) is told to its
 * client on the session with a DOWN (oob.h), so the client does not wait for
 * echoes that cannot come.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/rc/rc_reply.h"
#include "agents/rc/rc_server.h"
#include "agents/tag.h"
#include "agents/srv/sock.h"
#include "common/proto.h"

#define RCS_ACCEPT_BURST 64
/* rejects are logged up to this many; the count is in the result record */
#define RCS_REJ_LOG 8

int rcs_oob_open(struct rcs_srv *s)
{
	const struct ag_opts *o = s->o;
	char err[320];

	s->ssl = tls_ctx_new(true, o->tls_ca, o->tls_cert, o->tls_key, err, sizeof(err));
	if (!s->ssl) {
		ag_fatal("SSL_CTX_new", err, EINVAL);
		return -1;
	}
	return srv_lis_open(&s->lis, o, s->ep, RCS_T_LISTEN, s->loop.top->n > 1, false);
}

/* --- sessions --- */

static int rcs_sess_grow(struct rcs_srv *s)
{
	uint32_t cap = s->sess_cap ? s->sess_cap * 2 : 256;
	struct rcs_sess **v;
	uint32_t *fr;
	uint16_t *g;

	v = realloc(s->sess, cap * sizeof(*v));
	if (!v)
		return -1;
	memset(v + s->sess_cap, 0, (cap - s->sess_cap) * sizeof(*v));
	s->sess = v;
	fr = realloc(s->sfree, cap * sizeof(*fr));
	if (!fr)
		return -1;
	s->sfree = fr;
	g = realloc(s->sgens, cap * sizeof(*g));
	if (!g)
		return -1;
	s->sgens = g;
	memset(g + s->sess_cap, 0, (cap - s->sess_cap) * sizeof(*g));
	s->sess_cap = cap;
	return 0;
}

void rcs_oob_unlink(struct rcs_ep *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		x->sess->eps = x->next;
	if (x->next)
		x->next->prev = x->prev;
	x->prev = x->next = NULL;
	x->sess = NULL;
}

static void rcs_sess_queue(struct rcs_srv *s, struct rcs_sess *ss);

void rcs_oob_down(struct rcs_srv *s, struct rcs_ep *x)
{
	struct rcs_sess *ss = x->sess;
	struct oob_rec down;
	uint8_t buf[OOB_REC_LEN];

	rc_reply_down(&down, x->id, x->down_call, x->down_status);
	if (oob_encode(&down, buf) || tls_io_queue(&ss->io, buf, sizeof(buf))) {
		/* its client learns it from its own QP, or the deadline */
		ag_warn("DOWN of id %u to %s: %s", x->id, ss->peer, strerror(ENOMEM));
		return;
	}
	/* the session's turn flushes it (and handles what the flush may meet) */
	rcs_sess_queue(s, ss);
}

static void rcs_sess_link(struct rcs_sess *ss, struct rcs_ep *x)
{
	x->sess = ss;
	x->prev = NULL;
	x->next = ss->eps;
	if (ss->eps)
		ss->eps->prev = x;
	ss->eps = x;
}

static void rcs_sess_close(struct rcs_srv *s, struct rcs_sess *ss, const char *reason)
{
	struct rcs_ep *x;

	if (reason)
		rcs_drop(s, ss->peer, reason);
	while ((x = ss->eps)) {
		/* one already on the reap list is freed there; just let go of it */
		if (x->reaping)
			rcs_oob_unlink(x);
		else
			rcs_ep_free(s, x);
	}
	s->sess[ss->slot] = NULL;
	s->sgens[ss->slot]++;
	s->sfree[s->nsfree++] = ss->slot;
	s->live_sess--;
	/* closing the fd also takes it out of the epoll set */
	tls_io_free(&ss->io);
	free(ss);
}

static void rcs_accept_one(struct rcs_srv *s, int fd, const struct sockaddr_storage *sa)
{
	struct rcs_sess *ss;
	char peer[SK_PEER_MAX];
	uint32_t slot;
	int one = 1;

	sk_peer(peer, (const struct sockaddr *)sa);
	if ((!s->nsfree && s->nsess == s->sess_cap && rcs_sess_grow(s)) ||
	    !(ss = calloc(1, sizeof(*ss)))) {
		close(fd);
		rcs_drop(s, peer, "ENOMEM");
		return;
	}
	/* replies are small and pipelined: do not let Nagle hold them */
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		ag_warn("setsockopt TCP_NODELAY %s: %s", peer, strerror(errno));
	if (tls_io_init(&ss->io, s->ssl, fd, true)) {
		rcs_drop(s, peer, ss->io.why);
		close(fd);
		free(ss);
		return;
	}
	slot = s->nsfree ? s->sfree[--s->nsfree] : s->nsess++;
	ss->slot = slot;
	ss->gen = s->sgens[slot];
	memcpy(ss->peer, peer, sizeof(peer));
	if (ipa_from_sa(&ss->addr, (const struct sockaddr *)sa, NULL))
		memset(&ss->addr, 0, sizeof(ss->addr));
	ss->deadline = clock_ns() + (uint64_t)s->o->timeout_s * 1000000000ull;
	ss->events = EPOLLIN | EPOLLRDHUP;
	s->sess[slot] = ss;
	s->live_sess++;
	if (tag_watch(s->ep, fd, ss->events, TAG(RCS_T_SESS, ss->gen, slot), "session"))
		rcs_sess_close(s, ss, "epoll_ctl");
}

void rcs_oob_listen_event(struct rcs_srv *s, uint32_t port)
{
	struct sockaddr_storage sa;
	int i, fd;

	for (i = 0; i < RCS_ACCEPT_BURST; i++) {
		fd = srv_accept(&s->lis, port, SOCK_NONBLOCK | SOCK_CLOEXEC, &sa);
		if (fd >= 0) {
			rcs_accept_one(s, fd, &sa);
			continue;
		}
		if (errno == EAGAIN)
			return;
		/* EMFILE and friends: stop polling the full queue until the next tick */
		ag_warn("accept on port %u: %s; not accepting for a second",
			s->o->port + port, strerror(errno));
		srv_lis_pause(&s->lis, true);
		return;
	}
}

/* The answer to one REQ: an endpoint in RTS and a REP, or a REJ. */
static int rcs_req(struct rcs_srv *s, struct rcs_sess *ss, const struct oob_rec *req)
{
	struct oob_rec rep = { .type = OOB_REP, .id = req->id, .op = req->op };
	struct rc_dev *d = &s->dev;
	struct rcs_ep *x;
	struct verbs_fail f = { "request", EMSGSIZE };
	uint8_t buf[OOB_REC_LEN];

	x = rcs_ep_take(s, rc_op_from_oob(req->op), NULL, &f);
	if (!x)
		goto rej;
	rcs_sess_link(ss, x);
	x->id = req->id;
	if (rc_reply_accept(d, &x->e, req, &rep, &f))
		goto rej_ep;
	if (oob_encode(&rep, buf)) {
		f.call = "request";
		f.err = EPROTO;
		goto rej_ep;
	}
	rcs_ep_up(s, x);
	return tls_io_queue(&ss->io, buf, sizeof(buf));

rej_ep:
	rcs_ep_free(s, x);
rej:
	if (s->rejected++ < RCS_REJ_LOG)
		ag_warn("id %u from %s: %s: %s", req->id, ss->peer, f.call, strerror(f.err));
	rc_reply_reject(&rep, req->id, &f);
	if (oob_encode(&rep, buf))
		return -1;
	return tls_io_queue(&ss->io, buf, sizeof(buf));
}

/* Complete records in the input, within budget; -1 when the session was dropped. */
static int rcs_records(struct rcs_srv *s, struct rcs_sess *ss, bool *progress,
		      unsigned *budget)
{
	const char *why;
	struct oob_rec req;
	enum oob_err e;
	uint32_t off = 0;
	uint64_t t0;

	while (!ss->paused && *budget) {
		e = oob_head(ss->in + off, ss->ilen - off, OOB_T(OOB_REQ));
		if (e == OOB_ESHORT)
			break;
		if (!e && ss->ilen - off >= OOB_REC_LEN)
			e = oob_parse(ss->in + off, OOB_REC_LEN, OOB_T(OOB_REQ), &req);
		else if (!e)
			break;
		why = e ? oob_strerror(e) : rc_reply_check(&req, &ss->addr);
		if (why) {
			rcs_sess_close(s, ss, why);
			return -1;
		}
		t0 = clock_ns();
		if (rcs_req(s, ss, &req)) {
			rcs_sess_close(s, ss, "ENOMEM");
			return -1;
		}
		off += OOB_REC_LEN;
		*progress = true;
		(*budget)--;
		/* what the check cannot rule out stalls the loop once, not per record */
		if (clock_ns() - t0 <= RCS_SLOW_NS) {
			ss->slow = 0;
		} else {
			ag_warn("id %u from %s: answered in %llu ms", req.id, ss->peer,
				(unsigned long long)((clock_ns() - t0) / 1000000));
			if (++ss->slow >= RCS_SLOW_MAX) {
				rcs_sess_close(s, ss, "slow_path");
				return -1;
			}
			*budget = 0;
		}
		if (tls_io_pending(&ss->io) > RCS_OUT_HIGH)
			ss->paused = true;
	}
	memmove(ss->in, ss->in + off, ss->ilen - off);
	ss->ilen -= off;
	return 0;
}

static void rcs_sess_update(struct rcs_srv *s, struct rcs_sess *ss, bool progress)
{
	struct epoll_event ev = { .data.u64 = TAG(RCS_T_SESS, ss->gen, ss->slot) };
	bool busy = !ss->io.up || ss->ilen || tls_io_pending(&ss->io);

	/* the deadline runs while the peer owes us bytes or we wait on it to read */
	if (!busy)
		ss->deadline = 0;
	else if (progress || !ss->deadline)
		ss->deadline = clock_ns() + (uint64_t)s->o->timeout_s * 1000000000ull;
	/* paused, any wakeup that lets the output move will do */
	ev.events = ss->paused ? EPOLLOUT : tls_io_events(&ss->io);
	if (ev.events == ss->events)
		return;
	if (epoll_ctl(s->ep, EPOLL_CTL_MOD, ss->io.fd, &ev)) {
		rcs_sess_close(s, ss, "epoll_ctl");
		return;
	}
	ss->events = ev.events;
}

static void rcs_sess_queue(struct rcs_srv *s, struct rcs_sess *ss)
{
	uint64_t *v;

	if (ss->queued)
		return;
	if (s->nready == s->ready_cap) {
		v = realloc(s->ready, (s->ready_cap ? s->ready_cap * 2 : 64) * sizeof(*v));
		if (!v) {
			/* the session's socket still wakes us when more bytes come */
			ag_warn("malloc ready list: %s", strerror(ENOMEM));
			return;
		}
		s->ready = v;
		s->ready_cap = s->ready_cap ? s->ready_cap * 2 : 64;
	}
	s->ready[s->nready++] = TAG(RCS_T_SESS, ss->gen, ss->slot);
	ss->queued = true;
}

static void rcs_sess_run(struct rcs_srv *s, struct rcs_sess *ss)
{
	unsigned budget = RCS_REC_BUDGET;
	bool progress = false, flush = true;
	ssize_t n;
	int r;

	if (!ss->io.up) {
		r = tls_io_handshake(&ss->io);
		if (r == TLS_ERR) {
			rcs_sess_close(s, ss, ss->io.why);
			return;
		}
		if (r == TLS_AGAIN) {
			rcs_sess_update(s, ss, false);
			return;
		}
		progress = true;
	}
	/*
	 * The REPs go out when the session has nothing more to read or its turn
	 * ends, not after each record read: a busy server then answers the REQs
	 * that queued while it worked in one TLS record, and the client's freed
	 * window sends its next REQs in one. A record each costs both sides its
	 * own encryption and TCP segment (OpenSSL and TCP: 18% of the guest's
	 * CPU in a ramp of 20,000, docs/results/rc-setup-profile).
	 */
	for (;;) {
		if (flush || ss->paused) {
			r = tls_io_flush(&ss->io);
			if (r == TLS_ERR) {
				rcs_sess_close(s, ss, ss->io.why);
				return;
			}
			if (r == 1)
				progress = true;
			flush = false;
		}
		if (ss->paused && tls_io_pending(&ss->io) <= RCS_OUT_HIGH / 2)
			ss->paused = false;
		if (ss->paused)
			break;
		/* records left over from a pause first: SSL may hold no more for epoll */
		if (rcs_records(s, ss, &progress, &budget))
			return;
		if (ss->paused)
			continue;
		if (!budget) {
			/* fair turns; what SSL already decrypted wakes no epoll: remember */
			rcs_sess_queue(s, ss);
			r = tls_io_flush(&ss->io);
			if (r == TLS_ERR) {
				rcs_sess_close(s, ss, ss->io.why);
				return;
			}
			break;
		}
		n = tls_io_read(&ss->io, ss->in + ss->ilen, sizeof(ss->in) - ss->ilen);
		if (n > 0) {
			ss->ilen += (uint32_t)n;
			continue;
		}
		if (n == 0) {
			/* a clean end between records is the client leaving */
			rcs_sess_close(s, ss, ss->ilen ? "eof" : NULL);
			return;
		}
		if (n == TLS_ERR) {
			rcs_sess_close(s, ss, ss->io.why);
			return;
		}
		/* TLS_AGAIN: flush what the records queued, then wait */
		r = tls_io_flush(&ss->io);
		if (r == TLS_ERR) {
			rcs_sess_close(s, ss, ss->io.why);
			return;
		}
		break;
	}
	rcs_sess_update(s, ss, progress);
}

void rcs_oob_sess_event(struct rcs_srv *s, uint32_t slot, uint16_t gen, uint32_t events)
{
	struct rcs_sess *ss;

	(void)events;
	if (slot >= s->nsess || !(ss = s->sess[slot]) || ss->gen != gen)
		return;
	rcs_sess_run(s, ss);
}

void rcs_oob_ready(struct rcs_srv *s)
{
	uint32_t i, n = s->nready, slot;
	struct rcs_sess *ss;
	uint16_t gen;

	/* runs may queue again: they go behind, for the next turn */
	for (i = 0; i < n; i++) {
		slot = TAG_VAL(s->ready[i]);
		gen = TAG_GEN(s->ready[i]);
		if (slot >= s->nsess || !(ss = s->sess[slot]) || ss->gen != gen)
			continue;
		ss->queued = false;
		rcs_sess_run(s, ss);
	}
	memmove(s->ready, s->ready + n, (s->nready - n) * sizeof(*s->ready));
	s->nready -= n;
}

void rcs_oob_tick(struct rcs_srv *s)
{
	uint64_t now = clock_ns();
	struct rcs_sess *ss;
	uint32_t i;

	srv_lis_pause(&s->lis, false);
	for (i = 0; i < s->nsess; i++) {
		ss = s->sess[i];
		if (ss && ss->deadline && ss->deadline <= now)
			rcs_sess_close(s, ss, ss->io.up ? "timeout" : "handshake_timeout");
	}
}

void rcs_oob_close(struct rcs_srv *s)
{
	uint32_t i;

	for (i = 0; i < s->nsess; i++)
		if (s->sess[i])
			rcs_sess_close(s, s->sess[i], NULL);
	srv_lis_close(&s->lis);
	free(s->sess);
	free(s->sfree);
	free(s->sgens);
	free(s->ready);
	SSL_CTX_free(s->ssl);
	s->sess = NULL;
	s->ssl = NULL;
}
