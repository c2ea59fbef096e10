// SPDX-License-Identifier: MIT
/*
 * One RC connection's verbs resources (the resource models of rc.h), its QP
 * state changes and its posts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/load.h"
#include "agents/oob/oob.h"
#include "agents/rc/rc.h"
#include "common/deadline.h"

static int rc_fail(struct verbs_fail *f, const char *call, int err)
{
	f->call = call;
	f->err = err ? err : EIO;
	return -1;
}

/* what the peer may do to the recv half */
int rc_op_access(enum opt_op op)
{
	switch (op) {
	case OPT_OP_WRITE:
		return IBV_ACCESS_REMOTE_WRITE;
	case OPT_OP_READ:
		return IBV_ACCESS_REMOTE_READ;
	case OPT_OP_ATOMIC:
		return IBV_ACCESS_REMOTE_ATOMIC;
	default:
		return 0;
	}
}

unsigned rc_op_oob(enum opt_op op)
{
	static const unsigned oob[OPT_OP_N] = {
		[OPT_OP_SEND] = OOB_OP_SEND, [OPT_OP_WRITE] = OOB_OP_WRITE,
		[OPT_OP_READ] = OOB_OP_READ, [OPT_OP_ATOMIC] = OOB_OP_ATOMIC,
	};

	return oob[op];
}

enum opt_op rc_op_from_oob(unsigned op)
{
	for (int i = 0; i < OPT_OP_N; i++)
		if (rc_op_oob((enum opt_op)i) == op)
			return (enum opt_op)i;
	return OPT_OP_N;
}

static struct poll_cq *rc_cq_new(struct rc_dev *d, struct poll_chan *pl, int cqe, bool lazy,
			       struct verbs_fail *f)
{
	struct poll_cq *c = calloc(1, sizeof(*c));

	if (!c) {
		rc_fail(f, "malloc", ENOMEM);
		return NULL;
	}
	/* a provider may fail without setting errno (libsiw): EIO then, not a stale one */
	errno = 0;
	c->cq = ibv_create_cq(d->ctx, cqe, c, pl->ch, 0);
	if (!c->cq) {
		rc_fail(f, "ibv_create_cq", errno);
		free(c);
		return NULL;
	}
	if (poll_cq_start(pl, c, lazy, f)) {
		ibv_destroy_cq(c->cq);
		free(c);
		return NULL;
	}
	return c;
}

static void rc_cq_free(struct poll_cq *c)
{
	int err;

	poll_cq_stop(c);
	/* ibv_destroy_cq waits until every event it handed out is acknowledged */
	if (c->unacked)
		ibv_ack_cq_events(c->cq, c->unacked);
	err = ibv_destroy_cq(c->cq);
	if (err)
		ag_warn("ibv_destroy_cq: %s", strerror(err));
	free(c);
}

/* A pool CQ with room for one more QP; a new one, max_cqe deep, when all are full. */
static struct poll_cq *rc_pool_get(struct rc_dev *d, struct verbs_fail *f)
{
	uint32_t i, cap = (uint32_t)d->attr.max_cqe / RC_QP_CQE;
	struct poll_cq **p, *c;

	for (i = 0; i < d->npool; i++)
		if (d->pool[i]->users < d->pool[i]->cap) {
			d->pool[i]->users++;
			return d->pool[i];
		}
	if (!cap) {
		ag_warn("shared CQ: max_cqe %d cannot hold one QP's %d completions",
			d->attr.max_cqe, RC_QP_CQE);
		rc_fail(f, "ibv_create_cq", EINVAL);
		return NULL;
	}
	if (d->npool == d->pool_cap) {
		p = realloc(d->pool, (d->pool_cap ? d->pool_cap * 2 : 8) * sizeof(*p));
		if (!p) {
			rc_fail(f, "malloc", ENOMEM);
			return NULL;
		}
		d->pool = p;
		d->pool_cap = d->pool_cap ? d->pool_cap * 2 : 8;
	}
	/* one CQ holds at most max_cqe entries (32767 on rxe): that fixes QPs per CQ */
	c = rc_cq_new(d, &d->pl, (int)(cap * RC_QP_CQE), false, f);
	if (!c) {
		ag_warn("shared CQ %u of %u entries (max_cqe %d, %u QPs each): %s",
			d->npool, cap * RC_QP_CQE, d->attr.max_cqe, cap, strerror(f->err));
		return NULL;
	}
	c->cap = cap;
	c->users = 1;
	d->pool[d->npool++] = c;
	return c;
}

