/* SPDX-License-Identifier: MIT */
/*
 * ud_client: the ud client agent's context, shared by its engine and
 * --cm oob-tls session (ud_client.c) and its --cm rdmacm side
 * (ud_client_cm.c). Either way the server's answer is an oob REP or REJ
 * record that udc_answer takes. May use what ud.h may use.
 */
#ifndef RDC_AGENTS_UD_CLIENT_H
#define RDC_AGENTS_UD_CLIENT_H

#include "agents/phase.h"
#include "agents/rto.h"
#include "agents/oob/oob.h"
#include "agents/oob/tls.h"
#include "agents/ud/ud.h"

enum { UDC_T_CHAN = PH_T_USER, UDC_T_SESS, UDC_T_TICK, UDC_T_CM };
enum udc_state { UDC_IDLE, UDC_SETUP, UDC_UP, UDC_FAILED };
#define UDC_BATCH 64
#define UDC_EVENTS 256

struct udc_conn {
	struct ud_qp q;
	struct rdma_cm_id *id;	/* --cm rdmacm, until the server answers */
	uint64_t t_sent;	/* ns of the last send of the due round trip; 0: none due */
	uint64_t t_first;	/* ns of its first send */
	uint32_t srv_qpn;	/* the server loop's QP its REP named */
	uint8_t state, tries, sq_out, step;
};

struct udc {
	const struct ag_opts *o;
	struct ph ph;
	struct ud_dev dev;
	struct ipa local;
	struct udc_conn *c;
	uint32_t n, waiting;
	struct rto rto;		/* this agent's round trips, resends included */
	/* the server's port, from the first REP: its loops' QPs share it (ud_server.h) */
	struct ibv_ah *ah;
	uint8_t srv_gid[16];
	uint32_t srv_qkey;
	/* the session */
	SSL_CTX *ssl;
	struct tls_io io;
	bool connecting, sess_failed;
	uint32_t events;
	uint8_t in[16 * OOB_REC_LEN];
	uint32_t ilen;
	const char *fail_call;
	int fail_err;
	char fail_why[TLS_WHY_MAX];
	int tick;
	bool ticking;
	struct rdma_event_channel *cmch;	/* --cm rdmacm */
};

void udc_fail(struct udc *x, uint32_t i, const char *call, int err, const char *ename,
	     bool at_server);
/*
 * The agent's device (ud_dev_open: cm's context, or without cm the one
 * holding x->local's GID) and its completion channel in the loop: 0, or -1
 * after the fatal record.
 */
int udc_dev_open(struct udc *x, struct rdma_cm_id *cm);
/* Client i's QP on the agent's device: 0, or -1 with client i failed, named. */
int udc_qp(struct udc *x, uint32_t i);
/* The REQ record of client i (its QP exists) */
void udc_req(const struct udc *x, uint32_t i, uint8_t buf[OOB_REC_LEN]);
/* The server's REP or REJ to client r->id; -1 (why set) when it breaks the protocol. */
int udc_answer(struct udc *x, const struct oob_rec *r, const char **why);

/*
 * --cm rdmacm: one UDP port space id per client until the server answers; the
 * first resolved address opens the agent's device on its id's context, and
 * each client's QP is made there once its own address resolves.
 */
int udcm_init(struct udc *x);
void udcm_start(struct udc *x, uint32_t i);
void udcm_event(struct udc *x);
const char *udcm_pending_call(const struct udc *x, uint32_t i);
void udcm_drop(struct udc *x, uint32_t i);
void udcm_fini(struct udc *x);

#endif
