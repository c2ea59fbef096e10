// SPDX-License-Identifier: MIT
/*
 * The agent's RDMA device: context, port and GID of the local address (from
 * rdma/port's rules), PD, completion channel and its poller (agents/verbs/poll.h),
 * SRQ; the qp_num map.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "agents/ag.h"
#include "agents/rc/rc.h"
#include "rdma/cap.h"
#include "rdma/siw.h"

int rc_psn(uint32_t *psn)
{
	uint8_t b[3];

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -1;
	*psn = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
	return 0;
}

/* Opens --device (port, GID index), or the first device with a GID for local. */
static int rc_open_ctx(struct rc_dev *d, const struct ag_opts *o, const struct ipa *local)
{
	struct rport_want w = { .family = local->family, .has_addr = true, .addr = local->a,
				.gid_index = o->gid_index };
	struct rdev_err e;
	int gidx;

	if (rport_open(o->dev, (uint8_t)o->device.port, &w, &d->ctx, &d->attr, &d->rp, &gidx,
		       &e)) {
		ag_fatal(e.call, e.obj, e.err);
		return -1;
	}
	d->own_ctx = true;
	d->port = d->rp.port;
	d->gidx = (uint8_t)gidx;
	d->gid = d->rp.gids[gidx].gid;
	d->path = ag_opts_path(o, gidx);
	return 0;
}

static int rc_srq_open(struct rc_dev *d)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_sge = 1 } };

	if (!d->attr.max_srq) {
		ag_fatal("ibv_create_srq", "device without SRQ", EOPNOTSUPP);
		return -1;
	}
	sa.attr.max_wr = d->rx_depth ? d->rx_depth : RC_SRQ_INIT;
	if (sa.attr.max_wr > (uint32_t)d->attr.max_srq_wr)
		sa.attr.max_wr = (uint32_t)d->attr.max_srq_wr;
	d->srq = ibv_create_srq(d->pd, &sa);
	if (!d->srq) {
		ag_fatal("ibv_create_srq", "agent SRQ", errno);
		return -1;
	}
	d->srq_max = sa.attr.max_wr;
	/* big messages make small chunks: a chunk is pinned memory */
	d->chunk = RC_SRQ_CHUNK_BYTES / (d->srq_len ? d->srq_len : d->size);
	if (d->chunk > RC_SRQ_CHUNK)
		d->chunk = RC_SRQ_CHUNK;
	if (!d->chunk)
		d->chunk = 1;
	return 0;
}

/*
 * the device offers what --op, uc and oob-tls ask (a device without it fails,
 * naming the cap): under --hosts no orchestrator looked at it (rdma/cap.h)
 */
static int rc_dev_caps(struct rc_dev *d, bool oob)
{
	unsigned need = (d->op == OPT_OP_READ ? RCAP_READ : 0) |
			(d->op == OPT_OP_ATOMIC ? RCAP_ATOMIC : 0) |
			(d->qpt == IBV_QPT_UC ? RCAP_UC : 0) | (oob ? RCAP_OOB : 0);
	char why[160];

	if (!need || !rcap_why(ibv_get_device_name(d->ctx->device), &d->attr,
			       d->ctx->device->transport_type, need, why, sizeof(why)))
		return 0;
	ag_fatal("ibv_query_device", why, EOPNOTSUPP);
	return -1;
}

int rc_dev_open(struct rc_dev *d, const struct ag_opts *o, const struct ipa *local,
		struct rdma_cm_id *cm)
{
	struct ibv_port_attr pa;
	char why[160];
	int err;

