/* SPDX-License-Identifier: MIT */
/*
 * tcp: the --transport tcp roles, and what their files share.
 *
 * Server: a stream echo. Each connection's bytes go back as they arrive; no
 * framing, the client knows --size. --server-model event (default) is epoll with
 * nonblocking sockets, one loop per --server-threads, each with SO_REUSEPORT
 * listeners of its own; thread is thread per client with blocking
 * sockets. Per-connection state is a small slot in a table indexed by fd; an echo
 * buffer is allocated only while a write is partial. A peer that resets, errors
 * or stops reading for --timeout seconds is dropped ("drop" record); a clean EOF
 * is a normal close. "echoed" in the result is bytes / --size.
 *
 * Client: --clients nonblocking connects in one epoll loop, traffic from load.h.
 *
 * The tcp/ folder: one row of agents/transport.c. May use the engine (ag, ctl,
 * load, phase, tag, opts), srv/, common/; never harness/ or tap/.
 */
#ifndef RDC_AGENTS_TCP_H
#define RDC_AGENTS_TCP_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "agents/opts.h"
#include "agents/srv/srv.h"

int tcp_server_run(const struct ag_opts *o);
int tcp_server_thread_run(const struct ag_opts *o);
int tcp_client_run(const struct ag_opts *o);

/* counters of either server model; threads update them concurrently */
struct tcp_stats {
	atomic_uint_fast64_t accepted;
	atomic_uint_fast64_t bytes;
	atomic_uint_fast64_t dropped;
	atomic_uint live;
	atomic_uint peak;
};

void tcp_stats_up(struct tcp_stats *st);
/* "drop peer=A reason=R" and the counter */
void tcp_drop(struct tcp_stats *st, const char *peer, const char *reason);
int tcp_result(const struct tcp_stats *st, uint32_t size);
/*
 * accept() on listener port of l failed with err: srv_shed(), counting and
 * naming the peer shed ("drop" record). 0 when the caller may accept again,
 * -1 when it must back off.
 */
int tcp_shed(struct srv_lis *l, uint32_t port, int err, struct tcp_stats *st);

#endif
