// SPDX-License-Identifier: MIT
/*
 * Completion polling of one channel by --poll's rule (see poll.h): the event
 * path, and the list of hot CQs that are polled on every loop turn instead of
 * waiting for their next event.
 */
#include <errno.h>
#include <stdlib.h>

#include "agents/ag.h"
#include "agents/verbs/poll.h"
#include "common/clock.h"

#define POLL_BATCH 32
/*
 * busy and adaptive: passes over the hot CQs go on for this long before the
 * loop gets the turn back, so a completion that a pass's own callbacks wait
 * for (the send that frees the SQ) is met by the next pass, not after an
 * epoll_wait(2) of the loop. 20 us keeps stdin, timers and new connections
 * served within a fraction of the shortest round trip rxe makes under TCG
 * (~130 us), where a pass over one client's two CQs takes well under 1 us.
 */
#define POLL_LINGER_NS 20000ull
/*
 * CQ polls between two clock reads in poll_hot(): under TCG a clock_gettime
 * (its TSC read is emulated) costs more than polling an empty CQ, and reading
 * it once a pass made it the first item of a busy agent's profile (perf: 14%
 * of its samples in clock_gettime, 7% in the provider's poll)
 */
#define POLL_CLOCK_POLLS 32

static int poll_hot_add(struct poll_chan *pl, struct poll_cq *c)
{
	struct poll_cq **h;
	uint32_t cap;

	if (c->hot)
		return 0;
	if (pl->nhot == pl->cap) {
		cap = pl->cap ? pl->cap * 2 : 64;
		h = realloc(pl->hot, cap * sizeof(*h));
		if (!h)
			return -1;
		pl->hot = h;
		pl->cap = cap;
	}
	pl->hot[pl->nhot++] = c;
	c->hot = pl->nhot;
	return 0;
}

static void poll_hot_del(struct poll_chan *pl, struct poll_cq *c)
{
	struct poll_cq *last = pl->hot[--pl->nhot];

	pl->hot[c->hot - 1] = last;
	last->hot = c->hot;
	c->hot = 0;
}

void poll_chan_init(struct poll_chan *pl, struct ibv_comp_channel *ch, enum opt_poll mode)
{
	*pl = (struct poll_chan){ .ch = ch, .mode = mode };
}

void poll_chan_fini(struct poll_chan *pl)
{
	free(pl->hot);
	pl->hot = NULL;
	pl->nhot = pl->cap = 0;
}

int poll_cq_start(struct poll_chan *pl, struct poll_cq *c, bool lazy, struct verbs_fail *f)
{
	int err;

	c->pl = pl;
	c->lazy = lazy;
	if (lazy)
		return 0;
	if (pl->mode == OPT_POLL_BUSY) {
		if (!poll_hot_add(pl, c))
			return 0;
		f->call = "malloc";
		f->err = ENOMEM;
		return -1;
	}
	err = ibv_req_notify_cq(c->cq, 0);
	if (err) {
		f->call = "ibv_req_notify_cq";
		f->err = err;
		return -1;
	}
	return 0;
}

void poll_cq_stop(struct poll_cq *c)
{
	if (c->pl && c->hot)
		poll_hot_del(c->pl, c);
}

int poll_cq_want(struct poll_cq *c, bool want, struct verbs_fail *f)
{
	if (!c->lazy || c->want == want)
		return 0;
	c->want = want;
	if (!want || !poll_hot_add(c->pl, c))
		return 0;
	f->call = "malloc";
	f->err = ENOMEM;
	return -1;
}

/* Polls c dry: the number of completions, or -1 after a fatal record. */
static int poll_drain(struct poll_cq *c, poll_wc_cb cb, void *arg)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i, got = 0;

	while ((n = ibv_poll_cq(c->cq, POLL_BATCH, wc)) > 0) {
		for (i = 0; i < n; i++)
			cb(arg, &wc[i]);
		got += n;
	}
	if (n < 0) {
		ag_fatal("ibv_poll_cq", "CQ", EIO);
		return -1;
	}
	return got;
}

/* c had completions at now: the gap since its previous ones */
static void poll_seen(struct poll_cq *c, uint64_t now)
{
	c->gap_ns = c->last_ns && now > c->last_ns ? now - c->last_ns : 0;
	c->last_ns = now;
}

/*
 * adaptive: how long c keeps spinning after its last completion, 0 for not
 * at all. A CQ whose last gap between completions was under OPT_POLL_SPIN_US
 * spins that long and is not armed between its completions (a ping-pong: its
 * round trips vary several times over under a loaded host, so the budget is
 * not a multiple of the last gap); a sparser one (one of 10,000 connections,
 * each waiting its turn) is armed at once, as with --poll event, so the spin
 * costs nothing where it cannot pay.
 */
static uint64_t poll_budget_ns(const struct poll_cq *c)
{
	uint64_t cap = OPT_POLL_SPIN_US * 1000ull;

	return c->gap_ns && c->gap_ns < cap ? cap : 0;
}