	memset(d, 0, sizeof(*d));
	d->size = o->size;
	d->shared_cq = o->cq == OPT_CQ_SHARED;
	d->shared_mr = o->mr == OPT_MR_SHARED;
	d->use_srq = o->srq;
	d->rx_depth = o->rx_depth;
	d->write = o->op == OPT_OP_WRITE;
	d->op = o->op;
	d->qpt = o->transport == OPT_TR_UC ? IBV_QPT_UC : IBV_QPT_RC;
	if (cm) {
		/* rdma_cm owns the context and the PD, and does the addressing */
		d->ctx = cm->verbs;
		d->pd = cm->pd;
		d->port = cm->port_num ? cm->port_num : 1;
		if (!d->pd) {
			ag_fatal("rdma_cm", "cm_id without a PD", ENODEV);
			return -1;
		}
		if (ibv_query_device(d->ctx, &d->attr)) {
			ag_fatal("ibv_query_device", "cm_id device", errno);
			return -1;
		}
	} else if (rc_open_ctx(d, o, local)) {
		return -1;
	}
	if (ibv_query_port(d->ctx, d->port, &pa)) {
		ag_fatal("ibv_query_port", ibv_get_device_name(d->ctx->device), errno);
		goto err_ctx;
	}
	d->mtu = pa.active_mtu;
	d->lid = pa.lid;
	if (rc_dev_caps(d, !cm))
		goto err_ctx;
	/* iWARP has no RDMA WRITE with immediate: a SEND after the WRITE says it
	 * (for every endpoint whose op is write, whatever this agent's --op) */
	d->wnote = d->ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	/* SRQ receives: a message, a note, or nothing (a WRITE with immediate) */
	d->srq_len = !d->write ? d->size : d->wnote ? RC_NOTE_LEN : 0;
	if (!d->pd) {
		d->pd = ibv_alloc_pd(d->ctx);
		if (!d->pd) {
			ag_fatal("ibv_alloc_pd", ibv_get_device_name(d->ctx->device), errno);
			goto err_ctx;
		}
	}
	/* before any queue of the context is mapped: the SRQ's, the endpoints' */
	if (rsiw_plug(d->ctx, &d->attr, &d->plug, why, sizeof(why))) {
		err = errno ? errno : EIO;
		ag_warn("%s", why);
		ag_fatal("ibv_create_cq", ibv_get_device_name(d->ctx->device), err);
		goto err_pd;
	}
	d->ch = ibv_create_comp_channel(d->ctx);
	if (!d->ch) {
		ag_fatal("ibv_create_comp_channel", ibv_get_device_name(d->ctx->device), errno);
		goto err_plug;
	}
	if (ag_nonblock(d->ch->fd)) {
		ag_fatal("fcntl", "completion channel", errno);
		goto err_ch;
	}
	poll_chan_init(&d->pl, d->ch, o->poll);
	if (rc_async_open(d))
		goto err_ch;
	if (d->use_srq && rc_srq_open(d))
		goto err_ch;
	/* the agent's own op: a slice is opened to it before any peer asks */
	rc_mr_init(&d->mrs, d->size, d->wnote, IBV_ACCESS_LOCAL_WRITE | rc_op_access(d->op));
	return 0;

err_ch:
	ibv_destroy_comp_channel(d->ch);
err_plug:
	if (d->plug)
		ibv_destroy_cq(d->plug);
err_pd:
	if (d->own_ctx)
		ibv_dealloc_pd(d->pd);
err_ctx:
	if (d->own_ctx)
		ibv_close_device(d->ctx);
	rport_free(&d->rp);
	d->ctx = NULL;
	return -1;
}

void rc_dev_close(struct rc_dev *d)
{
	uint32_t i;
	int err;

	if (!d->ctx)
		return;
	if (d->srq) {
		err = ibv_destroy_srq(d->srq);
		if (err)
			ag_warn("ibv_destroy_srq: %s", strerror(err));
	}
	for (i = 0; i < d->nchunks; i++) {
		if (d->chunks[i].mr && (err = ibv_dereg_mr(d->chunks[i].mr)))
			ag_warn("ibv_dereg_mr SRQ chunk: %s", strerror(err));
		free(d->chunks[i].buf);
	}
	free(d->chunks);
	rc_mr_fini(&d->mrs);
	free(d->srq_free);
	free(d->map.key);
	free(d->map.val);
	/* endpoints are gone; a pool CQ left here would be a leak in the counters */
	for (i = 0; i < d->npool; i++)
		ag_warn("shared CQ %u still has %u QPs at close", i, d->pool[i]->users);
	free(d->pool);
	poll_chan_fini(&d->pl);
	if ((err = ibv_destroy_comp_channel(d->ch)))
		ag_warn("ibv_destroy_comp_channel: %s", strerror(err));
	if (d->plug && (err = ibv_destroy_cq(d->plug)))
		ag_warn("ibv_destroy_cq siw plug: %s", strerror(err));
	if (d->own_ctx && (err = ibv_dealloc_pd(d->pd)))
		ag_warn("ibv_dealloc_pd: %s", strerror(err));
	if (d->own_ctx && ibv_close_device(d->ctx))
		ag_warn("ibv_close_device: %s", strerror(errno));
	rport_free(&d->rp);
	d->ctx = NULL;
}

