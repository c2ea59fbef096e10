// SPDX-License-Identifier: MIT
/*
 * test_rnlstat: rdma/rstat (port statistic counters) and rdma/rqp (QP states)
 * against a real RDMA device and against iproute2's `rdma`:
 *
 *   RNL_DEV=rxe0 build/tests/test_rnlstat
 *
 * RNL_DEV picks the device (default: the first one). Needs a quiet device with
 * a RoCE v2 IPv4 GID (suites/vm/rnl.sh makes one), ibv_rc_pingpong and rdma on
 * PATH. TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip (no RDMA netlink or no
 * device, as on a host whose kernel has no RDMA).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <jansson.h>

#include "rdma/dev.h"
#include "rdma/rqp.h"
#include "rdma/rstat.h"
#include "tap/tap.h"
#include "tests/t_tool.h"

#define T_PORTS 16
#define T_PINGS 100        /* messages each way */
#define T_MANY 3000        /* QPs for the streamed dump */
#define T_BUDGET_US 20000.0 /* the sampler runs at >= 50 Hz */

struct t_ctx {
	struct tap tap;
	struct rnl rnl;
	const char *dev;
	uint32_t index;     /* of dev */
	int gid;            /* its RoCE v2 IPv4 GID */
	struct rstat_port ports[T_PORTS];
	struct rstat_port base, now;
};

/* Parses the JSON array that cmd prints; NULL (and why) when it fails. */
static json_t *t_json(struct t_ctx *t, const char *cmd)
{
	json_error_t jerr;
	json_t *root;
	FILE *f;
	int st;

	f = popen(cmd, "r");
	if (!f) {
		tap_diag(&t->tap, "popen %s: %s", cmd, strerror(errno));
		return NULL;
	}
	root = json_loadf(f, 0, &jerr);
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) || !json_is_array(root)) {
		tap_diag(&t->tap, "%s: exit status %d, %s", cmd, st,
			 json_is_array(root) ? "" : jerr.text);
		json_decref(root);
		return NULL;
	}
	return root;
}

/* Port 1 of t->dev, now. */
static int t_port(struct t_ctx *t, struct rstat_port *out)
{
	const struct rstat_port *p;
	int n;

	n = rstat_sample(&t->rnl, t->ports, T_PORTS);
	if (n < 0) {
		tap_diag(&t->tap, "%s", t->rnl.err);
		return -1;
	}
	p = rstat_find(t->ports, n, t->dev, 1);
	if (!p || p->err) {
		tap_diag(&t->tap, "rstat_sample: %s/1 %s", t->dev,
			 p ? strerror(p->err) : "absent");
		return -1;
	}
	*out = *p;
	return 0;
}

static void t_names(struct t_ctx *t)
{
	uint64_t v;
	char line[2048];
	size_t len = 0;
	int ok = t_port(t, &t->base) == 0;

	for (int i = 0; ok && i < t->base.n; i++)
		len += (size_t)snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					" %s=%llu", t->base.name[i],
					(unsigned long long)t->base.val[i]);
	if (ok)
		tap_diag(&t->tap, "%s/1 n=%d dropped=%d:%s", t->dev, t->base.n, t->base.dropped,
			 line);
	ok = ok && t->base.n > 0 && !t->base.dropped && rstat_get(&t->base, "sent_pkts", &v) == 0 &&
	     rstat_get(&t->base, "rcvd_pkts", &v) == 0;
	t->index = t->base.index;
	tap_ok(&t->tap, ok, "rstat_sample: %s/1 offers counters, sent_pkts and rcvd_pkts among them",
	       t->dev);
}

