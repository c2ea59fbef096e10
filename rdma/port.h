/* SPDX-License-Identifier: MIT */
/*
 * rport: one port's path as the reference tools read it (ibv_rc_pingpong,
 * perftest), for every fabric: the port's facts, which GID a QP uses, whether
 * the port can carry a connection at all, and the address vector towards a
 * peer. Part of rdma/, which uses libc, libibverbs and libmnl only.
 *
 * Offers
 *  - struct rport: link layer (InfiniBand or Ethernet), transport (IB or iWARP,
 *    from the device), LID, SM LID, state, active MTU, and the GID table indexed
 *    by GID index, each entry with its type (IB, RoCE v1, RoCE v2) and kind
 *    (IPv4-mapped, IPv6 global, link-local, empty);
 *  - rport_query(): those facts of a device's port, read with one
 *    ibv_query_gid_table() (rdev_gid_table) and, for a port the table leaves
 *    out (the kernel lists only IB and RoCE ports: an iWARP port's one GID is
 *    missing), ibv_query_gid_ex() and then ibv_query_gid() per index;
 *  - rport_open(): the device and port (named, or the first that fits) whose
 *    port is usable and has the GID a struct rport_want asks for, opened;
 *  - pure rules on filled facts, so the InfiniBand path is tested without an
 *    InfiniBand device: rport_from_attr() and rport_set_gids() fill a struct
 *    rport, rport_usable() says whether the port can connect, rport_gid_choose()
 *    picks the GID index, rport_av() fills struct ibv_ah_attr.
 *
 * The rules (docs/fabrics.md says which reference tool each follows):
 *  - usable: the port is ACTIVE; on InfiniBand it also has a LID, which a
 *    subnet manager assigns (LID 0 and state INIT without one). RoCE and iWARP
 *    ports have LID 0: that is normal there.
 *  - GID: --gid-index wins when it names a non-empty entry of the port. Else
 *    RoCE: among the entries that are not link-local (fe80::/10,
 *    ::ffff:169.254.0.0/16) and have the wanted address family (IPv4-mapped for
 *    AF_INET, IPv6 global for AF_INET6) and equal the wanted address if one is
 *    given, a RoCE v2 entry before a RoCE v1 one, lower index first; never an
 *    index beyond 255, which ibv_ah_attr's 8-bit sgid_index cannot name.
 *    InfiniBand: index 0, the port GID (subnet prefix + port GUID), used only
 *    when a GRH is wanted. iWARP: index 0, the port's one GID (its MAC, not an
 *    address: rdma_cm addresses iWARP connections).
 *  - address vector: RoCE always with a GRH (is_global 1, sgid_index, dgid,
 *    hop limit RPORT_HOP_LIMIT, traffic class); InfiniBand by the peer's LID
 *    (dlid, sl) and a GRH only when asked for; port_num the port; static_rate
 *    0 (the port's rate). iWARP has none: its QPs reach RTS only through the
 *    iw_cm.
 *
 * Errors: -1 with errno and, in why (the rules) or e (rport_query), a message
 * naming the device, the port and the likely cause. Nothing is printed.
 */
#ifndef RDC_RDMA_PORT_H
#define RDC_RDMA_PORT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#include "rdma/dev.h"

/*
 * The GRH hop limit: a RoCEv2 packet's IP TTL. 64, the Linux default TTL, so a
 * routed RoCE fabric is crossed; inside one IB subnet it is not looked at.
 */
#define RPORT_HOP_LIMIT 64
/* unicast LIDs are 0x0001..0xbfff; 0xc000.. are multicast */
#define RPORT_LID_UNICAST_MAX 0xbfff
/* ibv_ah_attr.sl is 4 bits */
#define RPORT_SL_MAX 15

enum rport_kind {
	RPORT_GK_EMPTY = 0, /* all zero: no GID at this index */
	RPORT_GK_V4,        /* ::ffff:a.b.c.d, not 169.254/16 */
	RPORT_GK_V6,        /* any other non-link-local GID: IPv6 global, IB, a MAC */
	RPORT_GK_LL,        /* fe80::/10 or ::ffff:169.254.0.0/16 */
};

struct rport_gid {
	uint32_t type;        /* enum ibv_gid_type: IB, ROCE_V1, ROCE_V2 */
	enum rport_kind kind;
	union ibv_gid gid;
};

