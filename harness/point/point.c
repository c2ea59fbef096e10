// SPDX-License-Identifier: MIT
/*
 * One load point, phase by phase: start (server agents, then client agents,
 * each says hello), connect (released together by "go", each reports every
 * connection and holds them all until every agent settled, so the server
 * really holds N at once), peak (measured there), traffic ("run", each agent
 * reports its result), stop, after. Every phase has a deadline; those of
 * connect and traffic follow the agent's own rule (common/deadline.h) plus a
 * grace, so the agent's deadline fires first and its records still arrive.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "harness/hosts/remote.h"
#include "harness/point/rsample.h"
#include "harness/point/rt.h"
#include "harness/ulp/nvk.h"

/* agents exit within this of "stop", or the time their objects take (deadline.h) */
#define PT_STOP_WAIT_S 10

static bool pt_all_hello(struct rt *r)
{
	for (long i = r->nsrv; i < r->nag; i++)
		if (!r->ag[i].hello && !r->ag[i].exited)
			return false;
	return true;
}

static bool pt_all_connected(struct rt *r)
{
	return r->n_connected_agents >= r->nag - r->nsrv || r->srv_exited;
}

static bool pt_all_results(struct rt *r)
{
	/* a server killed on purpose: its clients still report what they noticed */
	return r->n_result_agents >= r->nag - r->nsrv || (r->srv_exited && !r->srv_kill_expected);
}

static bool pt_clients_gone(struct rt *r)
{
	for (long i = r->nsrv; i < r->nag; i++)
		if (!r->ag[i].exited)
			return false;
	return true;
}

static bool pt_server_gone(struct rt *r)
{
	return r->srv_exited >= r->nsrv;
}

/* Agents up and greeted. 0, or -1 with pt->why set. */
static int pt_start(struct rt *r)
{
	struct pt_point *pt = r->pt;
	/* 30 s and 50 ms per process, or longer (sp_start_wait_s) */
	double start_s = sp_start_wait_s(r, 30 + 0.05 * (double)r->nag);
	enum lp_end e;

	/* a host lost in an earlier point of the run is not reached again */
	for (int k = 0; r->c->remote && k < r->c->remote->list.n; k++)
		if (r->c->remote->lost[k]) {
			snprintf(pt->why, sizeof(pt->why), "host %s was lost earlier in the run",
				 r->c->remote->list.h[k].dest);
			return -1;
		}
	if (sp_start_agents(r))
		return -1;
	meas_base(r);
	e = lp_loop(r, pt_all_hello, clock_s() + start_s);
	if (e != LP_DONE || !pt_all_hello(r) || r->srv_exited) {
		if (!pt->why[0] && e != LP_MEMORY) /* the floor's cause is the why */
			snprintf(pt->why, sizeof(pt->why), "client agents did not start: %s",
				 e == LP_ABORTED ? "interrupted" : "deadline");
		return -1;
	}
	pt->started = true;
	return 0;
}

/* "go", then every agent settles. 0, or -1 when interrupted. */
static int pt_connect(struct rt *r)
{
	struct pt_point *pt = r->pt;
	const struct hp_plan *p = r->c->plan;
	/* the first client agent holds the most ids */
	uint64_t per_agent = (uint64_t)lay_agent_at(r, r->nsrv).n;
	enum lp_end e;

	r->phase = RT_CONNECT;
	r->t_go = clock_s();
	meas_setup_start(r);
	for (long i = r->nsrv; i < r->nag; i++)
		agt_send(&r->ag[i], PROTO_CMD_GO);
	e = lp_loop(r, pt_all_connected,
		    r->t_go + (double)dl_connect_ns((uint64_t)pt->timeout_s, (uint64_t)p->stagger_ms,
						    per_agent) / 1e9 + DL_GRACE_S);
	pt->t_connect_s = clock_s() - r->t_go;
	meas_setup_end(r);
	lp_progress(r, true);
	pt->connected = r->nconn_ok;
	if (e == LP_ABORTED || e == LP_MEMORY)
		return -1;
	if (e == LP_DEADLINE) {
		pt->timeout_connect = true;
		for (long i = r->nsrv; i < r->nag; i++) {
			struct agt_agent *a = &r->ag[i];

			/* not one record since "go": its host, not its clients, is what failed */
			if (!a->connected && !a->ok && !a->fail)
				lost_silent(r, a, clock_s() - r->t_go);
			if (!a->connected)
				rec_fail_pending(r, a, "connect-phase", "timeout");
		}
	}
	return 0;
}

/*
 * "run" to every agent with connections, then their results. A failed write
 * means the agent is gone: it is reaped here and named by how it ended.
 */
static void pt_traffic(struct rt *r)
{
	struct pt_point *pt = r->pt;
	const struct hp_plan *p = r->c->plan;
	double t0 = clock_s();
	long waiting = 0;

	r->phase = RT_TRAFFIC;
	meas_cpu_start(r);
	for (long i = r->nsrv; i < r->nag; i++) {
		struct agt_agent *a = &r->ag[i];

		if (a->result || a->exited)
			continue;
		if (!a->connected || !a->ok) {
			rec_agent_done(r, a); /* nothing to run */
			continue;
		}
		if (!agt_send(a, PROTO_CMD_RUN)) {
			waiting++;
			continue;
		}
		fprintf(stderr, "rdmacap: client agent %d (pid %d): run: %s\n", a->idx, (int)a->pid,
			strerror(errno));
		lp_reap(r);
		rec_agent_lost(r, a, "agent", "run: EPIPE");
	}
	if (waiting &&
	    pf_traffic(r, pt_all_results, t0,
		       t0 + (double)dl_traffic_ns((uint64_t)pt->timeout_s, (uint64_t)p->think_ms,
						  (uint64_t)p->msgs) / 1e9 + DL_GRACE_S) == LP_DEADLINE) {
		pt->timeout_traffic = true;
		/* an agent's own deadline sends its result DL_GRACE_S before this one */
		for (long i = r->nsrv; i < r->nag; i++)
			if (!r->ag[i].result)
				lost_silent(r, &r->ag[i], clock_s() - t0);
	}
	pt->t_traffic_s = clock_s() - t0;
	meas_cpu_end(r);
	pf_undo(r);
}

