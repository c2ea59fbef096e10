/* SPDX-License-Identifier: MIT */
/*
 * ud_server: the ud server's event loops, shared by their files: the loops and
 * threads (ud_server_loop.c), the --cm oob-tls sessions and the echo
 * (ud_server.c), the --cm rdmacm side (ud_server_cm.c) and the address
 * handles (ud_server_ah.c). A client is admitted through uds_admit and
 * answered with the record uds_answer builds. May use what ud.h may use.
 *
 * Loops: --server-threads T runs T loops (struct uds each, on srv/loops.h),
 * loop 0 on the main thread with stdin, the others on threads of their own.
 * Each owns a UD QP with its CQ, completion channel and receive slots, its
 * clients' map and AHs and its counters: a datagram reaches the QP its client
 * was given and is answered by that QP's loop, so no lock is taken on a
 * datagram's path. Only
 * the clients and AHs held at once are counted across loops (atomics), for
 * their peaks. How a client reaches a loop:
 * - oob-tls: every loop has its own listeners on the same ports
 *   (SO_REUSEPORT), so the kernel spreads the TLS sessions, and its own device
 *   context and PD; a session's clients get that loop's QPN in their REP.
 * - rdmacm: one port cannot have two rdma_cm listeners, so loop 0's event
 *   channel holds them and hands each CONNECT_REQUEST to the loops in turn:
 *   its REQ record parsed and checked, the event acknowledged, the id and
 *   record queued for the loop (a mutex on the hand-over only), the loop
 *   woken by its eventfd. That loop admits the client and answers with
 *   rdma_accept naming its own QP (the Q_Key is rdma_cm's RDMA_UDP_QKEY, one
 *   for every loop), then destroys the id: a SIDR request's id has no later
 *   event, so it never moves to the loop's channel. The context is rdma_cm's,
 *   one per device in a process, shared; each loop allocates its own PD and
 *   completion channel on it, so no QP, CQ or AH is shared.
 * --ah lru's pool is split among the loops (a T-th each of --ah-max or of
 * max_ah). The loops stop together: the first to stop stops the others.
 */
#ifndef RDC_AGENTS_UD_SERVER_H
#define RDC_AGENTS_UD_SERVER_H

#include <stdatomic.h>

#include "agents/ctl.h"
#include "agents/oob/oob.h"
#include "agents/oob/tls.h"
#include "agents/srv/loops.h"
#include "agents/srv/srv.h"
#include "agents/ud/ud.h"

enum { UDS_T_CTL = 1, UDS_T_LISTEN, UDS_T_CH, UDS_T_SESS, UDS_T_CM, UDS_T_WAKE };
#define UDS_EVENTS 256
#define UDS_IN (16 * OOB_REC_LEN)

struct uds_key {
	uint8_t gid[16];
	uint32_t qpn;
};

struct uds_sess {
	struct tls_io io;
	char peer[SK_PEER_MAX];
	uint8_t in[UDS_IN];
	uint32_t ilen, events, nkeys, kcap;
	struct uds_key *keys;	/* the AHs of its clients */
};

/* an rdmacm request handed from loop 0 to another loop */
struct uds_hand {
	struct rdma_cm_id *id;
	struct oob_rec req;	/* parsed and checked by loop 0 */
};

/* what the loops of one process share: srv/loops.h's top (its live: clients admitted) */
struct uds_top {
	struct srvl_top top;
	atomic_uint ah_live, ah_peak;	/* AHs held, in all loops */
};

struct uds {
	struct srvl loop;	/* lid, wake, thread, hand-over queue of struct uds_hand */
	const struct ag_opts *o;
	struct ud_dev dev;
	struct ud_qp qp;
	struct ud_ahmap ahs;
	struct ud_ahmap peers;		/* --ah peer: one AH per GID, refs its clients */
	struct srv_lis lis;
	struct ctl ctl;
	SSL_CTX *ssl;
	int ep;
	bool stop;
	struct uds_sess **sess;
	uint16_t *gens;
	uint32_t nsess, sess_cap;
	struct ibv_ah **slot_ah;	/* --ah wc: the AH of the reply out of each slot */
	struct ud_lru lru;		/* --ah lru */
	uint32_t *slot_lru;		/* --ah lru: the pool entry of the reply out of each slot */
	uint32_t nslots;
	uint64_t echoed, bytes, dropped, rejected, cq_events;	/* accepted: the head's */
	uint64_t ah_made, ah_failed;
	/* --cm rdmacm: loop 0's */
	struct rdma_event_channel *cmch;
	struct rdma_cm_id **listen;
};

/* loop i of t */
static inline struct uds *uds_at(const struct srvl_top *t, uint32_t i)
{
	return SRVL_OF(srvl_at(t, i), struct uds, loop);
}

/* the top of s's loops */
static inline struct uds_top *uds_top(const struct uds *s)
{
	return SRVL_OF(s->loop.top, struct uds_top, top);
}

/* ud_server.c */
/*
 * Admits the client of a REQ (the AH map, and under --ah cache its AH): 0, or
 * -1 with f naming the failed call (ibv_create_ah at the device's max_ah).
 */
int uds_admit(struct uds *s, const struct oob_rec *req, struct verbs_fail *f);
/* The REP to an admitted REQ, or the REJ naming f (f NULL: admitted). */
void uds_answer(const struct uds *s, const struct oob_rec *req, const struct verbs_fail *f,
	       struct oob_rec *rep);
/* oob-tls: the listener of port ready, a session's event, a session's end */
void uds_accept(struct uds *s, uint32_t port);
void uds_sess_event(struct uds *s, uint32_t i, uint16_t gen);
void uds_sess_close(struct uds *s, uint32_t i, const char *why);
/* A completion of the loop's QP (poll_events' callback, arg the loop). */
void uds_wc(void *arg, const struct ibv_wc *wc);

/*
 * ud_server_ah.c: the AHs of --ah (cache, wc, lru, peer). udsa_admit gives
 * client e (just put in s->ahs) what its policy holds per client: 0, or -1
 * with f naming the failed call. udsa_drop lets a client's go; udsa_reply is
 * the AH to echo the datagram in slot through (NULL: drop it, the client
 * resends); udsa_slot_done frees what that reply held once its send completed
 * or was never posted. udsa_init after the QP (s->nslots set), udsa_fini after
 * it is destroyed.
 */
int udsa_init(struct uds *s);
int udsa_admit(struct uds *s, struct ud_ahe *e, struct verbs_fail *f);
void udsa_drop(struct uds *s, const struct uds_key *k);
struct ibv_ah *udsa_reply(struct uds *s, struct ud_ahe *e, const struct ibv_wc *wc,
			 uint32_t slot);
void udsa_slot_done(struct uds *s, uint32_t slot);
void udsa_fini(struct uds *s);

/* ud_server_cm.c, --cm rdmacm */
/* loop 0: listening ids on RDMA_PS_UDP, one per --port, in s->ep */
int udscm_open(struct uds *s);
/* loop 0: its channel's events; each request served here or handed over */
void udscm_event(struct uds *s);
/* another loop: the requests loop 0 handed it */
void udscm_handed(struct uds *s);
/* a loop's requests never served (destroyed), then loop 0's listeners */
void udscm_close(struct uds *s);

#endif
