// SPDX-License-Identifier: MIT
/*
 * rc server agent, event model: the endpoint table of a loop (slots with
 * generations, rc.h), its pool of endpoints made ahead (rc_server.h), and the
 * reaping of dead endpoints after each poll.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/rc/rc_server.h"
#include "common/clock.h"

/* the pool made before the hello at most this long: the harness waits 15 s for it */
#define RCS_POOL_HELLO_NS (10 * 1000000000ull)


static int rcs_ep_grow(struct rcs_srv *s)
{
	uint32_t cap = s->eps_cap ? s->eps_cap * 2 : 1024;
	struct rcs_ep **eps;
	uint32_t *fr;
	uint16_t *g;

	eps = realloc(s->eps, cap * sizeof(*eps));
	if (!eps)
		return -1;
	/* slots below neps are an endpoint or NULL: the free list and fini rely on it */
	memset(eps + s->eps_cap, 0, (cap - s->eps_cap) * sizeof(*eps));
	s->eps = eps;
	fr = realloc(s->free, cap * sizeof(*fr));
	if (!fr)
		return -1;
	s->free = fr;
	g = realloc(s->gens, cap * sizeof(*g));
	if (!g)
		return -1;
	s->gens = g;
	memset(g + s->eps_cap, 0, (cap - s->eps_cap) * sizeof(*g));
	s->eps_cap = cap;
	return 0;
}

struct rcs_ep *rcs_ep_new(struct rcs_srv *s, enum opt_op op, struct rdma_cm_id *cm,
			struct verbs_fail *f)
{
	struct rcs_ep *x;
	uint32_t slot;

	if (!s->nfree && s->neps == s->eps_cap && rcs_ep_grow(s))
		goto nomem;
	x = calloc(1, sizeof(*x));
	if (!x)
		goto nomem;
	slot = s->nfree ? s->free[--s->nfree] : s->neps++;
	x->e.gen = ++s->gens[slot];
	if (rc_ep_create(&s->dev, &x->e, slot, op, cm, f)) {
		s->eps[slot] = NULL;
		s->free[s->nfree++] = slot;
		free(x);
		return NULL;
	}
	s->eps[slot] = x;
	return x;
nomem:
	f->call = "malloc";
	f->err = ENOMEM;
	return NULL;
}

/* Pooled endpoints wanted now: the lead, never past the requests still to come. */
uint32_t rcs_ep_want(const struct rcs_srv *s)
{
	if (s->pool_off)
		return 0;
	return s->pool_left < RCS_POOL_LEAD ? s->pool_left : RCS_POOL_LEAD;
}

/*
 * Makes up to max pooled endpoints, while the lead wants more; true while it
 * still does. A failure only ends it (rc_server.h).
 */
bool rcs_ep_fill(struct rcs_srv *s, uint32_t max)
{
	struct verbs_fail f;
	struct rcs_ep *x;

	while (max-- && s->npool < rcs_ep_want(s)) {
		x = rcs_ep_new(s, s->o->op, NULL, &f);
		if (x && rc_ep_ready(&s->dev, &x->e, &f)) {
			rcs_ep_free(s, x);
			x = NULL;
		}
		if (!x) {
			s->pool_off = true;
			for (int i = 0; i < RCS_POOL_SPARE && s->npool; i++)
				rcs_ep_free(s, s->pool[--s->npool]);
			return false;
		}
		s->pool[s->npool++] = x;
	}
	return s->npool < rcs_ep_want(s);
}

/*
 * The pool before the hello: the lead, or what RCS_POOL_HELLO_NS allows, shared
 * by the loops (made one after the other); each loop serves a T-th of --pool.
 */
