// SPDX-License-Identifier: MIT
/*
 * test_rport: rdma/port, the port's path, on filled struct ibv_port_attr and GID
 * tables: an InfiniBand port (with and without a GRH, without a LID), a RoCE
 * port (v1 and v2, IPv4-mapped and IPv6 entries, link-local ones skipped,
 * --gid-index valid, out of range and empty), and an iWARP port (one MAC-based
 * GID, LID 0). No device is needed: these are the rules the InfiniBand path
 * follows where no InfiniBand device is. Then the agent's command line
 * (--sl, --tclass, --gid-index) as the address vectors its QPs get.
 * TAP 13 on stdout; exit 0 pass, 1 fail.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "agents/opts.h"
#include "rdma/port.h"
#include "tap/tap.h"

static struct tap T;
static char t_why[256];

/* One table entry: port, index, type and GID text ("10.0.0.1" as ::ffff:10.0.0.1). */
static struct ibv_gid_entry t_ent(uint32_t port, uint32_t index, uint32_t type, const char *a)
{
	struct ibv_gid_entry e = { .port_num = port, .gid_index = index, .gid_type = type };

	if (inet_pton(AF_INET, a, &e.gid.raw[12]) == 1) {
		e.gid.raw[10] = 0xff;
		e.gid.raw[11] = 0xff;
	} else if (inet_pton(AF_INET6, a, e.gid.raw) != 1) {
		tap_bail(&T, "inet_pton %s", a);
	}
	return e;
}

static void t_port(struct rport *p, const char *dev, uint8_t ll, int transport,
		   enum ibv_port_state state, uint16_t lid, int tbl,
		   const struct ibv_gid_entry *ents, ssize_t n)
{
	struct ibv_port_attr pa = { .state = state, .lid = lid, .sm_lid = lid ? 1 : 0,
				    .link_layer = ll, .active_mtu = IBV_MTU_4096,
				    .gid_tbl_len = tbl };

	rport_from_attr(p, dev, 1, transport, &pa);
	if (rport_set_gids(p, ents, n))
		tap_bail(&T, "rport_set_gids: %s", strerror(errno));
}

/* The index chosen for (family, address text or NULL, --gid-index), or -errno. */
static int t_choose(const struct rport *p, int family, const char *a, int gidx)
{
	struct rport_want w = { .family = family, .gid_index = gidx };
	struct ibv_gid_entry e;
	int r;

	if (a) {
		e = t_ent(0, 0, 0, a);
		memcpy(&w.addr, e.gid.raw, sizeof(w.addr));
		w.has_addr = true;
	}
	t_why[0] = '\0';
	r = rport_gid_choose(p, &w, t_why, sizeof(t_why));
	if (r < 0) {
		tap_diag(&T, "%s", t_why);
		return -errno;
	}
	return r;
}

/* rport_av over path: 0, or -errno with its why as a diagnostic */
static int t_av_path(const struct rport *p, uint16_t dlid, const union ibv_gid *dgid,
		     const struct rport_path *path, struct ibv_ah_attr *ah)
{
	t_why[0] = '\0';
	if (rport_av(p, dlid, dgid, path, ah, t_why, sizeof(t_why))) {
		tap_diag(&T, "%s", t_why);
		return -errno;
	}
	return 0;
}

static int t_av(const struct rport *p, uint16_t dlid, const union ibv_gid *dgid, uint8_t sl,
		uint8_t tclass, int gidx, bool grh, struct ibv_ah_attr *ah)
{
	struct rport_path path = { .sl = sl, .tclass = tclass, .gid_index = gidx, .grh = grh };

	return t_av_path(p, dlid, dgid, &path, ah);
}

