/* SPDX-License-Identifier: MIT */
/*
 * load: the client traffic engine, independent of the transport.
 *
 * Connection idx (0..n-1, id = first_id + idx) does cfg.msgs round trips of
 * cfg.size bytes. Message seq of connection id has a fixed payload derived from
 * (id, seq), so the echo is checked byte by byte without keeping a copy.
 *
 * Scheduling: connections ready for their next round trip wait in a FIFO. With
 * workers == 0 every ready connection starts at once; with workers == W at most W
 * round trips are in flight over all connections, and a freed worker takes the
 * oldest ready connection (round-robin over the pool of
 * workers). After a round trip a connection thinks think_ms before it is ready again;
 * since every think time is equal, deadlines leave in FIFO order and one timerfd
 * serves them all. The timerfd also carries the traffic-phase deadline
 * (common/deadline.h), which fails every unfinished connection with err=timeout.
 *
 * The transport:
 *   - calls load_attach() for every connection that came up, load_run() on "run";
 *   - gets ops->start(idx) when idx must send its message (fill it with
 *     load_tx_fill()); a send error is reported with load_fail();
 *   - feeds received bytes to load_rx(), asking load_want() how many are due;
 *   - watches load_timer_fd() and calls load_on_timer() when it is readable;
 *   - prints load_report() once load_finished().
 */
#ifndef RDC_AGENTS_LOAD_H
#define RDC_AGENTS_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

struct load_cfg {
	uint32_t nconn;
	uint32_t first_id;
	uint32_t msgs;
	uint32_t size;
	uint32_t think_ms;
	uint32_t workers;
	uint32_t timeout_s;
};

struct load_ops {
	/* idx must send message load_seq(idx); errors go through load_fail() */
	void (*start)(void *arg, uint32_t idx);
};

enum load_state { LS_OFF, LS_IDLE, LS_READY, LS_BUSY, LS_THINK, LS_DONE, LS_FAIL };

struct load_conn {
	uint64_t t;	/* round-trip start, or end of think time, in ns */
	uint32_t seq;	/* round trips completed */
	uint32_t rx;	/* echo bytes received in the current round trip */
	uint8_t state;
	uint8_t bad;	/* the current round trip has a mismatch */
};

struct fifo {
	uint32_t *v;
	uint32_t cap, head, len;
};

struct load {
	struct load_cfg cfg;
	const struct load_ops *ops;
	void *arg;
	struct load_conn *c;
	struct fifo ready, think;
	int tfd;
	bool running, finished, pumping;
	uint32_t inflight, active, attached;
	uint64_t t_run, t_end, deadline, armed;
	uint64_t msgs, verified, bad, errors;
	/* a transport that resends what it lost (ud, uc: agents/rto.h) counts its
	 * resends and the late echoes it dropped (result record) */
	bool resends;
	uint64_t retried, late;
	/* a connected RDMA transport tells the QPs its connections ride (result record) */
	uint64_t qps;
	/* and its completion poller's counters, when it has one (result record) */
	const struct proto_cq *cq;
	struct proto_hist hist;
};

int load_init(struct load *l, const struct load_cfg *cfg,
	      const struct load_ops *ops, void *arg);
void load_fini(struct load *l);

void load_attach(struct load *l, uint32_t idx);
int load_run(struct load *l);
/* Connection idx is broken: "msg fail id=.. call=C errno=E err=NAME". */
void load_fail(struct load *l, uint32_t idx, const char *call, int err,
	       const char *errname);
static inline uint32_t load_seq(const struct load *l, uint32_t idx)
{
	return l->c[idx].seq;
}
/* Echo bytes still due for idx's current round trip (0 when none is in flight). */
uint32_t load_want(const struct load *l, uint32_t idx);
/* 1 when the round trip completed, 0 when more is due, -1 when idx was failed. */
int load_rx(struct load *l, uint32_t idx, const uint8_t *buf, size_t len);
void load_tx_fill(const struct load *l, uint32_t idx, size_t off, uint8_t *buf,
		  size_t len);
/*
 * idx's round trip ended without an echo to feed load_rx() (a one-sided op):
 * ok is the transport's own check of what came back. 1, or -1 when idx was
 * failed (no round trip was in flight).
 */
int load_checked(struct load *l, uint32_t idx, bool ok);

/*
 * Ends the traffic now: every connection short of its msgs is lost. named prints
 * "msg fail ... err=timeout" for each (the traffic deadline); without it they
 * are only counted (the orchestrator said stop and knows why). No-op unless
 * running and not finished.
 */
void load_cut(struct load *l, bool named);

static inline int load_timer_fd(const struct load *l)
{
	return l->tfd;
}
int load_on_timer(struct load *l);
static inline bool load_finished(const struct load *l)
{
	return l->finished;
}
/* steps: the setup steps' histograms for the record (proto.h), or NULL */
int load_report(const struct load *l, const struct proto_hist *steps);

/* Payload of message (id, seq): byte off is a pure function of the three. */
void load_payload(uint32_t id, uint32_t seq, size_t off, uint8_t *buf, size_t len);
/* Index of the first byte differing from the payload, or len when all match. */
size_t load_payload_check(uint32_t id, uint32_t seq, size_t off,
			  const uint8_t *buf, size_t len);

#endif
