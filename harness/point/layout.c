// SPDX-License-Identifier: MIT
/*
 * Process layout: how many server processes and client agents a point needs,
 * on how many ports, with which fd limit, and how long a phase may take. Two
 * limits decide it: RLIMIT_NOFILE (the fds of a connection, per process) and,
 * for rc, vm.max_map_count (memory maps per process).
 */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "harness/point/proc.h"
#include "harness/point/rt.h"

/*
 * one kernel-service client's connect under TCG: an nvmf controller ~270 ms
 * seen (50 in 13.3 s), with margin; an srp login is of the same kind
 */
#define LAY_KERN_CONNECT_MS 600
#define LAY_CONNS_PER_PORT 20000 /* below the ~28k default ephemeral ports per destination */
#define LAY_CONNS_PER_AGENT 20000

/*
 * A tcp client is its socket; rc's and ud's share their agent's channels, one
 * fd at most. A libfabric endpoint with a CQ of its own waits on it through
 * fds (FI_WAIT_FD): fi-msg over verbs held 3 per endpoint on each side (3,016
 * fds at 1,000), none with --cq shared; an fi-rdm endpoint 10 (2,013 at 200:
 * ofi_rxm's own EQ and CQs under it too).
 */
long lay_fds_per_client(const struct hp_plan *p)
{
	if (p->transport == OPT_TR_FI_RDM)
		return 10;
	if (p->transport == OPT_TR_FI_MSG && p->cq == OPT_CQ_PER_CONN)
		return 3;
	return 1;
}

/* The NOFILE hard limit an agent can get: fs.nr_open if we may raise it, else ours. */
static long lay_nofile_cap(bool *raisable)
{
	struct rlimit rl;
	char v[32];

	*raisable = proc_has_cap(CAP_SYS_RESOURCE);
	if (*raisable && !nn_sysctl_get("", "fs.nr_open", v, sizeof(v)))
		return atol(v);
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	return rl.rlim_max == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_max;
}

/*
 * Every QP maps its SQ and RQ and every CQ its ring: one rc process runs out of
 * vm.max_map_count long before the device runs out of QPs. Spread both sides
 * over processes unless --agents says otherwise; a ud client is a QP and a CQ
 * too, but its server is one QP whatever the clients, so only clients spread.
 */
static void lay_maps(struct rt *r, long clients)
{
	const struct hp_plan *p = r->c->plan;
	struct pt_point *pt = r->pt;
	char v[32];
	long mmc = nn_sysctl_get("", "vm.max_map_count", v, sizeof(v)) ? 65530 : atol(v);
	long per_rc = (mmc - PT_MAPS_SLACK) / PT_MAPS_PER_CONN, n;

	if (per_rc < 1)
		per_rc = 1;
	if (clients <= per_rc)
		return;
	n = (clients + per_rc - 1) / per_rc;
	if (n > r->nsrv && p->transport == OPT_TR_RC)
		r->nsrv = n;
	if (!p->agents && n > pt->agents)
		pt->agents = n;
	snprintf(pt->capped, sizeof(pt->capped),
		 "vm.max_map_count %ld (about %d maps per connection): server over %ld "
		 "process%s, clients over %ld agents", mmc, PT_MAPS_PER_CONN, r->nsrv,
		 r->nsrv > 1 ? "es" : "", pt->agents);
}

/* Every server process owns the same number of ports, within what --ports takes. */
static void lay_ports(struct rt *r, long clients)
{
	const struct hp_plan *p = r->c->plan;
	struct pt_point *pt = r->pt;
	long hosts = r->c->topo->nclients, per_host = (clients + hosts - 1) / hosts;
	long ports_auto = (per_host + LAY_CONNS_PER_PORT - 1) / LAY_CONNS_PER_PORT;

	pt->ports = p->ports ? p->ports : ports_auto;
	pt->ports = (pt->ports + r->nsrv - 1) / r->nsrv * r->nsrv;
	if (pt->ports > opt_defs[OPT_PORTS].max * r->nsrv)
		pt->ports = opt_defs[OPT_PORTS].max * r->nsrv;
	/* a tcp client agent is told all of them: keep within what its --ports takes */
	if (p->transport == OPT_TR_TCP && pt->ports > opt_defs[OPT_PORTS].max)
		pt->ports = opt_defs[OPT_PORTS].max / r->nsrv * r->nsrv;
	if (pt->ports < r->nsrv)
		pt->ports = r->nsrv;
}

