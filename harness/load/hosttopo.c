// SPDX-License-Identifier: MIT
/*
 * --topology host: the device and address the user named (or the first
 * RoCEv2 GID there is); --hosts: the hosts' topology.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "harness/hosts/hosts.h"
#include "harness/load/hosttopo.h"
#include "common/ipaddr.h"
#include "rdma/port.h"

/*
 * The device rdma_cm binds addr to, the agents' device under --cm rdmacm on
 * every fabric (iWARP and InfiniBand have no IPv4-mapped RoCEv2 GID). 0 with
 * h filled, -1 with why. librdmacm keeps the device's context open for the
 * rest of the process: one ctx, before any point's baseline.
 */
static int htp_cm_device(const struct hp_plan *p, const struct ipa *addr, struct nn_host *h,
			 char *why, size_t len)
{
	struct sockaddr_storage sa;
	struct rdma_cm_id *id;
	const char *name;
	int rc = -1;

	ipa_to_sa(addr, 0, &sa);
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		snprintf(why, len, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	if (rdma_bind_addr(id, (struct sockaddr *)&sa)) {
		snprintf(why, len, "rdma_bind_addr %s: %s", p->server_addr, strerror(errno));
		goto out;
	}
	if (!id->verbs) {
		snprintf(why, len, "rdma_bind_addr %s: no RDMA device holds this address",
			 p->server_addr);
		goto out;
	}
	name = ibv_get_device_name(id->verbs->device);
	if (p->device.name[0] && strcmp(p->device.name, name)) {
		snprintf(why, len, "--device %s: rdma_cm binds %s to device %s", p->device.name,
			 p->server_addr, name);
		goto out;
	}
	snprintf(h->rxe, sizeof(h->rxe), "%s", name);
	snprintf(h->addr, sizeof(h->addr), "%s", p->server_addr);
	rc = 0;
out:
	if (rdma_destroy_id(id) && !rc) {
		snprintf(why, len, "rdma_destroy_id: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

/*
 * The device, port and GID the plan names, opened once to check and closed;
 * without such a GID, the device rdma_cm finds for --server-addr.
 */
static int htp_device(const struct hp_plan *p, struct nn_host *h, char *why, size_t len)
{
	struct rport_want w = { .family = AF_INET, .gid_index = p->gid_index };
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct rdev_err e;
	struct rport rp;
	struct ipa a;
	int gidx;

	/* --server-addr names the GID and its family; without it, IPv4's first */
	if (p->server_addr[0] && !ipa_parse(&a, p->server_addr)) {
		w.family = a.family;
		w.has_addr = true;
		w.addr = a.a;
	}
	if (rport_open(p->device.name, (uint8_t)p->device.port, &w, &ctx, &attr, &rp, &gidx, &e)) {
		if (w.has_addr && !htp_cm_device(p, &a, h, why, len))
			return 0;
		snprintf(why, len, "%s", e.msg);
		return e.err == ENODEV && !p->device.name[0] ? 1 : -1;
	}
	snprintf(h->rxe, sizeof(h->rxe), "%s", ibv_get_device_name(ctx->device));
	/* the address named is the server's; a GID holds one only on RoCE (iWARP's is its MAC) */
	if (!w.has_addr)
		ipa_from_gid(&a, rp.gids[gidx].gid.raw);
	ipa_str(&a, h->addr, sizeof(h->addr));
	rport_free(&rp);
	if (ibv_close_device(ctx)) {
		snprintf(why, len, "ibv_close_device %s: %s", h->rxe, strerror(errno));
		return -1;
	}
	return 0;
}

int htp_topo(const struct hp_plan *p, struct nn_topo *t, const char *run, char *why, size_t len)
{
	int rc;

	*why = '\0';
	snprintf(t->run, sizeof(t->run), "%s", run);
	t->up = false;
	t->nclients = 1;
	memset(&t->srv, 0, sizeof(t->srv));
	memset(t->cli, 0, sizeof(t->cli));
	if (t->rxe) {
		rc = htp_device(p, &t->srv, why, len);
		if (rc)
			return rc;
	} else {
		snprintf(t->srv.addr, sizeof(t->srv.addr), "%s",
			 p->server_addr[0] ? p->server_addr : "127.0.0.1");
	}
	t->cli[0] = t->srv;
	return 0;
}

int htp_topo_hosts(const struct hp_plan *p, struct nn_topo *t, const char *run, char *why,
		   size_t len)
{
	struct hosts_list *l = malloc(sizeof(*l));
	struct ipa a;
	int rc = -1;

	*why = '\0';
	/* the same order as the agents' hosts (rm_open): --server-host's first */
	if (!l || hosts_parse(p->hosts, l, why, len) ||
	    (p->server_host && hosts_server_first(l, p->server_host, why, len)))
		goto out;
	snprintf(t->run, sizeof(t->run), "%s", run);
	t->up = false;
	t->nclients = l->n - 1;
	memset(&t->srv, 0, sizeof(t->srv));
	memset(t->cli, 0, sizeof(t->cli));
	if (p->server_addr[0]) {
		snprintf(t->srv.addr, sizeof(t->srv.addr), "%s", p->server_addr);
	} else if (!ipa_parse(&a, l->h[0].name)) {
		snprintf(t->srv.addr, sizeof(t->srv.addr), "%s", l->h[0].name);
	} else {
		snprintf(why, len, "--server-addr: the data address of server host %s is needed",
			 l->h[0].name);
		goto out;
	}
	for (int k = 0; k < l->n; k++) {
		struct nn_host *h = k ? &t->cli[k - 1] : &t->srv;
		const char *d = l->h[k].device[0] ? l->h[k].device : p->device.name;

		snprintf(h->rxe, sizeof(h->rxe), "%s", t->rxe ? d : "");
	}
	rc = 0;
out:
	if (!l)
		snprintf(why, len, "malloc: %s", strerror(errno));
	free(l);
	return rc;
}