/* Every counter equals `rdma -j statistic show link DEV/1` at a quiet moment. */
static void t_vs_tool(struct t_ctx *t)
{
	struct rstat_port before, after;
	json_t *root = NULL, *obj = NULL, *v;
	char cmd[128];
	const char *key;
	int ok = 0, cmp = 0, keys = 0;
	size_t k;

	snprintf(cmd, sizeof(cmd), "rdma -j statistic show link %s/1", t->dev);
	if (t_port(t, &before) || !(root = t_json(t, cmd)) || t_port(t, &after))
		goto out;
	json_array_foreach(root, k, v)
		obj = v;
	if (!json_is_object(obj))
		goto out;
	ok = 1;
	json_object_foreach(obj, key, v) {
		uint64_t mine;

		if (!json_is_integer(v) || !strcmp(key, "port"))
			continue;
		keys++;
		if (rstat_get(&after, key, &mine) ||
		    mine != (uint64_t)json_integer_value(v)) {
			tap_diag(&t->tap, "%s: rdma %lld, rstat %s", key,
				 (long long)json_integer_value(v),
				 rstat_get(&after, key, &mine) ? "absent" : "differs");
			ok = 0;
		}
		cmp++;
	}
	for (int i = 0; i < after.n; i++)
		if (before.val[i] != after.val[i])
			tap_diag(&t->tap, "%s moved while rdma ran: device not quiet", after.name[i]);
	tap_diag(&t->tap, "compared=%d rdma_keys=%d rstat_n=%d", cmp, keys, after.n);
	ok = ok && cmp == after.n && keys == after.n;
out:
	json_decref(root);
	tap_ok(&t->tap, ok, "every counter and value equals rdma -j statistic show");
}

/* ibv_rc_pingpong over the device to itself: the counters rise by its packets. */
static void t_pingpong(struct t_ctx *t)
{
	static const char *const rise[] = { "sent_pkts", "rcvd_pkts" };
	char cmd[512];
	int st, ok;

	snprintf(cmd, sizeof(cmd),
		 "A='-d %s -i 1 -g %d -n %d -s 64 -p 18515'; "
		 "ibv_rc_pingpong $A >/dev/null 2>&1 & s=$!; "
		 "for i in $(seq 40); do sleep 0.25; "
		 "ibv_rc_pingpong $A 127.0.0.1 >/dev/null 2>&1 && { wait $s; exit $?; }; done; "
		 "kill $s; exit 1", t->dev, t->gid, T_PINGS);
	ok = t_port(t, &t->base) == 0;
	st = ok ? system(cmd) : -1;
	ok = ok && st == 0 && t_port(t, &t->now) == 0;
	if (st)
		tap_diag(&t->tap, "ibv_rc_pingpong: status %d", st);
	for (int i = 0; ok && i < t->now.n; i++) {
		int64_t d;

		if (rstat_delta(&t->now, &t->base, t->now.name[i], &d) == 0 && d)
			tap_diag(&t->tap, "delta %s=%lld", t->now.name[i], (long long)d);
	}
	for (size_t i = 0; ok && i < sizeof(rise) / sizeof(rise[0]); i++) {
		int64_t d = 0;

		ok = rstat_delta(&t->now, &t->base, rise[i], &d) == 0 && d >= 2 * T_PINGS;
		if (!ok)
			tap_diag(&t->tap, "%s: delta %lld, at least %d", rise[i], (long long)d,
				 2 * T_PINGS);
	}
	tap_ok(&t->tap, ok, "ibv_rc_pingpong -n %d: sent_pkts and rcvd_pkts rose by >= %d",
	       T_PINGS, 2 * T_PINGS);
}

struct t_qps {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[T_MANY];
	int n;
};

static void t_qps_free(struct t_qps *o)
{
	while (o->n > 0)
		if (ibv_destroy_qp(o->qp[--o->n]))
			printf("# ibv_destroy_qp: %s\n", strerror(errno));
	if (o->cq && ibv_destroy_cq(o->cq))
		printf("# ibv_destroy_cq: %s\n", strerror(errno));
	if (o->pd && ibv_dealloc_pd(o->pd))
		printf("# ibv_dealloc_pd: %s\n", strerror(errno));
	if (o->ctx && ibv_close_device(o->ctx))
		printf("# ibv_close_device: %s\n", strerror(errno));
	memset(o, 0, offsetof(struct t_qps, qp));
}

/* n RC QPs in RESET on t->dev, with one PD and one CQ. */
static int t_qps_make(struct t_ctx *t, struct t_qps *o, int n)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_device **list;
	int nd, i;

	list = ibv_get_device_list(&nd);
	if (!list)
		return -1;
	for (i = 0; i < nd; i++)
		if (!strcmp(ibv_get_device_name(list[i]), t->dev))
			o->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!o->ctx || !(o->pd = ibv_alloc_pd(o->ctx)) ||
	    !(o->cq = ibv_create_cq(o->ctx, 16, NULL, NULL, 0)))
		goto err;
	qa.send_cq = o->cq;
	qa.recv_cq = o->cq;
	for (o->n = 0; o->n < n; o->n++) {
		o->qp[o->n] = ibv_create_qp(o->pd, &qa);
		if (!o->qp[o->n])
			goto err;
	}
	return 0;
