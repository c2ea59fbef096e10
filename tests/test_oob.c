// SPDX-License-Identifier: MIT
/*
 * Unit tests of the oob-tls exchange, on any host (no RDMA needed):
 *  - the 64-byte QP exchange record and the rdma_cm private data, fed hostile
 *    bytes: every truncation, wrong magic/version/type/length, oversized and
 *    trailing bytes, every field out of range, every single-bit flip, random
 *    buffers; a record is accepted only when it re-encodes to the same bytes;
 *  - the server's check of a REQ's GID against the peer's address.
 * The TLS layer they travel over is tests/test_tls.c. TAP 13 on stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "agents/oob/oob.h"
#include "agents/rc/rc_reply.h"
#include "tap/tap.h"
#include "tests/oob_recs.h"

static struct tap T;

/* --- records --- */

static struct oob_rec t_rej(void)
{
	struct oob_rec r = { .type = OOB_REJ, .id = 7, .status = ENOMEM,
			     .call = OOB_CALL_CREATE_QP };
	return r;
}

static struct oob_rec t_down(void)
{
	struct oob_rec r = { .type = OOB_DOWN, .id = 8, .status = 5 /* WR_FLUSH_ERR */,
			     .call = OOB_CALL_POLL_CQ };
	return r;
}

static const unsigned T_ALL = OOB_T(OOB_REQ) | OOB_T(OOB_REP) | OOB_T(OOB_REJ) |
			      OOB_T(OOB_DOWN);

static void t_roundtrip(const char *what, struct oob_rec r)
{
	uint8_t b[OOB_REC_LEN], b2[OOB_REC_LEN];
	struct oob_rec p;
	int ok;

	ok = !oob_encode(&r, b) && !oob_parse(b, sizeof(b), T_ALL, &p) &&
		!oob_encode(&p, b2) && !memcmp(b, b2, sizeof(b)) &&
		p.id == r.id && p.qpn == r.qpn && p.psn == r.psn && p.type == r.type &&
		p.addr == r.addr && p.rkey == r.rkey && p.rlen == r.rlen &&
		p.status == r.status && p.call == r.call && p.lid == r.lid &&
		!memcmp(p.gid, r.gid, 16);
	tap_ok(&T, ok, "record: %s encodes and parses back to the same fields", what);
}

static void t_layout(void)
{
	struct oob_rec r = t_req();
	uint8_t b[OOB_REC_LEN];

	oob_encode(&r, b);
	/* the wire format is the contract with other builds: pin it */
	tap_ok(&T, b[0] == 'R' && b[1] == 'D' && b[2] == 'C' && b[3] == 'Q' &&
	       b[4] == OOB_VERSION && b[5] == OOB_REQ && b[6] == 0 && b[7] == OOB_REC_LEN &&
	       b[8] == 0 && b[9] == 0 && b[10] == 0x10 && b[11] == 0x92 &&
	       b[14] == 0x01 && b[15] == 0x23 && b[17] == 0xab && b[19] == 0xef &&
	       b[30] == 0xff && b[32] == 10 && b[35] == 2 && b[36] == 3 && b[39] == 1 &&
	       b[4] == 2 && b[61] == 0 && b[62] == 0x01 && b[63] == 0xb2,
	       "record: big-endian layout of magic, version 2, type, len, id, qpn, psn, gid, mtu, gidx, lid");
}

/* Expects err from parsing buf[0..len). */
static int t_expect(const uint8_t *buf, size_t len, unsigned types, enum oob_err want)
{
	struct oob_rec r;
	enum oob_err e = oob_parse(buf, len, types, &r);

	if (e != want)
		tap_diag(&T, "len %zu: got %s, want %s", len, oob_strerror(e), oob_strerror(want));
	return e == want;
}

static void t_truncations(void)
{
	struct oob_rec r = t_req();
	uint8_t b[OOB_REC_LEN];
	int ok = 1;
	size_t n;

	oob_encode(&r, b);
	for (n = 0; n < OOB_REC_LEN; n++)
		ok &= t_expect(b, n, OOB_T(OOB_REQ), OOB_ESHORT);
	tap_ok(&T, ok, "record: every truncation (0..63 bytes) is 'truncated'");
	ok = 1;
	for (n = 0; n < OOB_HEAD_LEN; n++)
		ok &= oob_head(b, n, OOB_T(OOB_REQ)) == OOB_ESHORT;
	ok &= oob_head(b, OOB_HEAD_LEN, OOB_T(OOB_REQ)) == OOB_OK;
	tap_ok(&T, ok, "record: a good header prefix waits for more, a full one passes");
}

