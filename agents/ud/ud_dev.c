// SPDX-License-Identifier: MIT
/*
 * ud: device, QPs, posts and address handles both roles share (see ud.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include <rdma/rdma_cma.h>

#include "agents/ud/ud.h"
#include "common/proto.h"
#include "rdma/cap.h"

/* --device (port, GID index), or the first device with a GID for local (oob-tls). */
static int ud_open_ctx(struct ud_dev *d, const struct ag_opts *o, const struct rport_want *w,
		       int *gidx)
{
	struct rdev_err e;

	if (rport_open(o->dev, (uint8_t)o->device.port, w, &d->ctx, &d->attr, &d->rp, gidx, &e)) {
		ag_fatal(e.call, e.obj, e.err);
		return -1;
	}
	d->own_ctx = true;
	return 0;
}

/*
 * rdma_cm resolved the device and port (cm's verbs context): the port rules
 * only pick local's GID on it, the source GID of the address vectors.
 */
static int ud_cm_ctx(struct ud_dev *d, const struct rport_want *w, struct rdma_cm_id *cm,
		     int *gidx)
{
	struct rdev_err e;
	char why[160];
	int ret;

	if (!cm->verbs) {
		ag_fatal("rdma_bind_addr", "cm_id on a wildcard address (no device)", EADDRNOTAVAIL);
		return -1;
	}
	d->ctx = cm->verbs;
	ret = ibv_query_device(d->ctx, &d->attr);
	if (ret) {
		ag_fatal("ibv_query_device", ibv_get_device_name(d->ctx->device), ret);
		return -1;
	}
	if (rport_query(d->ctx, cm->port_num ? cm->port_num : 1, &d->rp, &e)) {
		ag_fatal(e.call, e.obj, e.err);
		return -1;
	}
	*gidx = rport_gid_choose(&d->rp, w, why, sizeof(why));
	if (*gidx < 0) {
		ag_fatal("ibv_query_gid", why, errno);
		return -1;
	}
	return 0;
}

int ud_dev_open(struct ud_dev *d, const struct ag_opts *o, const struct ipa *local,
		struct rdma_cm_id *cm)
{
	struct rport_want w = { .family = local->family, .has_addr = true, .addr = local->a,
				.gid_index = o->gid_index };
	char why[160];
	int mtu, gidx;

	memset(d, 0, sizeof(*d));
	d->size = o->size;
	/* rdma_cm answers a UDP port space request with its own Q_Key */
	d->qkey = o->cm == OPT_CM_RDMACM ? RDMA_UDP_QKEY : UD_QKEY;
	if (cm ? ud_cm_ctx(d, &w, cm, &gidx) : ud_open_ctx(d, o, &w, &gidx))
		goto err;
	/* --hosts: no orchestrator looked at this device (rdma/cap.h) */
	if (rcap_why(ibv_get_device_name(d->ctx->device), &d->attr, d->ctx->device->transport_type,
		     RCAP_UD, why, sizeof(why))) {
		ag_fatal("ibv_query_device", why, EOPNOTSUPP);
		goto err;
	}
	d->port = d->rp.port;
	d->gidx = (uint8_t)gidx;
	d->gid = d->rp.gids[gidx].gid;
	d->path = ag_opts_path(o, gidx);
	d->mtu = d->rp.active_mtu;
	d->lid = d->rp.lid;
	mtu = 128 << d->rp.active_mtu;
	if (o->size > (uint32_t)(mtu - OPT_UD_GRH)) {
		ag_warn("--size %u does not fit one datagram: active MTU %d of %s minus the %d-byte GRH is %d",
			o->size, mtu, ibv_get_device_name(d->ctx->device), OPT_UD_GRH, mtu - OPT_UD_GRH);
		proto_error("ibv_query_port", EMSGSIZE);
		goto err;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		ag_fatal("ibv_alloc_pd", ibv_get_device_name(d->ctx->device), errno);
		goto err;
	}
	d->ch = ibv_create_comp_channel(d->ctx);
	if (!d->ch) {
		ag_fatal("ibv_create_comp_channel", ibv_get_device_name(d->ctx->device), errno);
		goto err;
	}
	if (ag_nonblock(d->ch->fd)) {
		ag_fatal("fcntl", "completion channel", errno);
		goto err;
	}
	return 0;
err:
	ud_dev_close(d);
	return -1;
}

void ud_dev_close(struct ud_dev *d)
{
	int err;

	if (d->ch && (err = ibv_destroy_comp_channel(d->ch)))
		ag_warn("ibv_destroy_comp_channel: %s", strerror(err));
	if (d->pd && (err = ibv_dealloc_pd(d->pd)))
		ag_warn("ibv_dealloc_pd: %s", strerror(err));
	if (d->own_ctx && ibv_close_device(d->ctx))
		ag_warn("ibv_close_device: %s", strerror(errno));
	rport_free(&d->rp);
	memset(d, 0, sizeof(*d));
}

