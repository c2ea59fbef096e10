// SPDX-License-Identifier: MIT
/*
 * The oob-tls exchange record: encode, and a parser for hostile bytes.
 */
#include <string.h>

#include "agents/oob/oob.h"

/* enum ibv_mtu, spelled out so this file needs no verbs header */
#define OOB_MTU_MIN 1	/* IBV_MTU_256 */
#define OOB_MTU_MAX 5	/* IBV_MTU_4096 */
#define OOB_GIDX_MAX 255

static const char *const oob_err_words[OOB_NERR] = {
	[OOB_OK] = "ok",
	[OOB_ESHORT] = "truncated",
	[OOB_EMAGIC] = "bad_magic",
	[OOB_EVERSION] = "bad_version",
	[OOB_ETYPE] = "bad_type",
	[OOB_ELEN] = "bad_length",
	[OOB_ETRAIL] = "trailing_bytes",
	[OOB_EQPN] = "bad_qpn",
	[OOB_EPSN] = "bad_psn",
	[OOB_EGID] = "bad_gid",
	[OOB_EMTU] = "bad_mtu",
	[OOB_EOP] = "bad_op",
	[OOB_EGIDX] = "bad_gid_index",
	[OOB_ESTATUS] = "bad_status",
	[OOB_EBUF] = "bad_buffer",
	[OOB_EPAD] = "bad_padding",
	[OOB_ELID] = "bad_lid",
};

static const char *const oob_calls[OOB_CALL_MAX] = {
	[OOB_CALL_NONE] = "none",
	[OOB_CALL_CREATE_CQ] = "ibv_create_cq",
	[OOB_CALL_CREATE_QP] = "ibv_create_qp",
	[OOB_CALL_REG_MR] = "ibv_reg_mr",
	[OOB_CALL_MODIFY_QP] = "ibv_modify_qp",
	[OOB_CALL_POST_RECV] = "ibv_post_recv",
	[OOB_CALL_MODIFY_SRQ] = "ibv_modify_srq",
	[OOB_CALL_MALLOC] = "malloc",
	[OOB_CALL_REQ_NOTIFY] = "ibv_req_notify_cq",
	[OOB_CALL_POST_SRQ_RECV] = "ibv_post_srq_recv",
	[OOB_CALL_RAND] = "RAND_bytes",
	[OOB_CALL_RDMA_CREATE_QP] = "rdma_create_qp",
	[OOB_CALL_RDMA_ACCEPT] = "rdma_accept",
	[OOB_CALL_REQUEST] = "request",
	[OOB_CALL_CREATE_AH] = "ibv_create_ah",
	[OOB_CALL_POLL_CQ] = "ibv_poll_cq",
	[OOB_CALL_ASYNC_EVENT] = "ibv_get_async_event",
	[OOB_CALL_POST_SEND] = "ibv_post_send",
};

const char *oob_strerror(enum oob_err e)
{
	return (unsigned)e < OOB_NERR ? oob_err_words[e] : "?";
}

const char *oob_call_name(unsigned call)
{
	return call < OOB_CALL_MAX ? oob_calls[call] : "?";
}

