// SPDX-License-Identifier: MIT
/*
 * Every port of a device with its GIDs: what a user picks --device NAME:PORT
 * and --gid-index from.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/env/envdev.h"
#include "rdma/dev.h"

#define ENVDEV_GIDS_SHOWN 8 /* TAP line; JSON has them all */

static const char *envdev_gid_type(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_IB: return "IB";
	case IBV_GID_TYPE_ROCE_V1: return "RoCEv1";
	case IBV_GID_TYPE_ROCE_V2: return "RoCEv2";
	}
	return "?";
}

static const char *envdev_link(uint8_t ll)
{
	return ll == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
	       ll == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "unspecified";
}

/* ::ffff:a.b.c.d as a.b.c.d; every other GID as IPv6 text. */
static void envdev_gid_str(const union ibv_gid *g, char *buf, size_t len)
{
	static const uint8_t v4pre[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(g->raw, v4pre, sizeof(v4pre)))
		inet_ntop(AF_INET, &g->raw[12], buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len);
}

static void envdev_port(struct tap *t, json_t *ports, const char *name, struct ibv_context *ctx,
		     uint8_t port, const struct ibv_gid_entry *ents, ssize_t n)
{
	struct ibv_port_attr pa;
	char line[640] = "", g[INET6_ADDRSTRLEN];
	json_t *gids = json_array(), *po;
	size_t used = 0;
	int shown = 0;

	if (ibv_query_port(ctx, port, &pa)) {
		tap_diag(t, "dev=%s port=%u ibv_query_port: %s", name, port, strerror(errno));
		json_decref(gids);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (ents[i].port_num != port)
			continue;
		envdev_gid_str(&ents[i].gid, g, sizeof(g));
		json_array_append_new(gids, json_pack("{s:I, s:s, s:s}", "index",
						      (json_int_t)ents[i].gid_index, "type",
						      envdev_gid_type(ents[i].gid_type), "gid", g));
		if (shown++ < ENVDEV_GIDS_SHOWN && used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%u:%s:%s",
						 used ? "," : "", ents[i].gid_index,
						 envdev_gid_type(ents[i].gid_type), g);
	}
	tap_diag(t, "dev=%s port=%u state=%s link_layer=%s active_mtu=%d gid_tbl_len=%d gids=%d %s%s",
		 name, port, ibv_port_state_str(pa.state), envdev_link(pa.link_layer),
		 pa.active_mtu ? 128 << pa.active_mtu : 0, pa.gid_tbl_len, shown, line,
		 shown > ENVDEV_GIDS_SHOWN ? ",..." : "");
	po = json_pack("{s:i, s:s, s:s, s:i, s:i, s:o}", "port", port, "state",
		       ibv_port_state_str(pa.state), "link_layer", envdev_link(pa.link_layer),
		       "active_mtu", pa.active_mtu ? 128 << pa.active_mtu : 0, "gid_tbl_len",
		       pa.gid_tbl_len, "gids", gids);
	json_array_append_new(ports, po);
}

static struct ibv_context *envdev_open(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; l && l[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

int envdev_ports(struct tap *t, json_t *dev, const char *name)
{
	struct ibv_context *ctx = envdev_open(name);
	struct ibv_device_attr da;
	struct ibv_gid_entry *ents = NULL;
	struct rdev_err e;
	json_t *ports;
	ssize_t n;

	if (!ctx) {
		tap_diag(t, "dev=%s: ibv_open_device: %s", name, strerror(errno));
		return -1;
	}
	if (ibv_query_device(ctx, &da)) {
		tap_diag(t, "dev=%s: ibv_query_device: %s", name, strerror(errno));
		ibv_close_device(ctx);
		return -1;
	}
	n = rdev_gid_table(ctx, da.phys_port_cnt, &ents, &e);
	if (n < 0) {
		tap_diag(t, "%s", e.msg);
		n = 0;
	}
	ports = json_array();
	for (uint8_t p = 1; p <= da.phys_port_cnt; p++)
		envdev_port(t, ports, name, ctx, p, ents, n);
	json_object_set_new(dev, "ports", ports);
	free(ents);
	if (ibv_close_device(ctx))
		tap_diag(t, "dev=%s: ibv_close_device: %s", name, strerror(errno));
	return 0;
}