/* --- SRQ --- */

uint8_t *rc_srq_buf(struct rc_dev *d, uint32_t slot)
{
	return d->chunks[slot / d->chunk].buf + (size_t)(slot % d->chunk) * d->srq_len;
}

/* A new chunk of slots: buffers and their MR, unless the peer writes (no buffers). */
static int rc_srq_chunk(struct rc_dev *d, struct verbs_fail *f)
{
	struct rc_srqbuf *c;
	uint32_t *fr, i;

	c = realloc(d->chunks, (d->nchunks + 1) * sizeof(*c));
	if (!c)
		goto nomem;
	d->chunks = c;
	fr = realloc(d->srq_free, (d->srq_slots + d->chunk) * sizeof(*fr));
	if (!fr)
		goto nomem;
	d->srq_free = fr;
	c = &d->chunks[d->nchunks];
	memset(c, 0, sizeof(*c));
	if (d->srq_len) {
		c->buf = aligned_alloc(64, ((size_t)d->chunk * d->srq_len + 63) & ~(size_t)63);
		if (!c->buf)
			goto nomem;
		c->mr = ibv_reg_mr(d->pd, c->buf, (size_t)d->chunk * d->srq_len,
				   IBV_ACCESS_LOCAL_WRITE);
		if (!c->mr) {
			f->call = "ibv_reg_mr";
			f->err = errno;
			free(c->buf);
			return -1;
		}
	}
	for (i = 0; i < d->chunk; i++)
		d->srq_free[d->nfree++] = d->srq_slots + d->chunk - 1 - i;
	d->srq_slots += d->chunk;
	d->nchunks++;
	return 0;
nomem:
	f->call = "malloc";
	f->err = ENOMEM;
	return -1;
}

static int rc_srq_post(struct rc_dev *d, uint32_t slot, struct verbs_fail *f)
{
	struct rc_srqbuf *c = &d->chunks[slot / d->chunk];
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf ? rc_srq_buf(d, slot) : NULL),
		.length = d->srq_len,
		.lkey = c->mr ? c->mr->lkey : 0,
	};
	struct ibv_recv_wr wr = {
		.wr_id = RC_WR(RC_WR_SRQ, 0, slot),
		.sg_list = &sge,
		.num_sge = c->buf ? 1 : 0,
	}, *bad;
	int err;

	err = ibv_post_srq_recv(d->srq, &wr, &bad);
	if (err) {
		f->call = "ibv_post_srq_recv";
		f->err = err;
		d->srq_free[d->nfree++] = slot;
		return -1;
	}
	d->srq_posted++;
	return 0;
}

/*
 * The receives the SRQ should hold: one per endpoint, plus a few for bursts;
 * --rx-depth caps them (and the SRQ does not grow), so a run can starve it.
 */
static uint32_t rc_srq_want(const struct rc_dev *d)
{
	uint32_t want = d->nlive + 16;

	return d->rx_depth && want > d->srq_max ? d->srq_max : want;
}

static int rc_srq_fill(struct rc_dev *d, struct verbs_fail *f)
{
	struct ibv_srq_attr sa;
	uint32_t want = rc_srq_want(d);

	while (d->srq_posted < want) {
		if (d->srq_posted >= d->srq_max) {
			if (d->srq_max >= (uint32_t)d->attr.max_srq_wr) {
				f->call = "ibv_modify_srq";
				f->err = ENOSPC;
				return -1;
			}
			sa.max_wr = d->srq_max * 2 < (uint32_t)d->attr.max_srq_wr ?
				d->srq_max * 2 : (uint32_t)d->attr.max_srq_wr;
			sa.srq_limit = 0;
			if ((f->err = ibv_modify_srq(d->srq, &sa, IBV_SRQ_MAX_WR))) {
				f->call = "ibv_modify_srq";
				return -1;
			}
			d->srq_max = sa.max_wr;
		}
		if (!d->nfree && rc_srq_chunk(d, f))
			return -1;
		if (rc_srq_post(d, d->srq_free[--d->nfree], f))
			return -1;
	}
	return 0;
}

