// SPDX-License-Identifier: MIT
/*
 * The load commands: run (one point), ramp (a list of points) and limit (grow,
 * then bisect, for the largest N at each success threshold). They share the
 * topology, the sampler, TAP and the JSON side file.
 */
#include <errno.h>
#include <spawn.h>
#include <sys/wait.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/certs.h"
#include "harness/clicheck.h"
#include "harness/env.h"
#include "harness/hosttopo.h"
#include "harness/remote.h"
#include "harness/json.h"
#include "harness/memfloor.h"
#include "harness/plans.h"
#include "harness/pointtap.h"
#include "harness/repeat.h"
#include "rdma/cap.h"

#define PL_MAX_MEMO 256

struct pl_memo {
	long n;
	double success, connect;
	bool mem_floor;	/* ended by --mem-floor: a failure at any threshold */
	char cause[256];
};

struct pl_sess {
	struct pt_ctx *c;
	json_t *doc, *points;
	struct pl_memo memo[PL_MAX_MEMO];
	int nmemo;
	double t0;
	int ran;
};

static double pl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * rdma_cm's listen backlog is one global sysctl (init_net only): a connection
 * storm past it is refused. Raise it for the run when the plan needs more, say
 * so, and put the old value back at the end (pl_backlog_restore).
 */
static char pl_backlog_old[32];

static void pl_backlog(struct pt_ctx *c)
{
	const struct hp_plan *p = c->plan;
	long need = 0, cur;
	char v[32];

	if (!opt_tr_connected(p->transport) || p->cm != OPT_CM_RDMACM)
		return;
	if (nn_sysctl_get("", "net.rdma_ucm.max_backlog", v, sizeof(v))) {
		tap_diag(c->tap, "net.rdma_ucm.max_backlog not readable: rdma_ucm not loaded?");
		return;
	}
	cur = atol(v);
	for (int i = 0; i < p->npoints; i++)
		need = p->clients[i] > need ? p->clients[i] : need;
	if (p->cmd == HP_LIMIT)
		need = p->max;
	if (need <= cur) {
		tap_kv(c->tap, "net.rdma_ucm.max_backlog", "%ld", cur);
		return;
	}
	snprintf(v, sizeof(v), "%ld", need);
	if (nn_sysctl_set("", "net.rdma_ucm.max_backlog", v)) {
		tap_diag(c->tap, "net.rdma_ucm.max_backlog=%ld could not be raised to %ld", cur, need);
		return;
	}
	snprintf(pl_backlog_old, sizeof(pl_backlog_old), "%ld", cur);
	tap_diag(c->tap, "tuned net.rdma_ucm.max_backlog=%ld (was %ld, restored after the run)", need,
		 cur);
}

static void pl_backlog_restore(void)
{
	if (!pl_backlog_old[0])
		return;
	if (nn_sysctl_set("", "net.rdma_ucm.max_backlog", pl_backlog_old))
		fprintf(stderr, "rdmacap: net.rdma_ucm.max_backlog not restored to %s\n",
			pl_backlog_old);
	pl_backlog_old[0] = '\0';
}

