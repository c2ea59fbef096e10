// SPDX-License-Identifier: MIT
/*
 * test_rdev: the rule of rdma/dev's one GID lookup (rdev_gid_pick) on made-up
 * GID tables, and rdev_route_src on loopback. Needs no RDMA device: the lookup
 * against a real rxe device is in test_rnl (suites/vm/rnl.sh). TAP 13 on stdout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "rdma/dev.h"
#include "tap/tap.h"

static struct tap T;

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
	struct in_addr lo, src;
	struct rdev_gid g;
	struct rdev_err e;
	int r;

	tap_init(&T, stdout);
	tap_plan(&T, 9);

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

	lo.s_addr = htonl(INADDR_LOOPBACK);
	memset(&src, 0, sizeof(src));
	r = rdev_route_src(lo, &src, &e);
	if (r)
		tap_diag(&T, "%s", e.msg);
	tap_ok(&T, r == 0 && src.s_addr == lo.s_addr, "route_src to 127.0.0.1 is 127.0.0.1");

	tap_totals(&T);
	return tap_exit_code(&T);
}