/*
 * Arm before the last poll, so a completion racing it raises an event. The
 * count goes to pl, the poller serving this event: poll_events() serves CQs
 * that belong to no poller (c->pl NULL).
 */
static int poll_arm_drain(struct poll_chan *pl, struct poll_cq *c, poll_wc_cb cb, void *arg)
{
	int err = ibv_req_notify_cq(c->cq, 0);

	if (err) {
		ag_fatal("ibv_req_notify_cq", "CQ", err);
		return -1;
	}
	pl->n.arms++;
	return poll_drain(c, cb, arg);
}

/* Whether hot c keeps spinning after a poll that found nothing. */
static bool poll_hot_stays(const struct poll_chan *pl, const struct poll_cq *c, uint64_t now)
{
	if (c->lazy)
		return c->want && pl->mode == OPT_POLL_BUSY;
	if (pl->mode == OPT_POLL_BUSY)
		return true;
	return pl->mode == OPT_POLL_ADAPTIVE && now - c->last_ns < poll_budget_ns(c);
}

/* One pass over the hot CQs at now: completions found, or -1. */
static int poll_pass(struct poll_chan *pl, uint64_t now, poll_wc_cb cb, void *arg)
{
	struct poll_cq *c;
	int got, all = 0;
	uint32_t i;

	/* downwards: a deletion moves an already polled CQ into the hole */
	for (i = pl->nhot; i-- > 0;) {
		if (i >= pl->nhot)
			continue;
		c = pl->hot[i];
		if ((got = poll_drain(c, cb, arg)) < 0)
			return -1;
		if (got) {
			poll_seen(c, now);
			all += got;
			continue;
		}
		if (poll_hot_stays(pl, c, now)) {
			pl->n.spins++;
			continue;
		}
		if (c->lazy && !c->want) {
			poll_hot_del(pl, c);
			continue;
		}
		if ((got = poll_arm_drain(pl, c, cb, arg)) < 0)
			return -1;
		if (got) {
			poll_seen(c, now);
			all += got;
		} else {
			poll_hot_del(pl, c);
		}
	}
	return all;
}

int poll_hot(struct poll_chan *pl, poll_wc_cb cb, void *arg)
{
	uint64_t t0 = pl->nhot ? clock_ns() : 0, now = t0;
	uint32_t polls = 0;
	int got, all = 0;

	while (pl->nhot) {
		polls += pl->nhot;
		if ((got = poll_pass(pl, now, cb, arg)) < 0)
			return -1;
		all += got;
		if (polls < POLL_CLOCK_POLLS)
			continue;
		polls = 0;
		now = clock_ns();
		if (now - t0 >= POLL_LINGER_NS)
			break;
	}
	return all;
}

/*
 * One CQ event: event mode polls at once and arms again; busy and lazy CQs go
 * to the hot list; adaptive polls at once and keeps c hot while its
 * completions come fast enough to spin across (poll_budget_ns), else arms.
 */
static int poll_on_event(struct poll_chan *pl, struct poll_cq *c, poll_wc_cb cb, void *arg)
{
	int got;

	/* acks take a lock in the provider: pay for it once per batch */
	if (++c->unacked >= POLL_ACK_BATCH) {
		ibv_ack_cq_events(c->cq, c->unacked);
		c->unacked = 0;
	}
	if (c->hot)
		return 0;
	if (c->lazy) {
		if (poll_drain(c, cb, arg) < 0)
			return -1;
		if (!c->want)
			return 0;
	} else if (pl->mode == OPT_POLL_EVENT) {
		return poll_arm_drain(pl, c, cb, arg) < 0 ? -1 : 0;
	} else if (pl->mode == OPT_POLL_ADAPTIVE) {
		if ((got = poll_drain(c, cb, arg)) < 0)
			return -1;
		if (got)
			poll_seen(c, clock_ns());
		if (!poll_budget_ns(c))
			return poll_arm_drain(pl, c, cb, arg) < 0 ? -1 : 0;
	}
	if (!poll_hot_add(pl, c))
		return 0;
	ag_fatal("malloc", "hot CQ list", ENOMEM);
	return -1;
}

int poll_run(struct poll_chan *pl, poll_wc_cb cb, void *arg)
{
	struct ibv_cq *cq;
	void *ctx;

	for (;;) {
		if (ibv_get_cq_event(pl->ch, &cq, &ctx)) {
			if (errno != EAGAIN && errno != EINTR) {
				ag_fatal("ibv_get_cq_event", "completion channel", errno);
				return -1;
			}
			break;
		}
		pl->n.events++;
		if (poll_on_event(pl, ctx, cb, arg))
			return -1;
	}
	return poll_hot(pl, cb, arg) < 0 ? -1 : 0;
}

int poll_events(struct ibv_comp_channel *ch, uint64_t *nev, poll_wc_cb cb, void *arg)
{
	struct poll_chan pl;
	int rc;

	/* event mode and CQs that are never lazy: nothing goes to a hot list */
	poll_chan_init(&pl, ch, OPT_POLL_EVENT);
	rc = poll_run(&pl, cb, arg);
	*nev += pl.n.events;
	poll_chan_fini(&pl);
	return rc;
}
