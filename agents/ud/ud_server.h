/* SPDX-License-Identifier: MIT */
/*
 * ud_server: the ud server's context, shared by its loop (ud_server.c, which
 * also carries the --cm oob-tls sessions), its --cm rdmacm side
 * (ud_server_cm.c) and its address handles (ud_server_ah.c). Both admit a client through us_admit and answer it with
 * the record us_answer builds. May use what ud.h may use.
 */
#ifndef RDC_AGENTS_UD_SERVER_H
#define RDC_AGENTS_UD_SERVER_H

#include "agents/ctl.h"
#include "agents/oob/oob.h"
#include "agents/oob/tls.h"
#include "agents/srv/srv.h"
#include "agents/ud/ud.h"

enum { US_T_CTL = 1, US_T_LISTEN, US_T_CH, US_T_SESS, US_T_CM };
#define US_EVENTS 256
#define US_IN (16 * OOB_REC_LEN)

struct us_key {
	uint8_t gid[16];
	uint32_t qpn;
};

struct us_sess {
	struct tls_io io;
	char peer[SK_PEER_MAX];
	uint8_t in[US_IN];
	uint32_t ilen, events, nkeys, kcap;
	struct us_key *keys;	/* the AHs of its clients */
};

struct us {
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
	struct us_sess **sess;
	uint16_t *gens;
	uint32_t nsess, sess_cap;
	struct ibv_ah **slot_ah;	/* --ah wc: the AH of the reply out of each slot */
	struct ud_lru lru;		/* --ah lru */
	uint32_t *slot_lru;		/* --ah lru: the pool entry of the reply out of each slot */
	uint32_t nslots;
	uint64_t accepted, peak, echoed, bytes, dropped, rejected, cq_events;
	uint64_t ah_live, ah_peak, ah_made, ah_failed;
	/* --cm rdmacm */
	struct rdma_event_channel *cmch;
	struct rdma_cm_id **listen;
};

/*
 * Admits the client of a REQ (the AH map, and under --ah cache its AH): 0, or
 * -1 with f naming the failed call (ibv_create_ah at the device's max_ah).
 */
int us_admit(struct us *s, const struct oob_rec *req, struct verbs_fail *f);
/*
 * ud_server_ah.c: the AHs of --ah (cache, wc, lru, peer). usa_admit gives
 * client e (just put in s->ahs) what its policy holds per client: 0, or -1
 * with f naming the failed call. usa_drop lets a client's go; usa_reply is
 * the AH to echo the datagram in slot through (NULL: drop it, the client
 * resends); usa_slot_done frees what that reply held once its send completed
 * or was never posted. usa_init after the QP (s->nslots set), usa_fini after
 * it is destroyed.
 */
int usa_init(struct us *s);
int usa_admit(struct us *s, struct ud_ahe *e, struct verbs_fail *f);
void usa_drop(struct us *s, const struct us_key *k);
struct ibv_ah *usa_reply(struct us *s, struct ud_ahe *e, const struct ibv_wc *wc,
			 uint32_t slot);
void usa_slot_done(struct us *s, uint32_t slot);
void usa_fini(struct us *s);

/* The REP to an admitted REQ, or the REJ naming f (f NULL: admitted). */
void us_answer(const struct us *s, const struct oob_rec *req, const struct verbs_fail *f,
	       struct oob_rec *rep);

/* --cm rdmacm: listening ids on RDMA_PS_UDP, one per --port, in s->ep */
int usm_open(struct us *s);
void usm_event(struct us *s);
void usm_close(struct us *s);

#endif
