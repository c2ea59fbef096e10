// SPDX-License-Identifier: MIT
/*
 * test_rnl: rdma/rnl (RDMA netlink counters) against the kernel and against the
 * rdma tool, on a real RDMA device (rdma/dev's facts are test_rdev's).
 *
 *   RNL_DEV=rxe0 build/tests/test_rnl
 *
 * RNL_DEV picks the device (default: the first one). Needs a quiet device: nothing
 * else may create or destroy RDMA resources on it while this runs. TAP 13 on stdout;
 * exit 0 pass, 1 fail, 4 skip (no RDMA netlink or no device, as on a host whose
 * kernel has no RDMA).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <jansson.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "rdma/dev.h"
#include "rdma/rnl.h"
#include "tap/tap.h"
#include "tests/t_tool.h"

#define T_PLAN 8
#define T_MAXDEVS 32
#define T_SAMPLES 1000
#define T_BUDGET_US 20000.0 /* the sampler runs at >= 50 Hz */

struct t_ctx {
	struct rnl rnl;
	const char *dev;
	struct rnl_dev devs[T_MAXDEVS];
	struct rnl_dev base; /* quiet counters of dev */
	struct tap tap;
};

static char t_out[1 << 20]; /* output of a reference tool */

/* The current counters of t->dev. */
static int t_sample(struct t_ctx *t, struct rnl_dev *out)
{
	const struct rnl_dev *d;
	int n;

	n = rnl_sample(&t->rnl, t->devs, T_MAXDEVS);
	if (n < 0) {
		printf("# %s\n", t->rnl.err);
		return -1;
	}
	d = rnl_find(t->devs, n, t->dev);
	if (!d) {
		printf("# rnl_sample: no device %s among %d\n", t->dev, n);
		return -1;
	}
	*out = *d;
	return 0;
}

static void t_print(const char *tag, const struct rnl_dev *d)
{
	printf("# %s:", tag);
	for (int i = 0; i < RNL_NRES; i++)
		if (d->has & (1u << i))
			printf(" %s=%llu", rnl_res_name(i), (unsigned long long)d->cur[i]);
	putchar('\n');
}

/* Every counter of a differs from b by exactly delta[]. */
static bool t_delta(const struct rnl_dev *a, const struct rnl_dev *b,
		    const long long delta[RNL_NRES])
{
	bool ok = a->has == b->has;

	for (int i = 0; i < RNL_NRES; i++) {
		long long got;

		if (!(a->has & (1u << i)))
			continue;
		got = (long long)(a->cur[i] - b->cur[i]);
		if (got != delta[i]) {
			printf("# %s: delta %lld, expected %lld\n", rnl_res_name(i), got,
			       delta[i]);
			ok = false;
		}
	}
	return ok;
}

static void t_found(struct t_ctx *t)
{
	const uint32_t need = 1u << RNL_PD | 1u << RNL_CQ | 1u << RNL_QP |
			      1u << RNL_CM_ID | 1u << RNL_MR | 1u << RNL_CTX;
	bool ok = t_sample(t, &t->base) == 0;

	if (ok) {
		printf("# dev=%s index=%u has=0x%x has_max=0x%x\n", t->base.name,
		       t->base.index, t->base.has, t->base.has_max);
		t_print("baseline", &t->base);
		ok = (t->base.has & need) == need;
	}
	tap_ok(&t->tap, ok, "rnl_sample finds %s with pd cq qp cm_id mr ctx", t->dev);
}

/* `rdma -j resource show` and rnl read at the same quiet moment agree. */
static void t_vs_rdma_tool(struct t_ctx *t)
{
	struct rnl_dev before, after;
	json_t *root = NULL, *obj = NULL, *v;
	json_error_t jerr;
	bool ok = false;
	size_t k;
	int cmp = 0;

	if (t_sample(t, &before) || t_run("rdma -j resource show", t_out, sizeof(t_out)) ||
	    t_sample(t, &after))
		goto out;
	root = json_loads(t_out, 0, &jerr);
	if (!json_is_array(root)) {
		printf("# rdma -j resource show: not a JSON array: %s\n", jerr.text);
		goto out;
	}
	json_array_foreach(root, k, v) {
		json_t *name = json_object_get(v, "ifname");

		if (json_is_string(name) && !strcmp(json_string_value(name), t->dev))
			obj = v;
	}
	if (!obj) {
		printf("# rdma -j resource show: no %s\n", t->dev);
		goto out;
	}
	ok = memcmp(before.cur, after.cur, sizeof(before.cur)) == 0;
	if (!ok)
		printf("# counters moved while rdma ran: device not quiet\n");
	for (int i = 0; i < RNL_NRES; i++) {
		json_t *j = json_object_get(obj, rnl_res_name(i));

		if (!(after.has & (1u << i)))
			continue;
		if (!json_is_integer(j) ||
		    (uint64_t)json_integer_value(j) != after.cur[i]) {
			printf("# %s: rnl %llu, rdma tool %s%lld\n", rnl_res_name(i),
			       (unsigned long long)after.cur[i],
			       json_is_integer(j) ? "" : "(missing) ",
			       json_is_integer(j) ? (long long)json_integer_value(j) : 0);
			ok = false;
		}
		cmp++;
	}
	printf("# compared=%d\n", cmp);
out:
	json_decref(root);
	tap_ok(&t->tap, ok && cmp >= 6, "counters equal rdma -j resource show");
}

