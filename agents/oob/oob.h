/* SPDX-License-Identifier: MIT */
/*
 * oob: the out-of-band QP exchange record of --cm oob-tls.
 *
 * One fixed-size record, 64 bytes, every field big-endian:
 *
 *    0  u32  magic     OOB_MAGIC ("RDCQ")
 *    4  u8   version   OOB_VERSION (2: the LID at 62; 1 had none)
 *    5  u8   type      REQ (client -> server), REP, REJ or DOWN (server -> client)
 *    6  u16  len       OOB_REC_LEN: a reader can refuse a record by its header
 *    8  u32  id        connection id (the client's --first-id + index)
 *   12  u32  qpn       24 bits
 *   16  u32  psn       24 bits
 *   20  u8   gid[16]   the sender's RoCEv2 GID (neither zero nor multicast)
 *   36  u8   mtu       enum ibv_mtu, IBV_MTU_256..IBV_MTU_4096
 *   37  u8   op        OOB_OP_SEND, OOB_OP_WRITE, OOB_OP_READ, OOB_OP_ATOMIC,
 *                      or OOB_OP_UD (--transport ud)
 *   38  u16  gidx      the sender's GID index (fits ibv_global_route.sgid_index)
 *   40  u32  status    REJ: the errno of the failed call; DOWN: see below;
 *                      otherwise 0
 *   44  u32  rkey      op write, read, atomic: the buffer the peer writes into,
 *                      reads, or whose first 8 bytes it adds to; op ud: the
 *                      sender's Q_Key (nonzero, bit 31 clear); otherwise 0
 *   48  u64  addr
 *   56  u32  rlen      op write, read, atomic: its length, 1..OOB_MAX_RLEN;
 *                      otherwise 0
 *   60  u8   call      REJ, DOWN: enum oob_call, the server's call that failed;
 *                      else 0
 *   61  u8   pad       0
 *   62  u16  lid       the sender port's LID: what an InfiniBand peer routes to
 *                      (unicast, 0..0xbfff); 0 on RoCE and iWARP, which have none
 *
 * A parser takes its own version only: a version 1 reader refuses a version 2
 * record as bad_version, and so does this one a version 1 record (a REQ
 * without a LID cannot be answered on InfiniBand). Both ends come from one
 * build of rdmacap, so no version is ever negotiated.
 *
 * A REJ carries only id, status and call; every other field is 0. The parser
 * trusts nothing: every byte is checked, including padding, and a buffer that is
 * not exactly one record is an error.
 *
 * DOWN: the server lost connection id after its REP (a completion in error, an
 * async event of its QP, a post that failed) and freed its endpoint; the client
 * fails that connection at once instead of waiting for an echo that cannot come.
 * Fields as a REJ's; status is the work completion's status (enum ibv_wc_status)
 * for call ibv_poll_cq, the event's type (enum ibv_event_type) for
 * ibv_get_async_event, else the call's errno; 1..OOB_DOWN_STATUS_MAX. A DOWN for
 * an id the session never answered with a REP, or a second one, is a lie.
 */
#ifndef RDC_AGENTS_OOB_H
#define RDC_AGENTS_OOB_H

#include <stddef.h>
#include <stdint.h>

#define OOB_MAGIC 0x52444351u
#define OOB_VERSION 2
#define OOB_LID_MAX 0xbfff	/* unicast LIDs; 0xc000.. are multicast */
#define OOB_REC_LEN 64
#define OOB_HEAD_LEN 8
#define OOB_MAX_RLEN (1u << 30)
/*
 * Flow control: a client keeps at most OOB_WINDOW REQs unanswered on one
 * session; the others wait in the client until answers come back. So neither
 * side's TCP window stays zero while its peer is busy (a busy server reads a
 * session only in its turn, and a zero window held past the control
 * connections' TCP_USER_TIMEOUT, common/deadline.h, ends the session and every
 * connection it carries). 32 records are 2,752 bytes in TLS
 * records (64 + 22 each); even at one TCP segment each (about 1 KiB of kernel
 * buffer apiece, skb truesize) they take under 32 KiB, a quarter of Linux's
 * default receive buffer (tcp_rmem 131072), both ways: the server answers at
 * most OOB_WINDOW REQs of a session before the client reads. It is also the
 * server's turn per session (rc_server.h RCS_REC_BUDGET): one turn answers all
 * that a session may have asked.
 */
#define OOB_WINDOW 32

enum oob_type { OOB_REQ = 1, OOB_REP = 2, OOB_REJ = 3, OOB_DOWN = 4 };
/* a DOWN's status is a small number of a verbs enum or an errno */
#define OOB_DOWN_STATUS_MAX 4095
#define OOB_T(t) (1u << (t))

enum oob_op { OOB_OP_SEND = 0, OOB_OP_WRITE = 1, OOB_OP_UD = 2, OOB_OP_READ = 3,
	      OOB_OP_ATOMIC = 4 };
