// SPDX-License-Identifier: MIT
/* rport: a port's facts, its GID choice and its address vector. See port.h. */
#include "rdma/port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rport_fail(struct rdev_err *e, const char *call, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rport_fail(struct rdev_err *e, const char *call, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rdev_vfail(e, "rport", call, err, fmt, ap);
	va_end(ap);
	return ret;
}

/* -1 with errno = err and why filled: the rules' one way to refuse. */
static int rport_why(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rport_why(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	errno = err;
	return -1;
}

static const uint8_t rport_v4pre[12] = { [10] = 0xff, [11] = 0xff };

static enum rport_kind rport_kind_of(const union ibv_gid *g)
{
	static const union ibv_gid zero;

	if (!memcmp(g, &zero, sizeof(zero)))
		return RPORT_GK_EMPTY;
	if (!memcmp(g->raw, rport_v4pre, sizeof(rport_v4pre)))
		/* 169.254/16 is IPv4's link-local range (RFC 3927) */
		return g->raw[12] == 169 && g->raw[13] == 254 ? RPORT_GK_LL : RPORT_GK_V4;
	if (g->raw[0] == 0xfe && (g->raw[1] & 0xc0) == 0x80)
		return RPORT_GK_LL;
	return RPORT_GK_V6;
}

void rport_from_attr(struct rport *p, const char *dev, uint8_t port, int transport,
		     const struct ibv_port_attr *pa)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = port;
	p->link_layer = pa->link_layer;
	/* IBV_LINK_LAYER_UNSPECIFIED is what old kernels say of InfiniBand */
	if (p->link_layer != IBV_LINK_LAYER_ETHERNET)
		p->link_layer = IBV_LINK_LAYER_INFINIBAND;
	p->transport = transport;
	p->lid = pa->lid;
	p->sm_lid = pa->sm_lid;
	p->state = pa->state;
	p->active_mtu = pa->active_mtu;
	p->gid_tbl_len = pa->gid_tbl_len > 0 ? pa->gid_tbl_len : 0;
}

int rport_set_gids(struct rport *p, const struct ibv_gid_entry *ents, ssize_t n)
{
	free(p->gids);
	p->gids = calloc(p->gid_tbl_len ? (size_t)p->gid_tbl_len : 1, sizeof(*p->gids));
	if (!p->gids)
		return -1;
	for (ssize_t i = 0; i < n; i++) {
		const struct ibv_gid_entry *ent = &ents[i];
		struct rport_gid *g;

		if (ent->port_num != p->port || ent->gid_index >= (uint32_t)p->gid_tbl_len)
			continue;
		g = &p->gids[ent->gid_index];
		g->type = ent->gid_type;
		g->gid = ent->gid;
		g->kind = rport_kind_of(&ent->gid);
	}
	return 0;
}

/*
 * The port's entries one index at a time, for a port the table call left out:
 * ibv_query_gid_ex names the type; where the kernel refuses it (an iWARP
 * port), ibv_query_gid reads the GID and the type is IB, as the kernel types
 * every GID that is not RoCE.
 */
static int rport_gids_each(struct ibv_context *ctx, struct rport *p, struct rdev_err *e)
{
	struct ibv_gid_entry ent;
	union ibv_gid gid;
	int ret;

	for (int i = 0; i < p->gid_tbl_len; i++) {
		struct rport_gid *g = &p->gids[i];

		ret = ibv_query_gid_ex(ctx, p->port, (uint32_t)i, &ent, 0);
		if (!ret) {
			g->type = ent.gid_type;
			g->gid = ent.gid;
		} else if (ret == ENODATA) {
			continue; /* an empty entry */
		} else if (!ibv_query_gid(ctx, p->port, i, &gid)) {
			g->type = IBV_GID_TYPE_IB;
			g->gid = gid;
		} else {
			return rport_fail(e, "ibv_query_gid", errno, "%s port %u index %d", p->dev,
					  p->port, i);
		}
		g->kind = rport_kind_of(&g->gid);
	}
	return 0;
}

