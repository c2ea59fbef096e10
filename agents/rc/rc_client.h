/* SPDX-License-Identifier: MIT */
/*
 * rc_client: the rc client agent, shared by its files.
 *
 * phase.h runs the phases of proto.h in one epoll loop; rc_client.c gives it
 * the setups and the rc fds (the completion channel, the device's async events
 * (rc_async.c: a QP in error fails its clients at once), and the setup machinery
 * of the --cm), and drives the ping-pongs through load.h: a round trip posts its receive first, then the
 * SEND (or WRITE with immediate); the echo's completion hands the bytes to
 * load_rx(). rc_client_oob.c (TLS sessions) and rc_client_cm.c (rdma_cm)
 * bring connections up and settle them with rcc_up() or rcc_fail().
 *
 * --qp-share K: client i rides QP i % K, owned by client i % K (the first K
 * clients set their QPs up; the others wait in RCC_WAIT and settle with their
 * QP's owner). One round trip is in flight per QP; the other clients of that
 * QP queue in FIFO order (their latency counts the wait). Each message carries
 * its client and seq in imm_data (rcc_imm), which the server echoes and the
 * client checks.
 *
 * --transport uc: the transport neither acknowledges nor retransmits, so the
 * client does (agents/rto.h, common/deadline.h's uc bound): a tick resends a
 * QP's round trip whose echo has not come, DL_UC_TRIES sends in all, then
 * fails it ("msg fail call=uc_retry errno=ETIMEDOUT"). Every uc message
 * carries imm_data, so an echo of an earlier send (the first send's echo was
 * only slow, or both copies arrived) is told apart, counted late and dropped.
 */
#ifndef RDC_AGENTS_RC_CLIENT_H
#define RDC_AGENTS_RC_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "agents/cmphase.h"
#include "agents/ctl.h"
#include "agents/load.h"
#include "agents/oob/oob.h"
#include "agents/phase.h"
#include "agents/rc/rc.h"
#include "agents/rto.h"
#include "agents/oob/tls.h"

/* epoll tags (phase.h's PH_TAG) of the rc client's own fds */
enum { RCC_T_CHAN = PH_T_USER, RCC_T_SESS, RCC_T_CM, RCC_T_ASYNC, RCC_T_TICK };

/* NEW -> SETUP (cm steps, or waiting for the REP) -> UP | FAILED; WAIT: --qp-share,
 * a client whose shared QP is not up yet */
enum rcc_state { RCC_NEW, RCC_SETUP, RCC_UP, RCC_FAILED, RCC_WAIT };

#define RCC_NONE UINT32_MAX

/* --qp-share: one shared QP's round trips */
struct rcc_qp {
	uint32_t cur;		/* the client whose round trip is in flight, or RCC_NONE */
	uint32_t head, tail;	/* clients waiting for it (through rcc.qnext) */
	uint64_t done;		/* round trips it carried: its atomic counter's value */
	const char *fail_call;	/* why its setup failed, for clients that come later */
	int fail_err;
};
/* --transport uc: the round trip in flight on one QP, for its resends */
struct rcc_rt {
	uint64_t t_sent;	/* ns of its last send; 0: none in flight */
	uint64_t t_first;	/* ns of its first send */
	uint8_t tries;		/* sends so far */
};

/* rdma_cm steps, for naming the call a timeout hit; MAKE: addressed, its endpoint to make */
enum rcc_cm_step { RCC_CM_ADDR, RCC_CM_MAKE, RCC_CM_ROUTE, RCC_CM_CONNECT };

/*
 * One per client, endpoint or not: with --qp-share a million of them ride a few
 * QPs, so it stays small (the endpoints are rcc.ep, one per QP).
 */
struct rcc_conn {
	struct rdma_cm_id *id;	/* rdmacm */
	uint32_t sess;		/* oob: its session */
	uint8_t state;
	uint8_t step;		/* rdmacm */
	bool recv_posted;	/* initial receive (SRQ: top-up) done */
	bool req_sent;		/* oob: its REQ went out, its answer is owed (rcc_sess.inflight) */
	bool rep;		/* oob: a REP came, so a DOWN may (once) */
};