/* Namespaced sysctls that make a topology able to hold what the plan asks for. */
static void pl_tune(struct pt_ctx *c)
{
	struct nn_topo *t = c->topo;
	static const char *const srv[][2] = {
		{ "net.core.somaxconn", "65535" },
		{ "net.ipv4.tcp_max_syn_backlog", "65535" },
	};
	static const char *const cli[][2] = {
		{ "net.ipv4.ip_local_port_range", "1024 65535" },
		{ "net.ipv4.tcp_tw_reuse", "1" },
	};

	if (t->kind == NN_HOST) {
		htp_tune(c); /* the host as it is: said, or set only with --tune */
		return;
	}
	pl_backlog(c);
	if (t->kind == NN_LOOP)
		return; /* the caller's own namespace: we change nothing there */
	for (size_t i = 0; i < 2; i++) {
		if (nn_sysctl_set(t->srv.ns, srv[i][0], srv[i][1]))
			fprintf(stderr, "rdmacap: %s: %s=%s failed\n", t->srv.ns, srv[i][0], srv[i][1]);
		tap_diag(c->tap, "tuned ns=%s %s=%s", t->srv.ns, srv[i][0], srv[i][1]);
	}
	for (int k = 0; k < t->nclients; k++)
		for (size_t i = 0; i < 2; i++)
			if (nn_sysctl_set(t->cli[k].ns, cli[i][0], cli[i][1]))
				fprintf(stderr, "rdmacap: %s: %s failed\n", t->cli[k].ns, cli[i][0]);
	tap_diag(c->tap, "tuned ns=client-namespaces net.ipv4.ip_local_port_range=1024-65535 "
		 "net.ipv4.tcp_tw_reuse=1");
}

/*
 * rxe needs rdma_rxe, ib_uverbs for user verbs and rdma_ucm for rdmacm: load them
 * (as root, like `rdma link add` would expect) so a fresh boot just works.
 */
static int pl_modprobe(char *why, size_t len)
{
	char *const argv[] = { "modprobe", "-a", "rdma_rxe", "ib_uverbs", "rdma_ucm", NULL };
	extern char **environ;
	int st, err;
	pid_t pid;

	err = posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ);
	if (err) {
		snprintf(why, len, "modprobe: %s", strerror(err));
		return -1;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, len, "modprobe -a rdma_rxe ib_uverbs rdma_ucm failed");
		return -1;
	}
	return 0;
}

/* A whole run skipped for a missing capability, before anything is created. */
static const char *pl_skip_reason(const struct hp_plan *p, char *buf, size_t len)
{
	struct nn_caps caps;
	bool rc = p->transport != OPT_TR_TCP;

	if (p->topo.kind == NN_HOST)
		return NULL; /* nothing to create: the device is checked by htp_plan */
	if (p->topo.kind != NN_LOOP && geteuid() != 0)
		return "not root: network namespace topologies need CAP_NET_ADMIN";
	if (flt_unavailable(&p->fault, buf, len))
		return buf;
	if (!rc && !p->rxe)
		return NULL;
	if (geteuid() != 0)
		return "not root: rxe links need CAP_NET_ADMIN";
	nn_probe(&caps, false, NULL);
	if (!caps.rxe_module) {
		snprintf(buf, len, "rdma_rxe: %s", caps.why_rxe);
		return buf;
	}
	if (pl_modprobe(buf, len))
		return buf;
	if (p->topo.kind != NN_LOOP && !caps.rxe_netns) {
		snprintf(buf, len, "rxe inside network namespaces: %s", caps.why_rxe_netns);
		return buf;
	}
	return NULL;
}

/*
 * A run skipped for what the server's device lacks (rdma/cap.h), once the
 * topology made it: NULL, or the reason in buf. A device that cannot be
 * queried is no reason to skip: the run names what fails.
 */
static const char *pl_cap_skip(const struct pt_ctx *c, char *buf, size_t len)
{
	const struct hp_plan *p = c->plan;
	unsigned need = hck_cap_need(p);
	const char *why;

	if (p->hosts || !c->topo->srv.rxe[0])
		return NULL; /* --hosts: the devices are the hosts'; tcp: none */
	if (!need)
		return NULL;
	if (rcap_probe(c->topo->srv.rxe, need, &why, buf, len)) {
		fprintf(stderr, "rdmacap: %s\n", buf);
		return NULL;
	}
	return why;
}

static struct nn_topo pl_no_rxe;

/* --hosts: every host ready (remote.h); its agents are started by spawn.c */
static int pl_remote(struct pt_ctx *c, const char *run, char *why, size_t len)
{
	const struct hp_plan *p = c->plan;

	c->remote = malloc(sizeof(*c->remote));
	if (!c->remote) {
		snprintf(why, len, "malloc: %s", strerror(errno));
		return -1;
	}
	if (rm_open(c->remote, p->hosts, run, p->agent_path, p->push,
		    c->tls_dir[0] ? c->tls_dir : NULL, why, len)) {
		free(c->remote);
		c->remote = NULL;
		return -1;
	}
	return 0;
}

