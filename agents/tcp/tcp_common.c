// SPDX-License-Identifier: MIT
/*
 * What both TCP server models share: counters, records, fd shedding.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/tcp/tcp.h"
#include "common/proto.h"

void tcp_stats_up(struct tcp_stats *st)
{
	unsigned live = atomic_fetch_add(&st->live, 1) + 1;
	unsigned peak = atomic_load(&st->peak);

	atomic_fetch_add(&st->accepted, 1);
	while (live > peak && !atomic_compare_exchange_weak(&st->peak, &peak, live))
		;
}

void tcp_drop(struct tcp_stats *st, const char *peer, const char *reason)
{
	atomic_fetch_add(&st->dropped, 1);
	proto_drop(peer, reason);
}

int tcp_result(const struct tcp_stats *st, uint32_t size)
{
	uint64_t bytes = atomic_load(&st->bytes);

	return proto_result_server(&(struct proto_result_server){
		.accepted = atomic_load(&st->accepted), .peak = atomic_load(&st->peak),
		.echoed = bytes / size, .bytes = bytes, .dropped = atomic_load(&st->dropped),
		.rejected = PROTO_NONE, .cq_events = PROTO_NONE, .ah = PROTO_NONE,
		.ah_made = PROTO_NONE, .cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE });
}

int tcp_shed(struct srv_lis *l, uint32_t port, int err, struct tcp_stats *st)
{
	char peer[SK_PEER_MAX];
	int r = srv_shed(l, port, err, peer);

	if (r > 0) {
		atomic_fetch_add(&st->accepted, 1);
		tcp_drop(st, peer, proto_errname(err));
	}
	return r < 0 ? -1 : 0;
}
