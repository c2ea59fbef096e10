/* SPDX-License-Identifier: MIT */
/*
 * ud_server: the ud server's context, shared by its loop (ud_server.c, which
 * also carries the --cm oob-tls sessions), its --cm rdmacm side
 * (ud_server_cm.c) and its address handles (ud_server_ah.c). Both admit a client through uds_admit and answer it with
 * the record uds_answer builds. May use what ud.h may use.
 */
#ifndef RDC_AGENTS_UD_SERVER_H
#define RDC_AGENTS_UD_SERVER_H

#include "agents/ctl.h"
#include "agents/oob/oob.h"
#include "agents/oob/tls.h"
#include "agents/srv/srv.h"
#include "agents/ud/ud.h"

enum { UDS_T_CTL = 1, UDS_T_LISTEN, UDS_T_CH, UDS_T_SESS, UDS_T_CM };
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

struct uds {
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
int uds_admit(struct uds *s, const struct oob_rec *req, struct verbs_fail *f);
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

/* The REP to an admitted REQ, or the REJ naming f (f NULL: admitted). */
void uds_answer(const struct uds *s, const struct oob_rec *req, const struct verbs_fail *f,
	       struct oob_rec *rep);

/* --cm rdmacm: listening ids on RDMA_PS_UDP, one per --port, in s->ep */
int udscm_open(struct uds *s);
void udscm_event(struct uds *s);
void udscm_close(struct uds *s);

#endif
