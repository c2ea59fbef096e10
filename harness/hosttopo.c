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

#include "harness/hosts.h"
#include "harness/hosttopo.h"
#include "rdma/port.h"

#define HTP_MAPS_PER_CONN 4   /* as harness/layout.c measured for rc */
#define HTP_MAPS_SLACK 512
#define HTP_NTUNE 4

struct htp_saved {
	char key[40];
	char old[64];
};

static struct htp_saved htp_saved[HTP_NTUNE];
static int htp_nsaved;

/* The device, port and GID the plan names, opened once to check and closed. */
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
		snprintf(why, len, "%s", e.msg);
		return e.err == ENODEV && !p->device.name[0] ? 1 : -1;
	}
	snprintf(h->rxe, sizeof(h->rxe), "%s", ibv_get_device_name(ctx->device));
	ipa_from_gid(&a, rp.gids[gidx].gid.raw);
	ipa_str(&a, h->addr, sizeof(h->addr));
	rport_free(&rp);
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
	struct ipa a;
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
