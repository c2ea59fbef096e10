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
#include "rdma/port.h"

#define ENVDEV_GIDS_SHOWN 8 /* TAP line; JSON has them all */

static const char *envdev_link(uint8_t ll)
{
	return ll == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
	       ll == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "unspecified";
}

/*
 * The port's path (rdma/port.h): transport, LID and SM LID beside the line
 * above, then one line per non-empty GID with its type and kind, into po too.
 */
static void envdev_path(struct tap *t, json_t *po, const char *name, struct ibv_context *ctx,
		     uint8_t port)
{
	char g[INET6_ADDRSTRLEN];
	struct rdev_err e;
	struct rport p;

	if (rport_query(ctx, port, &p, &e)) {
		tap_diag(t, "%s", e.msg);
		return;
	}
	tap_diag(t, "dev=%s port=%u transport=%s lid=%u sm_lid=%u", name, port,
		 rport_transport_str(p.transport), p.lid, p.sm_lid);
	json_object_set_new(po, "transport", json_string(rport_transport_str(p.transport)));
	json_object_set_new(po, "lid", json_integer(p.lid));
	json_object_set_new(po, "sm_lid", json_integer(p.sm_lid));
	for (int i = 0; i < p.gid_tbl_len; i++) {
		if (p.gids[i].kind == RPORT_GK_EMPTY)
			continue;
		rport_gid_str(&p.gids[i].gid, g, sizeof(g));
		tap_diag(t, "dev=%s port=%u gid_index=%d gid_type=%s gid_kind=%s gid=%s", name,
			 port, i, rport_type_str(p.gids[i].type),
			 rport_kind_str(p.gids[i].kind), g);
	}
	rport_free(&p);
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
		rport_gid_str(&ents[i].gid, g, sizeof(g));
		json_array_append_new(gids, json_pack("{s:I, s:s, s:s}", "index",
						      (json_int_t)ents[i].gid_index, "type",
						      rport_type_str(ents[i].gid_type), "gid", g));
		if (shown++ < ENVDEV_GIDS_SHOWN && used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%u:%s:%s",
						 used ? "," : "", ents[i].gid_index,
						 rport_type_str(ents[i].gid_type), g);
	}
	tap_diag(t, "dev=%s port=%u state=%s link_layer=%s active_mtu=%d gid_tbl_len=%d gids=%d %s%s",
		 name, port, ibv_port_state_str(pa.state), envdev_link(pa.link_layer),
		 pa.active_mtu ? 128 << pa.active_mtu : 0, pa.gid_tbl_len, shown, line,
		 shown > ENVDEV_GIDS_SHOWN ? ",..." : "");
	po = json_pack("{s:i, s:s, s:s, s:i, s:i, s:o}", "port", port, "state",
		       ibv_port_state_str(pa.state), "link_layer", envdev_link(pa.link_layer),
		       "active_mtu", pa.active_mtu ? 128 << pa.active_mtu : 0, "gid_tbl_len",
		       pa.gid_tbl_len, "gids", gids);
	envdev_path(t, po, name, ctx, port);
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