err:
	tap_diag(&t->tap, "making %d QPs on %s: %d made: %s", n, t->dev, o->n, strerror(errno));
	t_qps_free(o);
	return -1;
}

/* Moves qp from RESET up to 'to' (INIT, RTR, RTS), connected to itself. */
static int t_qp_up(struct t_ctx *t, struct ibv_qp *qp, enum ibv_qp_state to)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	union ibv_gid gid;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS))
		return -1;
	if (to == IBV_QPS_INIT)
		return 0;
	if (ibv_query_gid(qp->context, 1, t->gid, &gid))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = (uint8_t)t->gid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	if (to == IBV_QPS_RTR)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* The QP states of t->dev per `rdma -j resource show qp`; -1 if it fails. */
static int t_tool_states(struct t_ctx *t, uint32_t st[RQP_NSTATES])
{
	json_t *root, *v;
	size_t k;

	memset(st, 0, RQP_NSTATES * sizeof(st[0]));
	root = t_json(t, "rdma -j resource show qp");
	if (!root)
		return -1;
	json_array_foreach(root, k, v) {
		const char *dev = json_string_value(json_object_get(v, "ifname"));
		const char *s = json_string_value(json_object_get(v, "state"));

		for (int i = 0; dev && s && !strcmp(dev, t->dev) && i < RQP_NSTATES; i++)
			if (!strcmp(s, rqp_state_name((unsigned int)i)))
				st[i]++;
	}
	json_decref(root);
	return 0;
}

static void t_qps(struct t_ctx *t)
{
	static struct t_qps o;
	static const enum ibv_qp_state want[] = { IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR,
						  IBV_QPS_RTS, IBV_QPS_ERR };
	const uint32_t pid = (uint32_t)getpid();
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct rqp list[4];
	struct rqp_query q = { .pids = &pid, .npids = 1, .states = 1u << RQP_ERR,
			       .list = list, .maxlist = 4 };
	uint32_t tool[RQP_NSTATES];
	int ok, i;

	ok = t_qps_make(t, &o, 5) == 0;
	for (i = 1; ok && i < 5; i++)
		ok = t_qp_up(t, o.qp[i], i == 4 ? IBV_QPS_INIT : want[i]) == 0 &&
		     (i != 4 || ibv_modify_qp(o.qp[i], &err, IBV_QP_STATE) == 0);
	if (!ok)
		tap_diag(&t->tap, "QP %d to %d: %s", i - 1, i - 1, strerror(errno));
	ok = ok && rqp_scan(&t->rnl, t->index, &q, 0) == 0;
	if (ok)
		tap_diag(&t->tap, "mine: total=%u owned=%u RESET=%u INIT=%u RTR=%u RTS=%u ERR=%u "
			 "listed=%d lqpn=%u", q.total, q.owned, q.state[RQP_RESET],
			 q.state[RQP_INIT], q.state[RQP_RTR], q.state[RQP_RTS], q.state[RQP_ERR],
			 q.listed, q.listed ? list[0].lqpn : 0);
	ok = ok && q.owned == 5 && q.listed == 1 && list[0].lqpn == o.qp[4]->qp_num &&
	     list[0].pid == pid && list[0].type == IBV_QPT_RC && list[0].port == 1;
	for (i = 0; ok && i < 5; i++)
		ok = q.state[want[i]] == 1;
	tap_ok(&t->tap, ok, "rqp_scan by my pid: one QP in each of RESET INIT RTR RTS ERR, "
	       "the ERR one listed with its lqpn and pid");

	q = (struct rqp_query){ 0 };
	ok = ok && rqp_scan(&t->rnl, t->index, &q, 0) == 0 && t_tool_states(t, tool) == 0;
	for (i = 0; ok && i < RQP_NSTATES; i++)
		if (q.state[i] != tool[i]) {
			tap_diag(&t->tap, "%s: rqp %u, rdma %u", rqp_state_name((unsigned int)i),
				 q.state[i], tool[i]);
			ok = 0;
		}
	tap_ok(&t->tap, ok, "QP counts per state equal rdma -j resource show qp (all %u QPs)",
	       q.total);

	t_qps_free(&o);
	q = (struct rqp_query){ .pids = &pid, .npids = 1 };
	ok = rqp_scan(&t->rnl, t->index, &q, 0) == 0 && q.owned == 0 && q.total > 0;
	tap_ok(&t->tap, ok, "after destroy: none of mine, the kernel's still there (%u)", q.total);
}