static void t_header(void)
{
	struct oob_rec r = t_req();
	uint8_t b[OOB_REC_LEN], x[OOB_REC_LEN];
	/* 1: the layout before the LID, which a LID-routed peer cannot answer */
	static const uint8_t vers[] = { 0, 1, 3, 0x7f, 0xff };
	static const uint8_t types[] = { 0, 5, 0x80, 0xff };
	static const uint16_t lens[] = { 0, 8, 63, 65, 128, 4096, 0xffff };
	int ok = 1;
	unsigned i;

	oob_encode(&r, b);
	for (i = 0; i < 4; i++) {
		memcpy(x, b, sizeof(x));
		x[i] ^= 0x20;
		ok &= t_expect(x, sizeof(x), OOB_T(OOB_REQ), OOB_EMAGIC);
		/* caught as soon as the magic is in, before the rest arrives */
		ok &= oob_head(x, 4, OOB_T(OOB_REQ)) == OOB_EMAGIC;
	}
	tap_ok(&T, ok, "record: a wrong magic byte is 'bad_magic', even with 4 bytes in");
	ok = 1;
	for (i = 0; i < sizeof(vers); i++) {
		memcpy(x, b, sizeof(x));
		x[4] = vers[i];
		ok &= t_expect(x, sizeof(x), OOB_T(OOB_REQ), OOB_EVERSION);
		ok &= oob_head(x, 5, OOB_T(OOB_REQ)) == OOB_EVERSION;
	}
	tap_ok(&T, ok, "record: versions 0, 1 (no LID), 3, 127, 255 are 'bad_version'");
	ok = 1;
	for (i = 0; i < sizeof(types); i++) {
		memcpy(x, b, sizeof(x));
		x[5] = types[i];
		ok &= t_expect(x, sizeof(x), T_ALL, OOB_ETYPE);
	}
	/* a REQ sent to a client, a REP or a DOWN sent to a server */
	ok &= t_expect(b, sizeof(b), OOB_T(OOB_REP) | OOB_T(OOB_REJ) | OOB_T(OOB_DOWN), OOB_ETYPE);
	r = t_down();
	oob_encode(&r, x);
	ok &= t_expect(x, sizeof(x), OOB_T(OOB_REQ), OOB_ETYPE);
	r = t_rep_write();
	oob_encode(&r, x);
	ok &= t_expect(x, sizeof(x), OOB_T(OOB_REQ), OOB_ETYPE);
	tap_ok(&T, ok, "record: unknown types and types the reader does not expect are 'bad_type'");
	ok = 1;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memcpy(x, b, sizeof(x));
		x[6] = (uint8_t)(lens[i] >> 8);
		x[7] = (uint8_t)lens[i];
		ok &= t_expect(x, sizeof(x), OOB_T(OOB_REQ), OOB_ELEN);
		/* an oversized claim is refused from the header alone */
		ok &= oob_head(x, OOB_HEAD_LEN, OOB_T(OOB_REQ)) == OOB_ELEN;
	}
	tap_ok(&T, ok, "record: a length field other than 64 (0, 8, 63, 65, 128, 4096, 65535) is 'bad_length'");
}

static void t_trailing(void)
{
	struct oob_rec r = t_req();
	uint8_t b[4096];
	size_t sizes[] = { 65, 66, 128, 4096 };
	int ok = 1;
	unsigned i;

	memset(b, 0, sizeof(b));
	oob_encode(&r, b);
	for (i = 0; i < 4; i++)
		ok &= t_expect(b, sizes[i], OOB_T(OOB_REQ), OOB_ETRAIL);
	b[64] = 'x';
	ok &= t_expect(b, 65, OOB_T(OOB_REQ), OOB_ETRAIL);
	/* a second whole record behind the first is still trailing bytes here */
	oob_encode(&r, b + 64);
	ok &= t_expect(b, 128, OOB_T(OOB_REQ), OOB_ETRAIL);
	tap_ok(&T, ok, "record: oversized buffers and trailing garbage are 'trailing_bytes'");
}