/* A throwaway CA and certificates for this run's oob-tls, removed at the end. */
static int pl_certs(struct pt_ctx *c, char *why, size_t len)
{
	snprintf(c->tls_dir, sizeof(c->tls_dir), "/tmp/rdmacap-tls.XXXXXX");
	if (!mkdtemp(c->tls_dir)) {
		snprintf(why, len, "mkdtemp %s: %s", c->tls_dir, strerror(errno));
		c->tls_dir[0] = '\0';
		return -1;
	}
	if (hc_certs_make(c->tls_dir, why, len)) {
		rmdir(c->tls_dir);
		c->tls_dir[0] = '\0';
		return -1;
	}
	return 0;
}

static int pl_point(struct pl_sess *s, long n, bool probe, const char *label)
{
	struct pt_ctx *c = s->c;
	struct pt_point *pt = calloc(1, sizeof(*pt));
	char desc[128];
	enum tap_res res;
	int rc;

	if (!pt)
		return -1;
	if (c->plan->repeat > 1) {
		free(pt);
		rc = rpt_point(c, n, label, s->points);
		if (c->plan->json)
			hj_write(s->doc, c->plan->json);
		s->ran++;
		return rc;
	}
	fprintf(stderr, "rdmacap: %s: %ld clients\n", label, n);
	rc = pt_run(c, n, pt);
	snprintf(desc, sizeof(desc), "%s clients=%ld connected=%ld success=%.2f%%", label, n,
		 pt->connected, pt->success_pct);
	res = ptap_point(c, pt, desc, probe);
	json_array_append_new(s->points, hj_point(pt, c->plan, tap_res_name(res)));
	/* every finished point is on disk: a run cut short later loses nothing measured */
	if (c->plan->json)
		hj_write(s->doc, c->plan->json);
	/* a point cut by ^C or SIGTERM neither met nor missed a threshold: its
	 * shortfall is the signal's, not a limit's */
	if (!pt->aborted && s->nmemo < PL_MAX_MEMO) {
		struct pl_memo *m = &s->memo[s->nmemo++];

		m->n = n;
		m->success = pt->success_pct;
		m->connect = pt->connect_pct;
		m->mem_floor = pt->mem_floor_hit;
		snprintf(m->cause, sizeof(m->cause), "%s", pt->cause[0] ? pt->cause : pt->why);
	}
	s->ran++;
	pt_free(pt);
	free(pt);
	return rc;
}

static const struct pl_memo *pl_find(struct pl_sess *s, long n)
{
	for (int i = 0; i < s->nmemo; i++)
		if (s->memo[i].n == n)
			return &s->memo[i];
	return NULL;
}

/*
 * A point met the threshold when enough clients succeeded and memory did not
 * end it: the floor may stop a point whose finished clients were all fine.
 */
static bool pl_met(const struct pl_memo *m, double th)
{
	return m->success >= th && !m->mem_floor;
}

/* Largest n that met 'th', and the smallest n above it that did not (0 if none). */
static void pl_bounds(struct pl_sess *s, double th, long *lo, long *hi)
{
	*lo = 0;
	*hi = 0;
	for (int i = 0; i < s->nmemo; i++)
		if (pl_met(&s->memo[i], th) && s->memo[i].n > *lo)
			*lo = s->memo[i].n;
	for (int i = 0; i < s->nmemo; i++)
		if (!pl_met(&s->memo[i], th) && s->memo[i].n > *lo && (!*hi || s->memo[i].n < *hi))
			*hi = s->memo[i].n;
}

static bool pl_budget(struct pl_sess *s)
{
	const struct hp_plan *p = s->c->plan;

	return !s->c->aborted && s->ran < p->steps && pl_now() - s->t0 < (double)p->budget_s;
}

