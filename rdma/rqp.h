/* SPDX-License-Identifier: MIT */
/*
 * rqp: the queue pairs of one RDMA device and their states, from the per-QP
 * resource dump (RDMA_NLDEV_CMD_RES_QP_GET: what `rdma resource show qp` prints).
 * Part of rdma/ (libc, libibverbs, libmnl only), over an rnl socket (rnl.h);
 * prints nothing.
 *
 * One call is one dump of one device, streamed through the rnl buffer (~400 QPs
 * per receive): QPs are counted as they pass, never stored, except the few the
 * caller asks to list (up to its cap). Nothing is allocated. 30,000 QPs are ~75
 * receives; timeout_ms bounds the whole dump (see rnl_talk: ETIMEDOUT, socket
 * renewed), and the census then holds what was counted so far.
 *
 * A query names the run's QPs by owner pid (the pids in the caller's pid
 * namespace; kernel QPs, the GSI QP among them, have pid 0 and a kernel name):
 * their states are counted, and those also in the 'states' set are listed, e.g.
 * "every QP of these agents left in ERR", or "every QP of these agents still
 * there" after a point. QP types and states are the kernel's ib_qp_type and
 * ib_qp_state numbers.
 *
 * Errors: -1 with errno and r->err as in rnl.h (ENODEV: no such device index).
 */
#ifndef RDC_RDMA_RQP_H
#define RDC_RDMA_RQP_H

#include <stdint.h>

#include "rdma/rnl.h"

enum rqp_state {
	RQP_RESET,
	RQP_INIT,
	RQP_RTR,
	RQP_RTS,
	RQP_SQD,
	RQP_SQE,
	RQP_ERR,
	RQP_NSTATES
};

#define RQP_COMM 16 /* TASK_COMM_LEN */

struct rqp {
	uint32_t lqpn;
	uint32_t pid;        /* 0: a kernel QP (comm names it) */
	uint32_t port;       /* 0 until the QP is bound to a port (INIT) */
	uint8_t type;        /* ib_qp_type: 2 RC, 3 UC, 4 UD, 1 GSI, ... */
	uint8_t state;       /* enum rqp_state */
	char comm[RQP_COMM]; /* kernel owner's name; "" for a user QP (see /proc/PID/comm) */
};

struct rqp_query {
	/* in */
	const uint32_t *pids; /* sorted ascending; NULL or npids 0: every QP */
	int npids;
	uint32_t states;      /* list QPs whose bit (1u << state) is set; 0: any state */
	struct rqp *list;     /* room for maxlist QPs, or NULL */
	int maxlist;
	/* out */
	uint32_t total;                /* every QP the device reported */
	uint32_t owned;                /* of those, the pids' (all without pids) */
	uint32_t state[RQP_NSTATES];   /* owned QPs per state */
	uint32_t matched;              /* owned QPs in 'states' (listed or not) */
	int listed;                    /* written to list: min(matched, maxlist) */
};

/*
 * The QPs of device dev_index (rnl_dev.index) through q. 0, or -1 with errno
 * (EINVAL: pids not sorted; ETIMEDOUT: the dump took over timeout_ms, 0 for no
 * bound; the counts are then partial).
 */
int rqp_scan(struct rnl *r, uint32_t dev_index, struct rqp_query *q, int timeout_ms);

/* "RESET" "INIT" "RTR" "RTS" "SQD" "SQE" "ERR" (as `rdma resource show qp`), or "UNKNOWN". */
const char *rqp_state_name(unsigned int state);
/* "RC" "UC" "UD" "GSI" "SMI" "XRC_INI" ... (as `rdma resource show qp`), or "UNKNOWN". */
const char *rqp_type_name(unsigned int type);

/*
 * rqp_scan's parser, for tests: clears q's out fields (rqp_reset), then adds one
 * RES_QP_GET dump message to them (rqp_parse): 0, or -1 (EBADMSG) when malformed.
 */
void rqp_reset(struct rqp_query *q);
int rqp_parse(const struct nlmsghdr *nlh, struct rqp_query *q);

#endif /* RDC_RDMA_RQP_H */
