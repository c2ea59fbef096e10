// SPDX-License-Identifier: MIT
/*
 * test_rnlmsg: the parsers of rdma/rstat (STAT_GET replies) and rdma/rqp
 * (RES_QP_GET dump messages) on netlink messages made here with libmnl, as the
 * kernel lays them out (drivers/infiniband/core/nldev.c). Needs no RDMA device:
 * the same code against a real rxe device is in test_rnl (suites/vm/rnl.sh).
 * TAP 13 on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "rdma/rqp.h"
#include "rdma/rstat.h"
#include "tap/tap.h"

static struct tap T;
static char t_buf[65536];

static struct nlmsghdr *t_msg(unsigned int cmd, uint32_t dev, const char *name)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(t_buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_MULTI;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	return nlh;
}

/* One HWCOUNTER_ENTRY; the kernel pads u64 with RDMA_NLDEV_ATTR_PAD first. */
static void t_counter(struct nlmsghdr *nlh, const char *name, uint64_t v, int as_u32)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_PAD, 0, NULL);
	if (as_u32)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, (uint32_t)v);
	else
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, v);
	mnl_attr_nest_end(nlh, e);
}

/* A STAT_GET reply of rxe0/1 with names[i] = base + i * step (reversed order if rev). */
static struct nlmsghdr *t_stat(const char *const *names, int n, uint64_t base, int rev)
{
	struct nlmsghdr *nlh = t_msg(RDMA_NLDEV_CMD_STAT_GET, 3, "rxe0");
	struct nlattr *hw;

	nlh->nlmsg_flags = 0;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (int k = 0; k < n; k++) {
		int i = rev ? n - 1 - k : k;

		t_counter(nlh, names[i], base + (uint64_t)i * 10, 0);
	}
	mnl_attr_nest_end(nlh, hw);
	return nlh;
}

static void t_rstat(void)
{
	static const char *const names[] = { "sent_pkts", "rcvd_pkts", "rcvd_rnr_err",
					     "retry_exceeded_err", "sent_bytes" };
	static struct rstat_port a, b;
	struct nlmsghdr *nlh;
	char longname[80];
	uint64_t v = 0;
	int64_t d = 0;
	int r;

	r = rstat_parse(t_stat(names, 5, 100, 0), &a);
	tap_ok(&T, r == 0 && a.n == 5 && a.index == 3 && a.port == 1 && !strcmp(a.dev, "rxe0") &&
		   !strcmp(a.name[3], "retry_exceeded_err") && a.val[3] == 130 && !a.dropped,
	       "STAT_GET reply: every counter, names and values in the device's order");
	r = rstat_parse(t_stat(names, 5, 1100, 1), &b);
	r |= rstat_get(&b, "sent_bytes", &v);
	tap_ok(&T, r == 0 && v == 1140,
	       "rstat_get by name (got %llu)", (unsigned long long)v);
	r = rstat_delta(&b, &a, "sent_bytes", &d);
	tap_ok(&T, r == 0 && d == 1000, "rstat_delta by name across a reordered sample (got %lld)",
	       (long long)d);
	r = rstat_delta(&a, &b, "sent_pkts", &d);
	tap_ok(&T, r == 0 && d == -1000, "rstat_delta of a reset counter is negative");
	errno = 0;
	r = rstat_delta(&b, &a, "link_downed", &d);
	tap_ok(&T, r == -1 && errno == ENOENT, "a counter the device does not offer: ENOENT");
	errno = 0;
	tap_ok(&T, rstat_get(&a, "sent_pkt", &v) == -1 && errno == ENOENT,
	       "names match whole, not by prefix");

	/* more counters than RSTAT_MAX, and one name too long to keep */
	nlh = t_msg(RDMA_NLDEV_CMD_STAT_GET, 3, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	{
		struct nlattr *hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
		char name[RSTAT_NAME];

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		t_counter(nlh, longname, 1, 0);
		for (int i = 0; i < RSTAT_MAX + 10; i++) {
			snprintf(name, sizeof(name), "c%d", i);
			t_counter(nlh, name, (uint64_t)i, 0);
		}
		mnl_attr_nest_end(nlh, hw);
	}
	r = rstat_parse(nlh, &a);
	tap_ok(&T, r == 0 && a.n == RSTAT_MAX && a.dropped == 11 && a.port == 2 &&
		   rstat_get(&a, "c127", &v) == 0 && v == 127,
	       "%d counters: %d kept, the rest and a %zu-byte name counted as dropped (n=%d dropped=%d)",
	       RSTAT_MAX + 11, RSTAT_MAX, strlen(longname), a.n, a.dropped);

	/* a value that is not a u64 */
	nlh = t_msg(RDMA_NLDEV_CMD_STAT_GET, 3, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	{
		struct nlattr *hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);

		t_counter(nlh, "sent_pkts", 5, 1);
		mnl_attr_nest_end(nlh, hw);
	}
	errno = 0;
	r = rstat_parse(nlh, &a);
	tap_ok(&T, r == -1 && errno == EBADMSG && a.n == 0,
	       "a 4-byte counter value is EBADMSG, nothing kept");
	nlh = t_msg(RDMA_NLDEV_CMD_STAT_GET, 3, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	tap_ok(&T, rstat_parse(nlh, &a) == -1, "a reply without HWCOUNTERS is EBADMSG");
}

struct t_qp {
	uint32_t lqpn, pid;
	uint8_t type, state;
	const char *kern;
};

static struct nlmsghdr *t_qps(const struct t_qp *qp, int n)
{
	struct nlmsghdr *nlh = t_msg(RDMA_NLDEV_CMD_RES_QP_GET, 3, "rxe0");
	struct nlattr *table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);

	for (int i = 0; i < n; i++) {
		struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

		if (qp[i].state != RQP_RESET)
			mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, qp[i].lqpn);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 77);
		mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, qp[i].type);
		mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, qp[i].state);
		if (qp[i].kern)
			mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, qp[i].kern);
		else
			mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, qp[i].pid);
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, table);
	return nlh;
}

