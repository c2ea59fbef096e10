// SPDX-License-Identifier: MIT
/*
 * rto: RFC 6298's round-trip estimator and the resend timeout (rto.h).
 */
#include <sys/timerfd.h>

#include "agents/rto.h"

void rto_sample(struct rto *r, uint64_t rtt)
{
	uint64_t d = r->srtt > rtt ? r->srtt - rtt : rtt - r->srtt;

	if (!r->srtt) {
		r->srtt = rtt;
		r->rttvar = rtt / 2;
		return;
	}
	r->rttvar = (3 * r->rttvar + d) / 4;
	r->srtt = (7 * r->srtt + rtt) / 8;
}

uint64_t rto_ns(const struct rto *r, uint64_t lo, uint64_t hi)
{
	uint64_t rto = r->srtt + 4 * r->rttvar;

	return rto < lo ? lo : rto > hi ? hi : rto;
}

int rto_tick_arm(int fd, bool *ticking, bool on)
{
	struct itimerspec its = { 0 };

	if (on == *ticking)
		return 0;
	if (on)
		its.it_interval.tv_nsec = its.it_value.tv_nsec = RTO_TICK_MS * 1000000L;
	if (timerfd_settime(fd, 0, &its, NULL))
		return -1;
	*ticking = on;
	return 0;
}
