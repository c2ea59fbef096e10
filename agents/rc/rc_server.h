/* SPDX-License-Identifier: MIT */
/*
 * rc_server: the event-driven rc server agent, shared by its files.
 *
 * One epoll loop over: stdin, the completion channel, the device's async events
 * (rc_async.c: an endpoint whose QP went to error is dropped), and either the TLS
 * listeners with their sessions (rc_server_oob.c) or the rdma_cm event channel
 * (rc_server_cm.c). Endpoints live in a slot table; a completion names its
 * endpoint by slot and generation (rc.h). The completion callback never frees
 * an endpoint: it marks it dead and the loop reaps it after the poll, so a CQ
 * being polled is never destroyed under the poll.
 *
 * The pool: endpoints made ahead of the requests, each in INIT with its
 * receive posted (rc_ep_ready), so a request costs only RTR, RTS and the
 * answer. --pool N is the harness's count of the QPs its clients will ask
 * this process for; the pool is not N endpoints but a lead of at most
 * RCS_POOL_LEAD ready ones (npool) over the requests still to come (pool_left:
 * N less the requests served), and never more than pool_left. Made for all N,
 * it held the memory of clients that never came: a point asking for more than
 * memory holds stopped below what memory allows. They are made before the hello
 * (up to the lead, for at most RCS_POOL_HELLO_NS), then in loop turns with no
 * event, as requests take them. A request whose op is not --op's, or that
 * finds the pool empty, gets an endpoint made then. A failure while filling
 * ends the pool quietly (pool_off) and frees its last RCS_POOL_SPARE
 * endpoints: the process it left at a limit (vm.max_map_count, memory) must
 * still accept sessions, and the request that finds the pool empty makes its
 * endpoint and reports the failed call as before. Unused pooled endpoints are
 * freed with the others at the end. The pool is for IB and RoCE (oob-tls, and
 * rdmacm, whose pooled QP rdma_init_qp_attr moves by hand); on an iWARP device
 * there is none: only the iw_cm moves a QP to RTS, so each request's QP is
 * rdma_create_qp's on its own cm_id (rc_server_cm.c).
 *
 * Loops: --server-threads T runs T of these loops (struct rcs_srv each, on
 * srv/loops.h), loop 0 on the main thread with stdin, the others on threads
 * of their own; each owns its endpoints, completion channel, pool (a T-th of
 * --pool) and counters, so no lock is taken on any connection's path. How connections reach a loop:
 * - oob-tls: every loop has its own listeners on the same ports
 *   (SO_REUSEPORT), so the kernel spreads the TLS sessions, and each loop its
 *   own device context; a session's QPs stay on the loop that accepted it.
 * - rdmacm: one port cannot have two rdma_cm listeners, so loop 0's event
 *   channel holds them and hands each CONNECT_REQUEST to the loops in turn:
 *   its private data copied, the event acknowledged, the id moved to the
 *   loop's own event channel (rdma_migrate_id: the ESTABLISHED and
 *   DISCONNECTED of that id are then read by that loop), the request queued
 *   for the loop (srvl_hand), the loop woken by its eventfd. The request's
 *   id has had no event of its own yet, so the migration never waits. The context and the PD are rdma_cm's, shared; the
 *   device's async events are read by loop 0 alone (an endpoint of another
 *   loop whose QP fails is dropped through its CQ's flush and DISCONNECTED).
 * The loops stop together: the first to stop stops the others.
 *
 * Echo: a received message is copied from the receive buffer (the connection's,
 * or the SRQ slot's) into the connection's send buffer, the receive is
 * reposted, then the copy is sent back (SEND, or WRITE with immediate into the
 * client's buffer for --op write; on iWARP a WRITE and its note, rc.h).
 */
#ifndef RDC_AGENTS_RC_SERVER_H
#define RDC_AGENTS_RC_SERVER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "agents/ctl.h"
#include "agents/oob/oob.h"
#include "agents/rc/rc.h"
#include "agents/oob/tls.h"
#include "agents/srv/loops.h"
#include "agents/srv/srv.h"
#include "agents/tag.h"

/* tag types (tag.h) of the server loop */
enum { RCS_T_CTL = 1, RCS_T_CHAN, RCS_T_TICK, RCS_T_LISTEN, RCS_T_SESS, RCS_T_CM, RCS_T_ASYNC,
       RCS_T_WAKE };

