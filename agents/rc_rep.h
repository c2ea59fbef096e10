/* SPDX-License-Identifier: MIT */
/*
 * rc_rep: a server's answer to an oob REQ, the same in both rc server models
 * (rc_server_oob.c, rc_server_thread.c); they differ only in where endpoints
 * live and how the answer travels.
 */
#ifndef RDC_AGENTS_RC_REP_H
#define RDC_AGENTS_RC_REP_H

#include "agents/oob.h"
#include "agents/rc.h"

/*
 * Brings e (created, not yet initialised) to RTS against the client of req
 * and fills rep (type, id and op already set) with this side's address; -1
 * with f set when the REQ must be rejected.
 */
int rc_rep_accept(struct rc_dev *d, struct rc_ep *e, const struct oob_rec *req,
		  struct oob_rec *rep, struct rc_fail *f);
/* rep becomes the REJ of REQ id, naming f's call and errno */
void rc_rep_reject(struct oob_rec *rep, uint32_t id, const struct rc_fail *f);

#endif