/* the one-sided ops: the peers exchange a buffer (rkey, addr, rlen) */
static inline int oob_op_rbuf(unsigned op)
{
	return op == OOB_OP_WRITE || op == OOB_OP_READ || op == OOB_OP_ATOMIC;
}

/* the server's calls a REJ can name; 0 is "none" */
enum oob_call {
	OOB_CALL_NONE, OOB_CALL_CREATE_CQ, OOB_CALL_CREATE_QP, OOB_CALL_REG_MR,
	OOB_CALL_MODIFY_QP, OOB_CALL_POST_RECV, OOB_CALL_MODIFY_SRQ, OOB_CALL_MALLOC,
	OOB_CALL_REQ_NOTIFY, OOB_CALL_POST_SRQ_RECV, OOB_CALL_RAND, OOB_CALL_RDMA_CREATE_QP,
	OOB_CALL_RDMA_ACCEPT, OOB_CALL_REQUEST, OOB_CALL_CREATE_AH,
	/* what ends a connection after its REP (DOWN) */
	OOB_CALL_POLL_CQ, OOB_CALL_ASYNC_EVENT, OOB_CALL_POST_SEND,
	OOB_CALL_MAX
};

struct oob_rec {
	uint8_t type;
	uint8_t mtu;
	uint8_t op;
	uint8_t call;
	uint16_t gidx;
	uint16_t lid;
	uint32_t id;
	uint32_t qpn;
	uint32_t psn;
	uint32_t status;
	uint32_t rkey;
	uint32_t rlen;
	uint64_t addr;
	uint8_t gid[16];
};

enum oob_err {
	OOB_OK = 0,
	OOB_ESHORT,	/* fewer bytes than a header or a record: a truncation */
	OOB_EMAGIC,
	OOB_EVERSION,
	OOB_ETYPE,	/* unknown, or not one the reader expects */
	OOB_ELEN,	/* the header's len is not OOB_REC_LEN */
	OOB_ETRAIL,	/* bytes after the record */
	OOB_EQPN,
	OOB_EPSN,
	OOB_EGID,
	OOB_EMTU,
	OOB_EOP,
	OOB_EGIDX,
	OOB_ESTATUS,	/* status or call inconsistent with the type */
	OOB_EBUF,	/* rkey/addr/rlen inconsistent with op */
	OOB_EPAD,
	OOB_ELID,	/* a multicast LID */
	OOB_NERR
};

/* Writes one record (validated first: a bad one is never sent). */
enum oob_err oob_encode(const struct oob_rec *r, uint8_t out[OOB_REC_LEN]);
/*
 * Header check for stream framing: call with the first len bytes received so far.
 * OOB_ESHORT until OOB_HEAD_LEN bytes are there, then the verdict on magic,
 * version, type (against the mask of OOB_T()) and len, so a reader drops a
 * hostile peer before waiting for bytes that may never come.
 */
enum oob_err oob_head(const uint8_t *buf, size_t len, unsigned types);
/* Exactly one record of a type in the mask; r is written only on OOB_OK. */
enum oob_err oob_parse(const uint8_t *buf, size_t len, unsigned types, struct oob_rec *r);
/* One word for drop records and logs: "truncated", "bad_magic", ... */
const char *oob_strerror(enum oob_err e);
/* "ibv_create_qp" for OOB_CALL_CREATE_QP; "?" when out of range */
const char *oob_call_name(unsigned call);
/* the inverse; OOB_CALL_NONE for a name not in the table */
unsigned oob_call_code(const char *name);

/*
 * The rdma_cm private data of --cm rdmacm: what oob records carry beyond what
 * the CM exchanges itself. 32 bytes, big-endian:
 *
 *    0  u32  magic    OOB_CM_MAGIC ("RDCM")
 *    4  u8   version  OOB_CM_VERSION
 *    5  u8   type     REQ (rdma_connect), REP (rdma_accept), REJ (rdma_reject);
 *                     never DOWN: the CM's own DREQ tells the client
 *    6  u8   op       OOB_OP_SEND, OOB_OP_WRITE, OOB_OP_READ or OOB_OP_ATOMIC
 *    7  u8   call     REJ: enum oob_call; else 0
 *    8  u32  id       connection id
 *   12  u32  status   REJ: errno; else 0
 *   16  u32  rkey     op write, read, atomic: the sender's buffer; else 0
 *   20  u32  rlen
 *   24  u64  addr
 *
 * The CM pads private data to its own size (56 bytes in a REQ); the padding
 * must be zero.
 */
#define OOB_CM_MAGIC 0x5244434du
#define OOB_CM_VERSION 1	/* its own: rdma_cm does the addressing, no LID here */
#define OOB_CM_LEN 32

struct oob_cm {
	uint8_t type, op, call;
	uint32_t id, status, rkey, rlen;
	uint64_t addr;
};

enum oob_err oob_cm_encode(const struct oob_cm *c, uint8_t out[OOB_CM_LEN]);
enum oob_err oob_cm_parse(const uint8_t *buf, size_t len, unsigned types, struct oob_cm *c);

#endif
