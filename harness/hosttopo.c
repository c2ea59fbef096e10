// SPDX-License-Identifier: MIT
/*
 * --topology host: the device and address the user named (or the first
 * RoCEv2 GID there is), and the sysctls a plan would need, said or set.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "harness/hosts.h"
#include "harness/hosttopo.h"
#include "rdma/dev.h"

#define HTP_MAPS_PER_CONN 4   /* as harness/layout.c measured for rc */
#define HTP_MAPS_SLACK 512
#define HTP_NTUNE 4

struct htp_saved {
	char key[40];
	char old[64];
};

static struct htp_saved htp_saved[HTP_NTUNE];
static int htp_nsaved;

/*
 * The device rdma_cm binds addr to, the agents' device under --cm rdmacm on
 * every fabric (iWARP and InfiniBand have no IPv4-mapped RoCEv2 GID). 0 with
 * h filled, -1 with why. librdmacm keeps the device's context open for the
 * rest of the process: one ctx, before any point's baseline.
 */
static int htp_cm_device(const struct hp_plan *p, struct in_addr addr, struct nn_host *h,
			 char *why, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = addr };
	struct rdma_cm_id *id;
	const char *name;
	int rc = -1;

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
	struct rdev_sel s = { .name = p->device.name[0] ? p->device.name : NULL,
			      .port = (uint8_t)p->device.port, .gid_index = p->gid_index };
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct rdev_err e;
	struct rdev_gid g;

	if (p->server_addr[0] && inet_pton(AF_INET, p->server_addr, &s.addr) != 1)
		s.addr.s_addr = INADDR_ANY;
	if (rdev_open(&s, &ctx, &attr, &g, &e)) {
		if (s.addr.s_addr != INADDR_ANY && !htp_cm_device(p, s.addr, h, why, len))
			return 0;
		snprintf(why, len, "%s", e.msg);
		return e.err == ENODEV && !s.name ? 1 : -1;
	}
	snprintf(h->rxe, sizeof(h->rxe), "%s", ibv_get_device_name(ctx->device));
	inet_ntop(AF_INET, &g.addr, h->addr, sizeof(h->addr));
	if (ibv_close_device(ctx)) {
		snprintf(why, len, "ibv_close_device %s: %s", h->rxe, strerror(errno));
		return -1;
	}
	return 0;
}

int htp_plan(const struct hp_plan *p, struct nn_topo *t, const char *run, char *why, size_t len)
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

int htp_plan_hosts(const struct hp_plan *p, struct nn_topo *t, const char *run, char *why,
		   size_t len)
{
	struct hst_list *l = malloc(sizeof(*l));
	struct in_addr a;
	int rc = -1;

	*why = '\0';
	if (!l || hst_parse(p->hosts, l, why, len))
		goto out;
	snprintf(t->run, sizeof(t->run), "%s", run);
	t->up = false;
	t->nclients = l->n - 1;
	memset(&t->srv, 0, sizeof(t->srv));
	memset(t->cli, 0, sizeof(t->cli));
	if (p->server_addr[0]) {
		snprintf(t->srv.addr, sizeof(t->srv.addr), "%s", p->server_addr);
	} else if (inet_pton(AF_INET, l->h[0].name, &a) == 1) {
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

static long htp_most_clients(const struct hp_plan *p)
{
	long n = p->cmd == HP_LIMIT ? p->max : 0;

	for (int i = 0; i < p->npoints; i++)
		n = p->clients[i] > n ? p->clients[i] : n;
	return n;
}

/* One sysctl below what the plan needs: say so, or set it and keep the old value. */
static void htp_one(struct pt_ctx *c, const char *key, long need, const char *why)
{
	char cur[64], v[32];

	if (nn_sysctl_get("", key, cur, sizeof(cur)) || atol(cur) >= need)
		return;
	snprintf(v, sizeof(v), "%ld", need);
	if (!c->plan->tune) {
		tap_diag(c->tap, "would_help: %s=%s (is %s: %s; --tune sets it for the run)", key, v,
			 cur, why);
		return;
	}
	if (htp_nsaved == HTP_NTUNE || nn_sysctl_set("", key, v)) {
		tap_diag(c->tap, "tune: %s=%s could not be set (is %s)", key, v, cur);
		return;
	}
	snprintf(htp_saved[htp_nsaved].key, sizeof(htp_saved[0].key), "%s", key);
	snprintf(htp_saved[htp_nsaved].old, sizeof(htp_saved[0].old), "%s", cur);
	htp_nsaved++;
	tap_diag(c->tap, "tuned %s=%s (was %s, restored after the run)", key, v, cur);
}

void htp_tune(struct pt_ctx *c)
{
	const struct hp_plan *p = c->plan;
	long n = htp_most_clients(p);
	bool oob = p->transport == OPT_TR_TCP || p->cm == OPT_CM_OOB_TLS;

	if (p->hosts) {
		tap_diag(c->tap, "sysctls: the hosts' own, not read from here (no --tune over ssh)");
		/* the agents' processes are on the hosts; only their ssh clients are here */
		tap_diag(c->tap, "process figures: srv_rss_kb, srv_fds, srv_threads and agents_* are "
			 "this host's ssh clients', not the remote agents'");
		return;
	}

	if (oob)
		htp_one(c, "net.core.somaxconn", n < 65535 ? n : 65535,
			"the server's listen backlog");
	if (p->transport == OPT_TR_RC)
		htp_one(c, "vm.max_map_count", n * HTP_MAPS_PER_CONN + HTP_MAPS_SLACK,
			"memory maps of one process holding every QP");
	if (p->transport == OPT_TR_RC && p->cm == OPT_CM_RDMACM)
		htp_one(c, "net.rdma_ucm.max_backlog", n, "rdma_cm's listen backlog");
	htp_one(c, "fs.nr_open", n + 1024, "open files of one process holding every connection");
}

void htp_restore(void)
{
	while (htp_nsaved > 0) {
		struct htp_saved *s = &htp_saved[--htp_nsaved];

		if (nn_sysctl_set("", s->key, s->old))
			fprintf(stderr, "rdmacap: %s not restored to %s: %s\n", s->key, s->old,
				strerror(errno));
	}
}
