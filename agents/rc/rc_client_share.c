// SPDX-License-Identifier: MIT
/*
 * rc client, --qp-share: which QP a client rides, the setup of the clients
 * that own none, and each QP's queue of clients waiting for it (rc_client.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "agents/rc/rc_client.h"
#include "agents/ag.h"

int rcc_share_init(struct rcc *x)
{
	uint32_t q;

	if (!x->o->qp_share)
		return 0;
	x->nqp = x->o->qp_share < x->n ? x->o->qp_share : x->n;
	x->qp = calloc(x->nqp, sizeof(*x->qp));
	x->qnext = calloc(x->n, sizeof(*x->qnext));
	if (!x->qp || !x->qnext) {
		ag_fatal("calloc", "shared QP state", ENOMEM);
		return -1;
	}
	for (q = 0; q < x->nqp; q++)
		x->qp[q].cur = x->qp[q].head = x->qp[q].tail = RCC_NONE;
	return 0;
}

void rcc_share_fini(struct rcc *x)
{
	free(x->qp);
	free(x->qnext);
}

void rcc_share_settle(struct rcc *x, uint32_t q, bool up, const char *call, int err)
{
	uint32_t j;

	if (!up) {
		x->qp[q].fail_call = call;
		x->qp[q].fail_err = err;
	}
	for (j = q + x->nqp; j < x->n; j += x->nqp) {
		if (x->c[j].state != RCC_WAIT)
			continue;
		if (up)
			rcc_up(x, j);
		else
			rcc_fail(x, j, call, err, "shared_qp_failed", false);
	}
}

void rcc_share_start(struct rcc *x, uint32_t i)
{
	uint32_t q = i % x->nqp;

	x->c[i].state = RCC_WAIT;
	if (x->c[q].state == RCC_UP)
		rcc_up(x, i);
	else if (x->c[q].state == RCC_FAILED)
		rcc_fail(x, i, x->qp[q].fail_call, x->qp[q].fail_err, "shared_qp_failed", false);
}

bool rcc_share_take(struct rcc *x, uint32_t q, uint32_t i)
{
	struct rcc_qp *s = &x->qp[q];

	if (s->cur == RCC_NONE) {
		s->cur = i;
		return true;
	}
	x->qnext[i] = RCC_NONE;
	if (s->tail == RCC_NONE)
		s->head = i;
	else
		x->qnext[s->tail] = i;
	s->tail = i;
	return false;
}

uint32_t rcc_share_next(struct rcc *x, uint32_t q)
{
	struct rcc_qp *s = &x->qp[q];
	uint32_t k = s->head;

	s->cur = k;
	if (k == RCC_NONE)
		return k;
	s->head = x->qnext[k];
	if (s->head == RCC_NONE)
		s->tail = RCC_NONE;
	return k;
}
