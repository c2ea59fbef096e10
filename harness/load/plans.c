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

#include "harness/certs/certs.h"
#include "harness/cli/clicheck.h"
#include "harness/env/env.h"
#include "harness/load/hosttopo.h"
#include "harness/hosts/remote.h"
#include "harness/figures/json.h"
#include "harness/point/agent.h"
#include "harness/point/memfloor.h"
#include "harness/load/plans.h"
#include "harness/figures/pointtap.h"
#include "harness/load/repeat.h"
#include "harness/load/search.h"
#include "harness/load/tune.h"
#include "harness/ulp/nvk.h"
#include "rdma/cap.h"
#include "netns/nn.h"
#include "rdma/fiprov.h"

struct pl_sess {
	struct pt_ctx *c;
	json_t *doc, *points;
	struct srch search;
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
	bool rc = opt_tr_rdma(p->transport, p->fi_provider);

	if (p->topo.kind == NN_HOST)
		return NULL; /* nothing to create: the device is checked by htp_topo */
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
struct pl_fip {
	const struct hp_plan *p;
	const char *addr;
};

/* in the server's namespace: the provider check's reason, or nothing */
static int pl_fip_ns(void *arg, int wfd)
{
	struct pl_fip *f = arg;
	char why[1024];
	int r = fip_check(f->p->fi_provider, f->p->transport == OPT_TR_FI_RDM, f->p->srq,
			  f->addr, why, sizeof(why));

	if (r > 0 && write(wfd, why, strlen(why)) < 0)
		return errno;
	return r < 0 ? ENOMEM : 0;
}

/* fi-msg, fi-rdm: a provider not offered where the server runs is a SKIP naming it */
static const char *pl_fi_skip(const struct pt_ctx *c, char *buf, size_t len)
{
	struct pl_fip f = { c->plan, c->topo->srv.addr };
	char *out = NULL;

	if (nn_in_ns(c->topo->srv.ns, pl_fip_ns, &f, &out) < 0) {
		fprintf(stderr, "rdmacap: fi_getinfo in %s: %s\n", nn_ns_label(c->topo->srv.ns),
			strerror(errno));
		free(out);
		return NULL;
	}
	if (!out || !*out) {
		free(out);
		return NULL;
	}
	snprintf(buf, len, "%s", out);
	free(out);
	return buf;
}

static const char *pl_cap_skip(const struct pt_ctx *c, char *buf, size_t len)
{
	const struct hp_plan *p = c->plan;
	unsigned need = clicheck_cap_need(p);
	const char *why;

	if (opt_tr_fi(p->transport) && !p->hosts)
		return pl_fi_skip(c, buf, len);
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
	if (rm_open(c->remote, p->hosts, p->server_host, p->launcher, run, agt_binary(),
		    p->agent_path, p->push, c->tls_dir[0] ? c->tls_dir : NULL, why, len)) {
		free(c->remote);
		c->remote = NULL;
		return -1;
	}
	return 0;
}

/* One point of n clients into TAP and JSON; what it measured into *sp when non-NULL. */
/* kernel log lines a failed kernel-service point carries, at most */
#define PL_KLOG_MAX 8

static int pl_point(struct pl_sess *s, long n, const char *label, struct srch_point *sp)
{
	struct pt_ctx *c = s->c;
	struct pt_point *pt = calloc(1, sizeof(*pt));
	char desc[128], klog[PL_KLOG_MAX][NVKL_LINE];
	enum tap_res res;
	int rc, kfd, nk;
	json_t *jp;

	if (!pt)
		return -1;
	if (c->plan->repeat > 1) {
		free(pt);
		rc = rpt_point(c, n, label, s->points);
		if (c->plan->json)
			js_write(s->doc, c->plan->json);
		s->ran++;
		return rc;
	}
	fprintf(stderr, "rdmacap: %s: %ld clients\n", label, n);
	kfd = opt_tr_kernel(c->plan->transport) && !c->plan->hosts ? nvkl_open() : -1;
	rc = pt_run(c, n, pt);
	snprintf(desc, sizeof(desc), "%s clients=%ld connected=%ld success=%.2f%%", label, n,
		 pt->connected, pt->success_pct);
	/* a kernel service's failure: the kernel's own words, since the point began */
	nk = pt->connected < n || pt->why[0] ? nvkl_read(kfd, klog, PL_KLOG_MAX) : 0;
	for (int i = 0; i < nk; i++)
		tap_kv(c->tap, "kernel_log", "%s", klog[i]);
	if (kfd >= 0)
		close(kfd);
	res = ptap_point(c, pt, desc, sp != NULL);
	jp = js_point(pt, c->plan, tap_res_name(res));
	if (nk) {
		json_t *a = json_array();

		for (int i = 0; i < nk; i++)
			json_array_append_new(a, json_string(klog[i]));
		json_object_set_new(jp, "kernel_log", a);
	}
	json_array_append_new(s->points, jp);
	/* every finished point is on disk: a run cut short later loses nothing measured */
	if (c->plan->json)
		js_write(s->doc, c->plan->json);
	if (sp) {
		sp->success = pt->success_pct;
		sp->floor = pt->mem_floor_hit;
		sp->cut = pt->aborted;
		snprintf(sp->cause, sizeof(sp->cause), "%s", pt->cause[0] ? pt->cause : pt->why);
	}
	s->ran++;
	pt_free(pt);
	free(pt);
	return rc;
}

static int pl_measure(void *arg, long n, struct srch_point *sp)
{
	return pl_point(arg, n, "limit", sp);
}

static bool pl_more(void *arg)
{
	struct pl_sess *s = arg;

	return !s->c->aborted && pl_now() - s->t0 < (double)s->c->plan->budget_s;
}

static void pl_limit_result(struct pl_sess *s, double th)
{
	struct tap *t = s->c->tap;
	const struct srch_point *m;
	enum srch_end end;
	long lo, hi;

	end = srch_result(&s->search, th, &lo, &hi, &m);
	tap_kv(t, "threshold_pct", "%.0f", th);
	tap_kv(t, "limit", "%ld", lo);
	if (end == SRCH_FOUND) {
		tap_kv(t, "first_below", "%ld", hi);
		tap_kv(t, "first_below_success_pct", "%.2f", m->success);
		tap_kv(t, "cause", "%s", m->cause);
		tap_result(t, m->cause[0] ? TAP_PASS : TAP_FAIL, NULL,
			   "limit at %.0f%% success: %ld clients (%ld reached %.2f%%: %s)", th, lo, hi,
			   m->success, m->cause[0] ? m->cause : "cause not identified");
	} else if (end == SRCH_MAX) {
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
	char why[256], skip[1024], run[8];
	const char *reason;
	json_t *env = json_object();
	struct nvkm nvk = { 0 };
	int rc = 0;

	s.points = json_array();
	json_object_set_new(doc, "points", s.points);
	json_object_set_new(doc, "env", env);
	env_load(env, "start");

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
		if (htp_topo_hosts(p, c->topo, run, why, sizeof(why))) {
			tap_bail(t, "--hosts: %s", why);
			return -1;
		}
	} else if (c->topo->kind == NN_HOST) {
		rc = htp_topo(p, c->topo, run, why, sizeof(why));
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
	if (opt_tr_kernel(p->transport) && !p->hosts) {
		/* the kernel's target and initiator: their modules, configfs */
		rc = nvkm_up(&nvk, p->transport, skip, sizeof(skip));
		if (rc) {
			if (rc > 0)
				tap_skip_all(t, "%s", skip);
			else
				tap_bail(t, "%s: %s", opt_word(OPT_TRANSPORT, p->transport), skip);
			json_object_set_new(doc, "skipped", json_string(skip));
			rc = rc > 0 ? 0 : -1;
			goto down;
		}
		if (nvk.others && p->transport == OPT_TR_SRP)
			tap_kv(t, "srpt_others", "%d srpt TPGs of another user, left alone",
			       nvk.others);
		else if (nvk.others)
			tap_kv(t, "nvmet_others", "%d subsystems of another user, left alone",
			       nvk.others);
	}
	reason = pl_cap_skip(c, skip, sizeof(skip));
	if (reason) {
		tap_skip_all(t, "%s", reason);
		json_object_set_new(doc, "skipped", json_string(reason));
		goto down;
	}
	if ((opt_tr_connected(p->transport) || p->transport == OPT_TR_UD) &&
	    p->cm == OPT_CM_OOB_TLS && !p->tls_ca &&
	    certs_run_dir(c->tls_dir, sizeof(c->tls_dir), why, sizeof(why))) {
		tap_bail(t, "TLS certificates: %s", why);
		rc = -1;
		goto down;
	}
	if (p->hosts && pl_remote(c, run, why, sizeof(why))) {
		tap_bail(t, "%s", why);
		rc = -1;
		goto down;
	}
	/* --hosts: the devices and namespaces are the hosts', read there (rsample.h) */
	c->sampler = smp_open(p->hosts ? &pl_no_rxe : c->topo,
			      !opt_tr_rdma(p->transport, p->fi_provider) && !p->hosts, why, sizeof(why));
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
	tune_run(c);
	c->mem_floor_kb = mf_floor_kb(p->mem_floor_mib, why, sizeof(why));
	tap_kv(t, "mem_floor", "%ld KiB (%s)", c->mem_floor_kb, why);

	if (p->cmd == HP_LIMIT) {
		s.search = (struct srch){ .start = p->start, .max = p->max, .steps = p->steps,
					  .measure = pl_measure, .more = pl_more, .arg = &s };
		/* -1 ends this threshold's search; the next one may still run */
		srch_run(&s.search, p->thresholds[0]);
		if (p->thresholds[1] != p->thresholds[0])
			srch_run(&s.search, p->thresholds[1]);
		pl_limit_result(&s, p->thresholds[0]);
		if (p->thresholds[1] != p->thresholds[0])
			pl_limit_result(&s, p->thresholds[1]);
		tap_plan(t, s.ran + 1 + (p->thresholds[1] != p->thresholds[0]));
	} else {
		tap_plan(t, p->npoints);
		for (int i = 0; i < p->npoints && !c->aborted; i++)
			if (pl_point(&s, p->clients[i], p->cmd_name, NULL))
				break;
	}
	{
		json_t *caps = json_object();
		struct tap quiet;
		FILE *devnull = fopen("/dev/null", "we");

		/* the env facts go to JSON only; TAP stays one test per point */
		if (devnull) {
			tap_init(&quiet, devnull);
			env_collect(&quiet, caps, false);
			fclose(devnull);
		}
		json_object_update(env, caps);
		json_decref(caps);
		env_load(env, "end");
	}
down:
	if (opt_tr_kernel(p->transport) && !p->hosts) {
		FILE *log = p->verbose ? stderr : NULL;
		int gone = 0, others, bad;

		/* what a point cut short left (each point removes what its killed agents left) */
		bad = nvkd_service(p->transport, c->topo->run, log, &gone, &others);
		if (bad || gone)
			fprintf(stderr, "rdmacap: %s: %d objects of run %s left by its agents, "
				"removed\n", opt_word(OPT_TRANSPORT, p->transport), gone, c->topo->run);
		nvkm_down(&nvk, p->verbose ? stderr : NULL);
	}
	tune_restore();
	if (c->tls_dir[0]) {
		certs_run_dir_remove(c->tls_dir);
		c->tls_dir[0] = '\0';
	}
	smp_close(c->sampler);
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