static int pl_probe(struct pl_sess *s, long n)
{
	if (pl_find(s, n))
		return 0;
	return pl_point(s, n, true, "limit");
}

static void pl_search(struct pl_sess *s, double th)
{
	const struct hp_plan *p = s->c->plan;
	long lo, hi, n;

	pl_bounds(s, th, &lo, &hi);
	/* grow: double from the best point so far until one misses the threshold */
	n = lo ? lo * 2 : p->start;
	while (!hi && pl_budget(s)) {
		if (n > p->max)
			n = p->max;
		if (pl_find(s, n) && n == p->max)
			break;
		if (pl_probe(s, n))
			return;
		pl_bounds(s, th, &lo, &hi);
		if (n == p->max)
			break;
		n *= 2;
	}
	/* bisect to 2% of the limit (or 1 client) */
	while (hi && hi - lo > (lo / 50 > 1 ? lo / 50 : 1) && pl_budget(s)) {
		n = lo + (hi - lo) / 2;
		if (pl_probe(s, n))
			return;
		pl_bounds(s, th, &lo, &hi);
	}
}

static void pl_limit_result(struct pl_sess *s, double th)
{
	const struct hp_plan *p = s->c->plan;
	struct tap *t = s->c->tap;
	const struct pl_memo *m;
	long lo, hi;

	pl_bounds(s, th, &lo, &hi);
	m = hi ? pl_find(s, hi) : NULL;
	tap_kv(t, "threshold_pct", "%.0f", th);
	tap_kv(t, "limit", "%ld", lo);
	if (hi) {
		tap_kv(t, "first_below", "%ld", hi);
		tap_kv(t, "first_below_success_pct", "%.2f", m->success);
		tap_kv(t, "cause", "%s", m->cause);
		tap_result(t, m->cause[0] ? TAP_PASS : TAP_FAIL, NULL,
			   "limit at %.0f%% success: %ld clients (%ld reached %.2f%%: %s)", th, lo, hi,
			   m->success, m->cause[0] ? m->cause : "cause not identified");
	} else if (lo >= p->max) {
		tap_result(t, TAP_PASS, NULL,
			   "limit at %.0f%% success: >= %ld clients (--max reached, no failure)", th, lo);
	} else {
		tap_result(t, s->c->aborted ? TAP_FAIL : TAP_SKIP,
			   s->c->aborted ? NULL : "step or time budget used up",
			   "limit at %.0f%% success: >= %ld clients, search incomplete", th, lo);
	}
}