static void rc_pool_put(struct rc_dev *d, struct poll_cq *c)
{
	uint32_t i;

	if (--c->users)
		return;
	/* an empty CQ goes, so the counters return to the baseline */
	for (i = 0; i < d->npool && d->pool[i] != c; i++)
		;
	if (i < d->npool)
		d->pool[i] = d->pool[--d->npool];
	rc_cq_free(c);
}

static int rc_ep_cqs(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f)
{
	if (d->shared_cq) {
		e->scq = e->rcq = rc_pool_get(d, f);
		return e->scq ? 0 : -1;
	}
	/* lazy: reaped when a send waits for room, so sends wake nobody; a
	 * one-sided op's completion is its round trip's end */
	e->scq = rc_cq_new(d, e->pl ? e->pl : &d->pl, RC_SQ, !rc_op_onesided(e->op), f);
	if (!e->scq)
		return -1;
	e->rcq = rc_cq_new(d, e->pl ? e->pl : &d->pl, RC_RQ, false, f);
	if (!e->rcq) {
		rc_cq_free(e->scq);
		e->scq = NULL;
		return -1;
	}
	return 0;
}

static void rc_ep_cqs_free(struct rc_dev *d, struct rc_ep *e)
{
	if (d->shared_cq) {
		if (e->scq)
			rc_pool_put(d, e->scq);
	} else {
		if (e->rcq)
			rc_cq_free(e->rcq);
		if (e->scq)
			rc_cq_free(e->scq);
	}
	e->scq = e->rcq = NULL;
}

/* e's QP from ia, whose cap the provider updates to what the QP got */
static int rc_qp_make(struct rc_dev *d, struct rc_ep *e, struct rdma_cm_id *cm,
		      struct ibv_qp_init_attr *ia, struct verbs_fail *f)
{
	/* librdmacm moves only the QPs of the id's type (RC): a UC QP is ours;
	 * errno cleared: a provider may fail without setting it (libsiw) */
	errno = 0;
	if (cm && d->qpt == IBV_QPT_RC) {
		if (rdma_create_qp(cm, d->pd, ia)) {
			e->qp = NULL;
			return rc_fail(f, "rdma_create_qp", errno);
		}
		e->qp = cm->qp;
		return 0;
	}
	e->qp = ibv_create_qp(d->pd, ia);
	return e->qp ? 0 : rc_fail(f, "ibv_create_qp", errno);
}

int rc_ep_create(struct rc_dev *d, struct rc_ep *e, uint32_t slot, enum opt_op op,
		 struct rdma_cm_id *cm, struct verbs_fail *f)
{
	struct ibv_qp_init_attr ia = { .qp_type = d->qpt };
	/* an atomic's counter is 8 bytes whatever --size says */
	uint32_t rlen = op == OPT_OP_ATOMIC && d->size < 8 ? 8 : d->size;
	size_t len = ((size_t)((d->size + 7) & ~7u) + rlen + 63) & ~(size_t)63;
	int access = IBV_ACCESS_LOCAL_WRITE | rc_op_access(op);
	bool write = op == OPT_OP_WRITE;
	/* iWARP: the recv MR also takes the note that follows each RDMA WRITE */
	bool note = write && d->wnote;
	size_t rmlen = rlen;

