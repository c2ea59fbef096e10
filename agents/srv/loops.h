/* SPDX-License-Identifier: MIT */
/*
 * srvl: the --server-threads loops of an event server (tcp, rc, ud), what
 * their transports run alike. T loops: loop 0 on the calling thread (it also
 * reads stdin), the others on threads of their own; each has an eventfd it
 * is woken by (stop, or a request handed over), and a tick (a timerfd of
 * SRVL_TICK_S) it checks its deadlines on. The loops stop together: the
 * first to end stops the others.
 *
 * A transport's loop struct begins with a struct srvl, its head; the top
 * holds the T loops in one array, size bytes each, and finds head i by that
 * size (srvl_at; SRVL_OF goes back to the transport's struct).
 *
 * The hand-over queue (rc and ud, --cm rdmacm): one port cannot have two
 * rdma_cm listeners, so loop 0's event channel holds them and gives each
 * request to the loops in turn (srvl_next); a request for loop k is copied
 * onto k's queue under k's mutex, then k is woken. Its elements are the
 * transport's, hsize bytes each, taken first in, first out.
 *
 * May use: the engine (ag, tag), common/clock.h, common/proto.h, libc,
 * pthreads.
 */
#ifndef RDC_AGENTS_SRV_LOOPS_H
#define RDC_AGENTS_SRV_LOOPS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

/* srvl_loops' buffer: "accepted:ms," per loop, two 20-digit numbers each */
#define SRVL_LOOPS_LEN (PROTO_LOOPS_MAX * 42)
/* a loop's tick: a --timeout deadline (whole seconds) is seen at most 1 s late */
#define SRVL_TICK_S 1

/* the transport's struct of type whose member is the head h */
#define SRVL_OF(h, type, member) ((type *)((char *)(h) - offsetof(type, member)))

struct srvl_top;

/* a loop's head */
struct srvl {
	struct srvl_top *top;
	uint32_t lid;		/* this loop's index, 0: the calling thread's */
	int wake;		/* eventfd: requests handed over, or stop; -1: none yet */
	int tick;		/* timerfd of SRVL_TICK_S; -1: none yet */
	pthread_t th;
	bool started, failed;
	uint64_t accepted;	/* connections (ud: clients) this loop took up */
	uint64_t cpu_ns;	/* the loop's thread CPU time while it ran */
	pthread_mutex_t hmu;	/* guards the hand-over queue */
	uint8_t *hq;		/* nh elements from hq + hhead * top->hsize */
	uint32_t hhead, nh, hcap;
};

/* A loop's run: 0, or -1 when it failed. */
typedef int srvl_fn(struct srvl *l);

/* what the loops of one process share */
struct srvl_top {
	const char *what;	/* the loops in error records ("server loop") */
	void *loops;		/* n loops of size bytes, each a struct srvl first */
	size_t size;
	size_t hsize;		/* a handed request's bytes; 0: no hand-over */
	uint32_t n;
	uint32_t next;		/* rdmacm: the loop the next request goes to (loop 0 only) */
	srvl_fn *run;
	atomic_bool stop;
	atomic_uint live, peak;	/* connections (ud: clients) up, in all loops */
};

/*
 * n loops (0 counts as 1) of size bytes, zeroed, each head's wake and tick -1, and
 * hand-over queues of hsize-byte requests. A fatal "error" record on failure.
 */
int srvl_init(struct srvl_top *t, uint32_t n, size_t size, size_t hsize, const char *what);
/* After the loops' own teardown: the eventfds, the ticks, the queues, the array. */
void srvl_fini(struct srvl_top *t);
struct srvl *srvl_at(const struct srvl_top *t, uint32_t i);
/* The loop's eventfd, watched on ep with tag (tag.h). */
int srvl_wake_open(struct srvl *l, int ep, uint64_t tag);
/* Reads the eventfd after it woke the loop; a failed read is warned. */
void srvl_woken(struct srvl *l);
/* The loop's tick, running, watched on ep with tag. A fatal "error" record on failure. */
int srvl_tick_open(struct srvl *l, int ep, uint64_t tag);
/* Reads the tick after it fired; a failed read is warned. */
void srvl_ticked(struct srvl *l);
/* Sets stop and wakes every loop. */
void srvl_stop_all(struct srvl_top *t);
/*
 * Runs loops 1..n-1 on threads of their own and loop 0 on the calling
 * thread, each through run, timed in cpu_ns and ending with srvl_stop_all;
 * joins them. 0, or -1 when a thread did not start or a loop failed.
 */
int srvl_run(struct srvl_top *t, srvl_fn *run);
/* One more up in live, and peak raised to it (atomics, no lock). */
void srvl_peak(atomic_uint *live, atomic_uint *peak);
/* A connection up on loop l: its accepted, the top's live and peak. */
void srvl_up(struct srvl *l);
/* A connection of loop l that was up is gone. */
void srvl_down(struct srvl *l);
/*
 * The result's list of each loop's accepted and CPU time (proto.h's
 * srv_loops) in buf of SRVL_LOOPS_LEN; NULL with one loop.
 */
const char *srvl_loops(const struct srvl_top *t, char *buf);
/* rdmacm: the loop whose turn the next request is (loop 0 only). */
struct srvl *srvl_next(struct srvl_top *t);
/* Copies request e onto l's queue and wakes l: 0, or -1 with errno ENOMEM. */
int srvl_hand(struct srvl *l, const void *e);
/* Takes up to max requests off l's queue, oldest first, into out: how many. */
uint32_t srvl_take(struct srvl *l, void *out, uint32_t max);

#endif
