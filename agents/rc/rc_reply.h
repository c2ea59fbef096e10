/* SPDX-License-Identifier: MIT */
/*
 * rc_reply: a server's replies on an oob session, the same in both rc server
 * models (rc_server_oob.c, rc_server_thread.c), which differ only in where
 * endpoints live and how the answer travels: to a REQ a REP or a REJ, and later
 * a DOWN when the connection is lost (oob.h); and the client's reading of a DOWN.
 */
#ifndef RDC_AGENTS_RC_REPLY_H
#define RDC_AGENTS_RC_REPLY_H

#include <netinet/in.h>

#include "agents/oob/oob.h"
#include "agents/rc/rc.h"

/*
 * What a REQ asks of the server that its certificate does not vouch for: the
 * GID the server's QP is to send to. Moving a QP to RTR resolves that GID's
 * neighbour in the kernel (ib_resolve_eth_dmac -> rdma_addr_find_l2_eth_by_grh),
 * an uninterruptible wait of up to 1 s when nobody answers ARP for it. So the
 * GID must be the RoCE v2 GID of the TLS peer's own socket's address (IPv4-mapped
 * or IPv6), whose
 * neighbour the TCP session keeps resolved; a client agent's GID always is (its
 * QPs and its oob socket share one local address). NULL when req may be
 * answered; else the drop reason of the session ("gid_not_peer").
 */
const char *rc_reply_check(const struct oob_rec *req, const struct ipa *peer);
/*
 * Brings e (created, not yet initialised, or ready: rc_ep_ready) to RTS against the client of req
 * and fills rep (type, id and op already set) with this side's address; -1
 * with f set when the REQ must be rejected.
 */
int rc_reply_accept(struct rc_dev *d, struct rc_ep *e, const struct oob_rec *req,
		  struct oob_rec *rep, struct verbs_fail *f);
/* rep becomes the REJ of REQ id, naming f's call and errno */
void rc_reply_reject(struct oob_rec *rep, uint32_t id, const struct verbs_fail *f);
/*
 * rep becomes the DOWN of connection id: call (enum oob_call) with status, the
 * completion's status, the event's type or the errno (oob.h); a status out of
 * the record's range is sent as EIO.
 */
void rc_reply_down(struct oob_rec *rep, uint32_t id, unsigned call, uint32_t status);
/*
 * The word a client names a DOWN by ("IBV_WC_WR_FLUSH_ERR", "QP_FATAL", or the
 * call for an errno, which goes to *err; else *err is 0).
 */
const char *rc_reply_down_word(const struct oob_rec *down, int *err);

#endif
