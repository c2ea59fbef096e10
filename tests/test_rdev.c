// SPDX-License-Identifier: MIT
/*
 * test_rdev: rdma/dev, the device facts. Without a device: rdev_route_src on
 * loopback. With one: rdev_list's limits, port facts and RoCEv2 IPv4 GID
 * against ibv_devinfo -v (suites/vm/rnl.sh makes the device in the rxe VM);
 * the GID rules an agent uses are rdma/port's (tests/test_rport.c):
 *
 *   RNL_DEV=rxe0 RNL_IPV4=10.0.0.1 RNL_NETDEV=veth0 build/tests/test_rdev
 *
 * RNL_DEV picks the device (default: the first one; with none, those results
 * skip); RNL_IPV4 and RNL_NETDEV, when set, are the address and netdev behind it.
 * TAP 13 on stdout; exit 0 pass, 1 fail.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rdma/dev.h"
#include "tap/tap.h"
#include "tests/t_tool.h"

#define T_PLAN 5

static struct tap T;

/* The results against a device, in order; each is written also when there is none. */
enum { T_LIMITS, T_PORT, T_GID, T_NDEV };
static const char *const t_dev_desc[T_NDEV] = {
	[T_LIMITS] = "rdev_list limits equal ibv_devinfo -v",
	[T_PORT] = "rdev_list guid, port state, mtu, netdev equal ibv_devinfo -v",
	[T_GID] = "rdev_list's RoCE v2 IPv4 GID equals ibv_devinfo's",
};

static char t_out[1 << 20]; /* ibv_devinfo -v of the device */

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

/* The device results from 'from' on, all as r (TAP_FAIL or TAP_SKIP) with why. */
static void t_dev_rest(int from, enum tap_res r, const char *why)
{
	for (int i = from; i < T_NDEV; i++)
		tap_result(&T, r, why, "%s", t_dev_desc[i]);
}

/* rdev_list's GID of the address RNL_IPV4, against the one ibv_devinfo -v shows for it. */
static void t_ibd_gid(const struct rdev_info *d)
{
	const char *ipv4 = getenv("RNL_IPV4");
	int want;

	if (!ipv4) {
		t_dev_rest(T_GID, TAP_SKIP, "RNL_IPV4 not set");
		return;
	}
	want = t_devinfo_gid(t_out, ipv4);
	printf("# ibv_devinfo=%d roce4_gid_index=%d roce4_addr=%s\n", want, d->roce4_gid_index,
	       d->roce4_addr);
	tap_ok(&T, want >= 0 && d->roce4_gid_index == want && !strcmp(d->roce4_addr, ipv4),
	       "%s for %s", t_dev_desc[T_GID], ipv4);
}

/* rdev_list's facts of RNL_DEV (or the first device) against ibv_devinfo -v. */
static void t_ibd(void)
{
	static struct rdev_info info[RDEV_MAX_DEVS];
	const char *dev = getenv("RNL_DEV"), *netdev = getenv("RNL_NETDEV");
	const struct rdev_info *d = NULL;
	char cmd[160], mtu[16];
	struct rdev_err err;
	bool ok, have;
	double t0;
	int n;

	t0 = t_now_us();
	n = rdev_list(info, RDEV_MAX_DEVS, &err);
	printf("# rdev_list=%d ms=%.1f\n", n, (t_now_us() - t0) / 1e3);
	if (n < 0)
		printf("# %s\n", err.msg);
	if (!dev && n == 0) {
		t_dev_rest(T_LIMITS, TAP_SKIP, "no RDMA device");
		return;
	}
	if (!dev)
		dev = n > 0 ? info[0].name : "(none)";
	for (int i = 0; i < n; i++)
		if (!strcmp(info[i].name, dev))
			d = &info[i];
	snprintf(cmd, sizeof(cmd), "ibv_devinfo -v -d %s", dev);
	have = d && t_run(cmd, t_out, sizeof(t_out)) == 0;
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
		printf("# rdev_list: %d devices, %s %s\n", n, dev, d ? "found" : "absent");
	}
	tap_ok(&T, ok, "%s", t_dev_desc[T_LIMITS]);
	if (!have) {
		t_dev_rest(T_PORT, TAP_FAIL, NULL);
		return;
	}

	printf("# rdev: node_guid=%s port_state=%s active_mtu=%d netdev=%s gid_tbl_len=%d "
	       "roce4_gid=%d roce4_addr=%s\n", d->node_guid_str, d->port_state_str,
	       d->active_mtu, d->netdev, d->gid_tbl_len, d->roce4_gid_index, d->roce4_addr);
	snprintf(mtu, sizeof(mtu), "%d", d->active_mtu);
	ok = t_str(t_out, "node_guid", d->node_guid_str) &&
	     t_enum(t_out, "state", d->port_state) && t_str(t_out, "active_mtu", mtu) &&
	     t_num(t_out, "gid_tbl_len", d->gid_tbl_len) &&
	     (!netdev || !strcmp(netdev, d->netdev));
	tap_ok(&T, ok, "%s", t_dev_desc[T_PORT]);
	t_ibd_gid(d);
}

int main(void)
{
	struct sockaddr_in lo = { .sin_family = AF_INET };
	struct sockaddr_in6 lo6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage src;
	struct rdev_err e;
	int r;

	tap_init(&T, stdout);
	tap_plan(&T, T_PLAN);

	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&src, 0, sizeof(src));
	r = rdev_route_src((struct sockaddr *)&lo, &src, &e);
	if (r)
		tap_diag(&T, "%s", e.msg);
	tap_ok(&T, r == 0 && src.ss_family == AF_INET &&
			   ((struct sockaddr_in *)&src)->sin_addr.s_addr == lo.sin_addr.s_addr,
	       "route_src to 127.0.0.1 is 127.0.0.1");
	lo6.sin6_addr = in6addr_loopback;
	memset(&src, 0, sizeof(src));
	r = rdev_route_src((struct sockaddr *)&lo6, &src, &e);
	if (r)
		tap_diag(&T, "%s", e.msg);
	tap_ok(&T, r == 0 && src.ss_family == AF_INET6 &&
			   IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&src)->sin6_addr),
	       "route_src to ::1 is ::1");
	t_ibd();

	tap_totals(&T);
	return tap_exit_code(&T);
}