/* a client that does not read its replies stops being read (bytes queued) */
#define RCS_OUT_HIGH (64 * 1024)
/* records one session may have served per turn: the others, the CQs and stdin
 * wait; a whole window (oob.h), so an honest session is answered in one turn */
#define RCS_REC_BUDGET OOB_WINDOW
/*
 * The pool's lead. One loop turn answers at most a window (OOB_WINDOW,
 * RCS_REC_BUDGET) of each session it runs, and a client keeps no more than a
 * window unanswered, so sessions x OOB_WINDOW is all that can wait for an
 * endpoint at once; the pool refills in the turns with nothing to do. 32
 * sessions' windows cover more client agents than a layout gives one server
 * process (harness/point/layout.c: an agent per 20,000 clients unless --agents says;
 * many agents carry few requests each). rdmacm's requests
 * come as fast as the client agents make their endpoints, RCC_CM_MAKE a turn
 * each (rc_client_cm.c), so a busy turn takes a few of them per agent. A
 * session beyond the 32, or a burst past the lead, gets its endpoints made
 * then, as without a pool. Unused, the lead costs 1,024 endpoints (~22 MB of
 * user and kernel memory, 22 KB each on rxe): at a point that memory ends,
 * 1,024 connections at most.
 */
#define RCS_POOL_LEAD (32 * OOB_WINDOW)
/* pooled endpoints made per turn: a request waits for at most this many */
#define RCS_POOL_BATCH 16
/*
 * Pooled endpoints freed when filling fails. A server left exactly at
 * vm.max_map_count fails every TLS handshake after it (OpenSSL's certificate
 * check cannot allocate and reports "EE certificate key too weak"); 2
 * endpoints give back 8 maps on rxe (SQ, RQ and 2 CQ rings each).
 */
#define RCS_POOL_SPARE 2
/*
 * A request whose answer took longer than this blocked in the kernel (an RTR
 * waiting on a neighbour nobody answers takes the kernel's 1 s): the session's
 * turn ends there, and RCS_SLOW_MAX such requests in a row drop it ("slow_path").
 * A loaded host makes an honest session's answer slow now and then, scattered
 * among fast ones; a session that stalls the loop 8 times running (>= 4 s) is
 * not honest load. So in a row, not in all: a fast answer starts the count
 * again.
 */
#define RCS_SLOW_NS (500 * 1000000ull)
#define RCS_SLOW_MAX 8

struct rcs_sess;

struct rcs_ep {
	struct rc_ep e;
	struct rcs_sess *sess;		/* oob: the session that asked for it */
	struct rcs_ep *prev, *next;	/* the session's endpoints */
	uint32_t id;			/* oob: the client's connection id */
	bool up;			/* counted in live; oob: its REP went out */
	bool reaping;
	uint8_t down_call;		/* why it died, for the DOWN (oob.h) */
	uint32_t down_status;
};

struct rcs_sess {
	struct tls_io io;
	uint32_t slot;
	uint16_t gen;
	bool paused;		/* input stopped until the output drains */
	bool queued;		/* on the ready list: budget spent, input may be left */
	uint32_t events;	/* epoll interest now */
	uint64_t deadline;	/* ns; 0 while the session is idle between records */
	uint32_t ilen;
	uint8_t in[OOB_REC_LEN * 16];
	struct rcs_ep *eps;
	struct ipa addr;	/* the peer's, whose GID its REQs' must be */
	uint32_t slow;		/* requests in a row that took over RCS_SLOW_NS */
	char peer[SK_PEER_MAX];
};

/* an rdmacm request handed from loop 0 to another loop: its id and private data */
struct rcs_hand {
	struct rdma_cm_id *id;
	uint8_t len;
	uint8_t pdata[OOB_CM_LEN];
};