/* "stop" and EOF on stdin to one side; what does not exit in time is killed. */
static void pt_stop_side(struct rt *r, long from, long to, bool (*gone)(struct rt *))
{
	/* a server of 20,000 endpoints frees them for more than 10 s: killed, its
	 * result record was lost */
	double wait = (double)dl_teardown_ns(meas_held(r)) / 1e9;

	if (wait < PT_STOP_WAIT_S)
		wait = PT_STOP_WAIT_S;
	for (long i = from; i < to; i++) {
		agt_send(&r->ag[i], PROTO_CMD_STOP);
		agt_close_in(&r->ag[i]);
	}
	/* a launcher's own signal: a SIGKILLed srun would leave its step running */
	if (lp_loop(r, gone, clock_s() + wait) != LP_DONE)
		for (long i = from; i < to; i++) {
			lost_stop(r, &r->ag[i], wait);
			agt_kill(&r->ag[i], r->ag[i].deathsig ? r->ag[i].deathsig : SIGKILL);
		}
	lp_loop(r, gone, clock_s() + 5);
}

/*
 * A kernel service's objects outlive the agent that made them: what killed
 * client agents left (hosts, controllers) goes before the server takes its
 * target down (nvk.h); with target, after the servers stopped, what a killed
 * server left too, so that the counters after the point are read clean.
 */
static void pt_stop_kernel(struct rt *r, bool target)
{
	const struct hp_plan *p = r->c->plan;
	const char *run = r->c->topo->run;
	FILE *log = p->verbose ? stderr : NULL;
	int gone = 0, others, bad;

	if (!opt_tr_kernel(p->transport) || p->hosts)
		return;
	if (!target)
		bad = p->transport == OPT_TR_SRP ? srkd_hosts_clean(run, log, &gone) :
			nvkd_hosts(run, log, &gone);
	else
		bad = nvkd_service(p->transport, run, log, &gone, &others);
	if (bad || gone)
		fprintf(stderr, "rdmacap: %s: %d objects of run %s left by its %s agents, removed\n",
			opt_word(OPT_TRANSPORT, p->transport), gone, run, target ? "server" : "client");
}

/* Clients first, then the servers; what they wrote last (results, bye) still counts. */
static void pt_stop(struct rt *r)
{
	r->phase = RT_STOP;
	pt_stop_side(r, r->nsrv, r->nag, pt_clients_gone);
	pt_stop_kernel(r, false);
	pt_stop_side(r, 0, r->nsrv < r->nag ? r->nsrv : r->nag, pt_server_gone);
	pt_stop_kernel(r, true);
	for (long i = 0; i < r->nag; i++)
		lp_drain(r, &r->ag[i]);
}

int pt_run(struct pt_ctx *c, long clients, struct pt_point *pt)
{
	struct rt r = { .c = c, .pt = pt, .ep = -1, .tfd = -1 };

	memset(pt, 0, sizeof(*pt));
	r.t_start = clock_s();
	lay_split(&r, clients);
	pt->expect_msgs = (uint64_t)clients * (uint64_t)c->plan->msgs;
	/*
	 * Shared namespace: keep clear of other runs' ports, and below the default
	 * ephemeral range (32768-60999), where our own clients' TIME_WAIT sockets
	 * would make the next point's bind fail with EADDRINUSE.
	 */
	r.port = c->topo->kind == NN_LOOP || c->topo->kind == NN_HOST ? 20000 + (strtol(c->topo->run, NULL, 16) % 180) * 64
					  : OPT_DEF_PORT;
	if (lp_setup(&r, clients)) {
		snprintf(pt->why, sizeof(pt->why), "setup (event loop, timer, run state): %s",
			 strerror(errno));
		goto out_setup;
	}
	pf_init(&r);
	meas_res_base(&r);
	if (c->remote)
		rsmp_base(&r);
	if (pt_start(&r) || pt_connect(&r))
		goto stop;
	meas_peak(&r);
	rsmp_peak(&r);
	if (pt->mem_floor_hit) /* the floor, hit while the peak was read */
		goto stop;
	pt_traffic(&r);
	meas_end(&r);
stop:
	pf_undo(&r); /* also when interrupted: a stopped server must run to stop */
	pt_stop(&r);
	pf_disarm(&r);
	meas_after(&r);
	rsmp_after(&r);
	pt->aborted = c->aborted;
	vd_verdict(&r);
	lp_teardown(&r);
	return c->aborted ? -1 : 0;

out_setup:
	/*
	 * Nothing ran and the run's arrays may be missing: no verdict to draw,
	 * the point failed in its setup. No agent was started, so the agent table
	 * (zeroed, fd 0) holds nothing to close.
	 */
	pt->ok = false;
	pt->aborted = c->aborted;
	r.nag = 0;
	lp_teardown(&r);
	return c->aborted ? -1 : 0;
}

void pt_free(struct pt_point *pt)
{
	smp_series_free(&pt->series);
	free(pt->hosts);
	pt->hosts = NULL;
	smp_wire_series_free(&pt->wire_series);
}
