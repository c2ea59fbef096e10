// SPDX-License-Identifier: MIT
/*
 * test_rdev: rdma/dev, the device facts. Without a device: the rule of its one GID
 * lookup (rdev_gid_pick) on made-up GID tables, and rdev_route_src on loopback.
 * With one: rdev_list's limits and port facts and rdev_open's GID against
 * ibv_devinfo -v (suites/vm/rnl.sh makes the device in the rxe VM):
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

#define T_PLAN 14

static struct tap T;

/* The results against a device, in order; each is written also when there is none. */
enum { T_LIMITS, T_PORT, T_GID, T_BYADDR, T_NDEV };
static const char *const t_dev_desc[T_NDEV] = {
	[T_LIMITS] = "rdev_list limits equal ibv_devinfo -v",
	[T_PORT] = "rdev_list guid, port state, mtu, netdev equal ibv_devinfo -v",
	[T_GID] = "rdev_open equals ibv_devinfo's RoCE v2 GID",
	[T_BYADDR] = "rdev_open by address alone; other port or index EADDRNOTAVAIL",
};

static char t_out[1 << 20]; /* ibv_devinfo -v of the device */

/* One table entry: port, index, type, and ::ffff:v4 (v4 NULL: a link-local GID). */
static struct ibv_gid_entry t_ent(uint32_t port, uint32_t index, uint32_t type, const char *v4)
{
	struct ibv_gid_entry e = { .port_num = port, .gid_index = index, .gid_type = type };

	if (v4) {
		e.gid.raw[10] = 0xff;
		e.gid.raw[11] = 0xff;
		if (inet_pton(AF_INET, v4, &e.gid.raw[12]) != 1)
			tap_bail(&T, "inet_pton %s", v4);
	} else {
		e.gid.raw[0] = 0xfe;
		e.gid.raw[1] = 0x80;
		e.gid.raw[15] = (uint8_t)index;
	}
	return e;
}

/* The index rdev_gid_pick finds in tab for (port, index, addr), or -errno. */
static int t_pick(const struct ibv_gid_entry *tab, ssize_t n, uint8_t port, int index,
		  const char *v4, struct rdev_gid *g)
{
	struct rdev_sel s = { .port = port, .gid_index = index };

	if (v4 && inet_pton(AF_INET, v4, &s.addr) != 1)
		return -EINVAL;
	errno = 0;
	if (rdev_gid_pick(tab, n, &s, g))
		return -errno;
	return g->index;
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

/* The device results from 'from' on, all as r (TAP_FAIL or TAP_SKIP) with why. */
static void t_dev_rest(int from, enum tap_res r, const char *why)
{
	for (int i = from; i < T_NDEV; i++)
		tap_result(&T, r, why, "%s", t_dev_desc[i]);
}

/* rdev_open by the address RNL_IPV4, against the GID ibv_devinfo -v shows for it. */
static void t_ibd_gid(const char *dev, const struct rdev_info *d)
{
	const char *ipv4 = getenv("RNL_IPV4");
	int gi, want;
	bool ok;

	if (!ipv4) {
		t_dev_rest(T_GID, TAP_SKIP, "RNL_IPV4 not set");
		return;
	}
	want = t_devinfo_gid(t_out, ipv4);
	gi = t_open_gid(dev, ipv4, 0, -1, NULL);
	printf("# gid_index=%d ibv_devinfo=%d roce4_gid_index=%d\n", gi, want,
	       d->roce4_gid_index);
	ok = want >= 0 && gi == want && d->roce4_gid_index == want &&
	     !strcmp(d->roce4_addr, ipv4);
	tap_ok(&T, ok, "%s for %s", t_dev_desc[T_GID], ipv4);

	/* what an agent does without --device, and what a wrong override gets */
	ok = t_open_gid(NULL, ipv4, 0, -1, dev) == want && want >= 0;
	ok &= t_open_gid(dev, ipv4, 1, want, NULL) == want;
	ok &= t_open_gid(dev, ipv4, 2, -1, NULL) == -EADDRNOTAVAIL;
	ok &= t_open_gid(dev, ipv4, 0, want + 1, NULL) == -EADDRNOTAVAIL;
	ok &= t_open_gid("rdcnosuchdev", ipv4, 0, -1, NULL) == -ENODEV;
	tap_ok(&T, ok, "%s", t_dev_desc[T_BYADDR]);
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
	t_ibd_gid(dev, d);
}

int main(void)
{
	const struct ibv_gid_entry tab[] = {
		t_ent(1, 0, IBV_GID_TYPE_ROCE_V2, NULL),       /* fe80:: */
		t_ent(1, 1, IBV_GID_TYPE_IB, "10.0.0.1"),      /* RoCE v1 of the same address */
		t_ent(1, 2, IBV_GID_TYPE_ROCE_V2, "10.0.0.1"),
		t_ent(1, 3, IBV_GID_TYPE_ROCE_V2, "10.0.0.2"),
		t_ent(2, 2, IBV_GID_TYPE_ROCE_V2, "10.0.1.1"),
		t_ent(1, 300, IBV_GID_TYPE_ROCE_V2, "10.0.0.9"), /* beyond sgid_index */
	};
	const ssize_t n = sizeof(tab) / sizeof(tab[0]);
	struct sockaddr_in lo = { .sin_family = AF_INET };
	struct sockaddr_in6 lo6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage src;
	struct rdev_gid g;
	struct rdev_err e;
	int r;

	tap_init(&T, stdout);
	tap_plan(&T, T_PLAN);

	memset(&g, 0, sizeof(g));
	r = t_pick(tab, n, 0, -1, "10.0.0.1", &g);
	tap_ok(&T, r == 2 && g.port == 1 && g.addr.s_addr == htonl(0x0a000001) &&
		   !memcmp(&g.gid, &tab[2].gid, sizeof(g.gid)),
	       "by address: the RoCEv2 GID, not the RoCE v1 one of the same address");
	r = t_pick(tab, n, 0, -1, NULL, &g);
	tap_ok(&T, r == 2, "any address: the first IPv4-mapped RoCEv2 GID, not fe80::");
	r = t_pick(tab, n, 2, -1, NULL, &g);
	tap_ok(&T, r == 2 && g.port == 2, "by port: the same index on port 2 is port 2's");
	r = t_pick(tab, n, 0, 3, NULL, &g);
	tap_ok(&T, r == 3, "by index: index 3 whatever its address");
	r = t_pick(tab, n, 0, 1, NULL, &g);
	tap_ok(&T, r == -EADDRNOTAVAIL, "an index of a RoCE v1 GID is EADDRNOTAVAIL (got %d)", r);
	r = t_pick(tab, n, 2, -1, "10.0.0.1", &g);
	tap_ok(&T, r == -EADDRNOTAVAIL, "an address on another port is EADDRNOTAVAIL (got %d)", r);
	r = t_pick(tab, n, 0, -1, "10.0.0.9", &g);
	tap_ok(&T, r == -EADDRNOTAVAIL,
	       "a GID index that does not fit sgid_index (>255) is skipped (got %d)", r);
	r = t_pick(tab, 0, 0, -1, NULL, &g);
	tap_ok(&T, r == -EADDRNOTAVAIL, "an empty table is EADDRNOTAVAIL (got %d)", r);

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
