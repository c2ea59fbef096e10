// SPDX-License-Identifier: MIT
/* The wire's counters of a point as text: deltas, and the cause they point to. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/sample/wire.h"

int wire_find(const struct smp_wire_names *nm, const char *name)
{
	for (int i = 0; i < nm->n; i++)
		if (!strcmp(nm->name[i], name))
			return i;
	return -1;
}

bool wire_delta(const struct smp_wire_names *nm, const uint64_t *now, const uint64_t *base,
		const char *name, int64_t *d)
{
	int i = wire_find(nm, name);

	if (i < 0)
		return false;
	*d = (int64_t)(now[i] - base[i]);
	return true;
}

/* snprintf at out + *l, never past len */
#define WIRE_PUT(out, len, l, ...)                                                         \
	do {                                                                               \
		int n_ = *(l) < (len) ? snprintf((out) + *(l), (len) - *(l), __VA_ARGS__) : 0; \
		if (n_ > 0)                                                                \
			*(l) += (size_t)n_ < (len) - *(l) ? (size_t)n_ : (len) - *(l) - 1; \
	} while (0)

size_t wire_diag(const struct smp_wire_names *nm, const uint64_t *now, const uint64_t *base,
		 char *out, size_t len)
{
	size_t l = 0;

	if (!len)
		return 0;
	*out = '\0';
	for (int i = 0; i < nm->n; i++) {
		int64_t d = (int64_t)(now[i] - base[i]);
		bool always = !strcmp(nm->name[i], "sent_pkts") || !strcmp(nm->name[i], "rcvd_pkts") ||
			      !strcmp(nm->name[i], "TcpOutSegs") || !strcmp(nm->name[i], "TcpInSegs");

		if (d || always)
			WIRE_PUT(out, len, &l, "%s%s=%" PRId64, l ? " " : "", nm->name[i], d);
	}
	return l;
}

const char *wire_num(uint64_t n, char *buf, size_t len)
{
	char d[24];
	int nd = snprintf(d, sizeof(d), "%" PRIu64, n);
	size_t l = 0;

	for (int i = 0; i < nd && l + 1 < len; i++) {
		if (i && (nd - i) % 3 == 0 && l + 2 < len)
			buf[l++] = ',';
		buf[l++] = d[i];
	}
	if (len)
		buf[l < len ? l : len - 1] = '\0';
	return buf;
}

/*
 * What each counter means when it moves. Alternatives name the same event on
 * other devices (rxe first, then mlx5); the first one offered is read.
 */
static const struct wire_why {
	const char *names[3];
	const char *what;   /* printf: the count */
	const char *why;
} wire_whys[] = {
	/* first: wire_rnr() and the rx depth of wire_cause() */
	{ { "rcvd_rnr_err", "out_of_buffer" }, "RNR NAKs: %s",
	  "receive queue ran dry: the receiver had no receive posted" },
	{ { "retry_rnr_exceeded_err", "rnr_nak_retry_err" }, "RNR retry exceeded on %s QPs",
	  "the receiver never reposted in time" },
	{ { "retry_exceeded_err", "local_ack_timeout_err" }, "retry exceeded on %s QPs",
	  "transport retries, link loss" },
	{ { "completer_retry_err" }, "retransmissions: %s", "ACKs lost or late" },
	{ { "rcvd_seq_err", "packet_seq_err" }, "sequence errors: %s", "packets lost or reordered" },
	{ { "out_of_seq_request", "out_of_sequence" }, "out-of-sequence requests: %s",
	  "packets lost on the way" },
	{ { "duplicate_request" }, "duplicate requests: %s", "the peer retransmitted" },
	/* tcp (tcpw.h): what dropped segments, then what TCP did about it */
	{ { "TcpExtListenOverflows" }, "listen queue overflows: %s",
	  "the accept queue was full: the server accepted slower than clients connected, "
	  "or the backlog (net.core.somaxconn) is small" },
	{ { "TcpExtListenDrops" }, "listen drops: %s", "SYNs or handshake ACKs dropped at a listener" },
	{ { "TcpExtTCPReqQFullDrop" }, "SYN queue full drops: %s", "too many half-open connections" },
	{ { "rx_dropped" }, "interface receive drops: %s",
	  "the namespace's interfaces dropped packets: a veth's per-CPU backlog "
	  "(net.core.netdev_max_backlog) was full" },
	{ { "tx_dropped" }, "interface transmit drops: %s",
	  "a veth could not hand packets to its peer: the per-CPU backlog was full" },
	{ { "softnet_dropped" }, "softnet backlog drops: %s",
	  "per-CPU input queues over net.core.netdev_max_backlog, host-wide" },
	{ { "TcpExtTCPBacklogDrop" }, "socket backlog drops: %s",
	  "segments for a socket its owner held, beyond its receive buffer" },
	{ { "TcpExtTCPRcvQDrop" }, "receive queue drops: %s", "a socket's receive memory was full" },
	{ { "TcpExtTCPMemoryPressures" }, "TCP memory pressure %s times", "net.ipv4.tcp_mem" },
	{ { "TcpExtTCPAbortOnMemory" }, "connections aborted for memory: %s",
	  "net.ipv4.tcp_mem or too many orphans" },
	{ { "TcpRetransSegs" }, "retransmitted segments: %s", "segments or their ACKs lost" },
	{ { "TcpExtTCPSynRetrans" }, "SYN retransmissions: %s", "SYNs or SYN-ACKs lost" },
	{ { "TcpExtTCPTimeouts" }, "retransmission timeouts: %s", "no ACK within the RTO" },
	{ { "TcpExtTCPAbortOnTimeout" }, "connections aborted on timeout: %s",
	  "retransmissions or keepalive probes unanswered for the socket's user timeout" },
	{ { "TcpEstabResets" }, "established connections reset: %s", NULL },
	/* no why: it depends on whether the link went down (the last one) */
	{ { "send_err" }, "send errors: %s", NULL },
	{ { "link_downed" }, "link down %s times", "the port lost its link" },
};

