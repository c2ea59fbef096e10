// SPDX-License-Identifier: MIT
/*
 * test_rnl: rdma/rnl (RDMA netlink counters) and rdma/dev (device facts)
 * against the kernel and against the reference tools, on a real RDMA device.
 *
 *   RNL_DEV=rxe0 RNL_IPV4=10.0.0.1 RNL_NETDEV=veth0 build/tests/test_rnl
 *
 * RNL_DEV picks the device (default: the first one); RNL_IPV4 and RNL_NETDEV, when
 * set, are the address and netdev behind it. Needs a quiet device: nothing else
 * may create or destroy RDMA resources on it while this runs. TAP 13 on stdout;
 * exit 0 pass, 1 fail, 4 skip (no RDMA netlink or no device, as on a host whose
 * kernel has no RDMA).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <jansson.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "rdma/dev.h"
#include "rdma/rnl.h"
#include "tap/tap.h"

#define T_PLAN 12
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

static double t_now_us(void);

static void t_skip(struct t_ctx *t, const char *desc, const char *why)
{
	tap_result(&t->tap, TAP_SKIP, why, "%s", desc);
}

/* Runs cmd through sh, its stdout into t_out. 0 when it exited 0. */
static int t_run(const char *cmd)
{
	size_t len = 0, n;
	FILE *f;
	int st;

	f = popen(cmd, "r");
	if (!f) {
		printf("# popen %s: %s\n", cmd, strerror(errno));
		return -1;
	}
	while (len < sizeof(t_out) - 1 &&
	       (n = fread(t_out + len, 1, sizeof(t_out) - 1 - len, f)) > 0)
		len += n;
	t_out[len] = '\0';
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("# %s: exit status %d\n", cmd, st);
		return -1;
	}
	return 0;
}

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

	if (t_sample(t, &before) || t_run("rdma -j resource show") || t_sample(t, &after))
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

/* The value of "key:" in ibv_devinfo -v text, after the separator; NULL if absent. */
static const char *t_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += klen) {
		bool bol = p == text || p[-1] == '\t' || p[-1] == ' ' || p[-1] == '\n';

		if (bol && p[klen] == ':')
			return p + klen + 1 + strspn(p + klen + 1, " \t");
	}
	return NULL;
}

static bool t_num(const char *text, const char *key, unsigned long long want)
{
	const char *v = t_field(text, key);
	unsigned long long got;

	if (!v) {
		printf("# ibv_devinfo: no %s\n", key);
		return false;
	}
	got = strtoull(v, NULL, 0);
	if (got != want) {
		printf("# %s: ibd %llu, ibv_devinfo %llu\n", key, want, got);
		return false;
	}
	return true;
}

static bool t_str(const char *text, const char *key, const char *want)
{
	const char *v = t_field(text, key);
	size_t n = strlen(want);

	if (!v || strncmp(v, want, n) || (v[n] && v[n] != ' ' && v[n] != '\n')) {
		printf("# %s: ibd %s, ibv_devinfo %.*s\n", key, want,
		       v ? (int)strcspn(v, "\n") : 6, v ? v : "(none)");
		return false;
	}
	return true;
}

/* ibv_devinfo prints enums as "NAME (value)": compare the value. */
static bool t_enum(const char *text, const char *key, int want)
{
	const char *v = t_field(text, key);
	const char *p = v ? strchr(v, '(') : NULL;

	if (!p || p > v + strcspn(v, "\n") || atoi(p + 1) != want) {
		printf("# %s: rdev %d, ibv_devinfo %.*s\n", key, want,
		       v ? (int)strcspn(v, "\n") : 6, v ? v : "(none)");
		return false;
	}
	return true;
}

/* The GID index ibv_devinfo -v shows for ::ffff:ipv4 as RoCE v2, or -1. */
static int t_devinfo_gid(const char *text, const char *ipv4)
{
	char want[64];
	const char *p, *bol;

	snprintf(want, sizeof(want), "::ffff:%s, RoCE v2\n", ipv4);
	p = strstr(text, want);
	if (!p)
		return -1;
	for (bol = p; bol > text && bol[-1] != '\n'; bol--)
		;
	p = strstr(bol, "GID[");
	return p ? atoi(p + 4) : -1;
}

/*
 * rdev_open of the GID of ipv4 on dev (NULL: any device), port (0: any), index
 * (-1: any); closes the device again. The GID index, or -errno. With want_dev,
 * the device opened must be that one.
 */
static int t_open_gid(const char *dev, const char *ipv4, uint8_t port, int index,
		      const char *want_dev)
{
	struct rdev_sel s = { .name = dev, .port = port, .gid_index = index };
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct rdev_gid g;
	struct rdev_err e;
	char a[INET_ADDRSTRLEN];
	int ret;

	if (inet_pton(AF_INET, ipv4, &s.addr) != 1)
		return -EINVAL;
	if (rdev_open(&s, &ctx, &attr, &g, &e)) {
		ret = -errno;
		printf("# %s (port %u index %d): errno %d, %s\n", dev ? dev : "any device", port,
		       index, e.err, e.msg);
		return ret;
	}
	inet_ntop(AF_INET, &g.addr, a, sizeof(a));
	printf("# rdev_open %s port %u index %d: %s port %u gid %u %s\n", dev ? dev : "any",
	       port, index, ibv_get_device_name(ctx->device), g.port, g.index, a);
	ret = g.index;
	if (strcmp(a, ipv4) || g.gid.raw[10] != 0xff || g.gid.raw[11] != 0xff ||
	    (want_dev && strcmp(ibv_get_device_name(ctx->device), want_dev)))
		ret = -EBADMSG;
	if (ibv_close_device(ctx))
		ret = -errno;
	return ret;
}

