/* SPDX-License-Identifier: MIT */
/*
 * poll: completion polling of one completion channel by --poll's rule.
 *
 * A struct poll_chan reads the events of its channel and polls its CQs
 * (struct poll_cq): --poll event re-arms a CQ and polls it dry on each of its
 * events; busy never arms, it polls every CQ on each loop turn; adaptive polls
 * a CQ dry on its event and, when its last gap between completions was under
 * OPT_POLL_SPIN_US, keeps polling it unarmed until it has been idle that long,
 * else arms it at once as event does (common/opt.h says why that long).
 * poll_hot() goes over the spinning CQs for up to POLL_LINGER_NS (poll.c) per
 * call. A lazy CQ (rc's per-connection send CQ) is never armed while its
 * owner wants nothing from it: send completions are reaped when the SQ is
 * full, so a round trip wakes each side once (for the echo), not twice.
 * Events are acknowledged in batches of POLL_ACK_BATCH. poll_events() serves a
 * channel without a poll_chan of its own (ud: one CQ a QP, never lazy).
 *
 * pl->n counts what the poller did (common/proto.h struct proto_cq, the result
 * records): events read, CQs armed again after a completion (not the first arm
 * of a new CQ), and polls of a spinning CQ that found it empty.
 *
 * May use verbs.h, the engine's ag.h, common/ and libibverbs.
 */
#ifndef RDC_AGENTS_POLL_H
#define RDC_AGENTS_POLL_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "agents/verbs/verbs.h"
#include "common/opt.h"
#include "common/proto.h"

/* events taken before they are acknowledged: acks take a lock in the provider */
#define POLL_ACK_BATCH 256

struct poll_chan;

struct poll_cq {
	struct ibv_cq *cq;
	struct poll_chan *pl;	/* its channel's poller */
	uint32_t hot;		/* 1 + index in pl->hot; 0: waits for an event */
	bool lazy;		/* a send CQ polled only when a send waits (want) */
	bool want;
	uint64_t last_ns;	/* its last completion */
	uint64_t gap_ns;	/* between its last two completions (adaptive) */
	uint32_t unacked;	/* events taken, not yet acknowledged */
	uint32_t users;		/* QPs on it (shared pool) */
	uint32_t cap;		/* QPs it can serve (shared pool) */
};

/* the CQs of one completion channel, polled by --poll's rule */
struct poll_chan {
	struct ibv_comp_channel *ch;
	enum opt_poll mode;
	struct poll_cq **hot;	/* polled on every turn, not waiting for an event */
	uint32_t nhot, cap;
	struct proto_cq n;	/* events read, re-arms, empty polls of a hot CQ */
};

typedef void (*poll_wc_cb)(void *arg, const struct ibv_wc *wc);
/* A poller of the nonblocking channel ch; poll_chan_fini frees its list. */
void poll_chan_init(struct poll_chan *pl, struct ibv_comp_channel *ch, enum opt_poll mode);
void poll_chan_fini(struct poll_chan *pl);
/*
 * A new CQ of pl: armed, or (busy) polled from now on, or (lazy) left alone
 * until poll_cq_want. poll_cq_stop takes it off the poller before it is destroyed.
 */
int poll_cq_start(struct poll_chan *pl, struct poll_cq *c, bool lazy, struct verbs_fail *f);
void poll_cq_stop(struct poll_cq *c);
/* A lazy CQ's owner needs (or no longer needs) its completions. 0 or -1 (ENOMEM). */
int poll_cq_want(struct poll_cq *c, bool want, struct verbs_fail *f);
/*
 * Reads the channel's events, then polls the CQs that are hot, calling cb for
 * every completion; cb must not destroy a CQ. Returns 0, or -1 after a fatal
 * error record.
 */
int poll_run(struct poll_chan *pl, poll_wc_cb cb, void *arg);
/*
 * Only the hot CQs (a loop turn without a channel event), for up to
 * POLL_LINGER_NS: the number of completions delivered, or -1 after a fatal
 * record. A CQ may be armed and leave the hot list in the same call that
 * delivered its last completion, so the caller must not sleep after one.
 */
int poll_hot(struct poll_chan *pl, poll_wc_cb cb, void *arg);
/* Some CQ is hot: the loop must not sleep. */
static inline bool poll_spinning(const struct poll_chan *pl)
{
	return pl->nhot != 0;
}
/*
 * --poll event on a channel without a poller of its own (CQs never lazy);
 * *nev counts its events. 0, or -1 after a fatal record.
 */
int poll_events(struct ibv_comp_channel *ch, uint64_t *nev, poll_wc_cb cb, void *arg);

#endif