struct t_objs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[3];
	struct ibv_qp *qp[2];
	struct ibv_srq *srq;
	struct ibv_mr *mr[4];
	char buf[4][4096];
};

static void t_objs_free(struct t_objs *o)
{
	for (int i = 3; i >= 0; i--)
		if (o->mr[i] && ibv_dereg_mr(o->mr[i]))
			printf("# ibv_dereg_mr: %s\n", strerror(errno));
	if (o->srq && ibv_destroy_srq(o->srq))
		printf("# ibv_destroy_srq: %s\n", strerror(errno));
	for (int i = 1; i >= 0; i--)
		if (o->qp[i] && ibv_destroy_qp(o->qp[i]))
			printf("# ibv_destroy_qp: %s\n", strerror(errno));
	for (int i = 2; i >= 0; i--)
		if (o->cq[i] && ibv_destroy_cq(o->cq[i]))
			printf("# ibv_destroy_cq: %s\n", strerror(errno));
	if (o->pd && ibv_dealloc_pd(o->pd))
		printf("# ibv_dealloc_pd: %s\n", strerror(errno));
	if (o->ctx && ibv_close_device(o->ctx))
		printf("# ibv_close_device: %s\n", strerror(errno));
	memset(o, 0, offsetof(struct t_objs, buf));
}

/* 1 context, 1 PD, 3 CQs, 2 RC QPs, 1 SRQ, 4 MRs on t->dev. */
static int t_objs_make(struct t_ctx *t, struct t_objs *o)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_device **list;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list) {
		printf("# ibv_get_device_list: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), t->dev))
			break;
	o->ctx = i < n ? ibv_open_device(list[i]) : NULL;
	ibv_free_device_list(list);
	if (!o->ctx) {
		printf("# ibv_open_device %s: %s\n", t->dev, i < n ? strerror(errno) : "absent");
		return -1;
	}
	o->pd = ibv_alloc_pd(o->ctx);
	if (!o->pd) {
		printf("# ibv_alloc_pd: %s\n", strerror(errno));
		goto err;
	}
	for (i = 0; i < 3; i++) {
		o->cq[i] = ibv_create_cq(o->ctx, 16, NULL, NULL, 0);
		if (!o->cq[i]) {
			printf("# ibv_create_cq %d: %s\n", i, strerror(errno));
			goto err;
		}
	}
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = o->cq[i],
			.recv_cq = o->cq[2],
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		o->qp[i] = ibv_create_qp(o->pd, &qa);
		if (!o->qp[i]) {
			printf("# ibv_create_qp %d: %s\n", i, strerror(errno));
			goto err;
		}
	}
	o->srq = ibv_create_srq(o->pd, &sa);
	if (!o->srq) {
		printf("# ibv_create_srq: %s\n", strerror(errno));
		goto err;
	}
	for (i = 0; i < 4; i++) {
		o->mr[i] = ibv_reg_mr(o->pd, o->buf[i], sizeof(o->buf[i]),
				      IBV_ACCESS_LOCAL_WRITE);
		if (!o->mr[i]) {
			printf("# ibv_reg_mr %d: %s\n", i, strerror(errno));
			goto err;
		}
	}
	return 0;
err:
	t_objs_free(o);
	return -1;
}

static void t_create_destroy(struct t_ctx *t)
{
	static struct t_objs o;
	long long up[RNL_NRES] = {
		[RNL_PD] = 1, [RNL_CQ] = 3, [RNL_QP] = 2, [RNL_MR] = 4,
		[RNL_CTX] = 1, [RNL_SRQ] = 1,
	};
	const long long zero[RNL_NRES] = { 0 };
	struct rnl_dev mid, end;
	bool ok;

	ok = t_objs_make(t, &o) == 0 && t_sample(t, &mid) == 0;
	if (ok) {
		t_print("created", &mid);
		ok = t_delta(&mid, &t->base, up);
	}
	tap_ok(&t->tap, ok, "counters rise by ctx 1 pd 1 cq 3 qp 2 srq 1 mr 4");

	t_objs_free(&o);
	ok = t_sample(t, &end) == 0;
	if (ok) {
		t_print("destroyed", &end);
		ok = t_delta(&end, &t->base, zero);
	}
	tap_ok(&t->tap, ok, "counters back to baseline after destroy");
}

