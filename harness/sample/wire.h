/* SPDX-License-Identifier: MIT */
/*
 * wire: what the wire's own counters (sample.h: struct smp_wire, by the devices'
 * names) say about a point, as text: the deltas worth printing, and the cause
 * behind slow or failed messages ("RNR NAKs: 1,234 (receive queue ran dry)").
 * Pure functions of their arguments; may use harness/sample/sample.h and libc.
 *
 * Names differ by device (rxe: rcvd_rnr_err, retry_exceeded_err, ...; mlx5:
 * rnr_nak_retry_err, local_ack_timeout_err, ...): a counter a device does not
 * offer is simply not in the names, and is read as absent, never as 0. A tcp
 * point's wire is the kernel's TCP counters (tcpw.h's names): what dropped
 * segments (listen queue, interfaces, backlogs, memory) comes before what TCP
 * did about it (retransmissions, timeouts, aborts).
 */
#ifndef RDC_HARNESS_WIRE_H
#define RDC_HARNESS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/sample/sample.h"

/* Index of counter 'name' in nm, or -1 when the devices do not offer it. */
int wire_find(const struct smp_wire_names *nm, const char *name);

/* now - base of counter 'name' on one side (srv or cli arrays): true when offered. */
bool wire_delta(const struct smp_wire_names *nm, const uint64_t *now, const uint64_t *base,
		const char *name, int64_t *d);

/*
 * "sent_pkts=812 rcvd_pkts=812 rcvd_rnr_err=3": the deltas of one side, sent
 * and received packets (tcp: TcpOutSegs, TcpInSegs) always, the others when
 * not 0. Returns the length.
 */
size_t wire_diag(const struct smp_wire_names *nm, const uint64_t *now, const uint64_t *base,
		 char *out, size_t len);

/*
 * The transport's trouble between two readings of both sides, as a cause:
 * "RNR NAKs: 1,234 (receive queue ran dry); retry exceeded on 37 QPs
 * (transport retries, link loss)". qps_err: the run's QPs found in ERR (or -1
 * when unknown) names how many QPs a retry-exceeded hit; rx (or NULL), the
 * receive queues' depth ("rx depth 1, SRQ"), ends the RNR NAKs' account. Empty
 * ("", 0) when no error counter moved.
 */
size_t wire_cause(const struct smp_wire_names *nm, const struct smp_wire *now,
		  const struct smp_wire *base, long qps_err, const char *rx, char *out, size_t len);
/* RNR NAKs moved between two valid readings: a receive queue ran dry */
bool wire_rnr(const struct smp_wire_names *nm, const struct smp_wire *now,
	      const struct smp_wire *base);

/* n with thousands separators: "1,234". */
const char *wire_num(uint64_t n, char *buf, size_t len);

#endif
