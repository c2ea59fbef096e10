// SPDX-License-Identifier: MIT
/* rqp: per-QP states from the RES_QP_GET dump. See rqp.h. */
#include "rdma/rqp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

static const char *const rqp_states[RQP_NSTATES] = {
	[RQP_RESET] = "RESET", [RQP_INIT] = "INIT", [RQP_RTR] = "RTR", [RQP_RTS] = "RTS",
	[RQP_SQD] = "SQD",     [RQP_SQE] = "SQE",   [RQP_ERR] = "ERR",
};

/* enum ib_qp_type, named as iproute2 names them. */
static const char *const rqp_types[] = {
	"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", "UNKNOWN",
	"RAW_PACKET", "XRC_INI", "XRC_TGT",
};

const char *rqp_state_name(unsigned int state)
{
	return state < RQP_NSTATES ? rqp_states[state] : "UNKNOWN";
}

const char *rqp_type_name(unsigned int type)
{
	if (type == 0xff)
		return "DRIVER";
	return type < sizeof(rqp_types) / sizeof(rqp_types[0]) ? rqp_types[type] : "UNKNOWN";
}

void rqp_reset(struct rqp_query *q)
{
	q->total = 0;
	q->owned = 0;
	memset(q->state, 0, sizeof(q->state));
	q->matched = 0;
	q->listed = 0;
}

/* One QP entry's attributes: a switch, not a table, as there may be 30,000. */
struct rqp_attrs {
	const struct nlattr *lqpn, *pid, *port, *type, *state, *kern;
};

static int rqp_attr_cb(const struct nlattr *a, void *data)
{
	struct rqp_attrs *e = data;
	enum mnl_attr_data_type t = MNL_TYPE_U32;
	const struct nlattr **slot;

	switch (mnl_attr_get_type(a)) {
	case RDMA_NLDEV_ATTR_RES_LQPN:
		slot = &e->lqpn;
		break;
	case RDMA_NLDEV_ATTR_RES_PID:
		slot = &e->pid;
		break;
	case RDMA_NLDEV_ATTR_PORT_INDEX:
		slot = &e->port;
		break;
	case RDMA_NLDEV_ATTR_RES_TYPE:
		slot = &e->type;
		t = MNL_TYPE_U8;
		break;
	case RDMA_NLDEV_ATTR_RES_STATE:
		slot = &e->state;
		t = MNL_TYPE_U8;
		break;
	case RDMA_NLDEV_ATTR_RES_KERN_NAME:
		slot = &e->kern;
		t = MNL_TYPE_NUL_STRING;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, t) < 0)
		return MNL_CB_ERROR;
	*slot = a;
	return MNL_CB_OK;
}

static int rqp_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int rqp_owned(const struct rqp_query *q, uint32_t pid)
{
	if (!q->pids || q->npids <= 0)
		return 1;
	return bsearch(&pid, q->pids, (size_t)q->npids, sizeof(pid), rqp_cmp_u32) != NULL;
}

static int rqp_entry(const struct nlattr *nest, struct rqp_query *q)
{
	struct rqp_attrs e = { 0 };
	uint32_t pid;
	uint8_t state;
	struct rqp *o;

	if (mnl_attr_parse_nested(nest, rqp_attr_cb, &e) < 0 || !e.lqpn || !e.state)
		return -1;
	q->total++;
	pid = e.pid ? mnl_attr_get_u32(e.pid) : 0;
	if (!rqp_owned(q, pid))
		return 0;
	q->owned++;
	state = mnl_attr_get_u8(e.state);
	if (state < RQP_NSTATES)
		q->state[state]++;
	if (q->states && (state >= 32 || !(q->states & (1u << state))))
		return 0;
	q->matched++;
	if (!q->list || q->listed >= q->maxlist)
		return 0;
	o = &q->list[q->listed++];
	o->lqpn = mnl_attr_get_u32(e.lqpn);
	o->pid = pid;
	o->port = e.port ? mnl_attr_get_u32(e.port) : 0;
	o->type = e.type ? mnl_attr_get_u8(e.type) : 0xff;
	o->state = state;
	snprintf(o->comm, sizeof(o->comm), "%s", e.kern ? mnl_attr_get_str(e.kern) : "");
	return 0;
}

int rqp_parse(const struct nlmsghdr *nlh, struct rqp_query *q)
{
	const struct nlattr *tb[RNL_TB_N];
	const struct nlattr *a, *table;

	if (rnl_attrs(nlh, NULL, tb) < 0)
		goto bad;
	table = tb[RDMA_NLDEV_ATTR_RES_QP];
	/* A device without QPs sends its handle and no table. */
	if (!table)
		return 0;
	if (mnl_attr_validate(table, MNL_TYPE_NESTED) < 0)
		goto bad;
	mnl_attr_for_each_nested(a, table) {
		if (mnl_attr_get_type(a) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
			continue;
		if (rqp_entry(a, q) < 0)
			goto bad;
	}
	return 0;
bad:
	errno = EBADMSG;
	return -1;
}

static int rqp_cb(const struct nlmsghdr *nlh, void *data)
{
	return rqp_parse(nlh, data);
}

int rqp_scan(struct rnl *r, uint32_t dev_index, struct rqp_query *q, int timeout_ms)
{
	struct nlmsghdr *nlh;
	char what[64];

	rqp_reset(q);
	for (int i = 1; q->pids && i < q->npids; i++)
		if (q->pids[i - 1] > q->pids[i])
			return rnl_fail(r, EINVAL, "RES_QP_GET: pids not sorted");
	nlh = rnl_req(r, RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_DUMP);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	snprintf(what, sizeof(what), "RES_QP_GET dump of device %u", dev_index);
	return rnl_talk(r, what, timeout_ms > 0 ? (uint64_t)timeout_ms * 1000000u : 0, rqp_cb,
			q);
}