void rcs_ep_pool(struct rcs_srv *s)
{
	uint32_t n = s->loop.top->n;
	uint64_t end = clock_ns() + RCS_POOL_HELLO_NS / n;

	/* rdmacm on a wildcard address: the device is known at the first request */
	if (!s->o->pool || !s->dev_up)
		return;
	/* iWARP: only the iw_cm moves a QP to RTS, so each comes from rdma_create_qp */
	if (s->dev.ctx->device->transport_type == IBV_TRANSPORT_IWARP)
		return;
	s->pool_left = s->o->pool / n + (s->loop.lid < s->o->pool % n);
	s->pool = calloc(rcs_ep_want(s), sizeof(*s->pool));
	if (!s->pool) {
		s->pool_off = true;
		return;
	}
	while (clock_ns() < end && rcs_ep_fill(s, RCS_POOL_BATCH))
		;
}

struct rcs_ep *rcs_ep_take(struct rcs_srv *s, enum opt_op op, struct rdma_cm_id *cm,
			 struct verbs_fail *f)
{
	struct rcs_ep *x;

	if (s->pool_left)
		s->pool_left--;
	if (!s->npool || op != s->o->op)
		return rcs_ep_new(s, op, cm, f);
	x = s->pool[--s->npool];
	x->e.cm = cm;
	return x;
}

void rcs_ep_up(struct rcs_srv *s, struct rcs_ep *x)
{
	x->up = true;
	srvl_up(&s->loop);
}

void rcs_ep_free(struct rcs_srv *s, struct rcs_ep *x)
{
	struct rdma_cm_id *cm = x->e.cm;
	uint32_t slot = x->e.slot;

	if (x->up)
		srvl_down(&s->loop);
	if (x->sess)
		rcs_oob_unlink(x);
	/* --op atomic: what the client added is this side's count of its round trips */
	if (!s->counted)
		s->echoed += rc_ep_atomics(&s->dev, &x->e);
	rc_ep_destroy(&s->dev, &x->e);
	/* the id goes after its QP; its events were acknowledged by the caller */
	if (cm && rdma_destroy_id(cm))
		ag_warn("rdma_destroy_id: %s", strerror(errno));
	s->eps[slot] = NULL;
	s->free[s->nfree++] = slot;
	free(x);
}

void rcs_ep_kill(struct rcs_srv *s, struct rcs_ep *x, const char *reason, unsigned call,
		uint32_t status)
{
	struct rcs_ep **r;
	char peer[SK_PEER_MAX];

	if (x->reaping)
		return;
	if (s->nreap == s->reap_cap) {
		r = realloc(s->reap, (s->reap_cap ? s->reap_cap * 2 : 64) * sizeof(*r));
		if (!r) {
			/* cannot defer: leave it to its session's end or to stop */
			ag_warn("malloc reap list: %s", strerror(ENOMEM));
			return;
		}
		s->reap = r;
		s->reap_cap = s->reap_cap ? s->reap_cap * 2 : 64;
	}
	x->reaping = true;
	x->down_call = (uint8_t)call;
	x->down_status = status;
	s->reap[s->nreap++] = x;
	if (reason) {
		if (x->sess)
			snprintf(peer, sizeof(peer), "%s", x->sess->peer);
		else if (x->e.cm)
			snprintf(peer, sizeof(peer), "qpn:%u", x->e.qp ? x->e.qp->qp_num : 0);
		else
			snprintf(peer, sizeof(peer), "-");
		rcs_drop(s, peer, reason);
	}
}

void rcs_ep_reap(struct rcs_srv *s)
{
	struct rcs_ep *x;

	while (s->nreap) {
		x = s->reap[--s->nreap];
		/* an rdmacm endpoint stays, dead, until its DISCONNECTED event */
		if (x->e.cm) {
			if (rdma_disconnect(x->e.cm) && errno != EINVAL)
				ag_warn("rdma_disconnect: %s", strerror(errno));
			continue;
		}
		/* its client waits for echoes that cannot come: tell it now */
		if (x->up && x->sess)
			rcs_oob_down(s, x);
		rcs_ep_free(s, x);
	}
}
