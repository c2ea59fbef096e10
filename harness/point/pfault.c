// SPDX-License-Identifier: MIT
/*
 * The point's side of --fault (harness/fault/fault.h does the striking): when in the
 * traffic phase it strikes, how long the point then waits for the agents to
 * notice (common/deadline.h), the undo, and what the fault cost: survivors,
 * failures and whether each was named, the time to the first failure an agent
 * reported, TCP retransmissions, the cause text, and the fault check of the
 * finished point (pf_check, point.h: its TAP line and its why).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "harness/hosts/remote.h"
#include "harness/point/proc.h"
#include "harness/point/rt.h"

void pf_init(struct rt *r)
{
	flt_init(&r->flt, &r->c->plan->fault, r->c->topo, &r->pt->fault);
	if (flt_arm(&r->flt))
		fprintf(stderr, "rdmacap: --fault %s: %s\n", r->flt.spec->text, r->pt->fault.err);
}

/*
 * TCP retransmissions of each namespace ([0] the server's, [1 + k] client
 * namespace k), read through any live agent in it; -1 where none lives.
 */
static void pf_retrans(struct rt *r, long *v)
{
	long n = r->c->topo->kind == NN_LOOP ? 0 : r->c->topo->nclients;

	for (long k = 0; k <= n; k++)
		v[k] = -1;
	for (long i = 0; i < r->nag; i++) {
		/* loop: one namespace for all */
		long k = n ? lay_agent_at(r, i).host : 0;

		if (v[k] < 0 && !r->ag[i].exited && proc_tcp_retrans(r->ag[i].pid, &v[k]))
			v[k] = -1;
	}
}

/*
 * A kill fault with --hosts: rdmacap holds only the local launcher's pid (ssh,
 * srun, mpirun). Killing that one is not killing the agent: over ssh the
 * agent reads its channel's EOF and stops in order, under srun and mpirun it
 * outlives the launcher until Slurm or Open MPI notices. Every launcher
 * forwards the agent's stdin, so the word "kill" there (common/proto.h) makes
 * the agent SIGKILL itself on its host (lay_agent_at), as kill(pid) does to
 * a local one.
 */
static void pf_kill_remote1(struct rt *r, long i, const char *who, long conns, size_t *off)
{
	struct flt_result *f = &r->pt->fault;
	const struct hosts_list *l = &r->c->remote->list;
	const char *host = l->h[l->n < 2 ? 0 : lay_agent_at(r, i).host].dest;
	long k = i < r->nsrv ? i + 1 : i - r->nsrv + 1;

	if (*off >= sizeof(f->did))
		return;
	if (agt_send(&r->ag[i], PROTO_CMD_KILL)) {
		snprintf(f->err, sizeof(f->err), "%s %ld on %s: its stdin is closed", who, k, host);
		return;
	}
	r->ag[i].killed = true;
	*off += (size_t)snprintf(f->did + *off, sizeof(f->did) - *off,
				 "%sSIGKILL %s %ld on %s (pid %ld there, \"kill\" on its stdin",
				 *off ? "; " : "", who, k, host, r->ag[i].host_pid);
	if (conns >= 0 && *off < sizeof(f->did))
		*off += (size_t)snprintf(f->did + *off, sizeof(f->did) - *off, ", %ld connections",
					 conns);
	if (*off < sizeof(f->did))
		*off += (size_t)snprintf(f->did + *off, sizeof(f->did) - *off, ")");
}

static void pf_kill_remote(struct rt *r)
{
	const struct flt_spec *s = r->flt.spec;
	size_t off = strlen(r->pt->fault.did);
	long n = 0;

	if (s->kind == FLT_KILL_SERVER) {
		for (long i = 0; i < r->nsrv; i++)
			pf_kill_remote1(r, i, "server agent", -1, &off);
		return;
	}
	/* the client agents still running traffic, in the order they were started */
	for (long i = r->nsrv; i < r->nag && n < s->n; i++) {
		if (r->ag[i].exited || r->ag[i].result || !r->ag[i].ok)
			continue;
		pf_kill_remote1(r, i, "client agent", r->ag[i].ok, &off);
		n++;
	}
}