static void t_ib(void)
{
	const struct ibv_gid_entry tab[] = {
		t_ent(1, 0, IBV_GID_TYPE_IB, "fe80::2:c903:a:1b2c"),
		t_ent(1, 1, IBV_GID_TYPE_IB, "fec0::2:c903:a:1b2c"),
	};
	union ibv_gid peer = t_ent(0, 0, 0, "fe80::2:c903:a:9999").gid;
	struct ibv_ah_attr ah;
	struct rport p;
	int r;

	t_port(&p, "mlx5_0", IBV_LINK_LAYER_INFINIBAND, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 5, 128,
	       tab, 2);
	tap_ok(&T, rport_usable(&p, t_why, sizeof(t_why)) == 0, "IB: an ACTIVE port with LID 5 is usable");
	r = t_choose(&p, AF_INET, "10.0.0.1", -1);
	tap_ok(&T, r == 0, "IB: the GID is index 0, the port GID, whatever the address (got %d)", r);

	r = t_av(&p, 7, &peer, 3, 0, 0, false, &ah);
	tap_ok(&T, r == 0 && !ah.is_global && ah.dlid == 7 && ah.sl == 3 && ah.port_num == 1 &&
		   !ah.static_rate && !ah.src_path_bits && !ah.grh.sgid_index && !ah.grh.hop_limit,
	       "IB without a GRH: is_global 0, dlid 7, sl 3, port 1, static_rate 0");
	r = t_av(&p, 7, &peer, 3, 96, 1, true, &ah);
	tap_ok(&T, r == 0 && ah.is_global && ah.dlid == 7 && ah.sl == 3 && ah.grh.sgid_index == 1 &&
		   ah.grh.hop_limit == RPORT_HOP_LIMIT && ah.grh.traffic_class == 96 &&
		   !memcmp(&ah.grh.dgid, &peer, sizeof(peer)),
	       "IB with a GRH: is_global 1, dlid 7, sgid_index 1, dgid, hop limit, traffic class");
	r = t_av(&p, 0, &peer, 0, 0, 0, false, &ah);
	tap_ok(&T, r == -EINVAL, "IB: a peer with LID 0 is EINVAL (got %d)", r);
	r = t_av(&p, 0xc001, &peer, 0, 0, 0, false, &ah);
	tap_ok(&T, r == -EINVAL, "IB: a multicast peer LID is EINVAL (got %d)", r);
	r = t_av(&p, 7, &peer, 16, 0, 0, false, &ah);
	tap_ok(&T, r == -EINVAL, "--sl 16 is EINVAL: 4 bits (got %d)", r);
	r = t_av(&p, 7, &peer, 0, 0, -1, true, &ah);
	tap_ok(&T, r == -EINVAL, "IB: a GRH without a GID index is EINVAL (got %d)", r);
	rport_free(&p);

	t_port(&p, "mlx5_0", IBV_LINK_LAYER_INFINIBAND, IBV_TRANSPORT_IB, IBV_PORT_INIT, 0, 128,
	       tab, 2);
	r = rport_usable(&p, t_why, sizeof(t_why)) ? -errno : 0;
	tap_diag(&T, "%s", t_why);
	tap_ok(&T, r == -ENETDOWN && strstr(t_why, "subnet manager") && strstr(t_why, "mlx5_0 port 1"),
	       "IB: LID 0 in state INIT fails, naming the port and the subnet manager");
	rport_free(&p);
	t_port(&p, "mlx5_0", IBV_LINK_LAYER_UNSPECIFIED, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 0, 128,
	       tab, 2);
	r = rport_usable(&p, t_why, sizeof(t_why)) ? -errno : 0;
	tap_ok(&T, r == -ENETDOWN && p.link_layer == IBV_LINK_LAYER_INFINIBAND,
	       "IB (link layer unspecified, an old kernel's IB): ACTIVE with LID 0 fails too");
	rport_free(&p);
}