/* one loop; its top (srv/loops.h) counts the connections up in all loops */
struct rcs_srv {
	struct srvl loop;	/* lid, wake, thread, hand-over queue of struct rcs_hand */
	const struct ag_opts *o;
	struct rc_dev dev;
	bool dev_up;
	int ep;
	struct ctl ctl;
	bool stop;
	/* endpoints */
	struct rcs_ep **eps;
	uint32_t neps, eps_cap;
	uint32_t *free;
	uint32_t nfree;
	uint16_t *gens;
	struct rcs_ep **pool;	/* ready, not taken yet: at most RCS_POOL_LEAD */
	uint32_t npool;
	uint32_t pool_left;	/* requests still to come that the pool serves */
	bool pool_off;		/* a fill failed: no more are made ahead */
	struct rcs_ep **reap;
	uint32_t nreap, reap_cap;
	/* oob-tls */
	SSL_CTX *ssl;
	struct srv_lis lis;
	struct rcs_sess **sess;
	uint32_t nsess, sess_cap;
	uint32_t *sfree;
	uint32_t nsfree;
	uint16_t *sgens;
	uint32_t live_sess;
	uint64_t *ready;	/* session tags (tag.h) to run again */
	uint32_t nready, ready_cap;
	/* rdmacm */
	struct rdma_event_channel *cmch;
	struct rdma_cm_id **listen;
	long max_backlog;
	/* counters */
	uint64_t echoed, bytes, dropped, rejected;	/* accepted: the head's */
	bool counted;		/* the result is out: endpoints freed now add nothing */
};

/* loop i of t */
static inline struct rcs_srv *rcs_at(const struct srvl_top *t, uint32_t i)
{
	return SRVL_OF(srvl_at(t, i), struct rcs_srv, loop);
}

/* rc_server_ep.c */
/* A slot and its endpoint's verbs resources; NULL with f set on failure. */
struct rcs_ep *rcs_ep_new(struct rcs_srv *s, enum opt_op op, struct rdma_cm_id *cm,
			struct verbs_fail *f);
void rcs_ep_free(struct rcs_srv *s, struct rcs_ep *x);
/* A pooled endpoint for a request of op on cm (NULL: oob), or rcs_ep_new's. */
struct rcs_ep *rcs_ep_take(struct rcs_srv *s, enum opt_op op, struct rdma_cm_id *cm,
			 struct verbs_fail *f);
void rcs_ep_up(struct rcs_srv *s, struct rcs_ep *x);
/*
 * Marks x dead with a drop record when reason is set; the loop frees it, and
 * tells the client of an oob endpoint that was up with a DOWN naming call
 * (enum oob_call) and status (oob.h). rdmacm tells it by rdma_disconnect.
 */
void rcs_ep_kill(struct rcs_srv *s, struct rcs_ep *x, const char *reason, unsigned call,
		uint32_t status);
/* Frees the endpoints killed since the last call (never inside a CQ's poll). */
void rcs_ep_reap(struct rcs_srv *s);
/* The pool's lead now: ready endpoints wanted ahead of the requests to come. */
uint32_t rcs_ep_want(const struct rcs_srv *s);
/* Makes up to max pooled endpoints; true while the pool is below its lead. */
bool rcs_ep_fill(struct rcs_srv *s, uint32_t max);
/* The loop's pool, filled up to the lead for at most RCS_POOL_HELLO_NS / loops. */
void rcs_ep_pool(struct rcs_srv *s);

/* rc_server.c */
void rcs_drop(struct rcs_srv *s, const char *peer, const char *reason);
/* Opens the device; for rdmacm, that of cm (rc_dev_open). */
int rcs_dev_open(struct rcs_srv *s, struct rdma_cm_id *cm);

/* rc_server_oob.c */
int rcs_oob_open(struct rcs_srv *s);
void rcs_oob_listen_event(struct rcs_srv *s, uint32_t port);
void rcs_oob_sess_event(struct rcs_srv *s, uint32_t slot, uint16_t gen, uint32_t events);
void rcs_oob_tick(struct rcs_srv *s);
/* Runs the sessions that spent their budget last turn. */
void rcs_oob_ready(struct rcs_srv *s);
void rcs_oob_close(struct rcs_srv *s);
/* the session of x lost x (it died): unlink */
void rcs_oob_unlink(struct rcs_ep *x);
/* x, up on its session, is being freed: queue its DOWN there (x->down_*) */
void rcs_oob_down(struct rcs_srv *s, struct rcs_ep *x);

/* rc_server_cm.c */
/* loop 0: the listeners; another loop: its own event channel, no listener */
int rcs_cm_open(struct rcs_srv *s);
void rcs_cm_event(struct rcs_srv *s);
/* another loop: the requests loop 0 handed it */
void rcs_cm_handed(struct rcs_srv *s);
void rcs_cm_close(struct rcs_srv *s);

#endif
