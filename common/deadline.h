/* SPDX-License-Identifier: MIT */
/*
 * deadline: the one rule for how long a phase may take, shared by the agent
 * (which enforces it and names what it cut) and the orchestrator (which waits
 * DL_GRACE_S longer, so the agent's deadline always fires first and its result
 * record still arrives). May use libc only.
 *
 * Connect: every setup has --timeout from its own start, and setup k starts
 * k x --stagger-ms after "go". Traffic: --timeout for the round trips
 * themselves plus the think time the plan asks for (--think-ms x --msgs), so a
 * long think time is never mistaken for a stall.
 *
 * Dead peers: every transport notices a peer that died within DL_PEER_NS of
 * its next send (or, idle, of its last packet), so no point waits for the phase
 * deadline to learn that its server died. The numbers are set on purpose here
 * and nowhere else:
 *   tcp     TCP_USER_TIMEOUT (unacknowledged data) and keepalive (an idle
 *           connection), on every client socket and on the listeners (accepted
 *           sockets inherit them); the rc and ud TLS side channels too, where
 *           the session's EOF or timeout is what a dead server looks like.
 *   rc      the QP's ACK timeout and retry count: a send to a QP that no longer
 *           answers completes with RETRY_EXC_ERR after (retry_cnt + 1) tries
 *           of 4.096 us x 2^timeout each. rnr_retry stays 7 (unlimited) on
 *           purpose: an RNR NAK comes from a live peer's kernel that has no
 *           receive posted, never from a dead one, and a slow server must not
 *           cost connections; a stalled peer is bounded by the traffic deadline.
 *   rdmacm  the same ACK timeout through RDMA_OPTION_ID_ACK_TIMEOUT, the same
 *           retry counts in the connect parameters; DISCONNECTED fails the
 *           connection's traffic at once (the dead process's kernel sends DREQ).
 *   uc      no ACKs and no retries in the transport: the client resends a
 *           round trip whose echo has not come (agents/rto.h), DL_UC_TRIES
 *           sends, its timeout capped so that the whole backoff fits
 *           dl_peer_ns(), then fails it (dl_uc_rto_max_ns).
 *   fi-rdm  the client's clock: no echo dl_fi_echo_ns() after a send fails
 *           the round trip (below).
 * A 2 s link flap stays below both bounds: the link comes back before TCP's
 * user timeout or rc's last retry, so it costs latency, not connections.
 */
#ifndef RDC_COMMON_DEADLINE_H
#define RDC_COMMON_DEADLINE_H

#include <stdint.h>

/* seconds the orchestrator waits beyond the agent's deadline */
#define DL_GRACE_S 5

/* tcp: unacknowledged data for this long fails the socket (ETIMEDOUT) */
#define DL_TCP_USER_TIMEOUT_MS 6000
/* tcp: an idle connection probes after DL_TCP_KEEPIDLE_S, every DL_TCP_KEEPINTVL_S */
#define DL_TCP_KEEPIDLE_S 2
#define DL_TCP_KEEPINTVL_S 1
#define DL_TCP_KEEPCNT 4
/*
 * tcp: each idle connection sends one probe per keepidle and gets one ACK, on
 * the same veths as the point's traffic. At 100,000 connections and 2 s that
 * was 50,000 probes/s a side, ~45% of all segments, and the veths dropped ~30%
 * of their packets (the per-CPU backlog); the lost data and probes then hit
 * TCP_USER_TIMEOUT. The idle time grows with the point's connections so the
 * probes stay under DL_TCP_KEEP_RATE per second a side: a dead peer of an idle
 * connection is noticed later in a large point (100,000: after 50 s), a busy
 * one still within DL_TCP_USER_TIMEOUT_MS of its next send.
 */
#define DL_TCP_KEEP_RATE 2000
#define DL_TCP_KEEPIDLE_MAX_S 32767 /* the kernel's MAX_TCP_KEEPIDLE */

static inline uint32_t dl_tcp_keepidle_s(uint64_t conns)
{
	uint64_t s = (conns + DL_TCP_KEEP_RATE - 1) / DL_TCP_KEEP_RATE;

/*
 * rdma_cm: the timeout of one address or route resolution of a client
 * (rdma_resolve_addr, rdma_resolve_route). The connection as a whole has the
 * phase deadline; this one is rdmacap's own, so it must never be what a point
 * measures: 10 s, five times the first IPv6 neighbour resolution of a boot under
 * TCG, which ran past 2 s. A cause it ends names it (harness/point/cause.c).
 */
#define DL_CM_STEP_MS 10000

	if (s < DL_TCP_KEEPIDLE_S)
		return DL_TCP_KEEPIDLE_S;
	return s > DL_TCP_KEEPIDLE_MAX_S ? DL_TCP_KEEPIDLE_MAX_S : (uint32_t)s;
}
/*
 * rc: 4.096 us x 2^17 = 537 ms per try, 6 retries: ~3.8 s to RETRY_EXC_ERR.
 * Not 7: rxe (rxe_comp.c) treats retry_cnt 7 like rnr_retry 7, as unlimited,
 * and a send to a dead peer then retries until the traffic deadline.
 */