static void t_roce(void)
{
	const struct ibv_gid_entry tab[] = {
		t_ent(1, 0, IBV_GID_TYPE_ROCE_V1, "fe80::5054:ff:fe12:3456"),
		t_ent(1, 1, IBV_GID_TYPE_ROCE_V2, "fe80::5054:ff:fe12:3456"),
		t_ent(1, 2, IBV_GID_TYPE_ROCE_V1, "10.0.0.1"),
		t_ent(1, 3, IBV_GID_TYPE_ROCE_V2, "10.0.0.1"),
		t_ent(1, 4, IBV_GID_TYPE_ROCE_V1, "fd78::1"),
		t_ent(1, 5, IBV_GID_TYPE_ROCE_V2, "fd78::1"),
		t_ent(1, 6, IBV_GID_TYPE_ROCE_V1, "fd78::2"),
		t_ent(1, 7, IBV_GID_TYPE_ROCE_V1, "10.0.0.2"),
		t_ent(1, 8, IBV_GID_TYPE_ROCE_V2, "169.254.1.1"),
		t_ent(2, 9, IBV_GID_TYPE_ROCE_V2, "10.0.0.9"),   /* another port's */
		t_ent(1, 40, IBV_GID_TYPE_ROCE_V2, "10.0.0.40"), /* beyond the table */
	};
	const struct ibv_gid_entry lls[] = {
		t_ent(1, 0, IBV_GID_TYPE_ROCE_V2, "fe80::1"),
		t_ent(1, 1, IBV_GID_TYPE_ROCE_V2, "169.254.7.7"),
	};
	union ibv_gid peer = t_ent(0, 0, 0, "fd78::2").gid, none = { .raw = { 0 } };
	struct ibv_ah_attr ah;
	struct rport p;
	int r;

	t_port(&p, "rxe0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 0, 16, tab,
	       sizeof(tab) / sizeof(tab[0]));
	tap_ok(&T, p.gids[5].kind == RPORT_GK_V6 && p.gids[3].kind == RPORT_GK_V4 &&
		   p.gids[1].kind == RPORT_GK_LL && p.gids[8].kind == RPORT_GK_LL &&
		   p.gids[9].kind == RPORT_GK_EMPTY && p.gids[5].type == IBV_GID_TYPE_ROCE_V2,
	       "RoCE table: kinds ipv6, ipv4, link-local (fe80::, 169.254/16); other ports' left out");
	tap_ok(&T, rport_usable(&p, t_why, sizeof(t_why)) == 0, "RoCE: LID 0 is normal, the port is usable");

	r = t_choose(&p, AF_INET, NULL, -1);
	tap_ok(&T, r == 3, "RoCE IPv4: the RoCE v2 IPv4-mapped GID before the v1 one (got %d)", r);
	r = t_choose(&p, AF_INET6, NULL, -1);
	tap_ok(&T, r == 5, "RoCE IPv6: the RoCE v2 IPv6 global GID, link-local skipped (got %d)", r);
	r = t_choose(&p, AF_UNSPEC, NULL, -1);
	tap_ok(&T, r == 3, "RoCE any family: the first RoCE v2 GID not link-local (got %d)", r);
	r = t_choose(&p, AF_INET6, "fd78::1", -1);
	tap_ok(&T, r == 5, "RoCE by IPv6 address fd78::1: its v2 entry (got %d)", r);
	r = t_choose(&p, AF_INET6, "fd78::2", -1);
	tap_ok(&T, r == 6, "RoCE by IPv6 address with a v1 entry only: the v1 one (got %d)", r);
	r = t_choose(&p, AF_INET, "10.0.0.2", -1);
	tap_ok(&T, r == 7, "RoCE by IPv4 address with a v1 entry only: the v1 one (got %d)", r);
	r = t_choose(&p, AF_INET6, "fd78::9", -1);
	tap_ok(&T, r == -EADDRNOTAVAIL && strstr(t_why, "fd78::9") && strstr(t_why, "rxe0 port 1"),
	       "RoCE: no GID for fd78::9 is EADDRNOTAVAIL naming address, device and port");
	r = t_choose(&p, AF_INET, "10.0.0.9", -1);
	tap_ok(&T, r == -EADDRNOTAVAIL, "RoCE: an address of another port is not chosen (got %d)", r);
	r = t_choose(&p, AF_INET, "169.254.1.1", -1);
	tap_ok(&T, r == -EADDRNOTAVAIL, "RoCE: an IPv4 link-local address is not chosen by default (got %d)", r);

	r = t_choose(&p, AF_INET6, "fd78::1", 1);
	tap_ok(&T, r == 1, "--gid-index 1 wins, even a link-local entry (got %d)", r);
	r = t_choose(&p, AF_INET, NULL, 16);
	tap_ok(&T, r == -ERANGE && strstr(t_why, "table of 16"),
	       "--gid-index 16 of a 16-entry table is ERANGE (got %d)", r);
	r = t_choose(&p, AF_INET, NULL, 12);
	tap_ok(&T, r == -ENODATA, "--gid-index of an empty entry is ENODATA (got %d)", r);

	r = t_av(&p, 0, &peer, 2, 106, 5, false, &ah);
	tap_ok(&T, r == 0 && ah.is_global && !ah.dlid && ah.sl == 2 && ah.port_num == 1 &&
		   ah.grh.sgid_index == 5 && ah.grh.hop_limit == RPORT_HOP_LIMIT &&
		   ah.grh.traffic_class == 106 && !ah.static_rate &&
		   !memcmp(&ah.grh.dgid, &peer, sizeof(peer)),
	       "RoCE: always a GRH (is_global 1, sgid_index 5, dgid, traffic class 106), dlid 0");
	r = t_av(&p, 0, &none, 0, 0, 5, false, &ah);
	tap_ok(&T, r == -EINVAL, "RoCE: a peer without a GID is EINVAL (got %d)", r);
	r = t_av(&p, 0, &peer, 0, 0, -1, false, &ah);
	tap_ok(&T, r == -EINVAL, "RoCE: no GID index is EINVAL (got %d)", r);
	rport_free(&p);

	t_port(&p, "rxe0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 0, 16, lls, 2);
	r = t_choose(&p, AF_UNSPEC, NULL, -1);
	tap_ok(&T, r == -EADDRNOTAVAIL, "RoCE with link-local GIDs only: none is chosen (got %d)", r);
	rport_free(&p);

	t_port(&p, "rxe0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IB, IBV_PORT_DOWN, 0, 16, tab, 4);
	r = rport_usable(&p, t_why, sizeof(t_why)) ? -errno : 0;
	tap_ok(&T, r == -ENETDOWN && !strstr(t_why, "subnet manager"),
	       "RoCE: a DOWN port fails, without blaming a subnet manager");
	rport_free(&p);
}

/* rxe's 1024-entry table: only indexes an 8-bit sgid_index names are chosen. */
static void t_wide(void)
{
	const struct ibv_gid_entry tab[] = {
		t_ent(1, 0, IBV_GID_TYPE_ROCE_V2, "fe80::1"),
		t_ent(1, 300, IBV_GID_TYPE_ROCE_V2, "10.0.0.9"),
		t_ent(1, 301, IBV_GID_TYPE_ROCE_V2, "fd78::9"),
		t_ent(1, 255, IBV_GID_TYPE_ROCE_V1, "10.0.0.9"),
	};
	struct rport p;
	int r;

	t_port(&p, "rxe0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 0, 1024, tab,
	       sizeof(tab) / sizeof(tab[0]));
	r = t_choose(&p, AF_INET, "10.0.0.9", -1);
	tap_ok(&T, r == 255, "RoCE: a v2 GID at index 300 is passed over for the v1 one at 255 (got %d)", r);
	r = t_choose(&p, AF_INET6, "fd78::9", -1);
	tap_ok(&T, r == -EADDRNOTAVAIL, "RoCE: a GID only at index 301 is EADDRNOTAVAIL (got %d)", r);
	r = t_choose(&p, AF_INET, NULL, 300);
	tap_ok(&T, r == -ERANGE && strstr(t_why, "8-bit"),
	       "--gid-index 300 of a 1024-entry table is ERANGE: sgid_index is 8 bits (got %d)", r);
	rport_free(&p);

	t_port(&p, "rxe0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 0, 16, tab, 0);
	r = t_choose(&p, AF_UNSPEC, NULL, -1);
	tap_ok(&T, r == -EADDRNOTAVAIL, "RoCE: an empty table is EADDRNOTAVAIL (got %d)", r);
	rport_free(&p);
}

static void t_iwarp(void)
{
	/* siw: one GID, the netdev's MAC in its first 6 bytes */
	struct ibv_gid_entry mac = { .port_num = 1, .gid_index = 0, .gid_type = IBV_GID_TYPE_IB,
				     .gid.raw = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 } };
	struct ibv_ah_attr ah;
	struct rport p;
	int r;

	t_port(&p, "siw0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IWARP, IBV_PORT_ACTIVE, 0, 1,
	       &mac, 1);
	tap_ok(&T, rport_usable(&p, t_why, sizeof(t_why)) == 0 && p.gids[0].kind == RPORT_GK_V6,
	       "iWARP: LID 0 is normal; its MAC-based GID is not an IPv4-mapped one");
	r = t_choose(&p, AF_INET6, "fd78::1", -1);
	tap_ok(&T, r == 0, "iWARP: the one GID, index 0 (got %d)", r);
	r = t_av(&p, 0, &mac.gid, 0, 0, 0, false, &ah);
	tap_ok(&T, r == -EPROTONOSUPPORT && strstr(t_why, "rdma_cm"),
	       "iWARP: no address vector, rdma_cm connects its QPs (got %d)", r);
	r = t_choose(&p, AF_INET, NULL, 1);
	tap_ok(&T, r == -ERANGE, "iWARP: --gid-index 1 of a 1-entry table is ERANGE (got %d)", r);
	rport_free(&p);
}

/* The address vector an agent started with extra[] makes on p to the peer. */
static int t_cmd_av(const struct rport *p, const char *const *extra, int nextra, uint16_t dlid,
		    const union ibv_gid *dgid, int gidx, struct ibv_ah_attr *ah)
{
	/* ud: its address handles are rport_av's with either CM (rc's with oob-tls) */
	char *av[16] = { "rdmacap-agent", "--role=client", "--transport=ud", "--cm=rdmacm" };
	char err[256] = "";
	struct ag_opts o;
	struct rport_path path;
	int n = 4;

	for (int i = 0; i < nextra && n < 15; i++)
		av[n++] = (char *)extra[i];
	av[n] = NULL;
	if (ag_opts_parse(&o, n, av, err, sizeof(err)))
		tap_bail(&T, "ag_opts_parse: %s", err);
	path = ag_opts_path(&o, gidx);
	return t_av_path(p, dlid, dgid, &path, ah);
}

/* rdmacap run --sl 3 --tclass 96: what each fabric's address vector carries */
static void t_cmdline(void)
{
	const struct ibv_gid_entry roce[] = { t_ent(1, 3, IBV_GID_TYPE_ROCE_V2, "10.0.0.1") };
	const struct ibv_gid_entry ib[] = { t_ent(1, 0, IBV_GID_TYPE_IB, "fe80::2:c903:a:1b2c") };
	const char *const both[] = { "--sl=3", "--tclass=96" };
	const char *const grh[] = { "--sl=3", "--tclass=96", "--gid-index=0" };
	const char *const sl[] = { "--sl=3" };
	union ibv_gid rpeer = t_ent(0, 0, 0, "10.0.0.2").gid;
	union ibv_gid ipeer = t_ent(0, 0, 0, "fe80::2:c903:a:9999").gid;
	struct ibv_ah_attr ah;
	struct rport p;
	int r;

	t_port(&p, "rxe0", IBV_LINK_LAYER_ETHERNET, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 0, 16, roce, 1);
	r = t_cmd_av(&p, both, 2, 0, &rpeer, 3, &ah);
	tap_ok(&T, r == 0 && ah.is_global && ah.sl == 3 && ah.grh.traffic_class == 96 &&
		   ah.grh.sgid_index == 3 && !ah.dlid,
	       "RoCE, --sl 3 --tclass 96: sl 3, the class in the GRH (got %d)", r);
	r = t_cmd_av(&p, NULL, 0, 0, &rpeer, 3, &ah);
	tap_ok(&T, r == 0 && ah.is_global && !ah.sl && !ah.grh.traffic_class,
	       "RoCE, neither given: sl 0, class 0, still a GRH (got %d)", r);
	rport_free(&p);

	t_port(&p, "mlx5_0", IBV_LINK_LAYER_INFINIBAND, IBV_TRANSPORT_IB, IBV_PORT_ACTIVE, 5, 128, ib, 1);
	r = t_cmd_av(&p, grh, 3, 7, &ipeer, 0, &ah);
	tap_ok(&T, r == 0 && ah.is_global && ah.dlid == 7 && ah.sl == 3 &&
		   ah.grh.traffic_class == 96 && !memcmp(&ah.grh.dgid, &ipeer, sizeof(ipeer)),
	       "IB with a GRH (--gid-index 0), --sl 3 --tclass 96: both carried (got %d)", r);
	r = t_cmd_av(&p, sl, 1, 7, &ipeer, 0, &ah);
	tap_ok(&T, r == 0 && !ah.is_global && ah.dlid == 7 && ah.sl == 3 && !ah.grh.traffic_class,
	       "IB without a GRH, --sl 3: LID-routed, sl 3 (got %d)", r);
	r = t_cmd_av(&p, both, 2, 7, &ipeer, 0, &ah);
	tap_ok(&T, r == -EINVAL && strstr(t_why, "--tclass 96") && strstr(t_why, "GRH"),
	       "IB without a GRH, --tclass 96: EINVAL, the class needs a GRH (got %d)", r);
	rport_free(&p);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 42);
	t_ib();
	t_roce();
	t_wide();
	t_iwarp();
	t_cmdline();
	tap_totals(&T);
	return tap_exit_code(&T);
}
