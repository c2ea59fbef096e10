// SPDX-License-Identifier: MIT
/*
 * rdmacap: how many RDMA connections does this host really sustain, and why does
 * it stop? TAP on stdout, logs on stderr, JSON in a side file.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "harness/env/env.h"
#include "harness/figures/json.h"
#include "harness/point/memfloor.h"
#include "harness/load/plans.h"
#include "harness/load/tune.h"
#include "harness/ulp/nvk.h"
#include "harness/hosts/remote.h"
#include "harness/report/report.h"

static int hm_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, set, NULL))
		return -1;
	/* a dead agent's pipe must fail our write, not kill us */
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int hm_env(struct hp_plan *p, struct tap *t)
{
	json_t *doc = json_object();
	int rc = 0;

	env_collect(t, doc, p->deep);
	tap_plan(t, t->lv[0].n);
	if (p->json && js_write(doc, p->json))
		rc = -1;
	json_decref(doc);
	return rc;
}

static int hm_up(struct hp_plan *p, struct tap *t)
{
	struct nn_topo *topo = &p->topo;

	if (geteuid() != 0) {
		tap_skip_all(t, "not root: topologies need CAP_NET_ADMIN");
		return 0;
	}
	if (!p->run[0] && nn_new_run(p->run)) {
		tap_bail(t, "no run id: %s", strerror(errno));
		return -1;
	}
	tap_plan(t, 1);
	if (nn_up(topo, p->run, p->rxe, p->verbose ? stderr : NULL)) {
		tap_result(t, TAP_FAIL, NULL, "up %s run=%s", p->topo_spec, p->run);
		return 0;
	}
	tap_kv(t, "run", "%s", p->run);
	tap_kv(t, "server", "ns=%s if=%s addr=%s rxe=%s", topo->srv.ns, topo->srv.ifname,
	       topo->srv.addr, topo->srv.rxe);
	for (int k = 0; k < topo->nclients; k++)
		tap_kv(t, "client", "ns=%s if=%s addr=%s rxe=%s", topo->cli[k].ns,
		       topo->cli[k].ifname, topo->cli[k].addr, topo->cli[k].rxe);
	tap_result(t, TAP_PASS, NULL, "up %s run=%s", p->topo_spec, p->run);
	return 0;
}

/* --hosts slurm: the allocation's nodes, named before the plan is written; 0 or -1 (said) */
static int hm_slurm(struct hp_plan *p, struct tap *t)
{
	static char nodes[HOSTS_MAX * 64], hosts[HOSTS_MAX * 128];
	char why[256];

	if (!p->hosts || !hosts_is_slurm(p->hosts))
		return 0;
	if (rm_slurm_nodes(nodes, sizeof(nodes), why, sizeof(why)) ||
	    hosts_slurm(p->hosts, nodes, hosts, sizeof(hosts), why, sizeof(why))) {
		tap_bail(t, "--hosts %s: %s", p->hosts, why);
		return -1;
	}
	p->hosts = hosts;
	return 0;
}

static int hm_down(struct hp_plan *p, struct tap *t)
{
	int removed = 0, restored = 0, others = 0, nv_removed = 0, rc;

	if (p->hosts) {
		/* the hosts' leftovers only: this host's namespaces are not theirs */
		tap_plan(t, 1);
		rc = rm_down(p->hosts, p->launcher, stderr, &removed);
		tap_kv(t, "removed", "%d", removed);
		tap_result(t, rc ? TAP_FAIL : TAP_PASS, NULL,
			   "down --hosts: no agent or run directory of rdmacap left on any host");
		return 0;
	}
	if (geteuid() != 0) {
		tap_skip_all(t, "not root: removing namespaces needs CAP_SYS_ADMIN");
		return 0;
	}
	tap_plan(t, 1);
	/* the host's sysctls a killed run left changed (harness/load/tune.h) */
	rc = tune_down(t, p->run[0] ? p->run : NULL, &restored);
	/*
	 * srp, then nvmf: the kernel's initiator hosts and controllers, targets and
	 * disks of a killed run (srp's backstores hold the disks nvkd_clean removes)
	 */
	rc |= srkd_clean(p->run[0] ? p->run : NULL, p->verbose ? stderr : NULL, &nv_removed, &others);
	if (others)
		tap_kv(t, "srpt_others", "%d srpt TPGs not rdmacap's, left alone", others);
	rc |= nvkd_clean(p->run[0] ? p->run : NULL, p->verbose ? stderr : NULL, &nv_removed, &others);
	if (others)
		tap_kv(t, "nvmet_others", "%d nvmet subsystems not rdmacap's, left alone", others);
	if (p->run[0]) {
		/* one run: whatever carries its prefix, whichever topology it was */
		struct nn_topo one = { .kind = NN_PAIR, .rxe = true };

		snprintf(one.run, sizeof(one.run), "%s", p->run);
		rc |= nn_down(&one, p->verbose ? stderr : NULL);
		tap_result(t, rc ? TAP_FAIL : TAP_PASS, NULL, "down run=%s: nothing of it left",
			   p->run);
		return 0;
	}
	/* everything rdc*: the objects of every run, also of crashed ones */
	rc |= nn_clean(p->verbose ? stderr : NULL, &removed);
	tap_kv(t, "removed", "%d", removed + nv_removed);
	tap_result(t, rc ? TAP_FAIL : TAP_PASS, NULL, "down: no rdc namespace, link, rxe device, nvmf or srp object left");
	return 0;
}

int main(int argc, char **argv)
{
	struct hp_plan *p = calloc(1, sizeof(*p));
	struct pt_ctx c = { 0 };
	struct tap t;
	sigset_t set;
	json_t *doc;
	int rc;

	if (!p)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = hp_parse(p, argc, argv, stderr);
	if (rc) {
		free(p);
		return rc > 0 ? 0 : TAP_EXIT_USAGE;
	}
	if (p->cmd == HP_REPORT) {
		rc = rp_main(p);
		free(p);
		return rc;
	}
	tap_init(&t, stdout);
	c.plan = p;
	c.topo = &p->topo;
	c.tap = &t;
	c.tty = isatty(2);
	c.sigfd = hm_signals(&set);
	if (c.sigfd < 0) {
		fprintf(stderr, "rdmacap: signalfd: %s\n", strerror(errno));
		free(p);
		return 1;
	}
	switch (p->cmd) {
	case HP_ENV:
		rc = hm_env(p, &t);
		break;
	case HP_UP:
		rc = hm_up(p, &t);
		break;
	case HP_DOWN:
		rc = hm_slurm(p, &t) ? -1 : hm_down(p, &t);
		break;
	default:
		if (hm_slurm(p, &t)) {
			rc = -1;
			break;
		}
		mf_oom_protect();
		if (opt_tr_rdma(p->transport, p->fi_provider))
			p->topo.rxe = true;
		else
			p->topo.rxe = p->rxe;
		doc = json_object();
		json_object_set_new(doc, "rdmacap", json_string(RDMACAP_VERSION));
		json_object_set_new(doc, "plan", js_plan(p));
		rc = pl_load(&c, doc);
		if (c.aborted) {
			fprintf(stderr, "rdmacap: interrupted: agents stopped, topology removed\n");
			json_object_set_new(doc, "interrupted", json_true());
		}
		if (p->json && js_write(doc, p->json))
			rc = -1;
		json_decref(doc);
		break;
	}
	tap_totals(&t);
	close(c.sigfd);
	free(p);
	if (rc || c.aborted)
		return TAP_EXIT_FAIL;
	return tap_exit_code(&t);
}
