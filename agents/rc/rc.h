/* SPDX-License-Identifier: MIT */
/*
 * rc: the --transport rc and --transport uc roles, and the verbs resource
 * model they share.
 *
 * One device context and one PD per agent process. Per connection (struct
 * rc_ep), by default one QP set per client: 1 RC QP, a send CQ and a recv CQ, a
 * send MR and a recv MR (two halves of one buffer). --cq shared puts the QPs
 * on a pool of CQs, each sized from the device's max_cqe and serving
 * max_cqe / RC_QP_CQE QPs; a full pool gets another CQ. --srq gives the agent
 * one SRQ whose receive buffers come from chunks of up to RC_SRQ_CHUNK slots
 * (and RC_SRQ_CHUNK_BYTES), one MR each, and holds a receive per QP plus a few
 * (--rx-depth N: at most N, the SRQ's fixed size; per QP, N is the RQ's
 * depth instead of RC_RQ); the QPs then have no recv MR of their own (with --op write the peer
 * writes into the connection's recv MR, so that one stays and the SRQ's
 * receives carry no buffer).
 *
 * --mr shared (rc_mr.c) registers no MR per connection: each connection's
 * buffer is a slice of the agent's chunks, one MR each, and its lkey and rkey
 * are its chunk's (the exchange carries that rkey and the slice's address, as
 * it carries a connection's own). See struct rc_mrs.
 *
 * --op write on iWARP (d->wnote), which has no RDMA WRITE with immediate: an
 * RDMA WRITE of the payload, then a SEND of a struct rc_note (inline, 8 bytes)
 * saying what the immediate would have said, the length and the imm; RDMAP
 * delivers a SEND only after the WRITEs before it were placed. The note
 * lands in the 8 bytes after the recv half (rc_note), or in an SRQ slot of
 * RC_NOTE_LEN bytes, and rc_note_wc() turns its completion into the one a
 * WRITE with immediate would have made, so the roles check the payload alike
 * on every fabric. A message takes two SQ slots: the SQ is twice as deep.
 *
 * --op read and --op atomic are one-sided: the server's recv MR is opened to
 * the peer (REMOTE_READ, REMOTE_ATOMIC) and nothing is echoed. For read it
 * holds load_payload(id, 0), which the client reads into its recv half and
 * checks; for atomic its first 8 bytes (8-aligned: rc_rbuf) are a counter the
 * client fetch-and-adds 1 to, the old value being the round trips it did
 * before. The round trip is the send CQ's completion, so that CQ is not lazy.
 * The device must offer it (ibv_query_device: max_qp_rd_atom, atomic_cap).
 *
 * d->qpt is the QP type: IBV_QPT_RC, or IBV_QPT_UC for --transport uc. A UC
 * connection is an RC connection without acknowledgements, so this code runs
 * it whole (endpoints, device, both setups, server models, poller) with the
 * QP type as its one parameter and the attributes UC lacks left out of the QP
 * state changes (no retry, RNR, timeout or read/atomic depths): --op send and
 * --op write only (opt_uc_rules). Over rdmacm a UC QP is made beside an
 * RC-typed id (rc_ep_cm_state). UC may drop a message and says nothing: the
 * client resends a round trip whose echo has not come, and fails it after
 * DL_UC_TRIES sends (rc_client.h, common/deadline.h).
 *
 * All CQs report to one completion channel per process (per session thread
 * with --server-model thread), read by a struct poll_chan (agents/verbs/poll.h);
 * with per-connection CQs the send CQ is lazy: never armed while no send waits
 * for room in the SQ. A failed verbs call is returned as a struct verbs_fail
 * (agents/verbs/verbs.h).
 *
 * Work request ids: RC_WR(kind, gen, slot). Connection WRs carry the role's
 * slot of the endpoint and its generation, so a completion that outlives its
 * QP (a shared CQ keeps them) is never applied to the slot's next tenant;
 * SRQ receives carry the buffer slot and are resolved by wc.qp_num.
 *
 * The rc/ folder: two rows of agents/transport.c (rc and uc); its connection
 * setups are oob-tls (agents/oob/: oob.h records over tls.h, rc_*_oob.c) and
 * rdmacm (rc_*_cm.c). May use the engine (ag, ctl, load, phase, tag, opts),
 * srv/, oob/, verbs/, common/, rdma/, libibverbs, librdmacm, OpenSSL; never
 * another transport's folder, harness/ or tap/.
 */