/* The encoder refuses a valid record with one field set to a bad value. */
#define T_FIELD(base, field, val, err) do {			\
		struct oob_rec r_ = (base);			\
		uint8_t b_[OOB_REC_LEN];			\
		r_.field = (val);				\
		ok &= oob_encode(&r_, b_) == (err);		\
	} while (0)

/* Forges a record with one byte range overwritten, bypassing the encoder. */
static void t_forge(uint8_t *b, const struct oob_rec *base, size_t off, const void *v,
		    size_t n)
{
	oob_encode(base, b);
	memcpy(b + off, v, n);
}

static void t_fields(void)
{
	struct oob_rec req = t_req(), wr = t_rep_write(), rej = t_rej(), down = t_down();
	uint8_t b[OOB_REC_LEN];
	int ok;

	/* each case twice: the encoder refuses to send it, the parser to take it */
	ok = 1;
	T_FIELD(req, qpn, 0, OOB_EQPN);
	T_FIELD(req, qpn, 1, OOB_EQPN);
	T_FIELD(req, qpn, 0x1000000, OOB_EQPN);
	T_FIELD(req, qpn, 0xffffffff, OOB_EQPN);
	t_forge(b, &req, 12, "\x01\x00\x00\x00", 4);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EQPN);
	t_forge(b, &req, 12, "\x00\x00\x00\x01", 4);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EQPN);
	tap_ok(&T, ok, "record: QPN 0, 1 and above 24 bits is 'bad_qpn'");

	ok = 1;
	T_FIELD(req, psn, 0x1000000, OOB_EPSN);
	t_forge(b, &req, 16, "\xff\xff\xff\xff", 4);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EPSN);
	tap_ok(&T, ok, "record: PSN above 24 bits is 'bad_psn'");

	ok = 1;
	{
		struct oob_rec r = req;

		memset(r.gid, 0, 16);
		ok &= oob_encode(&r, b) == OOB_EGID;
		r.gid[0] = 0xff;
		r.gid[15] = 1;
		ok &= oob_encode(&r, b) == OOB_EGID;
	}
	t_forge(b, &req, 20, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EGID);
	t_forge(b, &req, 20, "\xff\x02", 2);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EGID);
	tap_ok(&T, ok, "record: a zero or multicast GID is 'bad_gid'");

	ok = 1;
	T_FIELD(req, mtu, 0, OOB_EMTU);
	T_FIELD(req, mtu, 6, OOB_EMTU);
	T_FIELD(req, mtu, 255, OOB_EMTU);
	t_forge(b, &req, 36, "\x06", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EMTU);
	t_forge(b, &req, 36, "\x00", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EMTU);
	tap_ok(&T, ok, "record: MTU outside IBV_MTU_256..IBV_MTU_4096 is 'bad_mtu'");

	ok = 1;
	T_FIELD(req, gidx, 256, OOB_EGIDX);
	T_FIELD(req, gidx, 0xffff, OOB_EGIDX);
	t_forge(b, &req, 38, "\x01\x00", 2);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EGIDX);
	tap_ok(&T, ok, "record: a GID index that does not fit sgid_index (>255) is 'bad_gid_index'");

	ok = 1;
	T_FIELD(req, op, 5, OOB_EOP);
	t_forge(b, &req, 37, "\x05", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EOP);
	tap_ok(&T, ok, "record: an unknown op is 'bad_op'");

	ok = 1;
	T_FIELD(req, rkey, 1, OOB_EBUF);
	T_FIELD(req, addr, 1, OOB_EBUF);
	T_FIELD(req, rlen, 1, OOB_EBUF);
	T_FIELD(wr, rlen, 0, OOB_EBUF);
	T_FIELD(wr, rlen, OOB_MAX_RLEN + 1, OOB_EBUF);
	T_FIELD(wr, addr, UINT64_MAX - 10, OOB_EBUF);
	t_forge(b, &wr, 56, "\0\0\0\0", 4);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EBUF);
	t_forge(b, &wr, 48, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EBUF);
	tap_ok(&T, ok, "record: a buffer with op send, an empty, huge or wrapping one with op write is 'bad_buffer'");

	{
		struct oob_rec ud = t_req();

		ud.op = OOB_OP_UD;
		ud.rkey = 0x11111111;
		t_roundtrip("op ud with a Q_Key", ud);
		ok = 1;
		T_FIELD(ud, rkey, 0, OOB_EBUF);
		T_FIELD(ud, rkey, 0x80000001u, OOB_EBUF);
		T_FIELD(ud, addr, 1, OOB_EBUF);
		T_FIELD(ud, rlen, 1, OOB_EBUF);
		t_forge(b, &ud, 44, "\x80\0\0\x01", 4);
		ok &= t_expect(b, sizeof(b), T_ALL, OOB_EBUF);
		t_forge(b, &ud, 44, "\0\0\0\0", 4);
		ok &= t_expect(b, sizeof(b), T_ALL, OOB_EBUF);
		tap_ok(&T, ok, "record: op ud without a Q_Key, with a controlled one, or with a buffer is 'bad_buffer'");
	}

	ok = 1;
	T_FIELD(req, status, 12, OOB_ESTATUS);
	T_FIELD(req, call, 1, OOB_ESTATUS);
	T_FIELD(rej, status, 0, OOB_ESTATUS);
	T_FIELD(rej, call, 0, OOB_ESTATUS);
	T_FIELD(rej, call, OOB_CALL_MAX, OOB_ESTATUS);
	t_forge(b, &rej, 60, "\xff", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_ESTATUS);
	t_forge(b, &req, 40, "\0\0\0\x0c", 4);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_ESTATUS);
	T_FIELD(down, status, 0, OOB_ESTATUS);
	T_FIELD(down, status, OOB_DOWN_STATUS_MAX + 1, OOB_ESTATUS);
	T_FIELD(down, call, 0, OOB_ESTATUS);
	T_FIELD(down, call, OOB_CALL_MAX, OOB_ESTATUS);
	t_forge(b, &down, 40, "\x80\0\0\x05", 4);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_ESTATUS);
	tap_ok(&T, ok, "record: status or call that do not fit the type are 'bad_status'");

	ok = 1;
	T_FIELD(rej, qpn, 5, OOB_EPAD);
	T_FIELD(rej, mtu, 3, OOB_EPAD);
	t_forge(b, &req, 61, "\x01", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EPAD);
	t_forge(b, &rej, 20, "\x01", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EPAD);
	T_FIELD(down, qpn, 5, OOB_EPAD);
	T_FIELD(down, op, 1, OOB_EPAD);
	T_FIELD(down, rkey, 1, OOB_EBUF);
	t_forge(b, &down, 20, "\x01", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EPAD);
	tap_ok(&T, ok, "record: non-zero padding, QP fields in a REJ or a DOWN, are 'bad_padding'");

	ok = 1;
	T_FIELD(req, lid, OOB_LID_MAX + 1, OOB_ELID);
	T_FIELD(req, lid, 0xffff, OOB_ELID);
	t_forge(b, &req, 62, "\xc0\x00", 2);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_ELID);
	T_FIELD(rej, lid, 1, OOB_EPAD);
	t_forge(b, &down, 63, "\x01", 1);
	ok &= t_expect(b, sizeof(b), T_ALL, OOB_EPAD);
	{
		struct oob_rec r = req;

		r.lid = 0;	/* RoCE and iWARP */
		ok &= !oob_encode(&r, b) && t_expect(b, sizeof(b), T_ALL, OOB_OK);
		r.lid = OOB_LID_MAX;
		ok &= !oob_encode(&r, b) && t_expect(b, sizeof(b), T_ALL, OOB_OK);
	}
	tap_ok(&T, ok, "record: LID 0 and 0xbfff pass, a multicast LID is 'bad_lid', a LID in a REJ or a DOWN 'bad_padding'");
}

