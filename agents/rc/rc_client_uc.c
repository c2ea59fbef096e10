// SPDX-License-Identifier: MIT
/*
 * rc client agent, --transport uc: the resends uc's transport does not make
 * (rc_client.h): each QP's round trip in flight, a tick that sends it again
 * by agents/rto.h's rule, DL_UC_TRIES sends in all, then the round trip
 * failed as "uc_retry ETIMEDOUT".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/rc/rc_client.h"
#include "common/clock.h"
#include "common/deadline.h"

void rcc_uc_arm(struct rcc *x, bool on)
{
	if (rto_tick_arm(x->tick, &x->ticking, on))
		ag_warn("uc resend tick: timerfd_settime: %s", strerror(errno));
}

/*
 * uc: QP q's round trip, client i's, had no echo after every send: lost, named
 * (cause.c words it), and the QP's next client goes.
 */
static void rcc_uc_no_echo(struct rcc *x, uint32_t q, uint32_t i, uint64_t now)
{
	const struct rcc_rt *t = &x->rt[q];

	ag_warn("client %u: uc: no echo after %u sends over %.0f ms; uc does not retransmit",
		x->o->first_id + i, t->tries, (double)(now - t->t_first) / 1e6);
	load_fail(&x->ph.load, i, "uc_retry", ETIMEDOUT, NULL);
	if (x->nqp)
		rcc_share_go(x, q);
}

/* uc: QP q's round trip sent again; the echo's receive is still the first send's */
static void rcc_uc_resend(struct rcc *x, uint32_t q, uint32_t i, uint64_t now)
{
	struct rc_ep *e = &x->ep[q];
	struct verbs_fail f;

	x->rt[q].t_sent = now;
	x->rt[q].tries++;
	x->ph.load.retried++;
	if (!rc_post_send(&x->dev, e, x->o->size, rcc_imm(x, i), &f))
		return;
	x->rt[q].t_sent = 0;
	load_fail(&x->ph.load, i, f.call, f.err, NULL);
	if (x->nqp)
		rcc_share_go(x, q);
}

/* uc: every QP's round trip in flight checked against agents/rto.h's rule */
void rcc_uc_tick(struct rcc *x)
{
	uint64_t now = clock_ns(), exp,
		 rto = rto_ns(&x->rto, DL_UC_RTO_MIN_MS * 1000000ull, dl_uc_rto_max_ns());
	bool due = false;

	if (read(x->tick, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("uc resend tick: %s", strerror(errno));
	for (uint32_t q = 0; q < x->nep; q++) {
		struct rcc_rt *t = &x->rt[q];
		uint32_t i = rcc_who(x, q);

		if (!t->t_sent)
			continue;
		/* failed meanwhile (its QP, its session): nothing to resend */
		if (i == RCC_NONE || !load_want(&x->ph.load, i)) {
			t->t_sent = 0;
			continue;
		}
		due = true;
		if (!rto_due(rto, now, t->t_sent, t->tries))
			continue;
		if (t->tries >= DL_UC_TRIES) {
			rcc_uc_no_echo(x, q, i, now);
			t->t_sent = 0;
			continue;
		}
		rcc_uc_resend(x, q, i, now);
	}
	if (!due)
		rcc_uc_arm(x, false);
}

/* uc: the round trips' resend state and its tick (rc_client.h) */
int rcc_uc_init(struct rcc *x)
{
	x->rt = calloc(x->nep, sizeof(*x->rt));
	if (!x->rt) {
		ag_fatal("calloc", "uc round trips", ENOMEM);
		return -1;
	}
	x->ph.load.resends = true;
	x->tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (x->tick < 0) {
		ag_fatal("timerfd_create", "uc resend tick", errno);
		return -1;
	}
	return ph_watch(&x->ph, x->tick, EPOLLIN, PH_TAG(RCC_T_TICK, 0), "uc resend tick");
}