int rc_srq_repost(struct rc_dev *d, uint32_t slot, struct verbs_fail *f)
{
	if (slot >= d->srq_slots) {
		f->call = "ibv_poll_cq";
		f->err = EPROTO;
		return -1;
	}
	d->srq_posted--;
	if (d->srq_posted >= rc_srq_want(d)) {
		/* endpoints left: keep the slot unposted rather than over-fill */
		d->srq_free[d->nfree++] = slot;
		return 0;
	}
	return rc_srq_post(d, slot, f);
}

int rc_post_recv(struct rc_dev *d, struct rc_ep *e, struct verbs_fail *f)
{
	bool note = e->write && d->wnote;
	struct ibv_sge sge = {
		.addr = (uintptr_t)(note ? rc_note(d, e) : rc_rbuf(d, e)),
		.length = note ? RC_NOTE_LEN : d->size,
		.lkey = e->rmr ? e->rmr->lkey : 0,
	};
	struct ibv_recv_wr wr = {
		.wr_id = RC_WR(RC_WR_RECV, e->gen, e->slot),
		.sg_list = &sge,
		/* a WRITE with immediate lands in rbuf by rkey; the receive carries
		 * none, or iWARP's note */
		.num_sge = e->write && !note ? 0 : 1,
	}, *bad;
	int err;

	if (d->use_srq)
		return rc_srq_fill(d, f);
	err = ibv_post_recv(e->qp, &wr, &bad);
	if (err) {
		f->call = "ibv_post_recv";
		f->err = err;
		return -1;
	}
	e->rq_out++;
	return 0;
}

/* --- qp_num map --- */

static uint32_t rc_hash(uint32_t k)
{
	return k * 0x9e3779b1u;
}

/* Copies the live cells into a table of cap cells, dropping tombstones. */
static int rc_map_rehash(struct rc_map *m, uint32_t cap)
{
	uint32_t *key = calloc(cap, sizeof(*key)), *val = malloc(cap * sizeof(*val));
	uint32_t i, j;

	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	/* qp_num 0 is never an RC QP: it marks an empty cell */
	for (i = 0; i < m->cap; i++) {
		if (!m->key[i] || m->val[i] == UINT32_MAX)
			continue;
		for (j = rc_hash(m->key[i]) & (cap - 1); key[j]; j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	m->used = m->live;
	return 0;
}

/* A deleted cell keeps its key with val UINT32_MAX (a tombstone) until a rehash. */
int rc_map_put(struct rc_map *m, uint32_t qpn, uint32_t slot)
{
	uint32_t cap, j;

	if ((m->used + 1) * 2 > m->cap) {
		cap = m->cap ? m->cap : 1024;
		while ((m->live + 1) * 4 > cap)
			cap *= 2;
		if (rc_map_rehash(m, cap))
			return -1;
	}
	for (j = rc_hash(qpn) & (m->cap - 1); m->key[j] && m->key[j] != qpn;
	     j = (j + 1) & (m->cap - 1))
		;
	if (!m->key[j])
		m->used++;
	if (!m->key[j] || m->val[j] == UINT32_MAX)
		m->live++;
	m->key[j] = qpn;
	m->val[j] = slot;
	return 0;
}

uint32_t rc_map_get(const struct rc_map *m, uint32_t qpn)
{
	uint32_t j;

	if (!m->cap)
		return UINT32_MAX;
	for (j = rc_hash(qpn) & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == qpn)
			return m->val[j];
	return UINT32_MAX;
}

void rc_map_del(struct rc_map *m, uint32_t qpn)
{
	uint32_t j;

	if (!m->cap)
		return;
	for (j = rc_hash(qpn) & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == qpn) {
			if (m->val[j] != UINT32_MAX)
				m->live--;
			m->val[j] = UINT32_MAX;
			return;
		}
}

int rc_dev_poll(struct rc_dev *d, poll_wc_cb cb, void *arg)
{
	return poll_run(&d->pl, cb, arg);
}