int rport_query(struct ibv_context *ctx, uint8_t port, struct rport *p, struct rdev_err *e)
{
	const char *dev = ibv_get_device_name(ctx->device);
	struct ibv_gid_entry *ents = NULL;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	ssize_t n;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = ibv_query_port(ctx, port, &pa);
	if (ret)
		return rport_fail(e, "ibv_query_port", ret, "%s port %u", dev, port);
	rport_from_attr(p, dev, port, ctx->device->transport_type, &pa);
	ret = ibv_query_device(ctx, &da);
	if (ret)
		return rport_fail(e, "ibv_query_device", ret, "%s", dev);
	/* one call for the whole table; a failure leaves the slow path below */
	n = rdev_gid_table(ctx, da.phys_port_cnt, &ents, NULL);
	if (rport_set_gids(p, ents, n < 0 ? 0 : n)) {
		free(ents);
		return rport_fail(e, "calloc", ENOMEM, "%s port %u GID table", dev, port);
	}
	free(ents);
	for (int i = 0; i < p->gid_tbl_len; i++)
		if (p->gids[i].kind != RPORT_GK_EMPTY)
			return 0;
	if (rport_gids_each(ctx, p, e)) {
		rport_free(p);
		return -1;
	}
	return 0;
}

void rport_free(struct rport *p)
{
	free(p->gids);
	p->gids = NULL;
}

/* A port of ctx (port, or each) that is usable and has w's GID: 0, or -1 with e. */
static int rport_pick(struct ibv_context *ctx, uint8_t port, const struct rport_want *w,
		      struct ibv_device_attr *attr, struct rport *p, int *gidx,
		      struct rdev_err *e)
{
	const char *dev = ibv_get_device_name(ctx->device);
	char why[sizeof(e->obj)];
	int ret, i;

	ret = ibv_query_device(ctx, attr);
	if (ret)
		return rport_fail(e, "ibv_query_device", ret, "%s", dev);
	for (i = port ? port : 1; i <= (port ? port : attr->phys_port_cnt); i++) {
		if (rport_query(ctx, (uint8_t)i, p, e))
			return -1;
		if (rport_usable(p, why, sizeof(why))) {
			rport_fail(e, "ibv_query_port", errno, "%s", why);
		} else {
			*gidx = rport_gid_choose(p, w, why, sizeof(why));
			if (*gidx >= 0)
				return 0;
			rport_fail(e, "ibv_query_gid", errno, "%s", why);
		}
		ret = errno;
		rport_free(p);
		errno = ret;
	}
	return -1;
}

int rport_open(const char *name, uint8_t port, const struct rport_want *w,
	       struct ibv_context **ctx, struct ibv_device_attr *attr, struct rport *p,
	       int *gidx, struct rdev_err *e)
{
	struct ibv_device **list;
	int i, n, err;

	*ctx = NULL;
	if (name && !name[0])
		name = NULL;
	list = ibv_get_device_list(&n);
	if (!list) {
		/* no uverbs at all (no RDMA in the kernel) means no devices */
		err = errno == ENOSYS || errno == ENOENT || !errno ? ENODEV : errno;
		return rport_fail(e, "ibv_get_device_list", err, "%s", name ? name : "devices");
	}
	rport_fail(e, "ibv_get_device_list", ENODEV, "%s", name ? name : "devices");
	for (i = 0; i < n && !*ctx; i++) {
		const char *dev = ibv_get_device_name(list[i]);

		if (name && strcmp(dev, name))
			continue;
		*ctx = ibv_open_device(list[i]);
		if (!*ctx) {
			rport_fail(e, "ibv_open_device", errno ? errno : ENODEV, "%s", dev);
		} else if (rport_pick(*ctx, port, w, attr, p, gidx, e)) {
			err = errno;
			ibv_close_device(*ctx);
			*ctx = NULL;
			errno = err;
		}
	}
	err = errno;
	ibv_free_device_list(list);
	errno = err;
	return *ctx ? 0 : -1;
}

