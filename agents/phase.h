/* SPDX-License-Identifier: MIT */
/*
 * phase: the client phases of proto.h, shared by the tcp and rc clients.
 *
 * One epoll loop over stdin (ctl.h), a stagger timer, a deadline timer, load.h's
 * think timer and the transport's own fds. "go" starts the setups --stagger-ms
 * apart, at most ops->batch per loop turn, each with --timeout, and no more
 * than lead at once in setup when the transport sets one (then a setup's
 * deadline runs from when it was due, so one held back keeps it, and one held
 * past it goes to ops->expire unstarted); once every one
 * is settled (ph_up() or ph_fail()) comes the "connected" record, then "run"
 * (remembered if it came early) starts load.h's round trips, whose report ends
 * the traffic; "stop" or EOF ends the loop (during traffic, after the report of
 * what was measured so far, unfinished round trips lost). Deadlines follow
 * common/deadline.h. The transport keeps the state of
 * its connections; the driver keeps their setup start times and the counts.
 */
#ifndef RDC_AGENTS_PHASE_H
#define RDC_AGENTS_PHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "agents/ctl.h"
#include "agents/load.h"
#include "agents/opts.h"
#include "agents/tag.h"

/* tag types (tag.h) of the client loop; the transport's types start at PH_T_USER */
enum { PH_T_CTL = 1, PH_T_STAGGER, PH_T_DEADLINE, PH_T_LOAD, PH_T_USER };
#define PH_TAG(t, v) TAG(t, 0, v)

enum ph_phase { PH_WAIT_GO, PH_CONNECT, PH_WAIT_RUN, PH_RUN, PH_HOLD, PH_STOP };

/* most events one epoll_wait returns, for any ops->events */
#define PH_EVENTS_MAX 512

struct ph_ops {
	uint32_t batch;		/* setups started per loop turn */
	uint32_t events;	/* epoll_wait batch, at most PH_EVENTS_MAX */
	/* Start connection i's setup; it settles later with ph_up() or ph_fail(). */
	void (*start)(void *arg, uint32_t i);
	/* Connection i is still in setup (its deadline applies). */
	bool (*pending)(void *arg, uint32_t i);
	/* Connection i's setup outlived --timeout: fail it (ph_fail) and clean up;
	 * with a lead, i may not have started. */
	void (*expire)(void *arg, uint32_t i);
	/* An event with a tag of type t >= PH_T_USER; nonzero ends the loop fatally. */
	int (*event)(void *arg, uint32_t t, uint32_t v, uint32_t events);
	/*
	 * Optional, called on every loop turn: work that needs no event (rc's hot
	 * CQs). Returns <0 to end the loop fatally, >0 when the loop must not
	 * sleep in epoll_wait, else 0.
	 */
	int (*spin)(void *arg);
};

struct ph {
	const struct ag_opts *o;
	const struct ph_ops *ops;
	void *arg;
	struct ctl ctl;
	struct load load;
	bool loaded;
	uint64_t *t0;		/* ns at each connection's first call */
	uint64_t *mark;		/* ns at the end of each connection's last setup step */
	struct proto_hist *steps;	/* [PROTO_NSTEPS], for the result record */
	uint32_t n, next, dl_head, settled, nok, nfail;
	/* setups started and not settled, at most (0: no bound); the transport's */
	uint32_t lead;
	int ep, stag, dl;
	uint64_t t_go, stag_armed, dl_armed;
	enum ph_phase phase;
	bool run_pending;
};

/*
 * Sets up the loop, the timers, stdin and load.h (lops and arg are load.h's);
 * a fatal "error" record on failure. ph_fini() is safe after any outcome.
 */
int ph_init(struct ph *p, const struct ag_opts *o, const struct ph_ops *ops,
	    const struct load_ops *lops, void *arg);
void ph_fini(struct ph *p);
/* epoll_ctl ADD with a fatal record on failure */
int ph_watch(struct ph *p, int fd, uint32_t events, uint64_t tag, const char *what);
/* "conn ok" for connection i, which joins the traffic */
void ph_up(struct ph *p, uint32_t i);
/* "conn fail" for connection i; at_server adds "at=server", status >= 0 "status=" */
void ph_fail(struct ph *p, uint32_t i, const char *call, int err, const char *ename,
	     bool at_server, int status);
/*
 * Connection i finished setup step s: the time since its previous step (or its
 * first call) goes into step s's histogram.
 */
void ph_step(struct ph *p, uint32_t i, enum proto_step s);
/* Runs the phases until stop; -1 after a fatal error (no "bye" then). */
int ph_loop(struct ph *p);

#endif