static void pf_apply(struct rt *r)
{
	long nc = r->nag - r->nsrv, n = 0;
	pid_t *srv = calloc((size_t)r->nsrv + 1, sizeof(*srv));
	pid_t *cli = calloc((size_t)nc + 1, sizeof(*cli));
	long *conns = calloc((size_t)nc + 1, sizeof(*conns));
	bool remote;

	if (!srv || !cli || !conns) {
		snprintf(r->pt->fault.err, sizeof(r->pt->fault.err), "out of memory");
		goto out;
	}
	for (long i = 0; i < r->nsrv; i++)
		srv[i] = r->ag[i].pid;
	/* the agents still running traffic, in the order they were started */
	for (long i = r->nsrv; i < r->nag; i++) {
		if (r->ag[i].exited || r->ag[i].result || !r->ag[i].ok)
			continue;
		cli[n] = r->ag[i].pid;
		conns[n++] = r->ag[i].ok;
	}
	if (r->c->plan->transport == OPT_TR_TCP)
		pf_retrans(r, r->retrans_base);
	if (r->flt.spec->kind == FLT_KILL_SERVER)
		r->srv_kill_expected = true;
	remote = (r->flt.spec->kind == FLT_KILL_SERVER || r->flt.spec->kind == FLT_KILL_CLIENT) &&
		 r->c->remote;
	if (flt_apply(&r->flt, srv, remote ? 0 : (int)r->nsrv, cli, conns, remote ? 0 : (int)n,
		      clock_s()))
		fprintf(stderr, "rdmacap: --fault %s: %s\n", r->flt.spec->text, r->pt->fault.err);
	if (remote)
		pf_kill_remote(r);
	fprintf(stderr, "rdmacap: --fault %s: %s\n", r->flt.spec->text, r->pt->fault.did);
out:
	free(srv);
	free(cli);
	free(conns);
}

/* the plan's transport's dead-peer bound: fi-rdm's clients time their echoes */
static uint64_t pf_peer_ns(const struct hp_plan *p)
{
	return p->transport == OPT_TR_FI_RDM ? dl_fi_echo_ns() : dl_peer_ns();
}

enum lp_end pf_traffic(struct rt *r, bool (*done)(struct rt *), double t0, double end)
{
	const struct hp_plan *p = r->c->plan;
	double at = t0 + (double)hp_fault_at(p) / 1e3, detect;
	enum lp_end e;

	if (p->fault.kind == FLT_NONE)
		return lp_loop(r, done, end);
	e = lp_loop(r, done, at < end ? at : end);
	if (e != LP_DEADLINE || clock_s() >= end)
		return e;
	r->pt->fault.at_ms = (clock_s() - t0) * 1e3;
	pf_apply(r);
	/* a dead peer is noticed at the next send: one think time, then its bound */
	detect = clock_s() + (double)(pf_peer_ns(p) + (uint64_t)p->think_ms * 1000000ull) / 1e9 +
		 DL_GRACE_S;
	if (flt_destructive(&p->fault) && !r->flt.t_due && detect < end)
		end = detect;
	return lp_loop(r, done, end);
}

void pf_undo(struct rt *r)
{
	if (!r->pt->fault.applied)
		return;
	if (r->c->plan->transport == OPT_TR_TCP && r->pt->fault.tcp_retrans < 0) {
		long now[NN_MAX_CLIENTS + 1];

		/* the namespaces read both times (a killed server's is not) */
		pf_retrans(r, now);
		for (int k = 0; k <= r->c->topo->nclients; k++)
			if (r->retrans_base[k] >= 0 && now[k] >= r->retrans_base[k])
				r->pt->fault.tcp_retrans = (r->pt->fault.tcp_retrans < 0 ? 0 :
							    r->pt->fault.tcp_retrans) +
							   now[k] - r->retrans_base[k];
	}
	if (flt_undo(&r->flt, clock_s()))
		fprintf(stderr, "rdmacap: --fault %s: undo: %s\n", r->flt.spec->text,
			r->pt->fault.err);
}

void pf_disarm(struct rt *r)
{
	if (flt_disarm(&r->flt))
		fprintf(stderr, "rdmacap: --fault %s: disarm: %s\n", r->flt.spec->text,
			r->pt->fault.err);
}

void pf_mark_lost(struct rt *r, long id)
{
	if (id >= 0 && id < r->pt->clients)
		r->lost_id[id] = 1;
}