static void t_ibd(struct t_ctx *t)
{
	static struct rdev_info info[RDEV_MAX_DEVS];
	const char *ipv4 = getenv("RNL_IPV4"), *netdev = getenv("RNL_NETDEV");
	const struct rdev_info *d = NULL;
	char cmd[160], mtu[16];
	struct rdev_err err;
	int n, gi, want;
	bool ok, have;
	double t0;

	t0 = t_now_us();
	n = rdev_list(info, RDEV_MAX_DEVS, &err);
	printf("# rdev_list=%d ms=%.1f\n", n, (t_now_us() - t0) / 1e3);
	for (int i = 0; i < n; i++)
		if (!strcmp(info[i].name, t->dev))
			d = &info[i];
	snprintf(cmd, sizeof(cmd), "ibv_devinfo -v -d %s", t->dev);
	have = d && t_run(cmd) == 0;
	ok = have;
	if (have) {
		printf("# rdev: max_qp=%d max_qp_wr=%d max_cq=%d max_cqe=%d max_mr=%d "
		       "max_mr_size=0x%llx max_pd=%d max_srq=%d max_ah=%d max_sge=%d\n",
		       d->max_qp, d->max_qp_wr, d->max_cq, d->max_cqe, d->max_mr,
		       (unsigned long long)d->max_mr_size, d->max_pd, d->max_srq,
		       d->max_ah, d->max_sge);
		ok &= t_num(t_out, "max_qp", d->max_qp);
		ok &= t_num(t_out, "max_qp_wr", d->max_qp_wr);
		ok &= t_num(t_out, "max_cq", d->max_cq);
		ok &= t_num(t_out, "max_cqe", d->max_cqe);
		ok &= t_num(t_out, "max_mr", d->max_mr);
		ok &= t_num(t_out, "max_mr_size", d->max_mr_size);
		ok &= t_num(t_out, "max_pd", d->max_pd);
		ok &= t_num(t_out, "max_srq", d->max_srq);
		ok &= t_num(t_out, "max_ah", d->max_ah);
		ok &= t_num(t_out, "max_sge", d->max_sge);
	} else {
		printf("# rdev_list: %d devices, %s %s\n", n, t->dev, d ? "found" : "absent");
	}
	tap_ok(&t->tap, ok, "rdev_list limits equal ibv_devinfo -v");
	if (!have)
		goto port_fail;

	printf("# rdev: node_guid=%s port_state=%s active_mtu=%d netdev=%s gid_tbl_len=%d "
	       "roce4_gid=%d roce4_addr=%s\n", d->node_guid_str, d->port_state_str,
	       d->active_mtu, d->netdev, d->gid_tbl_len, d->roce4_gid_index, d->roce4_addr);
	snprintf(mtu, sizeof(mtu), "%d", d->active_mtu);
	ok = t_str(t_out, "node_guid", d->node_guid_str) &&
	     t_enum(t_out, "state", d->port_state) && t_str(t_out, "active_mtu", mtu) &&
	     t_num(t_out, "gid_tbl_len", d->gid_tbl_len) &&
	     (!netdev || !strcmp(netdev, d->netdev));
	tap_ok(&t->tap, ok, "rdev_list guid, port state, mtu, netdev equal ibv_devinfo -v");

	if (!ipv4) {
		t_skip(t, "rdev_open equals ibv_devinfo's RoCE v2 GID", "RNL_IPV4 not set");
		t_skip(t, "rdev_open by address alone; other port or index EADDRNOTAVAIL",
		       "RNL_IPV4 not set");
		return;
	}
	want = t_devinfo_gid(t_out, ipv4);
	gi = t_open_gid(t->dev, ipv4, 0, -1, NULL);
	printf("# gid_index=%d ibv_devinfo=%d roce4_gid_index=%d\n", gi, want,
	       d->roce4_gid_index);
	ok = want >= 0 && gi == want && d->roce4_gid_index == want &&
	     !strcmp(d->roce4_addr, ipv4);
	tap_ok(&t->tap, ok, "rdev_open equals ibv_devinfo's RoCE v2 GID for %s", ipv4);

	/* what an agent does without --device, and what a wrong override gets */
	ok = t_open_gid(NULL, ipv4, 0, -1, t->dev) == want && want >= 0;
	ok &= t_open_gid(t->dev, ipv4, 1, want, NULL) == want;
	ok &= t_open_gid(t->dev, ipv4, 2, -1, NULL) == -EADDRNOTAVAIL;
	ok &= t_open_gid(t->dev, ipv4, 0, want + 1, NULL) == -EADDRNOTAVAIL;
	ok &= t_open_gid("rdcnosuchdev", ipv4, 0, -1, NULL) == -ENODEV;
	tap_ok(&t->tap, ok, "rdev_open by address alone; other port or index EADDRNOTAVAIL");
	return;

port_fail:
	tap_ok(&t->tap, false, "rdev_list guid, port state, mtu, netdev equal ibv_devinfo -v");
	tap_ok(&t->tap, false, "rdev_open equals ibv_devinfo's RoCE v2 GID");
	tap_ok(&t->tap, false, "rdev_open by address alone; other port or index EADDRNOTAVAIL");
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
		t_skip(t, "summary max equals ibv_query_device",
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

static double t_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
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
	t_ibd(&t);
	t_max(&t);
	t_nobufs(&t);
	t_stale(&t);
	t_cost(&t);

	tap_totals(&t.tap);
	rnl_close(&t.rnl);
	return tap_exit_code(&t.tap);
}