#define WIRE_NWHYS (sizeof(wire_whys) / sizeof(wire_whys[0]))

/*
 * rxe counts send_err where rxe_xmit_packet's ip_local_out (or ip6_) did not
 * return 0, and rxe_requester then fails that request's QP (7.2 as measured:
 * IB_WC_LOC_QP_OP_ERR, rxe_qp_error); an ACK that fails is only counted. With
 * the link up, what returns non-zero is a queue on the way out refusing the
 * packet: NET_XMIT_DROP (a qdisc's limit, a veth peer's full backlog) or
 * NET_XMIT_CN (noop_qdisc while a root qdisc is added or deleted).
 */
static const char wire_send_down[] =
	"ip_local_out in rxe_xmit_packet failed with the link down; rxe fails the QP of a "
	"request it could not send";
static const char wire_send_up[] =
	"ip_local_out in rxe_xmit_packet returned a drop with the link up: a queue on the "
	"way out refused the packet, as a qdisc at its limit, a veth's full backlog or a "
	"root qdisc being added or deleted does; rxe fails the QP of a request it could not send";

/* Both sides' delta of the first offered name of w; false when none is offered. */
static bool wire_both(const struct smp_wire_names *nm, const struct smp_wire *now,
		      const struct smp_wire *base, const struct wire_why *w, int64_t *d)
{
	for (int k = 0; k < 3 && w->names[k]; k++) {
		int64_t s, c;

		if (wire_delta(nm, now->srv, base->srv, w->names[k], &s) &&
		    wire_delta(nm, now->cli, base->cli, w->names[k], &c)) {
			*d = s + c;
			return true;
		}
	}
	return false;
}

bool wire_rnr(const struct smp_wire_names *nm, const struct smp_wire *now,
	      const struct smp_wire *base)
{
	int64_t d;

	return now->valid && base->valid && wire_both(nm, now, base, &wire_whys[0], &d) && d > 0;
}

size_t wire_cause(const struct smp_wire_names *nm, const struct smp_wire *now,
		  const struct smp_wire *base, long qps_err, const char *rx, char *out, size_t len)
{
	size_t l = 0;

	if (!len)
		return 0;
	*out = '\0';
	if (!now->valid || !base->valid)
		return 0;
	for (size_t i = 0; i < WIRE_NWHYS; i++) {
		const struct wire_why *w = &wire_whys[i];
		const char *why = w->why;
		char num[32];
		int64_t d, down;

		if (!wire_both(nm, now, base, w, &d) || d <= 0)
			continue;
		if (!why && !strcmp(w->names[0], "TcpEstabResets")) {
			WIRE_PUT(out, len, &l, "%s", l ? "; " : "");
			WIRE_PUT(out, len, &l, w->what, wire_num((uint64_t)d, num, sizeof(num)));
			continue;
		}
		if (!why)
			why = wire_both(nm, now, base, &wire_whys[WIRE_NWHYS - 1], &down) && down > 0
				      ? wire_send_down
				      : wire_send_up;
		WIRE_PUT(out, len, &l, "%s", l ? "; " : "");
		WIRE_PUT(out, len, &l, w->what, wire_num((uint64_t)d, num, sizeof(num)));
		WIRE_PUT(out, len, &l, " (%s%s%s)", why, i == 0 && rx ? "; " : "",
			 i == 0 && rx ? rx : "");
	}
	if (l && qps_err > 0)
		WIRE_PUT(out, len, &l, "; %ld of the run's QPs in ERR", qps_err);
	return l;
}