static void t_rqp(void)
{
	static const struct t_qp qps[] = {
		{ 1, 0, 1, RQP_RTS, "ib_core" },
		{ 17, 100, 2, RQP_RTS, NULL },
		{ 18, 100, 2, RQP_ERR, NULL },
		{ 19, 200, 2, RQP_ERR, NULL },
		{ 20, 300, 2, RQP_ERR, NULL },
		{ 21, 200, 4, RQP_INIT, NULL },
		{ 22, 200, 2, RQP_RESET, NULL },
	};
	const uint32_t pids[] = { 100, 200 }, unsorted[] = { 200, 100 };
	struct rqp list[4];
	struct rqp_query q = { .pids = pids, .npids = 2, .states = 1u << RQP_ERR,
			       .list = list, .maxlist = 1 };
	struct rnl r = { 0 };
	int ret;

	rqp_reset(&q);
	ret = rqp_parse(t_qps(qps, 4), &q);
	ret |= rqp_parse(t_qps(qps + 4, 3), &q); /* the dump goes on in a second message */
	tap_ok(&T, ret == 0 && q.total == 7 && q.owned == 5 && q.state[RQP_RTS] == 1 &&
		   q.state[RQP_ERR] == 2 && q.state[RQP_INIT] == 1 && q.state[RQP_RESET] == 1,
	       "QP states counted for the pids only (total %u owned %u ERR %u)", q.total, q.owned,
	       q.state[RQP_ERR]);
	tap_ok(&T, q.matched == 2 && q.listed == 1 && list[0].lqpn == 18 && list[0].pid == 100 &&
		   list[0].state == RQP_ERR && list[0].type == 2 && list[0].port == 1 &&
		   !list[0].comm[0],
	       "the pids' ERR QPs listed up to the cap, all counted (matched %u listed %d)",
	       q.matched, q.listed);

	q = (struct rqp_query){ .list = list, .maxlist = 4 };
	rqp_reset(&q);
	ret = rqp_parse(t_qps(qps, 7), &q);
	tap_ok(&T, ret == 0 && q.owned == 7 && q.matched == 7 && q.listed == 4 &&
		   list[0].pid == 0 && !strcmp(list[0].comm, "ib_core") &&
		   list[0].type == 1 && list[3].lqpn == 19,
	       "no filter: every QP, the kernel's GSI QP with its kernel name");

	rqp_reset(&q);
	tap_ok(&T, rqp_parse(t_msg(RDMA_NLDEV_CMD_RES_QP_GET, 3, "rxe0"), &q) == 0 && !q.total,
	       "a device without QPs: a message without a table");
	{
		struct nlmsghdr *nlh = t_msg(RDMA_NLDEV_CMD_RES_QP_GET, 3, "rxe0");
		struct nlattr *table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
		struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 5);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_STATE, RQP_ERR); /* not a u8 */
		mnl_attr_nest_end(nlh, e);
		mnl_attr_nest_end(nlh, table);
		errno = 0;
		tap_ok(&T, rqp_parse(nlh, &q) == -1 && errno == EBADMSG,
		       "a QP state that is not a u8 is EBADMSG");
	}
	q = (struct rqp_query){ .pids = unsorted, .npids = 2 };
	errno = 0;
	ret = rqp_scan(&r, 3, &q, 0);
	tap_ok(&T, ret == -1 && errno == EINVAL, "unsorted pids: EINVAL before any request (%s)",
	       r.err);
	tap_ok(&T, !strcmp(rqp_state_name(RQP_SQE), "SQE") && !strcmp(rqp_state_name(7), "UNKNOWN") &&
		   !strcmp(rqp_type_name(2), "RC") && !strcmp(rqp_type_name(1), "GSI") &&
		   !strcmp(rqp_type_name(0xff), "DRIVER") && !strcmp(rqp_type_name(11), "UNKNOWN"),
	       "state and type names as rdma resource show qp prints them");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 16);
	t_rstat();
	t_rqp();
	tap_totals(&T);
	return tap_exit_code(&T);
}
