// SPDX-License-Identifier: MIT
/*
 * rc client, --cm rdmacm: the agent's first address goes alone, with a short
 * kernel timeout, and the others once it resolved.
 *
 * The kernel's rdma_resolve_ip (drivers/infiniband/core/addr.c) files a
 * request whose neighbour is not valid yet for a retry at its timeout, and a
 * neighbour update wakes every filed request at once. Measured in the rxe VM
 * (sid 7.2.13, a fresh pair): the first resolution towards the server is not
 * woken by the ARP reply and completes at its timeout -- cmtime -c 1 resolves
 * in 2,014 ms (its 2 s timeout), a one-connection storm of ours in 9.9 s
 * (DL_CM_STEP_MS); a pipelined storm hides it when later traffic's neighbour
 * updates wake it, a phased one waits the whole timeout in its address step.
 * So until one address of the agent resolved, the first is asked with
 * RCCN_PROBE_MS and asked again on ETIMEDOUT (the kernel's retry at the
 * timeout finds the neighbour valid and answers), up to DL_CM_STEP_MS in all;
 * the other connections' rdma_resolve_addr waits in a queue, a loop turn's
 * share (RCCN_BATCH) made per turn once the first settled either way.
 */
#include <errno.h>
#include <stdlib.h>

#include "agents/ag.h"
#include "agents/rc/rc_client.h"
#include "common/clock.h"
#include "common/deadline.h"

/* the first address's kernel timeout: an ARP exchange takes well under it, even under TCG */
#define RCCN_PROBE_MS 50
/* held addresses asked per loop turn: rc_client.c's start batch, for the same reason */
#define RCCN_BATCH 64

int rccn_init(struct rcc *x)
{
	x->nb.held = calloc(x->nep ? x->nep : 1, sizeof(*x->nb.held));
	if (!x->nb.held) {
		ag_fatal("calloc", "rdma_cm held addresses", ENOMEM);
		return -1;
	}
	x->nb.first = RCC_NONE;
	return 0;
}

bool rccn_hold(struct rcc *x, uint32_t i)
{
	if (x->nb.warm)
		return false;
	if (x->nb.first == RCC_NONE) {
		x->nb.first = i;
		x->nb.t0 = clock_ns();
		return false;
	}
	x->nb.held[x->nb.tail++] = i;
	return true;
}

int rccn_timeout_ms(const struct rcc *x, uint32_t i)
{
	return !x->nb.warm && i == x->nb.first ? RCCN_PROBE_MS : DL_CM_STEP_MS;
}

void rccn_resolved(struct rcc *x)
{
	x->nb.warm = true;
}

bool rccn_retry(struct rcc *x, uint32_t i, int status, bool *kill)
{
	uint64_t spent;

	if (x->nb.warm || i != x->nb.first)
		return false;
	spent = (clock_ns() - x->nb.t0) / 1000000u;
	if (status != ETIMEDOUT || spent + RCCN_PROBE_MS > DL_CM_STEP_MS) {
		/* the others go on their own */
		x->nb.warm = true;
		return false;
	}
	if (rcc_cm_resolve(x, i)) {
		x->nb.warm = true;
		rcc_fail(x, i, "rdma_resolve_addr", errno, NULL, false);
		*kill = true;
	}
	return true;
}

bool rccn_release(struct rcc *x)
{
	uint32_t f = x->nb.first, i, k = 0;

	/* the first failed another way (a call, its deadline): the others go */
	if (!x->nb.warm && f != RCC_NONE && x->c[f].state != RCC_SETUP)
		x->nb.warm = true;
	if (!x->nb.warm)
		return false;
	while (x->nb.head < x->nb.tail && k < RCCN_BATCH && x->ph.phase != PH_STOP) {
		i = x->nb.held[x->nb.head++];
		/* failed while it was held (its deadline) */
		if (x->c[i].state != RCC_SETUP || !x->c[i].id)
			continue;
		if (rcc_cm_resolve(x, i)) {
			rcc_fail(x, i, "rdma_resolve_addr", errno, NULL, false);
			rcc_cm_drop(x, i);
		}
		k++;
	}
	return x->nb.head < x->nb.tail;
}

void rccn_fini(struct rcc *x)
{
	free(x->nb.held);
	x->nb.held = NULL;
}
