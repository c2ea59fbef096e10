/* SPDX-License-Identifier: MIT */
/*
 * agcm: what every --cm rdmacm agent file shares (rc and uc, ud; both roles).
 * Uses librdmacm, agents/ag.h and agents/opts.h (a failure is the agent's
 * fatal record, ag_fatal).
 */
#ifndef RDC_AGENTS_CM_H
#define RDC_AGENTS_CM_H

#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A non-blocking rdma_cm event channel for the agent's epoll loop, or NULL
 * after the fatal record naming the call and role ("server", "client").
 */
struct rdma_event_channel *agcm_channel(const char *role);

/*
 * The next event of ch into *ev: 0, or 1 when there is none now (EAGAIN,
 * EINTR), or -1 after the fatal record naming the call and role: the agent stops.
 */
int agcm_get(struct rdma_event_channel *ch, const char *role, struct rdma_cm_event **ev);

/*
 * Acknowledges ev (a warning if that fails); ids are destroyed only after it.
 * true when ev was DEVICE_REMOVAL, after its fatal record: the agent stops.
 */
bool agcm_ack(struct rdma_cm_event *ev);

/* The event's name without "RDMA_CM_EVENT_", as records name it: "REJECTED". */
const char *agcm_word(enum rdma_cm_event_type t);

struct ag_opts;

/*
 * The server's listeners on ch, one per port of o (o->port + i, o->ports of
 * them, bound to o->addr, backlog o->backlog), in port space ps. *ids is
 * calloc'ed first: on failure the ids made so far are in it (the rest NULL)
 * for the caller's teardown. 0, or -1 after the fatal record.
 */
int agcm_listen(struct rdma_event_channel *ch, const struct ag_opts *o, enum rdma_port_space ps,
		struct rdma_cm_id ***ids);

/*
 * Undoes agcm_listen and agcm_channel: destroys the ports listeners of *ids (NULL
 * ones skipped) and frees the array, then destroys *ch; both NULL after. Either
 * may already be NULL, as after a failed open.
 */
void agcm_close(struct rdma_event_channel **ch, struct rdma_cm_id ***ids, uint32_t ports);

#endif
