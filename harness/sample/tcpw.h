/* SPDX-License-Identifier: MIT */
/*
 * tcpw: the kernel's TCP counters of a topology's namespaces, the wire of a tcp
 * point (sample.h reads them into struct smp_wire under tcpw_names). Per side:
 * the server's namespace, and the sum over the client namespaces (loop and
 * host: one namespace, the server's; the clients' side stays 0). Each
 * namespace's files are opened once, from inside it (netns.h: nn_open_net),
 * and re-read at offset 0:
 *   snmp      Tcp: InSegs OutSegs RetransSegs InErrs OutRsts AttemptFails EstabResets
 *   netstat   TcpExt: TCPTimeouts TCPLostRetransmit TCPSynRetrans ListenOverflows
 *             ListenDrops TCPBacklogDrop TCPMemoryPressures TCPAbortOnTimeout
 *             TCPAbortOnMemory TCPAbortOnData TCPRcvQDrop TCPReqQFullDrop
 *             TCPZeroWindowDrop TCPOFODrop PruneCalled TCPKeepAlive
 *   dev       every interface's receive and transmit drops (a veth counts there
 *             what its peer's per-CPU backlog refused)
 * and /proc/net/softnet_stat (dropped, time_squeeze), per CPU and host-wide:
 * summed over the CPUs, on the server's side only, so it is counted once.
 * Names are nstat's (TcpRetransSegs, TcpExtListenOverflows), then rx_dropped,
 * tx_dropped, softnet_dropped, softnet_time_squeeze. A counter the kernel does
 * not print reads 0. May use netns/netns.h and libc.
 */
#ifndef RDC_HARNESS_TCPW_H
#define RDC_HARNESS_TCPW_H

#include <stddef.h>
#include <stdint.h>

#include "netns/netns.h"

#define TCPW_N 27

extern const char *const tcpw_names[TCPW_N];

struct tcpw;

/* Opens every namespace of t. NULL with the reason in why. */
struct tcpw *tcpw_open(const struct nn_topo *t, char *why, size_t len);
void tcpw_close(struct tcpw *w);
/* One reading of both sides, tcpw_names' order. 0, or -1 when a file failed. */
int tcpw_read(struct tcpw *w, uint64_t *srv, uint64_t *cli);

#endif