void pf_failed(struct rt *r, const char *call, const char *errname)
{
	struct flt_result *f = &r->pt->fault;

	/* the orchestrator reaping an agent it killed is not the transport noticing */
	if (!f->applied || r->phase != RT_TRAFFIC || !strcmp(call, "agent"))
		return;
	/*
	 * The first failure times the detection; a later one that is the agent's
	 * phase deadline was never noticed at all, however early the first was
	 * (a client whose server lost its QP, waiting for an echo: session 5).
	 */
	if (!strcmp(errname, "timeout"))
		f->at_deadline++;
	if (f->detect_ms < 0)
		f->detect_ms = (clock_s() - r->flt.t_applied) * 1e3;
}

void pf_figures(struct rt *r)
{
	struct pt_point *pt = r->pt;
	struct flt_result *f = &pt->fault;
	double lat_max_ms = (double)pt->lat_ns.max / 1e6;

	if (!f->asked)
		return;
	for (long id = 0; id < pt->clients; id++)
		f->named += r->lost_id[id] && r->st[id] == RT_OK;
	f->failed = (long)pt->lost > f->named ? (long)pt->lost : f->named;
	if (f->failed > pt->connected)
		f->failed = pt->connected;
	f->survived = pt->connected - f->failed;
	if (f->undo_ms > 0 && lat_max_ms > f->undo_ms)
		f->recover_ms = lat_max_ms - f->undo_ms;
	/* one think time to the next send, the transports' bound, the grace */
	f->bound_ms = (double)(pf_peer_ns(r->c->plan) + (uint64_t)r->c->plan->think_ms * 1000000ull) / 1e6 +
		      DL_GRACE_S * 1e3;
	f->late = f->detect_ms > f->bound_ms;
}

/* What the fault is, as the first words of the point's cause. */
void pf_cause(struct rt *r, char *out, size_t len)
{
	const struct flt_spec *s = &r->c->plan->fault;
	const struct flt_result *f = &r->pt->fault;

	*out = '\0';
	if (!f->applied)
		return;
	switch (s->kind) {
	case FLT_KILL_SERVER:
		snprintf(out, len, "server agent killed (SIGKILL, --fault %s)", s->text);
		break;
	case FLT_KILL_CLIENT:
		snprintf(out, len, "%ld client agent%s killed (SIGKILL, --fault %s)", s->n,
			 s->n > 1 ? "s" : "", s->text);
		break;
	case FLT_STOP_SERVER:
		snprintf(out, len, "server agent stopped for %ld ms (SIGSTOP, --fault %s)", s->ms,
			 s->text);
		break;
	case FLT_LINK_DOWN:
		snprintf(out, len, "link %s down%s (--fault %s)", r->flt.link.dev,
			 s->ms ? "" : " until the point ended", s->text);
		break;
	default:
		snprintf(out, len, "netem on every link (--fault %s)", s->text);
		break;
	}
}

/* A failed check's text into why, when asked for: false. */
static bool pf_no(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool pf_no(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return false;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/* Each condition beside its text: the TAP line and the point's why cannot disagree. */
bool pf_check(const struct hp_plan *p, const struct pt_point *pt, char *why, size_t len)
{
	const struct flt_result *f = &pt->fault;
	const char *s = p->fault.text;

	if (why && len)
		*why = '\0';
	if (!f->applied)
		return pf_no(why, len, "--fault %s not applied: traffic ended after %.3f s, before "
			     "--fault-at %ld ms", s, pt->t_traffic_s, hp_fault_at(p));
	if (f->err[0])
		return pf_no(why, len, "--fault %s: %s", s, f->err);
	if (!f->undone)
		return pf_no(why, len, "--fault %s not undone", s);
	if (pt->timeout_traffic || f->late)
		return pf_no(why, len, "--fault %s: a failure was noticed after %.0f ms, beyond "
			     "the dead-peer bound of %.0f ms (common/deadline.h)", s, f->detect_ms,
			     f->bound_ms);
	if (f->at_deadline)
		return pf_no(why, len, "--fault %s: %ld connection%s learned of it only at the "
			     "phase deadline (timeout), not within the dead-peer bound of %.0f ms "
			     "(common/deadline.h)", s, f->at_deadline, f->at_deadline > 1 ? "s" : "",
			     f->bound_ms);
	if (f->named < f->failed)
		return pf_no(why, len, "--fault %s: %ld of %ld failed connections have no named "
			     "failure", s, f->failed - f->named, f->failed);
	return true;
}
