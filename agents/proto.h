/* SPDX-License-Identifier: MIT */
/*
 * rdmacap agent <-> orchestrator contract.
 *
 * The orchestrator starts every agent with a pipe on its stdin and one on its
 * stdout. The agent writes one record per line on stdout, line-buffered:
 *
 *     <type> key=value key=value ...\n
 *
 * Values never contain spaces, '=' or newlines (errno names, call names and
 * numbers only). The orchestrator never parses free text; anything human goes to
 * stderr, which the orchestrator passes through to its own stderr.
 *
 * The orchestrator writes commands to the agent's stdin, one per line.
 *
 * Server agent (--role server):
 *   -> "hello role=server pid=P ports=K port=FIRST"   listening sockets are up
 *                                 (rc rdmacm adds "max_backlog=N" when it can read it)
 *   -> "drop peer=ADDR reason=WORD"                   a peer was dropped (hostile or dead)
 *   <- "stop"  (or EOF on stdin)                      close everything, then:
 *   -> "result role=server accepted=A peak=C echoed=M bytes=B dropped=D"
 *   -> "bye"
 *
 * Client agent (--role client):
 *   -> "hello role=client pid=P first=I clients=N"
 *   <- "go"                      start connecting (all agents are released together)
 *   -> "conn ok id=I us=U"       connection I is established, U us from its first call
 *   -> "conn fail id=I call=C errno=E err=NAME"   C is the failing call (connect,
 *                                 SSL_connect, ibv_create_qp, ...), E the errno (or 0
 *                                 when the cause is not an errno, e.g. err=timeout);
 *                                 "at=server" when the server's call failed and it
 *                                 told the client (rc), "status=N" with an rdma_cm
 *                                 reject's status
 *   -> "connected ok=C fail=F us=U"  every connection of this agent is settled;
 *                                 all C connections stay open from here on
 *   <- "run"                     start the ping-pongs
 *   -> "msg fail id=I call=C errno=E err=NAME"  a connection broke during traffic
 *   -> "verify fail id=I seq=S"  an echo came back different from what was sent
 *   -> "result role=client ok=C msgs=M verified=V bad=B errors=E us=U hist=H"
 *                                 M round trips completed, V of them byte-checked,
 *                                 B mismatches, E connections lost during traffic,
 *                                 U us of traffic phase, H the latency histogram
 *   <- "stop"  (or EOF)          close every connection, then:
 *   -> "bye"
 *
 * Either role, any time:
 *   -> "error call=C errno=E err=NAME"  fatal setup error; the agent exits non-zero
 *
 * Histogram H: comma-separated "bucket:count" pairs for non-empty buckets, "-" when
 * empty. Buckets are log-linear over round-trip time in nanoseconds with
 * PROTO_HIST_SUB buckets per power of two (about 6% resolution); proto_hist_bucket()
 * and proto_hist_value() below are the only definition of the mapping.
 */
#ifndef RDC_AGENTS_PROTO_H
#define RDC_AGENTS_PROTO_H

#include <stdint.h>

#define PROTO_HIST_SUB_BITS 4
#define PROTO_HIST_SUB (1u << PROTO_HIST_SUB_BITS)
/* 64-bit values: (64 - SUB_BITS + 1) octaves of SUB buckets */
#define PROTO_HIST_BUCKETS ((64 - PROTO_HIST_SUB_BITS + 1) * PROTO_HIST_SUB)

/* Longest record either side writes or accepts; longer lines are a protocol error. */
#define PROTO_LINE_MAX 16384

static inline unsigned proto_hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < PROTO_HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v) - PROTO_HIST_SUB_BITS; /* shift */
	return (e + 1) * PROTO_HIST_SUB + (unsigned)((v >> e) - PROTO_HIST_SUB);
}

/* Lower bound of a bucket: every value v in it has proto_hist_value(b) <= v. */
static inline uint64_t proto_hist_value(unsigned b)
{
	unsigned e;

	if (b < PROTO_HIST_SUB)
		return b;
	e = b / PROTO_HIST_SUB - 1;
	return ((uint64_t)(b % PROTO_HIST_SUB) + PROTO_HIST_SUB) << e;
}

#endif