#ifndef RDC_AGENTS_RC_H
#define RDC_AGENTS_RC_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "agents/opts.h"
#include "agents/verbs/poll.h"
#include "agents/verbs/verbs.h"
#include "common/ipaddr.h"
#include "rdma/port.h"

int rc_server_run(const struct ag_opts *o);
int rc_server_thread_run(const struct ag_opts *o);
int rc_client_run(const struct ag_opts *o);

/*
 * send and receive queue depths: a ping-pong has one of each in flight. Only the
 * send that fills the SQ is signaled (selective signaling, sq_sig_all 0): SQ
 * work completes in order, so its completion frees every slot, and the others
 * cost no CQE and, on an armed shared CQ, no wake-up. A send buffer is reused
 * only after the peer's answer to it arrived, so no completion guards it.
 */
#define RC_SQ 2
#define RC_RQ 2
/*
 * SENDs and WRITEs of at most this many bytes go inline (IBV_SEND_INLINE): the
 * payload travels in the work request, so the device reads no send buffer
 * through the MR. 236 is perftest's inline size for RC SEND latency
 * (DEF_INLINE_SEND_RC_UC); a device that refuses it gets a QP without.
 */
#define RC_INLINE_MAX 236
#define RC_QP_CQE (RC_SQ + RC_RQ)
/* --op write on iWARP: the SEND after the RDMA WRITE, both in network order */
struct rc_note {
	uint32_t len;
	uint32_t imm;
};
#define RC_NOTE_LEN ((uint32_t)sizeof(struct rc_note))
#define RC_SRQ_CHUNK 256
#define RC_SRQ_CHUNK_BYTES (1u << 20)
#define RC_SRQ_INIT 1024
#define POLL_ACK_BATCH 256

enum rc_wr_kind { RC_WR_SEND = 1, RC_WR_RECV = 2, RC_WR_SRQ = 3 };
#define RC_WR(k, gen, slot) \
	(((uint64_t)(k) << 56) | ((uint64_t)(uint16_t)(gen) << 32) | (uint32_t)(slot))
#define RC_WR_KIND(w) ((unsigned)((w) >> 56))
#define RC_WR_GEN(w) ((uint16_t)((w) >> 32))
#define RC_WR_SLOT(w) ((uint32_t)(w))

struct rc_srqbuf {
	struct ibv_mr *mr;
	uint8_t *buf;
};

/*
 * --mr shared: the slices of one PD. A slice is rc_mr_stride() bytes (the send
 * half, then the 8-aligned recv half: rc_sbuf, rc_rbuf), 64-aligned in its
 * chunk. Chunk c holds rc_mr_slices(c, stride): RC_MR_FIRST << c, doubling up
 * to RC_MR_CHUNK, and never more than RC_MR_CHUNK_BYTES (at least one slice).
 * A chunk is registered when every live one is full, and deregistered when its
 * last slice comes back, so the device's counters return to the baseline as
 * its connections go.
 *
 * Chunks, not one region registered up front nor a reserve registered as it
 * is used: an MR's range is fixed, and growing it (ibv_rereg_mr) would change
 * the keys the peers already hold; a region sized for the worst case would pin
 * it for a point of 20 connections. RC_MR_CHUNK 4,096: 260,000 connections,
 * rc's old wall at max_mr 524,287 with two MRs each, take 70 registrations,
 * while one registration covers at most 16 MiB (4,096 pages) and a point of a
 * few connections pins one 64-slice chunk. Doubling from RC_MR_FIRST keeps the
 * small points small.
 *
 * The cost: one rkey opens every slice of a chunk to every peer holding it (a
 * peer's WRITE may land in another connection's slice: the device checks
 * bounds per MR, not per connection).
 */
#define RC_MR_FIRST 64
#define RC_MR_CHUNK 4096
#define RC_MR_CHUNK_BYTES (16u << 20)

struct rc_mrchunk {
	struct ibv_mr *mr;	/* NULL: not registered */
	uint8_t *buf;
	uint32_t *free;		/* slices not in use, a stack */
	uint32_t nfree, n;
};

struct rc_mrs {
	pthread_mutex_t mu;	/* the thread server takes slices from many threads */
	struct rc_mrchunk *c;
	uint32_t nc;
	size_t stride;
	int access;		/* what the op lets the peer do, for every slice */
};

