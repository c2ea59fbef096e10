/*
 * tests/oob_recs.h - the out-of-band records the OOB parser tests (test_oob) and the
 * TLS exchange tests (test_tls) both send: one REQ, and a REP carrying a write buffer.
 * Needs agents/oob/oob.h included first.
 */
#ifndef RDC_TESTS_OOB_RECS_H
#define RDC_TESTS_OOB_RECS_H

static inline struct oob_rec t_req(void)
{
	struct oob_rec r = {
		.type = OOB_REQ, .id = 4242, .qpn = 0x000123, .psn = 0xabcdef, .mtu = 3,
		.op = OOB_OP_SEND, .gidx = 1, .lid = 0x01b2,
		.gid = { [10] = 0xff, [11] = 0xff, 10, 222, 0, 2 },
	};
	return r;
}

static inline struct oob_rec t_rep_write(void)
{
	struct oob_rec r = t_req();

	r.type = OOB_REP;
	r.op = OOB_OP_WRITE;
	r.rkey = 0x1234;
	r.addr = 0x7f0000001000ull;
	r.rlen = 4096;
	return r;
}

#endif