/* Accepted bytes must be exactly what the encoder makes of the parsed fields. */
static int t_canonical(const uint8_t *b, unsigned *accepted)
{
	uint8_t b2[OOB_REC_LEN];
	struct oob_rec r;

	if (oob_parse(b, OOB_REC_LEN, T_ALL, &r))
		return 1;
	(*accepted)++;
	return !oob_encode(&r, b2) && !memcmp(b, b2, OOB_REC_LEN);
}

static void t_flips(void)
{
	struct oob_rec base[4] = { t_req(), t_rep_write(), t_rej(), t_down() };
	uint8_t b[OOB_REC_LEN], x[OOB_REC_LEN];
	unsigned acc = 0, bit, k;
	int ok = 1;

	for (k = 0; k < 4; k++) {
		oob_encode(&base[k], b);
		for (bit = 0; bit < OOB_REC_LEN * 8; bit++) {
			memcpy(x, b, sizeof(x));
			x[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			ok &= t_canonical(x, &acc);
		}
	}
	tap_kv(&T, "flips_accepted", "%u of %u", acc, 4 * OOB_REC_LEN * 8);
	tap_ok(&T, ok, "record: every single-bit flip is refused or parses to a canonical record");
}

static void t_fuzz(void)
{
	uint8_t b[OOB_REC_LEN];
	unsigned acc = 0, i, j, seed = 12345;
	int ok = 1;

	/* a valid header on random bodies, so the field checks are what is exercised */
	for (i = 0; i < 200000; i++) {
		for (j = 0; j < sizeof(b); j++) {
			seed = seed * 1103515245u + 12345u;
			b[j] = (uint8_t)(seed >> 16);
		}
		memcpy(b, "RDCQ", 4);
		b[4] = OOB_VERSION;
		b[5] = (uint8_t)(1 + i % 4);
		b[6] = 0;
		b[7] = OOB_REC_LEN;
		if (i % 2) {
			/* and mostly-zero bodies, where valid records live */
			memset(b + 8, 0, 56);
			b[8 + (i / 2) % 56] = (uint8_t)(seed >> 8);
			b[13] = 1;
			b[36] = 1 + i % 5;
			b[20] = 0xfe;
		}
		ok &= t_canonical(b, &acc);
	}
	tap_kv(&T, "fuzz_accepted", "%u of 200000", acc);
	tap_ok(&T, ok && acc > 0, "record: 200000 random bodies: none crashes, every accepted one is canonical");
}

/* A REQ's GID must be the RoCE v2 GID of the peer's own address (rc_reply_check). */
static void t_gid_check(void)
{
	struct oob_rec r = t_req();
	struct ipa peer, other, peer6;
	const char *own, *foreign, *v6, *own6, *v4as6;

	ipa_parse(&peer, "10.222.0.2");
	ipa_parse(&other, "10.222.0.9");
	ipa_parse(&peer6, "fd7a::2");
	own = rc_reply_check(&r, &peer);
	foreign = rc_reply_check(&r, &other);
	/* the same last 4 bytes without the v4-mapped prefix is another address */
	r.gid[10] = r.gid[11] = 0;
	r.gid[0] = 0xfe;
	r.gid[1] = 0x80;
	v6 = rc_reply_check(&r, &peer);
	tap_ok(&T, !own && foreign && !strcmp(foreign, "gid_not_peer") && v6 &&
	       !strcmp(v6, "gid_not_peer"),
	       "REQ: the GID must be the peer's ::ffff:ADDR; another, or an IPv6 one, is gid_not_peer");
	ipa_gid(&peer6, r.gid);
	own6 = rc_reply_check(&r, &peer6);
	v4as6 = rc_reply_check(&r, &peer);
	tap_ok(&T, !own6 && v4as6 && !strcmp(v4as6, "gid_not_peer"),
	       "REQ over IPv6: the GID must be the peer's IPv6 address; from an IPv4 peer it is gid_not_peer");
}

static void t_calls(void)
{
	int ok = 1;
	unsigned i;

	for (i = 1; i < OOB_CALL_MAX; i++)
		ok &= oob_call_code(oob_call_name(i)) == i;
	ok &= oob_call_code("ibv_create_qp") == OOB_CALL_CREATE_QP;
	ok &= oob_call_code("no_such_call") == OOB_CALL_NONE;
	ok &= !strcmp(oob_call_name(OOB_CALL_MAX), "?");
	tap_ok(&T, ok, "record: call names and codes map both ways");
}

/* What a server puts in a DOWN, and the word its client names the loss by. */
static void t_down_words(void)
{
	struct oob_rec d, p;
	uint8_t b[OOB_REC_LEN];
	const char *w;
	int ok = 1, err;

	rc_reply_down(&d, 3, OOB_CALL_POLL_CQ, IBV_WC_WR_FLUSH_ERR);
	w = rc_reply_down_word(&d, &err);
	ok &= !oob_encode(&d, b) && !oob_parse(b, sizeof(b), OOB_T(OOB_DOWN), &p) && p.id == 3 &&
	      !strcmp(w, "IBV_WC_WR_FLUSH_ERR") && err == 0;
	rc_reply_down(&d, 3, OOB_CALL_ASYNC_EVENT, IBV_EVENT_QP_FATAL);
	w = rc_reply_down_word(&d, &err);
	ok &= !oob_encode(&d, b) && !strcmp(w, "QP_FATAL") && err == 0;
	rc_reply_down(&d, 3, OOB_CALL_POST_RECV, ENOMEM);
	w = rc_reply_down_word(&d, &err);
	ok &= !oob_encode(&d, b) && !strcmp(w, "ibv_post_recv") && err == ENOMEM;
	/* what the record cannot carry goes as a call's EIO, still a valid record */
	rc_reply_down(&d, 3, OOB_CALL_NONE, 0);
	w = rc_reply_down_word(&d, &err);
	ok &= !oob_encode(&d, b) && !strcmp(w, "request") && err == EIO;
	rc_reply_down(&d, 3, OOB_CALL_POST_SEND, OOB_DOWN_STATUS_MAX + 1);
	ok &= !oob_encode(&d, b) && d.status == EIO;
	tap_ok(&T, ok, "DOWN: a completion's status, an event or an errno, named by one word");
}

static void t_cm(void)
{
	struct oob_cm req = { .type = OOB_REQ, .id = 9, .op = OOB_OP_WRITE, .rkey = 5,
			      .rlen = 64, .addr = 0x1000 }, p;
	struct oob_cm rej = { .type = OOB_REJ, .id = 9, .status = EINVAL,
			      .call = OOB_CALL_CREATE_CQ };
	uint8_t b[56], b2[OOB_CM_LEN];
	int ok = 1;
	size_t n;

	memset(b, 0, sizeof(b));
	ok &= !oob_cm_encode(&req, b);
	/* the CM hands us its whole private data area, zero padded */
	ok &= !oob_cm_parse(b, sizeof(b), OOB_T(OOB_REQ), &p) && p.rkey == 5 && p.addr == 0x1000;
	ok &= !oob_cm_encode(&p, b2) && !memcmp(b, b2, sizeof(b2));
	tap_ok(&T, ok, "cm data: a REQ with a buffer parses back from 56 padded bytes");
	ok = 1;
	for (n = 0; n < OOB_CM_LEN; n++)
		ok &= oob_cm_parse(b, n, OOB_T(OOB_REQ), &p) == OOB_ESHORT;
	tap_ok(&T, ok, "cm data: every truncation is 'truncated'");
	ok = 1;
	b[40] = 1;
	ok &= oob_cm_parse(b, sizeof(b), OOB_T(OOB_REQ), &p) == OOB_ETRAIL;
	b[40] = 0;
	b[0] ^= 1;
	ok &= oob_cm_parse(b, sizeof(b), OOB_T(OOB_REQ), &p) == OOB_EMAGIC;
	b[0] ^= 1;
	b[4] = 9;
	ok &= oob_cm_parse(b, sizeof(b), OOB_T(OOB_REQ), &p) == OOB_EVERSION;
	b[4] = OOB_CM_VERSION;
	ok &= oob_cm_parse(b, sizeof(b), OOB_T(OOB_REP), &p) == OOB_ETYPE;
	b[6] = 7;
	ok &= oob_cm_parse(b, sizeof(b), OOB_T(OOB_REQ), &p) == OOB_EOP;
	b[6] = OOB_OP_SEND;
	ok &= oob_cm_parse(b, sizeof(b), OOB_T(OOB_REQ), &p) == OOB_EBUF;
	tap_ok(&T, ok, "cm data: garbage padding, magic, version, type, op and buffer are refused");
	ok = !oob_cm_encode(&rej, b2) && !oob_cm_parse(b2, sizeof(b2), OOB_T(OOB_REJ), &p) &&
		p.status == EINVAL && p.call == OOB_CALL_CREATE_CQ;
	rej.status = 0;
	ok &= oob_cm_encode(&rej, b2) == OOB_ESTATUS;
	tap_ok(&T, ok, "cm data: a REJ carries the server's call and errno; one without is refused");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 34);
	t_roundtrip("REQ", t_req());
	t_roundtrip("REP with a write buffer", t_rep_write());
	t_roundtrip("REJ", t_rej());
	t_roundtrip("DOWN", t_down());
	t_layout();
	t_truncations();
	t_header();
	t_trailing();
	t_fields();
	t_flips();
	t_fuzz();
	t_calls();
	t_gid_check();
	t_down_words();
	t_cm();
	tap_totals(&T);
	return tap_exit_code(&T);
}
