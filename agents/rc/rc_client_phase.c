// SPDX-License-Identifier: MIT
/*
 * rc client, --cm rdmacm --cm-order phased: the agent's connections go
 * through rdma_cm's steps in rdma-core cmtime's order, each step for all of
 * them before the next: every rdma_resolve_addr (phase.h's starts, then wait
 * for every ADDR_RESOLVED), every rdma_resolve_route (wait for every
 * ROUTE_RESOLVED), every endpoint (QP, CQs, MRs), then every rdma_connect.
 * So the server's work on our REQs never runs beside our own resolution and
 * QP making, which is what a job's wire-up does; pipelined
 * (rc_client_cm.c's own order) is a service's reconnect storm.
 *
 * Contract: rc_client_cm.c makes the calls and reads the events, as it does
 * for pipelined; it tells this file when a call is made (rccp_issued) and when
 * a step's event came (rccp_finished), rc_client.c when a connection settles
 * as failed (rccp_failed). A connection that fails a step is settled as
 * pipelined settles it (its call and errno, "conn fail"), leaves the count
 * (agents/cmphase.h) and the others go on. The calls of a step are made
 * RCCP_BATCH per loop turn (rccp_turn, from the loop's spin), so stdin and
 * deadlines are served while thousands of QPs are made. With --qp-share only
 * the QPs' owners take part; their riders settle with them (rc_client_share.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/rc/rc_client.h"
#include "common/deadline.h"

/* a step's calls per loop turn: rc_client.c's start batch, for the same reason */
#define RCCP_BATCH 64

int rccp_init(struct rcc *x)
{
	if (x->o->cm_order != OPT_CM_ORDER_PHASED)
		return 0;
	x->cmp_st = calloc(x->nep ? x->nep : 1, sizeof(*x->cmp_st));
	if (!x->cmp_st) {
		ag_fatal("calloc", "rdma_cm phase places", ENOMEM);
		return -1;
	}
	cmph_init(&x->cmp, x->nep);
	x->cmp_cur = 0;
	return 0;
}

void rccp_issued(struct rcc *x, uint32_t i, enum cmph_step s)
{
	if (!rcc_phased(x) || i >= x->nep)
		return;
	x->cmp_st[i] = cmph_st(s, false);
	cmph_issued(&x->cmp);
}

void rccp_finished(struct rcc *x, uint32_t i)
{
	if (!rcc_phased(x) || i >= x->nep)
		return;
	x->cmp_st[i] |= CMPH_FINISHED;
	cmph_finished(&x->cmp);
}

void rccp_failed(struct rcc *x, uint32_t i)
{
	if (!rcc_phased(x) || i >= x->nep)
		return;
	cmph_failed(&x->cmp, x->cmp_st[i]);
}

/* connection i's call of step s (past the first) */
static void rccp_issue(struct rcc *x, uint32_t i, enum cmph_step s)
{
	struct rcc_conn *c = &x->c[i];
	bool kill = false;

	rccp_issued(x, i, s);
	switch (s) {
	case CMPH_ROUTE:
		c->step = RCC_CM_ROUTE;
		if (rdma_resolve_route(c->id, DL_CM_STEP_MS)) {
			rcc_fail(x, i, "rdma_resolve_route", errno, NULL, false);
			rcc_cm_drop(x, i);
		}
		return;
	case CMPH_QP:
		/* made in the call: no event to wait for */
		c->step = RCC_CM_MAKE;
		if (!rcc_cm_ep(x, i))
			rccp_finished(x, i);
		return;
	case CMPH_CONNECT:
		rcc_cm_connect(x, i, &kill);
		/* no event of this id is unacknowledged here: it may go at once */
		if (kill)
			rcc_cm_drop(x, i);
		return;
	case CMPH_ADDR:
	case CMPH_DONE:
		return;
	}
}

bool rccp_turn(struct rcc *x)
{
	enum cmph_step s = x->cmp.step;
	uint32_t i, k = 0;

	if (!rcc_phased(x))
		return false;
	/* the step under way is over: the next one's calls start from the first owner */
	if (cmph_next(&x->cmp) != s) {
		s = x->cmp.step;
		x->cmp_cur = 0;
	}
	/* the first step's calls are phase.h's starts */
	if (s == CMPH_ADDR || s == CMPH_DONE)
		return false;
	while (x->cmp_cur < x->nep && k < RCCP_BATCH && x->ph.phase != PH_STOP) {
		i = x->cmp_cur++;
		/* failed while it waited for the others (its deadline) */
		if (x->c[i].state != RCC_SETUP || !cmph_due(x->cmp_st[i], s))
			continue;
		rccp_issue(x, i, s);
		k++;
	}
	/* more calls to make, or a step made in its calls (QPs) is over: the next one now */
	return x->cmp_cur < x->nep || cmph_over(&x->cmp);
}

const char *rccp_pending_call(const struct rcc *x, uint32_t i)
{
	return cmph_call(rcc_phased(x) && i < x->nep ? x->cmp_st[i] : cmph_st(CMPH_ADDR, false));
}

void rccp_fini(struct rcc *x)
{
	free(x->cmp_st);
	x->cmp_st = NULL;
}