struct lay_agent lay_agent_at(const struct rt *r, long i)
{
	long nc = r->c->topo->nclients, j = i - r->nsrv, P = r->pt->agents > 0 ? r->pt->agents : 1;
	long per = r->pt->clients / P, extra = r->pt->clients % P;
	struct lay_agent la = { .server = true, .host = 0, .nth = i, .srv = i };

	if (i < r->nsrv)
		return la;
	la.server = false;
	la.host = nc > 0 ? 1 + j % nc : 0;
	la.nth = nc > 0 ? j / nc : j;
	la.srv = j % r->nsrv;
	la.n = per + (j < extra);
	la.first = j * per + (j < extra ? j : extra);
	return la;
}

void lay_split(struct rt *r, long clients)
{
	const struct hp_plan *p = r->c->plan;
	struct pt_point *pt = r->pt;
	long hosts = r->c->topo->nclients, cap, per_proc, fds = lay_fds_per_client(p);
	bool raisable;

	pt->clients = clients;
	/*
	 * Without --timeout, a phase may take 60 s plus 10 ms per client and 200 ms per
	 * agent process: setting up 20,000 rc connections, or starting 500 agents that
	 * each open the device and shake hands over TLS, is minutes of work under
	 * emulation, and a deadline that does not grow with the plan would make every
	 * big point fail by "timeout".
	 */
	pt->timeout_s = p->timeout_set ? p->timeout_s : p->timeout_s + clients / 100;
	cap = lay_nofile_cap(&raisable);
	pt->nofile_got = cap;
	/* 1024 fds of slack for the process itself (pipes, epoll, listeners, TLS files) */
	per_proc = cap > 2048 ? cap - 1024 : 1024;
	per_proc = per_proc < LAY_CONNS_PER_AGENT * fds ? per_proc / fds : LAY_CONNS_PER_AGENT;
	if (p->agents) {
		pt->agents = p->agents > clients ? clients : p->agents;
	} else {
		pt->agents = (clients + per_proc - 1) / per_proc;
		if (pt->agents < hosts)
			pt->agents = hosts > clients ? clients : hosts;
	}
	/* one server process can hold only what its fd limit allows */
	r->nsrv = clients * fds + 1024 > cap ? (clients + per_proc - 1) / per_proc : 1;
	/* a ud server holds no fd per client: one process, one QP serves them all */
	if (p->transport == OPT_TR_UD)
		r->nsrv = 1;
	/* nvmf, srp: the server agent only makes the kernel's target, which holds them all */
	if (opt_tr_kernel(p->transport)) {
		r->nsrv = 1;
		/* the kernel makes one client at a time (fabrics.c's nvmf_dev_write,
		 * ib_srp's add_target_mutex around the login): its phase grows per client */
		if (!p->timeout_set)
			pt->timeout_s += clients * LAY_KERN_CONNECT_MS / 1000;
	}
	/* maps go with QPs: --qp-share puts K per agent on both sides */
	if (opt_tr_connected(p->transport))
		lay_maps(r, p->qp_share && p->qp_share * pt->agents < clients ?
			 p->qp_share * pt->agents : clients);
	else if (p->transport == OPT_TR_UD)
		lay_maps(r, clients);
	pt->servers = r->nsrv;
	pt->workers = p->transport == OPT_TR_UD ? opt_ud_workers(p->workers, pt->agents) :
		p->workers;
	if (!p->timeout_set)
		pt->timeout_s += (pt->agents + r->nsrv) / 5;
	if (pt->timeout_s > opt_defs[OPT_TIMEOUT].max)
		pt->timeout_s = opt_defs[OPT_TIMEOUT].max;
	lay_ports(r, clients);
	if (r->nsrv > 1 && !pt->capped[0])
		snprintf(pt->capped, sizeof(pt->capped),
			 "RLIMIT_NOFILE hard limit %ld%s: server split over %ld processes", cap,
			 raisable ? "" : " (no CAP_SYS_RESOURCE to raise it)", r->nsrv);
}