/* T_MANY QPs: streamed, counted exactly; a dump past its deadline leaves a usable socket. */
static void t_many(struct t_ctx *t)
{
	static struct t_qps o;
	const uint32_t pid = (uint32_t)getpid();
	struct rqp_query q = { .pids = &pid, .npids = 1 };
	double t0, us;
	int ok, ret, err;

	t0 = t_now_us();
	ok = t_qps_make(t, &o, T_MANY) == 0;
	tap_diag(&t->tap, "made %d QPs in %.0f ms", o.n, (t_now_us() - t0) / 1e3);
	t0 = t_now_us();
	ok = ok && rqp_scan(&t->rnl, t->index, &q, 0) == 0;
	us = t_now_us() - t0;
	tap_diag(&t->tap, "rqp_scan of %u QPs: %.1f ms", q.total, us / 1e3);
	tap_ok(&t->tap, ok && q.owned == T_MANY && q.state[RQP_RESET] == T_MANY,
	       "%d QPs counted through one streamed dump", T_MANY);

	q = (struct rqp_query){ 0 };
	ret = rqp_scan(&t->rnl, t->index, &q, 1);
	err = errno;
	tap_diag(&t->tap, "rqp_scan 1 ms: ret=%d %s, %u QPs seen", ret, ret ? t->rnl.err : "done",
		 q.total);
	ok = ok && ret == -1 && err == ETIMEDOUT && q.total < T_MANY;
	q = (struct rqp_query){ .pids = &pid, .npids = 1 };
	ok = ok && rqp_scan(&t->rnl, t->index, &q, 0) == 0 && q.owned == T_MANY &&
	     t_port(t, &t->now) == 0;
	tap_ok(&t->tap, ok, "a dump cut at 1 ms is ETIMEDOUT, the next scan and sample work");
	t_qps_free(&o);
}

static void t_cost(struct t_ctx *t)
{
	const int rounds = 500;
	double t0, us;
	int ok = 1, i;

	t0 = t_now_us();
	for (i = 0; i < rounds && ok; i++)
		ok = rstat_sample(&t->rnl, t->ports, T_PORTS) > 0;
	us = (t_now_us() - t0) / i;
	if (!ok)
		tap_diag(&t->tap, "sample %d: %s", i, t->rnl.err);
	tap_kv(&t->tap, "rstat_sample_us", "%.1f", us);
	tap_ok(&t->tap, ok && us < T_BUDGET_US, "rstat_sample cost fits a 50 Hz sampler");
}

int main(void)
{
	static struct t_ctx t;
	static struct rdev_info info[RDEV_MAX_DEVS];
	struct rdev_err err;
	char dev[RNL_NAME_MAX];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_init(&t.tap, stdout);
	if (rnl_open(&t.rnl) < 0) {
		tap_skip_all(&t.tap, "no RDMA netlink: %s", t.rnl.err);
		return TAP_EXIT_SKIP;
	}
	n = rdev_list(info, RDEV_MAX_DEVS, &err);
	if (n <= 0) {
		tap_skip_all(&t.tap, "no RDMA device");
		rnl_close(&t.rnl);
		return TAP_EXIT_SKIP;
	}
	snprintf(dev, sizeof(dev), "%s", getenv("RNL_DEV") ? getenv("RNL_DEV") : info[0].name);
	t.dev = dev;
	t.gid = -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(info[i].name, dev))
			t.gid = info[i].roce4_gid_index;
	tap_plan(&t.tap, 9);
	tap_kv(&t.tap, "dev", "%s gid=%d", dev, t.gid);

	t_names(&t);
	t_vs_tool(&t);
	t_pingpong(&t);
	t_qps(&t);
	t_many(&t);
	t_cost(&t);

	tap_totals(&t.tap);
	rnl_close(&t.rnl);
	return tap_exit_code(&t.tap);
}
