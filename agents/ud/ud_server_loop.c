// SPDX-License-Identifier: MIT
/*
 * ud server: its event loops (ud_server.h), loop 0 on the main thread with
 * stdin, the others on threads; the result adds up their counters and, with
 * more than one loop, lists each loop's clients admitted and CPU time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/tag.h"
#include "agents/ud/ud_server.h"
#include "common/proto.h"

/* The loop's device: rdmacm's is loop 0's listeners' (bound to --addr), made first. */
static int udsl_dev(struct uds *s)
{
	const struct ag_opts *o = s->o;

	if (o->cm != OPT_CM_RDMACM)
		return ud_dev_open(&s->dev, o, &o->addr, NULL);
	if (!s->loop.lid && udscm_open(s))
		return -1;
	return ud_dev_open(&s->dev, o, &o->addr, uds_at(s->loop.top, 0)->listen[0]);
}

static int udsl_init(struct uds *s)
{
	const struct ag_opts *o = s->o;
	uint32_t nr = UD_SRV_RECV, wr;
	struct verbs_fail f;
	char err[320];

	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		ag_fatal("epoll_create1", "server loop", errno);
		return -1;
	}
	if (srvl_wake_open(&s->loop, s->ep, TAG(UDS_T_WAKE, 0, 0)) || udsl_dev(s))
		return -1;
	wr = (uint32_t)s->dev.attr.max_qp_wr;
	nr = nr < wr ? nr : wr;
	/* no send slots of its own: echoes go out of the receive slots */
	if (ud_qp_create(&s->dev, &s->qp, nr, 0, nr, 0, &f)) {
		ag_fatal(f.call, "server UD QP", f.err);
		return -1;
	}
	s->nslots = nr;
	if (udsa_init(s))
		return -1;
	if (tag_watch(s->ep, s->dev.ch->fd, EPOLLIN, TAG(UDS_T_CH, 0, 0), "completion channel"))
		return -1;
	/* stdin is loop 0's */
	if (!s->loop.lid && (ctl_init(&s->ctl, STDIN_FILENO) ||
			ctl_watch(&s->ctl, s->ep, TAG(UDS_T_CTL, 0, 0))))
		return -1;
	if (o->cm == OPT_CM_RDMACM)
		return 0;
	s->ssl = tls_ctx_new(true, o->tls_ca, o->tls_cert, o->tls_key, err, sizeof(err));
	if (!s->ssl) {
		ag_fatal("SSL_CTX_new", err, EINVAL);
		return -1;
	}
	return srv_lis_open(&s->lis, o, s->ep, UDS_T_LISTEN, s->loop.top->n > 1, false);
}

static void udsl_event(struct uds *s, uint64_t t)
{
	switch (TAG_TYPE(t)) {
	case UDS_T_LISTEN:
		uds_accept(s, TAG_VAL(t));
		break;
	case UDS_T_CH:
		if (poll_events(s->dev.ch, &s->cq_events, uds_wc, s))
			s->loop.failed = s->stop = true;
		break;
	case UDS_T_SESS:
		uds_sess_event(s, TAG_VAL(t), TAG_GEN(t));
		break;
	case UDS_T_CM:
		udscm_event(s);
		break;
	case UDS_T_WAKE:
		srvl_woken(&s->loop);
		if (s->o->cm == OPT_CM_RDMACM && s->loop.lid)
			udscm_handed(s);
		break;
	}
}

/* A loop's run (srvl_fn). */
static int udsl_turns(struct srvl *l)
{
	struct uds *s = SRVL_OF(l, struct uds, loop);
	struct epoll_event ev[UDS_EVENTS];
	/* stdin that cannot be polled (loop 0) is read every 100 ms */
	int tmo = !l->lid && !s->ctl.pollable ? 100 : -1;
	enum ctl_cmd cmd;
	int n;

	while (!s->stop && !atomic_load(&l->top->stop)) {
		n = epoll_wait(s->ep, ev, UDS_EVENTS, tmo);
		if (n < 0 && errno != EINTR) {
			ag_fatal("epoll_wait", "server loop", errno);
			return -1;
		}
		for (int i = 0; i < n && !s->stop; i++)
			udsl_event(s, ev[i].data.u64);
		/* after EOF ctl_next says EOF forever: stop at the first stop */
		while (!l->lid && !s->stop && (cmd = ctl_next(&s->ctl)) != CTL_NONE)
			if (cmd == CTL_STOP || cmd == CTL_EOF)
				s->stop = true;
	}
	return 0;
}

static void udsl_fini(struct uds *s)
{
	for (uint32_t i = 0; i < s->nsess; i++)
		if (s->sess[i])
			uds_sess_close(s, i, NULL);
	free(s->sess);
	free(s->gens);
	srv_lis_close(&s->lis);
	SSL_CTX_free(s->ssl);
	if (s->qp.qp || s->qp.cq.cq)
		ud_qp_destroy(&s->qp);
	/* after the QP: no send can still use them */
	udsa_fini(s);
	ud_ahmap_free(&s->ahs);
	ud_dev_close(&s->dev);
	/* last: with rdmacm the device context is loop 0's listeners' */
	if (s->o->cm == OPT_CM_RDMACM)
		udscm_close(s);
	if (s->ep >= 0)
		close(s->ep);
}

/* The counters of every loop; with more than one, each loop's clients and CPU time. */
static void udsl_result(struct uds_top *u)
{
	struct srvl_top *t = &u->top;
	struct proto_result_server r = {
		.peak = atomic_load(&t->peak), .ah = atomic_load(&u->ah_peak),
		.cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE };
	char loops[SRVL_LOOPS_LEN];
	struct uds *s;

	for (uint32_t l = 0; l < t->n; l++) {
		s = uds_at(t, l);
		r.accepted += s->loop.accepted;
		r.echoed += s->echoed;
		r.bytes += s->bytes;
		r.dropped += s->dropped;
		r.rejected += s->rejected;
		r.cq_events += s->cq_events;
		r.ah_made += s->ah_made;
	}
	r.loops = srvl_loops(t, loops);
	proto_result_server(&r);
}

int ud_server_run(const struct ag_opts *o)
{
	struct uds_top u = { 0 };
	struct srvl_top *t = &u.top;
	struct uds *s;
	uint32_t i;
	int ret = 1;

	if (srvl_init(t, o->server_threads, sizeof(struct uds), sizeof(struct uds_hand),
		      "server loop"))
		return 1;
	for (i = 0; i < t->n; i++) {
		s = uds_at(t, i);
		s->o = o;
		s->ep = -1;
	}
	/* loop 0 first: with rdmacm the others' device is its listeners' */
	for (i = 0; i < t->n; i++)
		if (udsl_init(uds_at(t, i)))
			goto out;
	proto_hello_server(o->ports, o->port, -1);
	ret = srvl_run(t, udsl_turns) ? 1 : 0;
	if (!ret)
		udsl_result(&u);
out:
	/* the others first: with rdmacm their device and ids are loop 0's listeners' */
	for (i = t->n; i--;)
		udsl_fini(uds_at(t, i));
	srvl_fini(t);
	if (!ret)
		proto_bye();
	return ret;
}