/* bytes of one connection's slice: send half, 8-aligned recv half of at least 8,
 * then, with note, a struct rc_note */
size_t rc_mr_stride(uint32_t size, bool note);
/* slices of chunk c */
uint32_t rc_mr_slices(uint32_t c, size_t stride);
/* byte offset of slice i of a chunk */
static inline size_t rc_mr_off(size_t stride, uint32_t i)
{
	return stride * i;
}
void rc_mr_init(struct rc_mrs *m, uint32_t size, bool note, int access);
/* deregisters what is left (a leak, warned about) */
void rc_mr_fini(struct rc_mrs *m);
/*
 * A zeroed slice: its chunk *c and index *i, the address and the MR. The first
 * live chunk with room, or the lowest chunk not registered (registered now).
 */
int rc_mr_get(struct rc_mrs *m, struct ibv_pd *pd, uint32_t *c, uint32_t *i, uint8_t **buf,
	      struct ibv_mr **mr, struct verbs_fail *f);
void rc_mr_put(struct rc_mrs *m, uint32_t c, uint32_t i);

/* qp_num -> slot, open addressing; only SRQ completions need it */
struct rc_map {
	uint32_t *key, *val;
	uint32_t cap, used, live;
};

struct rc_dev {
	struct ibv_context *ctx;
	bool own_ctx;		/* opened here, not borrowed from a cm_id */
	struct ibv_pd *pd;	/* with rdma_cm, librdmacm's PD of the device (id->pd) */
	struct ibv_comp_channel *ch;
	struct poll_chan pl;	/* of ch */
	struct ibv_cq *plug;	/* siw: keeps its queues off libsiw's invalid key (rdma/siw.h) */
	struct ibv_device_attr attr;
	uint8_t port;
	uint8_t gidx;
	uint16_t lid;		/* the port's, for a LID-routed peer; 0 on RoCE */
	union ibv_gid gid;
	struct rport rp;	/* oob: the port's facts, for rport_av (no gids with rdma_cm) */
	struct rport_path path;	/* oob: the GID index and whether IB routes with a GRH */
	enum ibv_mtu mtu;
	uint32_t size;
	enum ibv_qp_type qpt;
	enum opt_op op;
	bool shared_cq, use_srq, write;
	bool wnote;		/* iWARP: --op write is RDMA WRITE + SEND of a rc_note */
	bool shared_mr;		/* --mr shared: slices of mrs */
	struct rc_mrs mrs;
	uint32_t rx_depth;	/* --rx-depth: RQ depth, or the SRQ's fixed size; 0: ours */
	/* --cq shared */
	struct poll_cq **pool;
	uint32_t npool, pool_cap;
	/* --srq */
	struct ibv_srq *srq;
	uint32_t srq_max, srq_posted, srq_slots;
	uint32_t srq_len;	/* bytes of an SRQ slot; 0: receives carry no buffer */
	uint32_t chunk;		/* slots per chunk */
	struct rc_srqbuf *chunks;
	uint32_t nchunks;
	uint32_t *srq_free;	/* slots not posted */
	uint32_t nfree;
	struct rc_map map;
	uint32_t nlive;		/* endpoints: what the SRQ must cover */
};

struct rc_ep {
	struct ibv_qp *qp;
	struct poll_chan *pl;	/* per-conn CQs report to its channel; NULL: the device's */
	struct rdma_cm_id *cm;	/* --cm rdmacm: the QP belongs to this id */
	struct poll_cq *scq, *rcq;
	struct ibv_mr *smr, *rmr;	/* --mr shared: both the chunk's, not ours */
	uint8_t *buf;		/* send half, then recv half */
	uint32_t rbytes;	/* of the recv half: the rlen a peer is given */
	uint32_t mrc, mri;	/* --mr shared: the slice's chunk and index */
	uint32_t slot;
	uint16_t gen;
	uint32_t inl;		/* bytes a send may carry inline (the QP's max_inline_data) */
	uint8_t sq_out;		/* sends posted since the SQ was last known empty */
	uint8_t rq_out;		/* receives posted, not completed */
	bool pend;		/* a send waits for room in the SQ */
	bool write;		/* --op write on this connection */
	uint8_t op;		/* enum opt_op of this connection */
	bool imm;		/* SENDs carry imm_data (--qp-share: the client's id) */
	bool dead;
	bool ready;		/* in INIT with its receive posted: made ahead (rc_ep_ready) */
	uint32_t psn;
	uint32_t pend_len, pend_imm;
	/* the peer's buffer for RDMA WRITE */
	uint32_t rkey, rlen;
	uint64_t raddr;
};