	/* a peer's REQ asks for the op (oob.h): one this QP type has, or none */
	if (op >= OPT_OP_N || (d->qpt != IBV_QPT_RC && rc_op_onesided(op)))
		return rc_fail(f, "request", EPROTO);
	e->slot = slot;
	e->write = write;
	e->op = (uint8_t)op;
	e->sq_out = e->rq_out = 0;
	e->pend = e->dead = e->ready = false;
	e->cm = cm;
	e->rbytes = rlen;
	if (d->shared_mr && (rc_op_access(op) & ~d->mrs.access))
		return rc_fail(f, "request", EPROTO);	/* an op the slices were not opened to */
	if (note) {
		rmlen = (size_t)rc_note_off(d) + RC_NOTE_LEN;
		len = ((size_t)((d->size + 7) & ~7u) + rmlen + 63) & ~(size_t)63;
	}
	if (rc_ep_cqs(d, e, f))
		return -1;
	if (d->shared_mr) {
		if (rc_mr_get(&d->mrs, d->pd, &e->mrc, &e->mri, &e->buf, &e->smr, f))
			goto err_cq;
		if (!d->use_srq || rc_op_rbuf(op))
			e->rmr = e->smr;
		goto qp;
	}
	e->buf = aligned_alloc(64, len);
	if (!e->buf) {
		rc_fail(f, "malloc", ENOMEM);
		goto err_cq;
	}
	memset(e->buf, 0, len);
	e->smr = ibv_reg_mr(d->pd, e->buf, d->size, 0);
	if (!e->smr) {
		rc_fail(f, "ibv_reg_mr", errno);
		goto err_buf;
	}
	/* with an SRQ, received bytes land in its buffers unless the peer's op
	 * works on this one */
	if (!d->use_srq || rc_op_rbuf(op)) {
		e->rmr = ibv_reg_mr(d->pd, rc_rbuf(d, e), rmlen, access);
		if (!e->rmr) {
			rc_fail(f, "ibv_reg_mr", errno);
			goto err_smr;
		}
	}
qp:
	ia.send_cq = e->scq->cq;
	ia.recv_cq = e->rcq->cq;
	ia.srq = d->srq;
	/* an async event of the QP names its endpoint (rc_async_poll) */
	ia.qp_context = e;
	/* iWARP's write: an RDMA WRITE and its note per message */
	ia.cap.max_send_wr = note ? 2 * RC_SQ : RC_SQ;
	ia.cap.max_recv_wr = d->srq ? 0 : d->rx_depth ? d->rx_depth : RC_RQ;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = d->srq ? 0 : 1;
	/* a small SEND goes inline (perftest's RC default room); the note always */
	ia.cap.max_inline_data = note ? RC_NOTE_LEN :
				 d->size <= RC_INLINE_MAX && !rc_op_onesided(op) ? d->size : 0;
	if (rc_qp_make(d, e, cm, &ia, f) && (note || !ia.cap.max_inline_data || f->err != EINVAL))
		goto err_rmr;
	/* a device with less inline room than asked: a QP without */
	if (!e->qp) {
		ia.cap.max_inline_data = 0;
		if (rc_qp_make(d, e, cm, &ia, f))
			goto err_rmr;
	}
	/* the note's WRITE goes as it did: only a SEND's payload inline */
	e->inl = note ? 0 : ia.cap.max_inline_data;
	if (d->srq && rc_map_put(&d->map, e->qp->qp_num, slot)) {
		rc_fail(f, "malloc", ENOMEM);
		goto err_qp;
	}
	/* the thread server creates endpoints from many threads */
	__atomic_fetch_add(&d->nlive, 1, __ATOMIC_RELAXED);
	return 0;

err_qp:
	if (cm && cm->qp)
		rdma_destroy_qp(cm);
	else
		ibv_destroy_qp(e->qp);
	e->qp = NULL;
err_rmr:
	if (d->shared_mr) {
		rc_mr_put(&d->mrs, e->mrc, e->mri);
		e->smr = e->rmr = NULL;
		e->buf = NULL;
		goto err_cq;
	}
	if (e->rmr)
		ibv_dereg_mr(e->rmr);
	e->rmr = NULL;
err_smr:
	ibv_dereg_mr(e->smr);
	e->smr = NULL;
err_buf:
	free(e->buf);
	e->buf = NULL;
err_cq:
	rc_ep_cqs_free(d, e);
	return -1;
}

void rc_ep_destroy(struct rc_dev *d, struct rc_ep *e)
{
	int err;

	if (!e->qp && !e->scq)
		return;
	if (e->qp) {
		if (d->srq)
			rc_map_del(&d->map, e->qp->qp_num);
		if (e->cm && e->cm->qp)
			rdma_destroy_qp(e->cm);
		else if ((err = ibv_destroy_qp(e->qp)))
			ag_warn("ibv_destroy_qp %u: %s", e->qp->qp_num, strerror(err));
		e->qp = NULL;
		__atomic_fetch_sub(&d->nlive, 1, __ATOMIC_RELAXED);
	}
	if (d->shared_mr && e->buf) {
		rc_mr_put(&d->mrs, e->mrc, e->mri);
	} else {
		if (e->rmr && (err = ibv_dereg_mr(e->rmr)))
			ag_warn("ibv_dereg_mr: %s", strerror(err));
		if (e->smr && (err = ibv_dereg_mr(e->smr)))
			ag_warn("ibv_dereg_mr: %s", strerror(err));
		free(e->buf);
	}
	e->rmr = e->smr = NULL;
	e->buf = NULL;
	rc_ep_cqs_free(d, e);
	e->cm = NULL;
}

