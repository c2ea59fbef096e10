/* SPDX-License-Identifier: MIT */
/*
 * ud: the --transport ud roles and the verbs they share.
 *
 * Each server event loop (--server-threads, ud_server.h) owns ONE UD QP (one
 * CQ, one MR over its receive and send slots) for every client it admitted;
 * it answers a client through an address handle,
 * created when the client's REQ arrives over --cm oob-tls (the records of
 * agents/oob/oob.h with op OOB_OP_UD, the Q_Key in rkey) and cached, keyed by the
 * client's (GID, QPN), until its TLS session ends. A failed ibv_create_ah
 * becomes a REJ naming it, so the client's "conn fail" names the cause (rxe's
 * max_ah, 32,767 per device). A client is one UD QP with its own CQ; a client
 * agent holds one AH, to the server.
 *
 * Every receive buffer is OPT_UD_GRH + size bytes: the GRH (for RoCEv2 over
 * IPv4, 20 zero bytes then the IPv4 header) comes first. A message must fit the
 * port's active MTU minus the GRH (checked at start: call=ibv_query_port
 * err=EMSGSIZE). UD may drop: a client resends a round trip after its resend
 * timeout (doubled at every resend), UD_TRIES sends in all, then counts it
 * lost; the timeout is UD_RTO_MS, or the agent's smoothed round trip time
 * plus four times its variation (RFC 6298) when that is longer, at most
 * UD_RTO_MAX_MS: a server's queue is not taken for a loss;
 * replies carry the message's seq in
 * imm_data, so a late echo of an earlier try is told apart and counted "late".
 *
 * May use the engine (ag, ctl, load, phase, tag, opts), srv/, the oob
 * records and TLS of agents/oob/, the poller of agents/verbs/, common/, rdma/,
 * libibverbs; never another transport's folder, harness/ or tap/.
 */
#ifndef RDC_AGENTS_UD_H
#define RDC_AGENTS_UD_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "agents/opts.h"
#include "agents/verbs/poll.h"
#include "agents/verbs/verbs.h"
#include "common/ipaddr.h"
#include "rdma/port.h"

int ud_server_run(const struct ag_opts *o);
int ud_client_run(const struct ag_opts *o);

#define UD_QKEY 0x11111111u	/* bit 31 clear: not a controlled Q_Key */
#define UD_RTO_MS 100
#define UD_RTO_MAX_MS 1000
#define UD_TRIES OPT_UD_TRIES	/* sends of one round trip before it is lost */
#define UD_SRV_RECV OPT_UD_SRV_RECV	/* the server's receive slots (capped by max_qp_wr) */
#define UD_CLI_RECV 2		/* room for a late echo beside the due one */
#define UD_CLI_SEND 2
#define UD_WR_SEND (1ull << 63)	/* wr_id flag of send slots */

struct ud_dev {
	struct ibv_context *ctx;	/* ours, or rdma_cm's (own_ctx false) */
	bool own_ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;	/* nonblocking; every CQ reports here */
	struct ibv_device_attr attr;
	uint8_t port, gidx;
	uint16_t lid;		/* the port's, for a LID-routed peer; 0 on RoCE */
	uint32_t qkey;		/* of every QP: UD_QKEY, or rdma_cm's RDMA_UDP_QKEY */
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint32_t size;
	struct rport rp;	/* the port's facts, for rport_av */
	struct rport_path path;	/* the GID index and whether IB routes with a GRH */
};

/* one UD QP, its CQ, and one MR over nrecv receive slots then nsend send slots */
struct ud_qp {
	struct ibv_qp *qp;
	struct poll_cq cq;	/* its context: poll_events() of agents/verbs/poll.h drains it */
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t nrecv, nsend;
};

/*
 * The agent's device, its PD and completion channel: with cm (--cm rdmacm),
 * the context of that id (bound or resolved: rdma_cm chose the device and
 * port), never a GID lookup; without, o->dev or the first device holding
 * local's GID. Either way local's GID on the port by rdma/port's rules (the
 * address vectors' source), and o->size checked against the active MTU minus
 * the GRH. A fatal record on failure; -1. ud_dev_close is safe after any
 * outcome, and leaves an rdma_cm context open.
 */
struct rdma_cm_id;
int ud_dev_open(struct ud_dev *d, const struct ag_opts *o, const struct ipa *local,
		struct rdma_cm_id *cm);
void ud_dev_close(struct ud_dev *d);

/*
 * A QP in RTS with every receive posted, nsend send slots and an SQ sqd deep;
 * wr_ids carry tag << 32 | slot.
 */
int ud_qp_create(struct ud_dev *d, struct ud_qp *q, uint32_t nrecv, uint32_t nsend,
		 uint32_t sqd, uint32_t tag, struct verbs_fail *f);
