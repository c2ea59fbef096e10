/* SPDX-License-Identifier: MIT */
/*
 * fab: the fi-msg and fi-rdm roles (libfabric endpoints), and what their files
 * share: the provider's answer, the fabric and domain, the EQ (msg) or AV
 * (rdm), each object's registered buffer, the completion queues and their
 * poller, and failures in libfabric's words.
 *
 * fi-msg: each client is an FI_EP_MSG endpoint connected by fi_connect to the
 * server's passive endpoint (one per --ports), which fi_accepts it; CM events
 * on one EQ per process. fi-rdm: each client is an FI_EP_RDM endpoint; the
 * server is one per port, addressed through an AV. A client's "connection" is
 * a hello carrying its endpoint name (fi_getname) to the server, which puts it
 * into its AV and answers; the provider (ofi_rxm) makes its connection beneath
 * as the two first talk, so "conn ok" times that. Messages of rdm are tagged:
 * FAB_TAG_HELLO or'ed with the server's peer slot in a hello's answer, the
 * slot alone in a round trip's (so the server knows whom to echo to without
 * FI_SOURCE). --srq gives each endpoint ofi_rxm's shared receive context
 * (FI_OFI_RXM_USE_SRX, whatever the environment says; fab.c says why).
 *
 * Every endpoint holds one buffer of FAB_SLOTS receive slots and, on the
 * client, a send slot, registered as one MR when the provider asks for
 * FI_MR_LOCAL. Receives alternate between the two slots, so the next is
 * posted before the message of the last is read. Completions: one CQ per
 * endpoint (--cq per-conn) or one per process (--cq shared); --poll event
 * sleeps on their FI_WAIT_FD fds (fi_trywait before each sleep), busy reads
 * every CQ on every loop turn (FI_WAIT_NONE).
 *
 * The folder: one row of agents/transport.c. May use the engine (ag, ctl, load,
 * phase, tag, opts), common/ and libfabric; never another transport's folder.
 */
#ifndef RDC_AGENTS_FI_FAB_H
#define RDC_AGENTS_FI_FAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "agents/opts.h"

/* the API version asked for: the headers' own */
#define FAB_VERSION FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)
/* receive slots per endpoint: the next receive is posted before a message is read */
#define FAB_SLOTS 2
/* fi-rdm: a hello's tag bit; its low bits carry the server's peer slot */
#define FAB_TAG_HELLO (1ull << 62)
#define FAB_TAG_SLOT 0xffffffffull
/* fi-rdm: an endpoint name (fi_getname), the payload of a hello */
#define FAB_NAME_MAX 256
/*
 * An msg endpoint's queues: a client has one send and a receive in flight, a
 * server one echo and the next receive. The verbs provider's defaults (384
 * each, prov/verbs/src/fi_verbs.c) cost each endpoint their memory for
 * nothing, and each endpoint's receives reserve that many entries of a CQ it
 * shares (vrb_ep_bind): 42 endpoints would hold a 16,384-entry CQ, every later
 * send then waiting on what is left.
 */
#define FAB_EP_DEPTH 8
/*
 * --cq shared: the one CQ's entries. Soft-RoCE takes at most 32767 (max_cqe);
 * an endpoint has at most a send and a receive completion unread, so the CQ
 * holds those of 8,192 endpoints whatever happens.
 */
#define FAB_CQ_SHARED 16384
/*
 * fi-msg --cq shared: the endpoints one CQ serves. Each binds FAB_EP_DEPTH of
 * its entries for its receives (vrb_ep_bind) and its sends take credits from
 * the rest (vrb_post_send), so FAB_CQ_SHARED / (2 x FAB_EP_DEPTH) = 1,024
 * endpoints share one and a send never waits on another endpoint's credit;
 * the next 1,024 get the next CQ.
 */
#define FAB_CQ_EPS (FAB_CQ_SHARED / (2 * FAB_EP_DEPTH))

/* fi-msg: the CQ of endpoint i, and the CQs n endpoints need */
static inline uint32_t fab_cq_of(const struct ag_opts *o, uint32_t i)
{
	return o->cq == OPT_CQ_SHARED ? i / FAB_CQ_EPS : i;
}

static inline uint32_t fab_cq_count(const struct ag_opts *o, uint32_t n)
{
	return o->cq == OPT_CQ_SHARED ? (n + FAB_CQ_EPS - 1) / FAB_CQ_EPS : n;
}
/* completions read per fi_cq_read */
#define FAB_CQ_BATCH 32

int fab_msg_server_run(const struct ag_opts *o);
int fab_msg_client_run(const struct ag_opts *o);
int fab_rdm_server_run(const struct ag_opts *o);
int fab_rdm_client_run(const struct ag_opts *o);

struct fab {
	const struct ag_opts *o;
	struct fi_info *info;	/* fi_getinfo's first answer for the port */
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;	/* msg: CM events, FI_WAIT_FD */
	int eq_fd;
	struct fid_av *av;	/* rdm */
	bool mr_local;		/* the provider wants buffers registered */
};

/*
 * One completion context per posted operation, first in it, so a completion's
 * op_context leads back to the operation (FI_CONTEXT2 mode).
 */
struct fab_op {
	struct fi_context2 ctx;
	uint32_t who;		/* the connection, endpoint or buffer index */
	uint8_t kind;		/* the role's own (send, receive slot) */
	uint8_t slot;
};

