/* SPDX-License-Identifier: MIT */
/*
 * cmphase: the bookkeeping of --cm-order phased, without rdma_cm or verbs.
 *
 * An agent takes its connections through rdma_cm's steps in rdma-core cmtime's
 * order, each step for all of them before the next: resolve every address,
 * then every route, then make every QP, then connect them all. This module
 * counts where the connections stand in the step under way and says when it
 * is over; the driver (agents/rc/rc_client_phase.c) makes the calls and tells
 * it what happened. A connection that fails a step leaves the count, and the
 * others go on without it.
 *
 * A connection's own place is one byte (cmph_st): the step it is in and
 * whether it finished it. In the step under way, a connection is
 *   todo:  finished the step before, this step's call not made yet;
 *   wait:  this step's call made, its event not come (QP: never, it is made
 *          in the call);
 *   ready: finished this step, waiting for the others.
 * The step is over when nothing is todo or waiting; the first one only once
 * every connection has started (the driver's starts come over several loop
 * turns). The next step's todo are this one's ready; a step that starts with
 * none ends the order (CMPH_DONE).
 *
 * Uses: libc only.
 */
#ifndef RDC_AGENTS_CMPHASE_H
#define RDC_AGENTS_CMPHASE_H

#include <stdbool.h>
#include <stdint.h>

/* the steps in their order */
enum cmph_step { CMPH_ADDR, CMPH_ROUTE, CMPH_QP, CMPH_CONNECT, CMPH_DONE };

/* a connection's place: its step, and this bit once it finished it */
#define CMPH_FINISHED 0x80

struct cmph {
	enum cmph_step step;	/* the step under way */
	uint32_t n;		/* connections that take part */
	uint32_t unstarted;	/* of n, not yet started (first step only) */
	uint32_t todo, wait, ready;
};

static inline uint8_t cmph_st(enum cmph_step s, bool finished)
{
	return (uint8_t)(s | (finished ? CMPH_FINISHED : 0));
}

/* n connections, none started: the first step under way */
void cmph_init(struct cmph *b, uint32_t n);
/* A connection's call for the step under way is made (its first, in the first step). */
void cmph_issued(struct cmph *b);
/* A connection finished the step under way. */
void cmph_finished(struct cmph *b);
/*
 * A connection at place st settled as failed (its call, its event, its
 * deadline); one of another step (it failed earlier) is not counted again.
 */
void cmph_failed(struct cmph *b, uint8_t st);
/* The step under way is over (or the order is done). */
bool cmph_over(const struct cmph *b);
/*
 * Moves to the next step if the one under way is over; returns the step now
 * under way. From the last step, or with no connection left, CMPH_DONE.
 */
enum cmph_step cmph_next(struct cmph *b);
/*
 * Whether a connection at place st takes part in step s past the first: it
 * finished the step before, so the driver makes its call. (The first step's
 * calls are the starts, made by phase.h's schedule.)
 */
bool cmph_due(uint8_t st, enum cmph_step s);
/*
 * The rdma_cm call a connection at place st waits in: its step's own while
 * it is in it, the next step's once it finished (it waits for the others).
 */
const char *cmph_call(uint8_t st);

#endif