void ud_qp_destroy(struct ud_qp *q);
static inline uint8_t *ud_rbuf(const struct ud_dev *d, const struct ud_qp *q, uint32_t i)
{
	return q->buf + (size_t)i * (OPT_UD_GRH + d->size);
}
static inline uint8_t *ud_sbuf(const struct ud_dev *d, const struct ud_qp *q, uint32_t i)
{
	return ud_rbuf(d, q, q->nrecv) + (size_t)i * d->size;
}
int ud_post_recv(struct ud_dev *d, struct ud_qp *q, uint32_t tag, uint32_t i,
		 struct verbs_fail *f);
/*
 * SEND with imm to (ah, qpn, qkey): len bytes at off in send slot i, or with
 * off >= OPT_UD_GRH in receive slot i (an echo out of the buffer it came in).
 */
int ud_post_send(struct ud_dev *d, struct ud_qp *q, uint32_t tag, uint32_t i, uint32_t off,
		 uint32_t len, uint32_t imm,
		 struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, struct verbs_fail *f);
/* An AH to the peer at LID lid and GID gid by rdma/port's rules (rport_av); NULL with f set. */
struct ibv_ah *ud_ah_create(struct ud_dev *d, uint16_t lid, const uint8_t gid[16],
			    struct verbs_fail *f);

/*
 * The sender's GID from the 40 bytes before a UD payload: an IPv4 header at
 * byte 20 after 20 zero bytes (RoCEv2/IPv4: ::ffff:src), or an IPv6 GRH
 * (version 6: its SGID). -1 when it is neither.
 */
int ud_grh_sgid(const uint8_t grh[OPT_UD_GRH], uint8_t gid[16]);

/*
 * The server's AH cache: (GID, QPN) -> AH, open addressing. Under --ah peer a
 * second map holds one AH per GID (key QPN UD_PEER_QPN): an AH names a port
 * (GID), not a QP, so every client behind one GID is answered through it.
 */
#define UD_PEER_QPN 1u
struct ud_ahe {
	uint8_t gid[16];
	uint32_t qpn;		/* 0: empty (QPN 0 is never a UD peer) */
	struct ibv_ah *ah;	/* --ah cache; --ah peer: in the peers' map */
	uint32_t lru;		/* --ah lru: its entry in the pool, 0: none now */
	uint32_t refs;		/* --ah peer: the clients admitted behind this GID */
	uint16_t lid;		/* the peer port's LID (its REQ's): an InfiniBand AV's */
};
struct ud_ahmap {
	struct ud_ahe *e;
	uint32_t cap, used;
};
/* NULL when absent */
struct ud_ahe *ud_ahmap_get(const struct ud_ahmap *m, const uint8_t gid[16], uint32_t qpn);
/* the new entry (ah unset), or NULL on ENOMEM or when the key is there (EEXIST) */
struct ud_ahe *ud_ahmap_put(struct ud_ahmap *m, const uint8_t gid[16], uint32_t qpn);
void ud_ahmap_del(struct ud_ahmap *m, struct ud_ahe *e);
void ud_ahmap_free(struct ud_ahmap *m);

/*
 * --ah lru: at most cap AHs, the least recently used one destroyed when a
 * client without one is answered and the pool is full (made at the client's
 * REQ while the pool has a free entry, else at its first datagram). An AH a send still
 * reads is never taken (rxe finds a user AH by its number when the send goes
 * out: a destroyed one fails the send and the QP). cap defaults to the
 * device's max_ah less UD_AH_SPARE, room for what else makes AHs there.
 */
#define UD_AH_SPARE 16
struct ud_lru_ent {
	struct ibv_ah *ah;
	uint8_t gid[16];
	uint32_t qpn;		/* its client; 0: the client left while a send was out */
	uint32_t prev, next;	/* the list, most recently used first; next: free list */
	uint32_t inflight;	/* sends out of it not completed */
};
struct ud_lru {
	struct ud_lru_ent *e;	/* e[0]: the list's head */
	uint32_t cap, used, free, fresh;
	uint64_t evicted;
};
int ud_lru_init(struct ud_lru *l, uint32_t cap);
/*
 * An entry for a new AH: a free one (*evict false, zeroed), else the least
 * recently used one without sends out, unlinked, still holding its AH and its
 * client (*evict true: destroy it, unlink the client). 0 when every entry has
 * a send out.
 */
uint32_t ud_lru_take(struct ud_lru *l, bool *evict);
/* An entry is free or never used: ud_lru_take would not evict. */
static inline bool ud_lru_room(const struct ud_lru *l)
{
	return l->free || l->fresh <= l->cap;
}
/* Moves entry i to the front: listed false the first time after ud_lru_take. */
void ud_lru_use(struct ud_lru *l, uint32_t i, bool listed);
/* Gives entry i back (its AH destroyed by the caller); listed: it is in the list. */
void ud_lru_put(struct ud_lru *l, uint32_t i, bool listed);
void ud_lru_free(struct ud_lru *l);

#endif