int rc_ep_init(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = d->port,
		.qp_access_flags = rc_op_access((enum opt_op)e->op),
	};
	int err;

	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	return err ? rc_fail(f, "ibv_modify_qp", err) : 0;
}

int rc_ep_ready(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f)
{
	if (rc_ep_init(d, e, f) || rc_post_recv(d, e, f))
		return -1;
	e->ready = true;
	return 0;
}

int rc_ep_connect(struct rc_dev *d, struct rc_ep *e, uint32_t qpn, uint32_t psn, uint16_t lid,
		  const uint8_t gid[16], enum ibv_mtu mtu, struct verbs_fail *f)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu < d->mtu ? mtu : d->mtu,
		.dest_qp_num = qpn,
		.rq_psn = psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = DL_RC_MIN_RNR_TIMER,
	};
	/* UC has no responder resources, RNR, timeout or retries */
	bool rc = d->qpt == IBV_QPT_RC;
	union ibv_gid dgid;
	char why[160];
	int err;

	memcpy(dgid.raw, gid, 16);
	if (rport_av(&d->rp, lid, &dgid, &d->path, &a.ah_attr, why, sizeof(why))) {
		ag_warn("address vector: %s", why);
		return rc_fail(f, "ibv_modify_qp", errno);
	}
	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    (rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0));
	if (err)
		return rc_fail(f, "ibv_modify_qp", err);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/* how soon a dead peer is noticed: common/deadline.h */
	a.timeout = DL_RC_ACK_TIMEOUT;
	a.retry_cnt = DL_RC_RETRY_CNT;
	a.rnr_retry = DL_RC_RNR_RETRY;
	a.sq_psn = e->psn;
	a.max_rd_atomic = 1;
	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    (rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC : 0));
	return err ? rc_fail(f, "ibv_modify_qp", err) : 0;
}