struct rcc_sess {
	struct tls_io io;
	bool connecting;	/* TCP connect in flight */
	bool failed;
	uint32_t events;
	/*
	 * REQs sent and not answered, at most OOB_WINDOW: the count of its
	 * connections' req_sent, kept so that the window is checked without a walk
	 * over every connection of the session. req_sent is per connection because
	 * an answer is checked against it (one never owed is a lie) and a late one,
	 * for a connection that timed out, still frees its place in the window: the
	 * server answered it. The REQs not sent yet are the queue below.
	 */
	uint32_t inflight;
	uint32_t qhead, qtail;	/* REQs waiting for the window (through rcc.onext) */
	uint32_t ilen;
	uint8_t in[OOB_REC_LEN * 16];
	const char *fail_call;
	char fail_why[TLS_WHY_MAX];
	int fail_err;
};

struct rcc {
	const struct ag_opts *o;
	struct ph ph;
	struct rc_dev dev;
	bool dev_up;
	struct ipa local;
	struct rcc_conn *c;
	uint32_t n;
	/* the endpoints, ep[i] of client i < nep: the QP owners (nqp), else all n */
	struct rc_ep *ep;
	uint32_t nep;
	/* --qp-share: nqp QPs (0: one per client), the clients' wait lists */
	uint32_t nqp;
	struct rcc_qp *qp;
	uint32_t *qnext;
	/* --transport uc: rt[q] per endpoint, the agent's round trips, the tick */
	struct rcc_rt *rt;
	struct rto rto;
	int tick;
	bool ticking;
	/* oob-tls */
	SSL_CTX *ssl;
	struct rcc_sess *sess;
	uint32_t nsess;
	uint32_t *onext;	/* the sessions' queues of REQs not sent yet */
	/* rdmacm */
	struct rdma_event_channel *cmch;
	uint32_t *cm_make;	/* FIFO of connections in RCC_CM_MAKE, [head, tail) */
	uint32_t cm_head, cm_tail;
	/* --cm-order phased: each endpoint owner's place (cmphase.h), the counts, the
	 * next owner the step under way looks at; cmp_st NULL when pipelined */
	uint8_t *cmp_st;
	struct cmph cmp;
	uint32_t cmp_cur;
	/* the first address alone (rc_client_neigh.c): its connection and start,
	 * the others' queue [head, tail), warm once it settled */
	struct {
		uint32_t *held;
		uint32_t head, tail, first;
		uint64_t t0;
		bool warm;
	} nb;
};

/* rc_client.c */
void rcc_up(struct rcc *x, uint32_t i);
void rcc_fail(struct rcc *x, uint32_t i, const char *call, int err, const char *ename,
	      bool at_server);
/*
 * QP q's connection was lost after it came up (its QP in error, its session or
 * CM id gone): q's clients (--qp-share: all riding it) fail their traffic now
 * with a "msg fail" naming call and ename. A connection still in setup is left
 * to its setup.
 */
void rcc_lost(struct rcc *x, uint32_t q, const char *call, int err, const char *ename);
/* the CM rejected connection i without a word of ours: "err=REJECTED status=S" */
void rcc_rejected(struct rcc *x, uint32_t i, int status);
int rcc_dev_open(struct rcc *x, struct rdma_cm_id *cm);
/* the tag in imm_data of client i's message (its seq; --qp-share: and i) */
uint32_t rcc_imm(const struct rcc *x, uint32_t i);
/* the client whose round trip QP q carries */
uint32_t rcc_who(const struct rcc *x, uint32_t q);
/* q's round trip is over: the next client waiting for q goes */
void rcc_share_go(struct rcc *x, uint32_t q);

/* rc_client_uc.c (--transport uc) */
/* the round trips' resend state and its tick: 0, or -1 (named) */
int rcc_uc_init(struct rcc *x);
/* the tick on (a round trip in flight) or off */
void rcc_uc_arm(struct rcc *x, bool on);
/* the tick fired: every QP's round trip in flight resent when due, or failed */
void rcc_uc_tick(struct rcc *x);

