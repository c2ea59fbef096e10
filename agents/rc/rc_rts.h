/* SPDX-License-Identifier: MIT */
/*
 * rc_rts: one thread that runs an event loop's blocking calls in its stead,
 * one job at a time: the rdma_cm client's QPs to RTR and RTS and their RTU
 * (rc_client_cm.c). On RoCE the RTR transition sleeps in the kernel's address
 * resolution (rdma_addr_find_l2_eth_by_grh through the ib_addr workqueue):
 * ~0.7 ms a QP in the rxe VM, a quarter of the client loop's time in a storm
 * of 2,000 when its own thread did it (docs/results/rc-storm-profile). The
 * loop makes the next endpoints meanwhile.
 *
 * The loop hands a job over with rts_put and takes it back, done, from
 * rts_take once the eventfd fd is readable (rts_clear first, then rts_take
 * until it returns 0, so a job done meanwhile makes fd readable again);
 * between the two the endpoint
 * and its id are the thread's: the loop neither touches nor destroys them.
 * Jobs finish in the order given. rts_stop ends the thread after the job in
 * hand: jobs not started come back undone (rts_take's *done false).
 */
#ifndef RDC_AGENTS_RC_RTS_H
#define RDC_AGENTS_RC_RTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct rts_job {
	uint32_t slot;		/* the caller's: its connection */
	void *arg;		/* the caller's: what run works on */
	const char *call;	/* set by run on failure: the call that failed, and its errno */
	int err;
};

/* one job, in the thread */
typedef void rts_fn(struct rts_job *j);

struct rts {
	pthread_t th;
	rts_fn *run;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;			/* eventfd: readable while done jobs wait */
	struct rts_job *q;	/* ring of cap: [head, next) done, [next, tail) to do */
	uint32_t cap, head, next, tail;
	bool stop, started;
};

/* room for cap jobs at once (an agent's connections); 0 or -1 (ag_fatal said why) */
int rts_start(struct rts *r, uint32_t cap, rts_fn *run);
/* hands j over; -1 (EOVERFLOW) when cap jobs are out already */
int rts_put(struct rts *r, const struct rts_job *j);
/* reads fd, so that it is readable again only for jobs done after this */
void rts_clear(struct rts *r);
/* a job back: 1 (*done: it ran, j->call set on failure), 0 none left */
int rts_take(struct rts *r, struct rts_job *j, bool *done);
/* jobs handed over and not taken back */
uint32_t rts_out(struct rts *r);
/* ends the thread (a no-op when not started); then rts_take returns the rest */
void rts_stop(struct rts *r);
/* rts_stop, then frees; a no-op on a zeroed struct that was never started */
void rts_fini(struct rts *r);

#endif