#define DL_RC_ACK_TIMEOUT 17
#define DL_RC_RETRY_CNT 6
#define DL_RC_RNR_RETRY 7 /* unlimited: see above */
#define DL_RC_MIN_RNR_TIMER 12 /* 0.64 ms between RNR retries */

/*
 * Teardown: after "stop" the agents destroy their RDMA objects one by one, and
 * the kernel frees what a killed agent still held as it exits (the process is
 * reaped only then). The baseline check after a point waits for the counters
 * DL_TEARDOWN_S plus DL_TEARDOWN_US per object still held when it starts: a
 * slow teardown is waited for, what is left after that is a leak. An agent
 * frees an object (QP + MR of an endpoint) in ~1.1 ms under TCG, the kernel
 * frees a killed one's in ~0.75 ms; DL_TEARDOWN_US is twice the slower.
 */
#define DL_TEARDOWN_S 5
#define DL_TEARDOWN_US 2000

static inline uint64_t dl_teardown_ns(uint64_t objects)
{
	return DL_TEARDOWN_S * 1000000000ull + objects * DL_TEARDOWN_US * 1000ull;
}

/* The longest any transport takes to notice a dead peer after its next send. */
static inline uint64_t dl_peer_ns(void)
{
	uint64_t rc = (DL_RC_RETRY_CNT + 1ull) * (4096ull << DL_RC_ACK_TIMEOUT);
	uint64_t tcp = DL_TCP_USER_TIMEOUT_MS * 1000000ull;

	return rc > tcp ? rc : tcp;
}

/*
 * uc: a message or echo lost is lost and the QP stays usable, so nothing but
 * the client's own clock notices it. The resend timeout is at least
 * DL_UC_RTO_MIN_MS (ud's floor: an echo under TCG takes 1-20 ms) and at most
 * dl_uc_rto_max_ns(): DL_UC_TRIES sends waiting rto x (2^5 - 1) = 31 timeouts
 * in all fit dl_peer_ns(), 193 ms each. Every resend goes up to one tick
 * (agents/rto.h, 20 ms) late: DL_GRACE_S covers the 5 ticks.
 */
#define DL_UC_TRIES 5
#define DL_UC_RTO_MIN_MS 100

static inline uint64_t dl_uc_rto_max_ns(void)
{
	return dl_peer_ns() / ((1ull << DL_UC_TRIES) - 1);
}

/*
 * fi-rdm: ofi_rxm tears the connection beneath a peer down when its QP fails
 * and reports nothing to a receive posted for any source, so a lost echo is
 * noticed by the client's clock alone. The server keeps an answer ofi_rxm
 * refuses with -FI_EAGAIN (a peer still being accepted, no send credit) for
 * DL_FI_RETRY_MS; a client fails a round trip with no echo dl_fi_echo_ns()
 * after it was sent: that window plus a send's dead-peer bound, so an answer
 * the server still holds is never taken for a loss. The clients look once a
 * DL_FI_TICK_MS, which DL_GRACE_S covers.
 */
#define DL_FI_RETRY_MS 10000
#define DL_FI_TICK_MS 1000

static inline uint64_t dl_fi_echo_ns(void)
{
	return DL_FI_RETRY_MS * 1000000ull + dl_peer_ns();
}

/* One setup, from its own start. */
static inline uint64_t dl_setup_ns(uint64_t timeout_s)
{
	return timeout_s * 1000000000ull;
}

/* The connect phase of an agent with `clients` setups, from "go". */
static inline uint64_t dl_connect_ns(uint64_t timeout_s, uint64_t stagger_ms, uint64_t clients)
{
	return dl_setup_ns(timeout_s) + stagger_ms * clients * 1000000ull;
}

/* The traffic phase, from "run". */
static inline uint64_t dl_traffic_ns(uint64_t timeout_s, uint64_t think_ms, uint64_t msgs)
{
	return timeout_s * 1000000000ull + think_ms * msgs * 1000000ull;
}

#endif