/* rc_client_share.c (--qp-share; nqp == 0 without it) */
int rcc_share_init(struct rcc *x);
void rcc_share_fini(struct rcc *x);
/* owner q's setup settled: its waiting clients go up, or fail with its cause */
void rcc_share_settle(struct rcc *x, uint32_t q, bool up, const char *call, int err);
/* client i (>= nqp) starts: it settles with its QP's owner */
void rcc_share_start(struct rcc *x, uint32_t i);
/* client i wants QP q: true when i's round trip goes now, false when queued */
bool rcc_share_take(struct rcc *x, uint32_t q, uint32_t i);
/* q's round trip ended: the next client to go (now in flight), or RCC_NONE */
uint32_t rcc_share_next(struct rcc *x, uint32_t q);

/* rc_client_oob.c */
int rcc_oob_init(struct rcc *x);
/* Start connection i (its endpoint and REQ; its session if it has none yet). */
void rcc_oob_start(struct rcc *x, uint32_t i);
void rcc_oob_event(struct rcc *x, uint32_t s, uint32_t events);
/* the call a connection that timed out was waiting in */
const char *rcc_oob_pending_call(const struct rcc *x, uint32_t i);
void rcc_oob_fini(struct rcc *x);

/* rc_client_cm.c */
int rcc_cm_init(struct rcc *x);
void rcc_cm_start(struct rcc *x, uint32_t i);
/* rdma_resolve_addr for connection i, whose id is made (rccn_timeout_ms); 0 or -1 with errno */
int rcc_cm_resolve(struct rcc *x, uint32_t i);
void rcc_cm_event(struct rcc *x);
/* connection i's endpoint on its id's device: 0, or -1 when it failed (settled, dropped) */
int rcc_cm_ep(struct rcc *x, uint32_t i);
/* rdma_connect for connection i, whose route resolved; *kill when it failed (settled) */
void rcc_cm_connect(struct rcc *x, uint32_t i, bool *kill);
/* a few queued endpoints made (a loop turn's share); true while more wait */
bool rcc_cm_make(struct rcc *x);
const char *rcc_cm_pending_call(const struct rcc *x, uint32_t i);
/* tear down connection i's id and endpoint (ids need their events acked first) */
void rcc_cm_drop(struct rcc *x, uint32_t i);
void rcc_cm_fini(struct rcc *x);

/*
 * rc_client_neigh.c: an agent's first address resolves alone, asked again on
 * the kernel's timeout until the neighbour towards the server is valid.
 */
int rccn_init(struct rcc *x);
/* connection i's id is made: true when its address waits for the first's */
bool rccn_hold(struct rcc *x, uint32_t i);
/* the kernel timeout of connection i's rdma_resolve_addr */
int rccn_timeout_ms(const struct rcc *x, uint32_t i);
/* an address of the agent resolved: the neighbour is valid, the held ones may go */
void rccn_resolved(struct rcc *x);
/*
 * ADDR_ERROR with status for connection i: true when it was the first's
 * timeout and its address was asked again (or that call failed: settled,
 * *kill), false when the event is the connection's failure.
 */
bool rccn_retry(struct rcc *x, uint32_t i, int status, bool *kill);
/* a loop turn's share of the held addresses, once the first settled; true while more wait */
bool rccn_release(struct rcc *x);
void rccn_fini(struct rcc *x);

/*
 * rc_client_phase.c: --cm-order phased (rdma-core cmtime's order). Without it
 * (cmp_st NULL) every call but rccp_init is a no-op or says so.
 */
static inline bool rcc_phased(const struct rcc *x)
{
	return x->cmp_st != NULL;
}
int rccp_init(struct rcc *x);
/* connection i's call of step s is made now (s CMPH_ADDR: its start) */
void rccp_issued(struct rcc *x, uint32_t i, enum cmph_step s);
/* connection i finished the step under way (its event came) */
void rccp_finished(struct rcc *x, uint32_t i);
/* connection i settles as failed: it leaves the step's count */
void rccp_failed(struct rcc *x, uint32_t i);
/* a loop turn's share of the step under way; true while the loop must not sleep */
bool rccp_turn(struct rcc *x);
const char *rccp_pending_call(const struct rcc *x, uint32_t i);
void rccp_fini(struct rcc *x);

#endif
