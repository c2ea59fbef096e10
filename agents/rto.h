/* SPDX-License-Identifier: MIT */
/*
 * rto: the resend rule of a transport that does not retransmit (ud, uc): a
 * round trip whose echo has not come is sent again after the resend timeout,
 * the timeout doubled at every resend, a fixed number of sends in all; then the
 * round trip is lost and the transport names it.
 *
 * The timeout is RFC 6298's estimator over the agent's round trips, srtt + 4 x
 * rttvar, within [lo, hi]: a server's queue raises it instead of being taken
 * for a loss. Round trips are timed from their first send, resends included (a
 * queue that caused resends must raise the timeout; Karn's rule would take no
 * sample at all when every round trip is resent). A tick of RTO_TICK_MS checks
 * the round trips in flight, so a resend goes at most one tick late.
 * May use libc only.
 */
#ifndef RDC_AGENTS_RTO_H
#define RDC_AGENTS_RTO_H

#include <stdbool.h>
#include <stdint.h>

#define RTO_TICK_MS 20

struct rto {
	uint64_t srtt, rttvar;	/* ns; 0: no sample yet */
};

/* one round trip's time in ns, from its first send to its echo */
void rto_sample(struct rto *r, uint64_t rtt_ns);
/* the resend timeout in ns: srtt + 4 x rttvar within [lo_ns, hi_ns] */
uint64_t rto_ns(const struct rto *r, uint64_t lo_ns, uint64_t hi_ns);

/*
 * A round trip sent 'tries' times (>= 1), the last at t_sent, has waited long
 * enough for its echo at now: send k waits rto << (k - 1), so a crowd that
 * overran the server does not come back all at once.
 */
static inline bool rto_due(uint64_t rto, uint64_t now, uint64_t t_sent, uint32_t tries)
{
	return now - t_sent >= rto << (tries - 1);
}

/*
 * The resend tick, a timerfd of RTO_TICK_MS, on or off as asked (*ticking
 * says which it is): 0, or -1 with errno from timerfd_settime, *ticking as it
 * was.
 */
int rto_tick_arm(int fd, bool *ticking, bool on);

/* The longest a round trip of 'tries' sends waits before it is lost: rto x (2^tries - 1). */
static inline uint64_t rto_span_ns(uint64_t rto, uint32_t tries)
{
	return rto * ((1ull << tries) - 1);
}

#endif