unsigned oob_call_code(const char *name)
{
	unsigned i;

	for (i = 1; i < OOB_CALL_MAX; i++)
		if (!strcmp(oob_calls[i], name))
			return i;
	return OOB_CALL_NONE;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* The field rules, shared by encode and parse so neither side can drift. */
static enum oob_err oob_check(const struct oob_rec *r)
{
	static const uint8_t zero[16];

	if (r->type == OOB_REJ || r->type == OOB_DOWN) {
		/* a reject or a loss says who failed and why, nothing else */
		if (!r->status || !r->call || r->call >= OOB_CALL_MAX ||
		    (r->type == OOB_DOWN && r->status > OOB_DOWN_STATUS_MAX))
			return OOB_ESTATUS;
		if (r->qpn || r->psn || r->mtu || r->op || r->gidx || r->lid ||
		    memcmp(r->gid, zero, sizeof(zero)))
			return OOB_EPAD;
		if (r->rkey || r->addr || r->rlen)
			return OOB_EBUF;
		return OOB_OK;
	}
	if (r->status || r->call)
		return OOB_ESTATUS;
	/* QPN 0 and 1 are the special QPs; neither can be an RC peer */
	if (r->qpn > 0xffffff || r->qpn < 2)
		return OOB_EQPN;
	if (r->psn > 0xffffff)
		return OOB_EPSN;
	if (!memcmp(r->gid, zero, sizeof(zero)) || r->gid[0] == 0xff)
		return OOB_EGID;
	if (r->mtu < OOB_MTU_MIN || r->mtu > OOB_MTU_MAX)
		return OOB_EMTU;
	if (r->gidx > OOB_GIDX_MAX)
		return OOB_EGIDX;
	if (r->lid > OOB_LID_MAX)
		return OOB_ELID;
	if (r->op == OOB_OP_SEND) {
		if (r->rkey || r->addr || r->rlen)
			return OOB_EBUF;
	} else if (oob_op_rbuf(r->op)) {
		if (!r->rlen || r->rlen > OOB_MAX_RLEN || r->addr + r->rlen < r->addr)
			return OOB_EBUF;
	} else if (r->op == OOB_OP_UD) {
		/* the Q_Key: nonzero, and not a controlled one (bit 31) */
		if (!r->rkey || (r->rkey & 0x80000000u) || r->addr || r->rlen)
			return OOB_EBUF;
	} else {
		return OOB_EOP;
	}
	return OOB_OK;
}

enum oob_err oob_encode(const struct oob_rec *r, uint8_t out[OOB_REC_LEN])
{
	enum oob_err e;

	if (r->type < OOB_REQ || r->type > OOB_DOWN)
		return OOB_ETYPE;
	e = oob_check(r);
	if (e)
		return e;
	memset(out, 0, OOB_REC_LEN);
	put32(out, OOB_MAGIC);
	out[4] = OOB_VERSION;
	out[5] = r->type;
	put16(out + 6, OOB_REC_LEN);
	put32(out + 8, r->id);
	put32(out + 12, r->qpn);
	put32(out + 16, r->psn);
	memcpy(out + 20, r->gid, 16);
	out[36] = r->mtu;
	out[37] = r->op;
	put16(out + 38, r->gidx);
	put32(out + 40, r->status);
	put32(out + 44, r->rkey);
	put64(out + 48, r->addr);
	put32(out + 56, r->rlen);
	out[60] = r->call;
	put16(out + 62, r->lid);
	return OOB_OK;
}

enum oob_err oob_head(const uint8_t *buf, size_t len, unsigned types)
{
	/* judge each field as soon as its bytes are in: a liar is caught early */
	if (len >= 4 && get32(buf) != OOB_MAGIC)
		return OOB_EMAGIC;
	if (len >= 5 && buf[4] != OOB_VERSION)
		return OOB_EVERSION;
	if (len >= 6 && (buf[5] < OOB_REQ || buf[5] > OOB_DOWN || !(types & OOB_T(buf[5]))))
		return OOB_ETYPE;
	if (len < OOB_HEAD_LEN)
		return OOB_ESHORT;
	if (get16(buf + 6) != OOB_REC_LEN)
		return OOB_ELEN;
	return OOB_OK;
}

enum oob_err oob_parse(const uint8_t *buf, size_t len, unsigned types, struct oob_rec *r)
{
	struct oob_rec t;
	enum oob_err e;

	e = oob_head(buf, len, types);
	if (e)
		return e;
	if (len < OOB_REC_LEN)
		return OOB_ESHORT;
	if (len > OOB_REC_LEN)
		return OOB_ETRAIL;
	if (buf[61])
		return OOB_EPAD;
	memset(&t, 0, sizeof(t));
	t.type = buf[5];
	t.id = get32(buf + 8);
	t.qpn = get32(buf + 12);
	t.psn = get32(buf + 16);
	memcpy(t.gid, buf + 20, 16);
	t.mtu = buf[36];
	t.op = buf[37];
	t.gidx = get16(buf + 38);
	t.status = get32(buf + 40);
	t.rkey = get32(buf + 44);
	t.addr = get64(buf + 48);
	t.rlen = get32(buf + 56);
	t.call = buf[60];
	t.lid = get16(buf + 62);
	e = oob_check(&t);
	if (e)
		return e;
	*r = t;
	return OOB_OK;
}

static enum oob_err oob_cm_check(const struct oob_cm *c)
{
	if (c->type == OOB_REJ) {
		if (!c->status || !c->call || c->call >= OOB_CALL_MAX)
			return OOB_ESTATUS;
		if (c->op || c->rkey || c->rlen || c->addr)
			return OOB_EPAD;
		return OOB_OK;
	}
	if (c->status || c->call)
		return OOB_ESTATUS;
	if (c->op == OOB_OP_SEND)
		return c->rkey || c->rlen || c->addr ? OOB_EBUF : OOB_OK;
	if (!oob_op_rbuf(c->op))
		return OOB_EOP;
	if (!c->rlen || c->rlen > OOB_MAX_RLEN || c->addr + c->rlen < c->addr)
		return OOB_EBUF;
	return OOB_OK;
}

enum oob_err oob_cm_encode(const struct oob_cm *c, uint8_t out[OOB_CM_LEN])
{
	enum oob_err e;

	if (c->type < OOB_REQ || c->type > OOB_REJ)
		return OOB_ETYPE;
	e = oob_cm_check(c);
	if (e)
		return e;
	memset(out, 0, OOB_CM_LEN);
	put32(out, OOB_CM_MAGIC);
	out[4] = OOB_CM_VERSION;
	out[5] = c->type;
	out[6] = c->op;
	out[7] = c->call;
	put32(out + 8, c->id);
	put32(out + 12, c->status);
	put32(out + 16, c->rkey);
	put32(out + 20, c->rlen);
	put64(out + 24, c->addr);
	return OOB_OK;
}

enum oob_err oob_cm_parse(const uint8_t *buf, size_t len, unsigned types, struct oob_cm *c)
{
	struct oob_cm t;
	enum oob_err e;
	size_t i;

	if (len >= 4 && get32(buf) != OOB_CM_MAGIC)
		return OOB_EMAGIC;
	if (len >= 5 && buf[4] != OOB_CM_VERSION)
		return OOB_EVERSION;
	if (len >= 6 && (buf[5] < OOB_REQ || buf[5] > OOB_REJ || !(types & OOB_T(buf[5]))))
		return OOB_ETYPE;
	if (len < OOB_CM_LEN)
		return OOB_ESHORT;
	/* the CM's zero padding is allowed; anything else after the record is not */
	for (i = OOB_CM_LEN; i < len; i++)
		if (buf[i])
			return OOB_ETRAIL;
	memset(&t, 0, sizeof(t));
	t.type = buf[5];
	t.op = buf[6];
	t.call = buf[7];
	t.id = get32(buf + 8);
	t.status = get32(buf + 12);
	t.rkey = get32(buf + 16);
	t.rlen = get32(buf + 20);
	t.addr = get64(buf + 24);
	e = oob_cm_check(&t);
	if (e)
		return e;
	*c = t;
	return OOB_OK;
}