int rport_usable(const struct rport *p, char *why, size_t len)
{
	bool ib = p->link_layer == IBV_LINK_LAYER_INFINIBAND && p->transport != IBV_TRANSPORT_IWARP;

	/* an InfiniBand port gets its LID and leaves INIT only from a subnet manager */
	if (ib && (!p->lid || p->state != IBV_PORT_ACTIVE))
		return rport_why(why, len, ENETDOWN,
				 "%s port %u: InfiniBand port in state %s with LID %u: no subnet manager has brought it up (is opensm or the fabric's SM running?)",
				 p->dev, p->port, ibv_port_state_str(p->state), p->lid);
	if (p->state != IBV_PORT_ACTIVE)
		return rport_why(why, len, ENETDOWN,
				 "%s port %u: port in state %s, not ACTIVE (is its netdev up, with a carrier?)",
				 p->dev, p->port, ibv_port_state_str(p->state));
	return 0;
}

/* The index of the first RoCE entry of type 'type' that w accepts, or -1. */
static int rport_roce_find(const struct rport *p, const struct rport_want *w, uint32_t type)
{
	/* grh.sgid_index is 8 bits: rxe's 1024-entry table has indexes no AV names */
	for (int i = 0; i < p->gid_tbl_len && i <= UINT8_MAX; i++) {
		const struct rport_gid *g = &p->gids[i];

		if (g->type != type || g->kind == RPORT_GK_EMPTY || g->kind == RPORT_GK_LL)
			continue;
		if ((w->family == AF_INET && g->kind != RPORT_GK_V4) ||
		    (w->family == AF_INET6 && g->kind != RPORT_GK_V6))
			continue;
		if (w->has_addr && memcmp(g->gid.raw, &w->addr, sizeof(w->addr)))
			continue;
		return i;
	}
	return -1;
}

/* "fd78::1", "10.0.0.1", "IPv6", "IPv4" or "any" address: what was wanted. */
static void rport_want_str(const struct rport_want *w, char *buf, size_t len)
{
	union ibv_gid g;

	if (w->has_addr) {
		memcpy(g.raw, &w->addr, sizeof(g.raw));
		rport_gid_str(&g, buf, len);
	} else {
		snprintf(buf, len, "%s", w->family == AF_INET ? "an IPv4 address" :
					 w->family == AF_INET6 ? "an IPv6 address" : "any address");
	}
}

int rport_gid_choose(const struct rport *p, const struct rport_want *w, char *why, size_t len)
{
	char want[INET6_ADDRSTRLEN + 16];
	int i;

	if (w->gid_index >= 0) {
		if (w->gid_index >= p->gid_tbl_len)
			return rport_why(why, len, ERANGE,
					 "--gid-index %d is beyond the GID table of %s port %u (table of %d)",
					 w->gid_index, p->dev, p->port, p->gid_tbl_len);
		if (w->gid_index > UINT8_MAX)
			return rport_why(why, len, ERANGE,
					 "--gid-index %d of %s port %u does not fit an address vector's 8-bit sgid_index",
					 w->gid_index, p->dev, p->port);
		if (p->gids[w->gid_index].kind == RPORT_GK_EMPTY)
			return rport_why(why, len, ENODATA, "--gid-index %d of %s port %u is empty",
					 w->gid_index, p->dev, p->port);
		return w->gid_index;
	}
	if (p->transport == IBV_TRANSPORT_IWARP || p->link_layer == IBV_LINK_LAYER_INFINIBAND) {
		/* the port GID: subnet prefix + GUID on IB, the MAC on iWARP */
		if (!p->gid_tbl_len || p->gids[0].kind == RPORT_GK_EMPTY)
			return rport_why(why, len, EADDRNOTAVAIL, "%s port %u has no GID at index 0",
					 p->dev, p->port);
		return 0;
	}
	i = rport_roce_find(p, w, IBV_GID_TYPE_ROCE_V2);
	if (i < 0)
		i = rport_roce_find(p, w, IBV_GID_TYPE_ROCE_V1);
	if (i >= 0)
		return i;
	rport_want_str(w, want, sizeof(want));
	return rport_why(why, len, EADDRNOTAVAIL,
			 "no RoCE v2 or v1 GID for %s on %s port %u (link-local GIDs only by --gid-index)",
			 want, p->dev, p->port);
}

