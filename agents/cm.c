// SPDX-License-Identifier: MIT
/*
 * agcm: the rdma_cm event channel of an agent and its events (see cm.h).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/cm.h"
#include "agents/opts.h"

struct rdma_event_channel *agcm_channel(const char *role)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	if (!ch) {
		ag_fatal("rdma_create_event_channel", role, errno);
		return NULL;
	}
	if (ag_nonblock(ch->fd)) {
		ag_fatal("fcntl", "rdma_cm event channel", errno);
		rdma_destroy_event_channel(ch);
		return NULL;
	}
	return ch;
}

int agcm_get(struct rdma_event_channel *ch, const char *role, struct rdma_cm_event **ev)
{
	if (!rdma_get_cm_event(ch, ev))
		return 0;
	if (errno == EAGAIN || errno == EINTR)
		return 1;
	ag_fatal("rdma_get_cm_event", role, errno);
	return -1;
}

bool agcm_ack(struct rdma_cm_event *ev)
{
	bool removed = ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL;

	if (removed)
		ag_fatal("rdma_get_cm_event", "DEVICE_REMOVAL", ENODEV);
	if (rdma_ack_cm_event(ev))
		ag_warn("rdma_ack_cm_event: %s", strerror(errno));
	return removed;
}

const char *agcm_word(enum rdma_cm_event_type t)
{
	return rdma_event_str(t) + strlen("RDMA_CM_EVENT_");
}

int agcm_listen(struct rdma_event_channel *ch, const struct ag_opts *o, enum rdma_port_space ps,
		struct rdma_cm_id ***ids)
{
	struct sockaddr_storage sa;
	struct rdma_cm_id **l;
	char obj[IPA_PORT_STRLEN];

	l = *ids = calloc(o->ports, sizeof(*l));
	if (!l) {
		ag_fatal("calloc", "listen ids", ENOMEM);
		return -1;
	}
	for (uint32_t i = 0; i < o->ports; i++) {
		ipa_str_port(&o->addr, (uint16_t)(o->port + i), obj, sizeof(obj));
		if (rdma_create_id(ch, &l[i], NULL, ps)) {
			l[i] = NULL;
			ag_fatal("rdma_create_id", obj, errno);
			return -1;
		}
		ipa_to_sa(&o->addr, (uint16_t)(o->port + i), &sa);
		if (rdma_bind_addr(l[i], (struct sockaddr *)&sa)) {
			ag_fatal("rdma_bind_addr", obj, errno);
			return -1;
		}
		if (rdma_listen(l[i], (int)o->backlog)) {
			ag_fatal("rdma_listen", obj, errno);
			return -1;
		}
	}
	return 0;
}

void agcm_close(struct rdma_event_channel **ch, struct rdma_cm_id ***ids, uint32_t ports)
{
	struct rdma_cm_id **l = *ids;

	for (uint32_t i = 0; l && i < ports; i++)
		if (l[i] && rdma_destroy_id(l[i]))
			ag_warn("rdma_destroy_id listen: %s", strerror(errno));
	free(l);
	*ids = NULL;
	if (*ch)
		rdma_destroy_event_channel(*ch);
	*ch = NULL;
}