int pl_load(struct pt_ctx *c, json_t *doc)
{
	const struct hp_plan *p = c->plan;
	struct pl_sess s = { .c = c, .doc = doc, .t0 = pl_now() };
	struct tap *t = c->tap;
	char why[256], skip[256], run[8];
	const char *reason;
	json_t *env = json_object();
	int rc = 0;

	s.points = json_array();
	json_object_set_new(doc, "points", s.points);
	json_object_set_new(doc, "env", env);

	reason = pl_skip_reason(p, skip, sizeof(skip));
	if (reason) {
		tap_skip_all(t, "%s", reason);
		json_object_set_new(doc, "skipped", json_string(reason));
		return 0;
	}
	if (nn_new_run(run)) {
		tap_bail(t, "no run id: %s", strerror(errno));
		return -1;
	}
	if (p->hosts) {
		if (htp_plan_hosts(p, c->topo, run, why, sizeof(why))) {
			tap_bail(t, "--hosts: %s", why);
			return -1;
		}
	} else if (c->topo->kind == NN_HOST) {
		rc = htp_plan(p, c->topo, run, why, sizeof(why));
		if (rc > 0) {
			tap_skip_all(t, "%s", why);
			json_object_set_new(doc, "skipped", json_string(why));
			return 0;
		}
		if (rc) {
			tap_bail(t, "--topology host: %s", why);
			return -1;
		}
	} else if (nn_up(c->topo, run, c->topo->rxe, p->verbose ? stderr : NULL)) {
		tap_bail(t, "topology %s could not be brought up (see stderr)", p->topo_spec);
		return -1;
	}
	reason = pl_cap_skip(c, skip, sizeof(skip));
	if (reason) {
		tap_skip_all(t, "%s", reason);
		json_object_set_new(doc, "skipped", json_string(reason));
		goto down;
	}
	if (p->transport != OPT_TR_TCP && p->cm == OPT_CM_OOB_TLS && !p->tls_ca &&
	    pl_certs(c, why, sizeof(why))) {
		tap_bail(t, "TLS certificates: %s", why);
		rc = -1;
		goto down;
	}
	if (p->hosts && pl_remote(c, run, why, sizeof(why))) {
		tap_bail(t, "%s", why);
		rc = -1;
		goto down;
	}
	/* --hosts: the devices are the hosts', read there (rsample.h), not here */
	c->sampler = hs_open(p->hosts ? &pl_no_rxe : c->topo, why, sizeof(why));
	if (!c->sampler) {
		tap_bail(t, "sampler: %s", why);
		rc = -1;
		goto down;
	}
	if (why[0])
		tap_kv(t, "rdma_counters", "unavailable: %s", why);
	tap_kv(t, "run", "%s", c->topo->run);
	tap_kv(t, "topology", "%s server=%s%s%s%s%s", p->topo_spec, c->topo->srv.addr,
	       c->topo->srv.ns[0] ? " ns=" : "", c->topo->srv.ns,
	       c->topo->srv.rxe[0] ? " device=" : "", c->topo->srv.rxe);
	pl_tune(c);
	c->mem_floor_kb = mf_floor_kb(p->mem_floor_mib, why, sizeof(why));
	tap_kv(t, "mem_floor", "%ld KiB (%s)", c->mem_floor_kb, why);

	if (p->cmd == HP_LIMIT) {
		pl_search(&s, p->thresholds[0]);
		if (p->thresholds[1] != p->thresholds[0])
			pl_search(&s, p->thresholds[1]);
		pl_limit_result(&s, p->thresholds[0]);
		if (p->thresholds[1] != p->thresholds[0])
			pl_limit_result(&s, p->thresholds[1]);
		tap_plan(t, s.ran + 1 + (p->thresholds[1] != p->thresholds[0]));
	} else {
		tap_plan(t, p->npoints);
		for (int i = 0; i < p->npoints && !c->aborted; i++)
			if (pl_point(&s, p->clients[i], false, p->cmd_name))
				break;
	}
	{
		json_t *caps = json_object();
		struct tap quiet;
		FILE *devnull = fopen("/dev/null", "we");

		/* the env facts go to JSON only; TAP stays one test per point */
		if (devnull) {
			tap_init(&quiet, devnull);
			he_collect(&quiet, caps, false);
			fclose(devnull);
		}
		json_object_update(env, caps);
		json_decref(caps);
	}
down:
	pl_backlog_restore();
	htp_restore();
	if (c->tls_dir[0]) {
		static const char *const f[] = { "ca.pem", "server.pem", "server.key",
						 "client.pem", "client.key" };
		char path[128];

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", c->tls_dir, f[i]);
			unlink(path);
		}
		if (rmdir(c->tls_dir))
			fprintf(stderr, "rdmacap: rmdir %s: %s\n", c->tls_dir, strerror(errno));
		c->tls_dir[0] = '\0';
	}
	hs_close(c->sampler);
	c->sampler = NULL;
	if (c->remote) {
		rm_close(c->remote);
		free(c->remote);
		c->remote = NULL;
	}
	if (c->topo->kind != NN_HOST && nn_down(c->topo, p->verbose ? stderr : NULL))
		fprintf(stderr, "rdmacap: topology teardown incomplete; `rdmacap down` removes the rest\n");
	return rc;
}