/*
 * fi-msg: what a server that could not take a connection request puts into
 * fi_reject's private data, so that its client's "conn fail" names the
 * server's failing call and errno (at=server), as rc's REJ does. Fixed size,
 * within every provider's reject data (verbs: 56 bytes less its header).
 */
#define FAB_REJ_MAGIC 0x72646301u	/* "rdc", version 1 */
struct fab_rej {
	uint32_t magic;
	int32_t err;
	char call[24];		/* NUL-terminated, [a-z0-9_] */
};

/* the record for call and err (a name too long is cut) */
void fab_rej_make(struct fab_rej *r, const char *call, int err);
/*
 * A reject's data as the client got it (any bytes): 0 and the call and errno
 * when it is a well-formed record, else -1.
 */
int fab_rej_parse(const void *data, size_t len, char *call, size_t clen, int *err);

/*
 * fi_getinfo for o's transport and provider at o->addr and port: a server's
 * as its source (FI_SOURCE), a client's as its destination; then the fabric,
 * the domain and the EQ (msg, eq_size entries) or the AV (rdm); a msg
 * client's info asks FAB_EP_DEPTH queues (fab_ep_depth). A fatal "error"
 * record naming the call on failure; fab_close() is safe after any outcome.
 */
int fab_open(struct fab *f, const struct ag_opts *o, uint32_t port, bool server,
	     size_t eq_size);
void fab_close(struct fab *f);
/* An msg endpoint's send and receive queues, FAB_EP_DEPTH each, in its info. */
void fab_ep_depth(struct fi_info *info);
/*
 * fi_getinfo for another port of the same server (fi_freeinfo it): 0, or -1
 * after a fatal record.
 */
int fab_info_port(const struct fab *f, uint32_t port, struct fi_info **out);

/* "fi: CALL OBJ: fi_strerror (provider errno N)" on stderr */
void fab_warn(const char *call, const char *obj, int err, int prov_errno);
/* fab_warn and the fatal "error call=CALL errno=E" record */
void fab_fatal(const char *call, const char *obj, int err, int prov_errno);
/* err of a call's negative return, as an errno (libfabric's are errno values or FI_E*) */
static inline int fab_errno(ssize_t ret)
{
	return ret < 0 ? (int)-ret : (int)ret;
}

/*
 * len bytes registered for send and receive when the provider asks (else *mr
 * NULL, *desc NULL). 0, or a negative fi_mr_reg return.
 */
int fab_mr(struct fab *f, void *buf, size_t len, struct fid_mr **mr, void **desc);
/* fi_close of any fid that is not NULL, a failure warned with what */
void fab_fclose(struct fid *fid, const char *what);

/* --- completion queues: a set, each with its fd, polled by --poll's rule --- */

/*
 * a completion of op (e->op_context), or its error (err != 0, e->len
 * undefined); fi-msg's entries carry no tag, buf or data (0)
 */
typedef void fab_cq_fn(void *arg, struct fab_op *op, const struct fi_cq_tagged_entry *e,
		       const struct fi_cq_err_entry *err);

struct fab_cqs {
	struct fab *f;
	struct fid_cq **cq;
	int *fd;		/* --poll event: each CQ's FI_WAIT_FD */
	uint32_t *hot;		/* CQs to read before the loop may sleep */
	uint8_t *is_hot;
	uint32_t n, nhot, cap;
	bool wait;		/* --poll event */
	bool tagged;		/* fi-rdm: FI_CQ_FORMAT_TAGGED; fi-msg reads FI_CQ_FORMAT_MSG */
	fab_cq_fn *fn;
	void *arg;
	uint64_t reads;		/* fi_cq_read calls (a busy loop's cost) */
};

int fab_cqs_init(struct fab_cqs *s, struct fab *f, uint32_t cap, fab_cq_fn *fn, void *arg);
void fab_cqs_fini(struct fab_cqs *s);
/*
 * CQ i of size entries (the caller binds it to its endpoints); --poll event
 * watches its fd on ep_fd with tag. 0, or a negative fi_ return
 * with *call naming the failing call.
 */
int fab_cq_open(struct fab_cqs *s, uint32_t i, size_t size, int ep_fd, uint64_t tag,
		const char **call);
void fab_cq_close(struct fab_cqs *s, uint32_t i, int ep_fd);

/*
 * After the EQ was read: fi_trywait on it, *hot left set while it may hold
 * more (the loop must not sleep). 0, or -1 after a fatal record.
 */
int fab_eq_rearm(struct fab *f, bool *hot);
/* fab_warn with the object "endpoint of client ID" */
void fab_cli_warn(const char *call, uint32_t id, int err, int prov_errno);
/*
 * A client connection's endpoint, MR and buffer closed and set NULL, and CQ i
 * of s with them when the connection has its own (own_cq; ep_fd: the loop's).
 */
void fab_cli_close(struct fab_cqs *s, uint32_t i, bool own_cq, int ep_fd, struct fid_ep **ep,
		   struct fid_mr **mr, uint8_t **buf);
/* CQ i's fd woke the loop: read it before the loop sleeps */
void fab_cq_woken(struct fab_cqs *s, uint32_t i);
/*
 * Reads the CQs that must be (every one with --poll busy), each into fn until
 * empty, and then, sleeping by fds, asks fi_trywait. Returns >0 when the loop
 * must not sleep, 0 when it may, -1 on a fatal error (recorded).
 */
int fab_cqs_poll(struct fab_cqs *s);

#endif