int rport_av(const struct rport *p, uint16_t dlid, const union ibv_gid *dgid,
	     const struct rport_path *path, struct ibv_ah_attr *ah, char *why, size_t len)
{
	bool roce = p->link_layer == IBV_LINK_LAYER_ETHERNET;
	bool grh = roce || path->grh;

	memset(ah, 0, sizeof(*ah));
	if (p->transport == IBV_TRANSPORT_IWARP)
		return rport_why(why, len, EPROTONOSUPPORT,
				 "%s port %u is iWARP: its QPs are connected by rdma_cm, not by an address vector",
				 p->dev, p->port);
	if (path->sl > RPORT_SL_MAX)
		return rport_why(why, len, EINVAL, "--sl %u: a service level is 0..%d", path->sl,
				 RPORT_SL_MAX);
	/* the class is a GRH field: without one it would be dropped unseen */
	if (!grh && path->tclass)
		return rport_why(why, len, EINVAL,
				 "--tclass %u on InfiniBand %s port %u needs a GRH (--gid-index)",
				 path->tclass, p->dev, p->port);
	if (!roce && (!dlid || dlid > RPORT_LID_UNICAST_MAX))
		return rport_why(why, len, EINVAL,
				 "peer LID %u is not a unicast LID: an InfiniBand peer is routed by its LID",
				 dlid);
	if (grh && (path->gid_index < 0 || path->gid_index >= p->gid_tbl_len ||
		    path->gid_index > UINT8_MAX))
		return rport_why(why, len, EINVAL, "%s port %u: a GRH needs a GID index, not %d",
				 p->dev, p->port, path->gid_index);
	if (grh && rport_kind_of(dgid) == RPORT_GK_EMPTY)
		return rport_why(why, len, EINVAL, "%s port %u: a GRH needs the peer's GID",
				 p->dev, p->port);
	ah->port_num = p->port;
	ah->sl = path->sl;
	ah->static_rate = 0;
	ah->src_path_bits = 0;
	/* RoCE has no LIDs: its packets are routed by the GRH's addresses */
	ah->dlid = roce ? 0 : dlid;
	if (!grh)
		return 0;
	ah->is_global = 1;
	ah->grh.dgid = *dgid;
	ah->grh.sgid_index = (uint8_t)path->gid_index;
	ah->grh.hop_limit = RPORT_HOP_LIMIT;
	ah->grh.traffic_class = path->tclass;
	return 0;
}

const char *rport_link_str(uint8_t link_layer)
{
	return link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
}

const char *rport_transport_str(int transport)
{
	return transport == IBV_TRANSPORT_IWARP ? "iWARP" :
	       transport == IBV_TRANSPORT_IB ? "IB" : "other";
}

const char *rport_type_str(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCEv1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCEv2";
	}
	return "?";
}

const char *rport_kind_str(enum rport_kind kind)
{
	switch (kind) {
	case RPORT_GK_EMPTY: return "empty";
	case RPORT_GK_V4: return "ipv4";
	case RPORT_GK_V6: return "ipv6";
	case RPORT_GK_LL: return "link-local";
	}
	return "?";
}

void rport_gid_str(const union ibv_gid *g, char *buf, size_t len)
{
	if (!memcmp(g->raw, rport_v4pre, sizeof(rport_v4pre)))
		inet_ntop(AF_INET, &g->raw[12], buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len);
}
