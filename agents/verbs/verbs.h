/* SPDX-License-Identifier: MIT */
/*
 * verbs: what every verbs transport (rc, uc, ud) says about a failed call or
 * completion: the failed call as (name, errno), for "conn fail ... call=
 * ibv_create_qp errno=12 err=ENOMEM" records and REJs, and the record-safe
 * word of a work completion's status.
 *
 * The verbs/ folder is the layer rc/ and ud/ share: this and the CQ poller
 * (poll.h). May use the engine's ag.h, common/ and libibverbs; never a
 * transport folder, harness/ or tap/.
 */
#ifndef RDC_AGENTS_VERBS_H
#define RDC_AGENTS_VERBS_H

#include <infiniband/verbs.h>

/* a failed call: name and errno, for "conn fail" records and REJ */
struct verbs_fail {
	const char *call;
	int err;
};

/* "IBV_WC_RETRY_EXC_ERR" for IBV_WC_RETRY_EXC_ERR: record-safe words */
const char *verbs_wc_word(enum ibv_wc_status st);

#endif