static int ud_qp_rts(struct ud_dev *d, struct ud_qp *q, struct verbs_fail *f)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = d->port,
				 .qkey = d->qkey };

	f->call = "ibv_modify_qp";
	if ((f->err = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_QKEY)))
		return -1;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if ((f->err = ibv_modify_qp(q->qp, &a, IBV_QP_STATE)))
		return -1;
	/* UD has no peer to agree a PSN with: any start is as good */
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 0 };
	if ((f->err = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)))
		return -1;
	return 0;
}

int ud_qp_create(struct ud_dev *d, struct ud_qp *q, uint32_t nrecv, uint32_t nsend,
		 uint32_t sqd, uint32_t tag, struct verbs_fail *f)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = sqd, .max_recv_wr = nrecv, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	size_t len = (size_t)nrecv * (OPT_UD_GRH + d->size) + (size_t)nsend * d->size;

	memset(q, 0, sizeof(*q));
	q->nrecv = nrecv;
	q->nsend = nsend;
	f->call = "ibv_create_cq";
	q->cq.cq = ibv_create_cq(d->ctx, (int)(nrecv + sqd), &q->cq, d->ch, 0);
	if (!q->cq.cq)
		goto fail;
	f->call = "ibv_req_notify_cq";
	if ((errno = ibv_req_notify_cq(q->cq.cq, 0)))
		goto fail;
	qa.send_cq = qa.recv_cq = q->cq.cq;
	f->call = "ibv_create_qp";
	q->qp = ibv_create_qp(d->pd, &qa);
	if (!q->qp)
		goto fail;
	f->call = "malloc";
	q->buf = calloc(1, len);
	if (!q->buf)
		goto fail;
	f->call = "ibv_reg_mr";
	q->mr = ibv_reg_mr(d->pd, q->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!q->mr)
		goto fail;
	if (ud_qp_rts(d, q, f))
		goto fail_err;
	for (uint32_t i = 0; i < nrecv; i++)
		if (ud_post_recv(d, q, tag, i, f))
			goto fail_err;
	return 0;
fail:
	f->err = errno ? errno : ENOMEM;
fail_err:
	ud_qp_destroy(q);
	return -1;
}

void ud_qp_destroy(struct ud_qp *q)
{
	int err;

	if (q->qp && (err = ibv_destroy_qp(q->qp)))
		ag_warn("ibv_destroy_qp: %s", strerror(err));
	if (q->mr && (err = ibv_dereg_mr(q->mr)))
		ag_warn("ibv_dereg_mr: %s", strerror(err));
	if (q->cq.cq) {
		ibv_ack_cq_events(q->cq.cq, q->cq.unacked);
		if ((err = ibv_destroy_cq(q->cq.cq)))
			ag_warn("ibv_destroy_cq: %s", strerror(err));
	}
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

int ud_post_recv(struct ud_dev *d, struct ud_qp *q, uint32_t tag, uint32_t i,
		 struct verbs_fail *f)
{
	struct ibv_sge sg = { .addr = (uintptr_t)ud_rbuf(d, q, i),
			      .length = OPT_UD_GRH + d->size, .lkey = q->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)tag << 32 | i, .sg_list = &sg,
				  .num_sge = 1 }, *bad;

	f->call = "ibv_post_recv";
	return (f->err = ibv_post_recv(q->qp, &wr, &bad)) ? -1 : 0;
}

int ud_post_send(struct ud_dev *d, struct ud_qp *q, uint32_t tag, uint32_t i, uint32_t off,
		 uint32_t len, uint32_t imm, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
		 struct verbs_fail *f)
{
	uint8_t *b = off >= OPT_UD_GRH ? ud_rbuf(d, q, i) + off : ud_sbuf(d, q, i) + off;
	struct ibv_sge sg = { .addr = (uintptr_t)b, .length = len,
			      .lkey = q->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = UD_WR_SEND | (uint64_t)tag << 32 | i, .sg_list = &sg, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(imm),
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = qkey },
	}, *bad;

	f->call = "ibv_post_send";
	return (f->err = ibv_post_send(q->qp, &wr, &bad)) ? -1 : 0;
}

struct ibv_ah *ud_ah_create(struct ud_dev *d, uint16_t lid, const uint8_t gid[16],
			    struct verbs_fail *f)
{
	struct ibv_ah_attr a;
	union ibv_gid dgid;
	struct ibv_ah *ah;
	char why[160];

	memcpy(dgid.raw, gid, 16);
	if (rport_av(&d->rp, lid, &dgid, &d->path, &a, why, sizeof(why))) {
		ag_warn("address vector: %s", why);
		f->call = "ibv_create_ah";
		f->err = errno;
		return NULL;
	}
	ah = ibv_create_ah(d->pd, &a);
	if (!ah) {
		f->call = "ibv_create_ah";
		f->err = errno ? errno : ENOMEM;
	}
	return ah;
}
