/* SPDX-License-Identifier: MIT */
/*
 * agcm: what every --cm rdmacm agent file shares (rc and uc, ud; both roles).
 * Uses librdmacm, agents/opts.h and agents/report.h (a failure is the agent's fatal record).
 */
#ifndef RDC_AGENTS_CM_H
#define RDC_AGENTS_CM_H

#include <rdma/rdma_cma.h>

/*
 * A non-blocking rdma_cm event channel for the agent's epoll loop, or NULL
 * after the fatal record naming the call and role ("server", "client").
 */
struct rdma_event_channel *agcm_channel(const char *role);

struct ag_opts;

/*
 * The server's listeners on ch, one per port of o (o->port + i, o->ports of
 * them, bound to o->addr, backlog o->backlog), in port space ps. *ids is
 * calloc'ed first: on failure the ids made so far are in it (the rest NULL)
 * for the caller's teardown. 0, or -1 after the fatal record.
 */
int agcm_listen(struct rdma_event_channel *ch, const struct ag_opts *o, enum rdma_port_space ps,
		struct rdma_cm_id ***ids);

#endif