int rc_ep_cm_state(struct rc_ep *e, enum ibv_qp_state st, struct verbs_fail *f)
{
	struct ibv_qp_attr a = { .qp_state = st };
	int mask, err;

	if (rdma_init_qp_attr(e->cm, &a, &mask))
		return rc_fail(f, "rdma_init_qp_attr", errno);
	if (e->qp->qp_type == IBV_QPT_RC) {
		/* before the accept the CM knows only the peer's depths: ours are
		 * 1 (the conn_param's), as librdmacm's ucma_modify_qp_rtr/rts set */
		a.max_dest_rd_atomic = 1;
		a.max_rd_atomic = 1;
		/* how soon a dead peer is noticed: common/deadline.h, whatever the id says */
		if (st == IBV_QPS_RTS) {
			a.timeout = DL_RC_ACK_TIMEOUT;
			mask |= IBV_QP_TIMEOUT;
		}
	} else {
		/* the id's type is RC: leave out what UC has not */
		mask &= ~(IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	}
	if (st == IBV_QPS_INIT) {
		a.qp_access_flags = (unsigned)rc_op_access((enum opt_op)e->op);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	err = ibv_modify_qp(e->qp, &a, mask);
	return err ? rc_fail(f, "ibv_modify_qp", err) : 0;
}

/* READ into the recv half, or fetch-and-add 1 with the old value landing there */
static void rc_wr_onesided(struct rc_dev *d, struct rc_ep *e, struct ibv_send_wr *wr,
			   struct ibv_sge *sge)
{
	sge->addr = (uintptr_t)rc_rbuf(d, e);
	sge->lkey = e->rmr->lkey;
	wr->imm_data = 0;
	if (e->op == OPT_OP_READ) {
		wr->opcode = IBV_WR_RDMA_READ;
		return;
	}
	wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	sge->length = 8;
	wr->wr.atomic.remote_addr = e->raddr;
	wr->wr.atomic.rkey = e->rkey;
	wr->wr.atomic.compare_add = 1;
	wr->wr.atomic.swap = 0;
}

void rc_ep_expose(struct rc_dev *d, struct rc_ep *e, uint32_t id)
{
	if (e->op == OPT_OP_READ)
		load_payload(id, 0, 0, rc_rbuf(d, e), d->size);
	else if (e->op == OPT_OP_ATOMIC)
		memset(rc_rbuf(d, e), 0, 8);
}

uint64_t rc_ep_atomics(const struct rc_dev *d, const struct rc_ep *e)
{
	if (e->op != OPT_OP_ATOMIC || !e->buf)
		return 0;
	/* the device wrote it behind the compiler's back; rc_rbuf is 8-aligned */
	return __atomic_load_n((const uint64_t *)(const void *)rc_rbuf(d, e), __ATOMIC_ACQUIRE);
}

int rc_note_wc(const uint8_t *note, struct ibv_wc *wc)
{
	struct rc_note n;

	if (wc->opcode != IBV_WC_RECV || wc->byte_len != RC_NOTE_LEN)
		return -1;
	memcpy(&n, note, sizeof(n));
	wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	wc->byte_len = ntohl(n.len);
	/* imm_data is in network order, as the note carries it */
	wc->imm_data = n.imm;
	wc->wc_flags |= IBV_WC_WITH_IMM;
	return 0;
}

int rc_post_send(struct rc_dev *d, struct rc_ep *e, uint32_t len, uint32_t imm,
		 struct verbs_fail *f)
{
	struct rc_note n = { .len = htonl(len), .imm = htonl(imm) };
	struct ibv_sge nsge = { .addr = (uintptr_t)&n, .length = RC_NOTE_LEN };
	/* inline: the note is copied at the post, so it may live on the stack */
	struct ibv_send_wr nwr = {
		.wr_id = RC_WR(RC_WR_SEND, e->gen, e->slot),
		.sg_list = &nsge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc_sbuf(e),
		.length = len,
		.lkey = e->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = RC_WR(RC_WR_SEND, e->gen, e->slot),
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = e->write ? (d->wnote ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_WRITE_WITH_IMM) :
			  e->imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.imm_data = htonl(imm),
	}, *bad;
	int err;

	if (e->sq_out >= RC_SQ) {
		/* the previous send is not reaped yet: go when its completion comes */
		e->pend = true;
		e->pend_len = len;
		e->pend_imm = imm;
		return poll_cq_want(e->scq, true, f);
	}
	/* the send that fills the SQ is the one whose completion frees it (rc.h);
	 * a READ or atomic is its own answer, so it always asks for its completion */
	if (e->sq_out + 1 == RC_SQ || rc_op_onesided((enum opt_op)e->op))
		wr.send_flags = IBV_SEND_SIGNALED;
	if (len <= e->inl)
		wr.send_flags |= IBV_SEND_INLINE;
	if (rc_op_rbuf((enum opt_op)e->op)) {
		if (len > e->rlen)
			return rc_fail(f, "ibv_post_send", EMSGSIZE);
		wr.wr.rdma.remote_addr = e->raddr;
		wr.wr.rdma.rkey = e->rkey;
	}
	if (rc_op_onesided((enum opt_op)e->op))
		rc_wr_onesided(d, e, &wr, &sge);
	if (e->write && d->wnote) {
		/* the note completes after the WRITE: it carries the signal */
		nwr.send_flags |= wr.send_flags;
		wr.send_flags = 0;
		wr.imm_data = 0;
		wr.next = &nwr;
	}
	err = ibv_post_send(e->qp, &wr, &bad);
	if (err)
		return rc_fail(f, "ibv_post_send", err);
	e->sq_out++;
	return 0;
}

int rc_ep_sent(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f)
{
	/* a signaled send completed: every send before it did too */
	e->sq_out = 0;
	if (!e->pend)
		return 0;
	e->pend = false;
	if (poll_cq_want(e->scq, false, f))
		return -1;
	return rc_post_send(d, e, e->pend_len, e->pend_imm, f);
}

enum ibv_wc_status rc_ep_first_err(struct rc_ep *e, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	if (st != IBV_WC_WR_FLUSH_ERR || !e->scq || !e->scq->lazy)
		return st;
	while (ibv_poll_cq(e->scq->cq, 1, &wc) == 1)
		if (wc.status != IBV_WC_SUCCESS && wc.status != IBV_WC_WR_FLUSH_ERR)
			return wc.status;
	return st;
}