static inline uint8_t *rc_sbuf(const struct rc_ep *e)
{
	return e->buf;
}

/* 8-aligned: an atomic's target */
static inline uint8_t *rc_rbuf(const struct rc_dev *d, const struct rc_ep *e)
{
	return e->buf + ((d->size + 7) & ~7u);
}

/* the rc_note of --op write on iWARP: after the recv half (at least 8), 8-aligned */
static inline uint32_t rc_note_off(const struct rc_dev *d)
{
	return ((d->size < 8 ? 8 : d->size) + 7) & ~7u;
}

static inline uint8_t *rc_note(const struct rc_dev *d, const struct rc_ep *e)
{
	return rc_rbuf(d, e) + rc_note_off(d);
}

/*
 * d->wnote: the receive completion *wc of a rc_note (its bytes at note) made
 * into the one a WRITE with immediate would have made (opcode, byte_len,
 * imm_data, IBV_WC_WITH_IMM). -1: not a whole note.
 */
int rc_note_wc(const uint8_t *note, struct ibv_wc *wc);

/* op works on the peer's buffer: its rkey, address and length are exchanged */
static inline bool rc_op_rbuf(enum opt_op op)
{
	return op != OPT_OP_SEND;
}

/* op's own completion ends the round trip: no receive, no echo */
static inline bool rc_op_onesided(enum opt_op op)
{
	return op == OPT_OP_READ || op == OPT_OP_ATOMIC;
}

/* what the peer may do to a connection's recv half under op (IBV_ACCESS_REMOTE_*) */
int rc_op_access(enum opt_op op);
/* the op word of oob.h's records for op, and back (OPT_OP_N: not an rc op) */
unsigned rc_op_oob(enum opt_op op);
enum opt_op rc_op_from_oob(unsigned op);

/*
 * Opens o->dev (NULL: the first device with a GID for local) and takes the
 * GID rdma/port's rules choose for local's family and address (or
 * --gid-index), with rport_open(), and allocates the PD; or, for rdma_cm, adopts the cm_id's context and PD
 * (librdmacm keeps one PD per device, id->pd: a second one would be a second
 * PD per process). Then the completion channel
 * (nonblocking) and the SRQ. Fatal errors are reported with ag_fatal();
 * returns 0 or -1. rc_dev_close leaves a borrowed context and PD alone: close
 * it before the last cm_id goes, which deallocates librdmacm's PD.
 */
int rc_dev_open(struct rc_dev *d, const struct ag_opts *o, const struct ipa *local,
		struct rdma_cm_id *cm);
void rc_dev_close(struct rc_dev *d);

/*
 * Creates e's CQs (or pool slots), MRs and, unless cm, its QP; with cm the QP is
 * made by rdma_create_qp() on that id. On failure everything made is undone and
 * f names the call.
 */
int rc_ep_create(struct rc_dev *d, struct rc_ep *e, uint32_t slot, enum opt_op op,
		 struct rdma_cm_id *cm, struct verbs_fail *f);
/*
 * Server side of a one-sided op, before the REP: read fills the recv half with
 * connection id's payload; atomic's counter starts at 0.
 */
void rc_ep_expose(struct rc_dev *d, struct rc_ep *e, uint32_t id);
/* --op atomic: the value of e's counter (the adds it took); 0 for other ops */
uint64_t rc_ep_atomics(const struct rc_dev *d, const struct rc_ep *e);
void rc_ep_destroy(struct rc_dev *d, struct rc_ep *e);
/*
 * An id without a QP of its own: --transport uc over rdmacm (librdmacm moves
 * only QPs of the id's type, RC, and makes UC ids only through rdma_create_ep's
 * blocking resolution), or a server's pooled RC QP, made before its id. e's own
 * QP goes to st with the attributes of its id (for UC, those UC has), an RC
 * QP's RTS with common/deadline.h's ACK timeout whatever the id's; the id's
 * connect and accept carry its qp_num.
 */