struct rport {
	char dev[RDEV_NAME_MAX];
	uint8_t port;
	uint8_t link_layer;   /* IBV_LINK_LAYER_INFINIBAND or _ETHERNET */
	int transport;        /* IBV_TRANSPORT_IB or IBV_TRANSPORT_IWARP */
	uint16_t lid, sm_lid;
	enum ibv_port_state state;
	enum ibv_mtu active_mtu;
	int gid_tbl_len;
	struct rport_gid *gids; /* gid_tbl_len entries, by GID index; malloc'ed */
};

struct rport_want {
	int family;           /* AF_INET, AF_INET6, or AF_UNSPEC: either */
	bool has_addr;        /* addr is the local address whose GID is wanted */
	struct in6_addr addr; /* IPv4 as ::ffff:a.b.c.d */
	int gid_index;        /* --gid-index; -1: none */
};

#define RPORT_WANT_ANY { .family = AF_UNSPEC, .gid_index = -1 }

struct rport_path {
	uint8_t sl;           /* --sl, 0..RPORT_SL_MAX */
	uint8_t tclass;       /* --tclass: the GRH traffic class */
	int gid_index;        /* the local GID (rport_gid_choose); -1: none */
	bool grh;             /* InfiniBand: route with a GRH (a GID index was asked for) */
};

/* Fills p's facts from a port's attributes; no GIDs yet (gids NULL). */
void rport_from_attr(struct rport *p, const char *dev, uint8_t port, int transport,
		     const struct ibv_port_attr *pa);

/*
 * Places the entries of ents[0..n-1] that belong to p->port at their index in
 * p->gids (allocated here, gid_tbl_len entries, the others empty). 0, or -1
 * (ENOMEM).
 */
int rport_set_gids(struct rport *p, const struct ibv_gid_entry *ents, ssize_t n);

/* The facts of port 'port' of ctx, with its GID table. 0, or -1 with e filled. */
int rport_query(struct ibv_context *ctx, uint8_t port, struct rport *p, struct rdev_err *e);

void rport_free(struct rport *p);

/*
 * Opens device 'name' (NULL or "": each device in ibv_get_device_list's order)
 * and takes its port 'port' (0: each port), the first one that rport_usable()
 * accepts and where rport_gid_choose(w) finds a GID. 0 with *ctx open (the
 * caller closes it), *attr its ibv_query_device, *p its facts (rport_free) and
 * *gidx the GID index; or -1 with errno (ENODEV no such device, ENETDOWN the
 * port is not usable, EADDRNOTAVAIL no GID fits: the kernel adds a RoCE GID
 * shortly after its address appears) and e naming the last device tried and why.
 */
int rport_open(const char *name, uint8_t port, const struct rport_want *w,
	       struct ibv_context **ctx, struct ibv_device_attr *attr, struct rport *p,
	       int *gidx, struct rdev_err *e);

/* 0 when p can carry a connection; else -1, errno ENETDOWN, and why. */
int rport_usable(const struct rport *p, char *why, size_t len);

/* The GID index w wants on p (>= 0); or -1 with errno and why:
 * ERANGE --gid-index beyond the table, ENODATA an empty entry, EADDRNOTAVAIL no
 * GID fits. */
int rport_gid_choose(const struct rport *p, const struct rport_want *w, char *why, size_t len);

/*
 * The address vector from p to a peer with LID dlid and GID dgid over path.
 * 0 with *ah filled (zeroed first); or -1 with errno and why: EPROTONOSUPPORT
 * an iWARP port, EINVAL a peer without the LID or GID the fabric routes by, an
 * SL beyond 4 bits, a GRH without a GID index, or a traffic class without a GRH.
 */
int rport_av(const struct rport *p, uint16_t dlid, const union ibv_gid *dgid,
	     const struct rport_path *path, struct ibv_ah_attr *ah, char *why, size_t len);

/* Words for env: "InfiniBand"/"Ethernet", "IB"/"iWARP", "IB"/"RoCEv1"/"RoCEv2",
 * "ipv4"/"ipv6"/"link-local"/"empty". */
const char *rport_link_str(uint8_t link_layer);
const char *rport_transport_str(int transport);
const char *rport_type_str(uint32_t type);
const char *rport_kind_str(enum rport_kind kind);
/* a.b.c.d for an IPv4-mapped GID, IPv6 text otherwise; buf of INET6_ADDRSTRLEN */
void rport_gid_str(const union ibv_gid *g, char *buf, size_t len);

#endif /* RDC_RDMA_PORT_H */
