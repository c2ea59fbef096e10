// SPDX-License-Identifier: MIT
/*
 * The sysctls of a run: set in rdmacap's namespaces, said or set on the host,
 * and every host change saved to the run's state file before it is made.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/load/tune.h"

#define TUNE_NSAVED 8

struct tune_saved {
	char key[40];
	char old[64];
};

static struct tune_saved tune_saved[TUNE_NSAVED];
static int tune_nsaved;
static char tune_path[64];	/* this run's state file */

/*
 * The state file holds the first n saved values, one "key=old" line each; none:
 * no file. Written whole to a temporary name and renamed, so a SIGKILL leaves
 * the old file or the new one, never half of one.
 */
static int tune_state(const char *run, int n, char *why, size_t len)
{
	char tmp[80];
	FILE *f;

	snprintf(tune_path, sizeof(tune_path), "%s/sysctl-%s", TUNE_DIR, run);
	if (!n) {
		if (unlink(tune_path) && errno != ENOENT) {
			snprintf(why, len, "unlink %s: %s", tune_path, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (mkdir(TUNE_DIR, 0700) && errno != EEXIST) {
		snprintf(why, len, "mkdir %s: %s", TUNE_DIR, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", tune_path);
	f = fopen(tmp, "we");
	if (!f) {
		snprintf(why, len, "open %s: %s", tmp, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "%s=%s\n", tune_saved[i].key, tune_saved[i].old);
	if (fclose(f) || rename(tmp, tune_path)) {
		snprintf(why, len, "write %s: %s", tune_path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Sets key=val on the host, its old value cur saved first. */
static void tune_host(struct pt_ctx *c, const char *key, const char *val, const char *cur)
{
	char why[160];
	int err;

	if (tune_nsaved == TUNE_NSAVED) {
		tap_diag(c->tap, "tune_failed %s=%s: more than %d host sysctls", key, val,
			 TUNE_NSAVED);
		return;
	}
	snprintf(tune_saved[tune_nsaved].key, sizeof(tune_saved[0].key), "%s", key);
	snprintf(tune_saved[tune_nsaved].old, sizeof(tune_saved[0].old), "%s", cur);
	if (tune_state(c->topo->run, tune_nsaved + 1, why, sizeof(why))) {
		tap_diag(c->tap, "tune_failed %s=%s: %s (is %s)", key, val, why, cur);
		return;
	}
	if (nn_sysctl_set("", key, val)) {
		err = errno;
		if (tune_state(c->topo->run, tune_nsaved, why, sizeof(why)))
			fprintf(stderr, "rdmacap: %s\n", why);
		tap_diag(c->tap, "tune_failed %s=%s: %s (is %s)", key, val, strerror(err), cur);
		return;
	}
	tune_nsaved++;
	tap_diag(c->tap, "tuned %s=%s (was %s, restored after the run)", key, val, cur);
}

/*
 * rdma_cm's listen backlog is one global sysctl (init_net only): a connection
 * storm past it is refused. Raised for the run when the plan needs more.
 */
static void tune_backlog(struct pt_ctx *c, long need)
{
	const struct hp_plan *p = c->plan;
	char v[32], cur[32];

	if (!opt_tr_connected(p->transport) || p->cm != OPT_CM_RDMACM)
		return;
	if (nn_sysctl_get("", "net.rdma_ucm.max_backlog", cur, sizeof(cur))) {
		tap_diag(c->tap, "net.rdma_ucm.max_backlog not readable: rdma_ucm not loaded?");
		return;
	}
	if (need <= atol(cur)) {
		tap_kv(c->tap, "net.rdma_ucm.max_backlog", "%ld", atol(cur));
		return;
	}
	snprintf(v, sizeof(v), "%ld", need);
	tune_host(c, "net.rdma_ucm.max_backlog", v, cur);
}

/* One host sysctl below what the plan needs: said, or with --tune set. */
static void tune_need(struct pt_ctx *c, const char *key, long need, const char *why)
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
	tune_host(c, key, v, cur);
}

/* --topology host: the host as it is, said, or set only with --tune. */
static void tune_host_topo(struct pt_ctx *c, long n)
{
	const struct hp_plan *p = c->plan;
	bool oob = p->transport == OPT_TR_TCP || p->cm == OPT_CM_OOB_TLS;

	if (p->hosts) {
		tap_diag(c->tap, "sysctls: the hosts' own, not read from here (no --tune on --hosts)");
		/* the agents' processes are on the hosts; only their launchers are here */
		tap_diag(c->tap, "process figures: srv_rss_kb, srv_fds, srv_threads and agents_* are "
			 "this host's launcher processes' (ssh, srun or mpirun), not the remote agents'");
		return;
	}
	if (oob)
		tune_need(c, "net.core.somaxconn", n < 65535 ? n : 65535,
			  "the server's listen backlog");
	if (p->transport == OPT_TR_RC)
		tune_need(c, "vm.max_map_count", n * PT_MAPS_PER_CONN + PT_MAPS_SLACK,
			  "memory maps of one process holding every QP");
	if (p->transport == OPT_TR_RC && p->cm == OPT_CM_RDMACM)
		tune_need(c, "net.rdma_ucm.max_backlog", n, "rdma_cm's listen backlog");
	tune_need(c, "fs.nr_open", n + 1024, "open files of one process holding every connection");
}

static long tune_most_clients(const struct hp_plan *p)
{
	long n = p->cmd == HP_LIMIT ? p->max : 0;

	for (int i = 0; i < p->npoints; i++)
		n = p->clients[i] > n ? p->clients[i] : n;
	return n;
}

/* Sets key=val in namespace ns; says why not. 0 or -1. */
static int tune_ns(struct pt_ctx *c, const char *ns, const char *key, const char *val)
{
	if (!nn_sysctl_set(ns, key, val))
		return 0;
	tap_diag(c->tap, "tune_failed ns=%s %s=%s: %s", ns, key, val, strerror(errno));
	return -1;
}

void tune_run(struct pt_ctx *c)
{
	struct nn_topo *t = c->topo;
	long n = tune_most_clients(c->plan);
	static const char *const srv[][2] = {
		{ "net.core.somaxconn", "65535" },
		{ "net.ipv4.tcp_max_syn_backlog", "65535" },
	};
	static const char *const cli[][2] = {
		{ "net.ipv4.ip_local_port_range", "1024 65535" },
		{ "net.ipv4.tcp_tw_reuse", "1" },
	};
	int failed = 0;

	if (t->kind == NN_HOST) {
		tune_host_topo(c, n);
		return;
	}
	tune_backlog(c, n);
	if (t->kind == NN_LOOP)
		return; /* the caller's own namespace: nothing else changes there */
	for (size_t i = 0; i < 2; i++)
		if (!tune_ns(c, t->srv.ns, srv[i][0], srv[i][1]))
			tap_diag(c->tap, "tuned ns=%s %s=%s", t->srv.ns, srv[i][0], srv[i][1]);
	for (int k = 0; k < t->nclients; k++)
		for (size_t i = 0; i < 2; i++)
			failed |= tune_ns(c, t->cli[k].ns, cli[i][0], cli[i][1]);
	if (!failed)
		tap_diag(c->tap, "tuned ns=client-namespaces net.ipv4.ip_local_port_range=1024-65535 "
			 "net.ipv4.tcp_tw_reuse=1");
}

void tune_restore(void)
{
	int failed = 0;

	if (!tune_nsaved)
		return;
	while (tune_nsaved > 0) {
		struct tune_saved *s = &tune_saved[--tune_nsaved];

		if (nn_sysctl_set("", s->key, s->old)) {
			fprintf(stderr, "rdmacap: %s not restored to %s: %s (`rdmacap down` "
				"tries again)\n", s->key, s->old, strerror(errno));
			failed = 1;
		}
	}
	if (!failed && unlink(tune_path) && errno != ENOENT)
		fprintf(stderr, "rdmacap: unlink %s: %s\n", tune_path, strerror(errno));
}

/* Restores the values of one state file; 0, or -1 (said on stderr). */
static int tune_file(struct tap *t, const char *path, const char *run, int *restored)
{
	char line[128], *eq;
	int rc = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "rdmacap: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		eq = strchr(line, '=');
		if (!eq) {
			fprintf(stderr, "rdmacap: %s: not key=value: %s\n", path, line);
			rc = -1;
			continue;
		}
		*eq = '\0';
		if (nn_sysctl_set("", line, eq + 1)) {
			fprintf(stderr, "rdmacap: %s not restored to %s: %s\n", line, eq + 1,
				strerror(errno));
			rc = -1;
			continue;
		}
		tap_diag(t, "restored %s=%s (tuned by run %s, which did not restore it)", line,
			 eq + 1, run);
		(*restored)++;
	}
	fclose(f);
	if (!rc && unlink(path)) {
		fprintf(stderr, "rdmacap: unlink %s: %s\n", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

int tune_down(struct tap *t, const char *run, int *restored)
{
	char path[300];
	struct dirent *e;
	int rc = 0;
	DIR *d;

	*restored = 0;
	d = opendir(TUNE_DIR);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "rdmacap: opendir %s: %s\n", TUNE_DIR, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		const char *r = e->d_name + strlen("sysctl-");

		if (strncmp(e->d_name, "sysctl-", strlen("sysctl-")) || strchr(r, '.') ||
		    (run && strcmp(r, run)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", TUNE_DIR, e->d_name);
		if (tune_file(t, path, r, restored))
			rc = -1;
	}
	closedir(d);
	return rc;
}