/* Newer kernels report each summary entry's max: it must be the device limit. */
static void t_max(struct t_ctx *t)
{
	static struct rdev_info info[RDEV_MAX_DEVS];
	const struct rdev_info *d = NULL;
	long long lim[RNL_NRES];
	struct rdev_err err;
	bool ok;
	int n;

	if (!t->base.has_max) {
		t_skip(&t->tap, "summary max equals ibv_query_device",
		       "kernel reports no RES_SUMMARY_ENTRY_MAX");
		return;
	}
	n = rdev_list(info, RDEV_MAX_DEVS, &err);
	for (int i = 0; i < n; i++)
		if (!strcmp(info[i].name, t->dev))
			d = &info[i];
	ok = d != NULL;
	if (ok) {
		for (int i = 0; i < RNL_NRES; i++)
			lim[i] = -1;
		lim[RNL_PD] = d->max_pd;
		lim[RNL_CQ] = d->max_cq;
		lim[RNL_QP] = d->max_qp;
		lim[RNL_MR] = d->max_mr;
		lim[RNL_SRQ] = d->max_srq;
		for (int i = 0; i < RNL_NRES; i++) {
			if (!(t->base.has_max & (1u << i)))
				continue;
			printf("# %s_max=%llu device=%lld\n", rnl_res_name(i),
			       (unsigned long long)t->base.max[i], lim[i]);
			if ((long long)t->base.max[i] != lim[i])
				ok = false;
		}
	}
	tap_ok(&t->tap, ok, "summary max equals ibv_query_device");
}

/* Too small an array fails with ENOBUFS and leaves the socket in step. */
static void t_nobufs(struct t_ctx *t)
{
	struct rnl_dev again;
	int ret, err;
	bool ok;

	ret = rnl_sample(&t->rnl, t->devs, 0);
	err = errno;
	printf("# rnl_sample(maxdevs 0)=%d errno=%s: %s\n", ret, strerror(err), t->rnl.err);
	ok = ret == -1 && err == ENOBUFS && t_sample(t, &again) == 0 &&
	     !memcmp(again.cur, t->base.cur, sizeof(again.cur));
	tap_ok(&t->tap, ok, "rnl_sample with no room fails ENOBUFS, next sample intact");
}

/*
 * A reply to someone else's request on the same socket (here: a RES_GET without
 * a device, which the kernel refuses) must not be taken for the sample's.
 */
static void t_stale(struct t_ctx *t)
{
	char req[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rnl_dev d;
	bool ok;

	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = t->rnl.seq + 1000;
	ok = mnl_socket_sendto(t->rnl.nl, nlh, nlh->nlmsg_len) >= 0;
	if (!ok)
		printf("# mnl_socket_sendto: %s\n", strerror(errno));
	ok = ok && t_sample(t, &d) == 0 && !memcmp(d.cur, t->base.cur, sizeof(d.cur)) &&
	     t_sample(t, &d) == 0 && !memcmp(d.cur, t->base.cur, sizeof(d.cur));
	tap_ok(&t->tap, ok, "rnl_sample skips a stale error reply on its socket");
}

static int t_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void t_cost(struct t_ctx *t)
{
	static double lat[T_SAMPLES];
	double t0, us;
	bool ok = true;
	int i;

	t0 = t_now_us();
	for (i = 0; i < T_SAMPLES && ok; i++) {
		double s = t_now_us();

		ok = rnl_sample(&t->rnl, t->devs, T_MAXDEVS) > 0;
		lat[i] = t_now_us() - s;
	}
	us = (t_now_us() - t0) / i;
	if (!ok)
		printf("# sample %d: %s\n", i, t->rnl.err);
	qsort(lat, (size_t)i, sizeof(lat[0]), t_cmp_double);
	printf("# samples=%d us_per_sample=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f\n", i,
	       us, lat[i / 2], lat[i * 99 / 100], lat[i - 1]);
	tap_ok(&t->tap, ok && us < T_BUDGET_US, "rnl_sample cost fits a 50 Hz sampler");
}

int main(void)
{
	struct t_ctx t = { 0 };
	char dev[RNL_NAME_MAX];
	int n;

	tap_init(&t.tap, stdout);
	if (rnl_open(&t.rnl) < 0) {
		tap_skip_all(&t.tap, "no RDMA netlink: %s", t.rnl.err);
		return TAP_EXIT_SKIP;
	}
	n = rnl_sample(&t.rnl, t.devs, T_MAXDEVS);
	if (n < 0) {
		tap_bail(&t.tap, "%s", t.rnl.err);
		rnl_close(&t.rnl);
		return TAP_EXIT_FAIL;
	}
	if (n == 0) {
		tap_skip_all(&t.tap, "no RDMA device");
		rnl_close(&t.rnl);
		return TAP_EXIT_SKIP;
	}
	/* t.devs is rewritten by every sample: keep the name apart. */
	snprintf(dev, sizeof(dev), "%s", getenv("RNL_DEV") ? getenv("RNL_DEV") : t.devs[0].name);
	t.dev = dev;
	tap_plan(&t.tap, T_PLAN);

	t_found(&t);
	t_vs_rdma_tool(&t);
	t_create_destroy(&t);
	t_max(&t);
	t_nobufs(&t);
	t_stale(&t);
	t_cost(&t);

	tap_totals(&t.tap);
	rnl_close(&t.rnl);
	return tap_exit_code(&t.tap);
}