int rc_ep_cm_state(struct rc_ep *e, enum ibv_qp_state st, struct verbs_fail *f);
/* RESET -> INIT (oob only; rdma_cm does it for cm endpoints) */
int rc_ep_init(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f);
/*
 * RESET -> INIT and the first receive, all of the setup that needs no peer:
 * a server's pooled endpoint (rc_server.h) is made ready before any request.
 * e->ready tells its taker to skip both.
 */
int rc_ep_ready(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f);
/* INIT -> RTR -> RTS against the peer at LID lid and GID gid (oob only) */
int rc_ep_connect(struct rc_dev *d, struct rc_ep *e, uint32_t qpn, uint32_t psn, uint16_t lid,
		  const uint8_t gid[16], enum ibv_mtu mtu, struct verbs_fail *f);
/* A PSN from the CSPRNG. */
int rc_psn(uint32_t *psn);

/* One receive for e: on its RQ, or a top-up of the SRQ. */
int rc_post_recv(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f);
/* Sends len bytes of e's send half (SEND, or WRITE with imm to the peer's buffer),
 * or reads len bytes of the peer's buffer into the recv half (READ), or adds 1 to
 * the peer's counter, the old value landing in the recv half (ATOMIC).
 * With the SQ full the send waits in e->pend for rc_ep_sent(). */
int rc_post_send(struct rc_dev *d, struct rc_ep *e, uint32_t len, uint32_t imm,
		 struct verbs_fail *f);
/* A send completion of e came in: account it and post a waiting send. */
int rc_ep_sent(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f);
/*
 * e's QP failed and st is what said so. A flushed receive is only the effect of
 * the error its QP met first, which a lazy send CQ holds unread: that error
 * (LOC_QP_OP_ERR, RETRY_EXC_ERR, ...) when there is one, else st. Drains the
 * lazy CQ: for an endpoint about to be freed.
 */
enum ibv_wc_status rc_ep_first_err(struct rc_ep *e, enum ibv_wc_status st);
/* SRQ buffer slot of a receive completion; give it back with rc_srq_repost. */
uint8_t *rc_srq_buf(struct rc_dev *d, uint32_t slot);
int rc_srq_repost(struct rc_dev *d, uint32_t slot, struct verbs_fail *f);
/* slot of the endpoint that owns qp_num, or UINT32_MAX */
int rc_map_put(struct rc_map *m, uint32_t qpn, uint32_t slot);
uint32_t rc_map_get(const struct rc_map *m, uint32_t qpn);
void rc_map_del(struct rc_map *m, uint32_t qpn);

/* poll_run() of the device's channel */
int rc_dev_poll(struct rc_dev *d, poll_wc_cb cb, void *arg);

/* --- rc_async.c --- */

/*
 * One async event that ends connections: ep, the endpoint of a QP event
 * (IBV_EVENT_QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, QP_LAST_WQE_REACHED; the QP's
 * qp_context), or all: IBV_EVENT_PORT_ERR of the device's port or DEVICE_FATAL,
 * after which the role fails the endpoints whose QP is in error (rc_ep_failed)
 * or, for DEVICE_FATAL, every one. word ("QP_FATAL": the event's name without
 * IBV_EVENT_) is the err= of the records, call= is ibv_get_async_event.
 */
struct rc_async {
	struct rc_ep *ep;
	bool all;
	bool fatal;
	const char *word;
	enum ibv_event_type type;	/* the event, for a server's DOWN (oob.h) */
};
typedef void (*rc_async_cb)(void *arg, const struct rc_async *a);
/* the context's async fd nonblocking, for the role's loop (rc_dev_open calls it) */
int rc_async_open(struct rc_dev *d);
/*
 * Reads every pending async event and acknowledges it (before cb: a QP cannot
 * be destroyed while an event of it is unacknowledged); the others are only
 * acknowledged. 0, or -1 after a fatal record.
 */
int rc_async_poll(struct rc_dev *d, rc_async_cb cb, void *arg);
/* e's QP is in the error state */
bool rc_ep_failed(struct rc_ep *e);
/* "QP_FATAL" for the events that end connections; NULL for the others */
const char *rc_async_word(enum ibv_event_type t);

/* "retry_exceeded" for IBV_WC_RETRY_EXC_ERR: record-safe words */
const char *verbs_wc_word(enum ibv_wc_status st);

#endif
