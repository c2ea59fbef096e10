// SPDX-License-Identifier: MIT
/*
 * Unit tests of where each agent of a point stands (harness/point/layout.c,
 * lay_agent_at): the client ids cover 0..clients-1 once, in order, the first
 * clients % agents agents one more; client agents go round-robin over the
 * servers and over the client hosts; the servers are on host 0.
 */
#include <stdio.h>
#include <string.h>

#include "harness/point/rt.h"
#include "netns/netns.h"
#include "tap/tap.h"

static struct tap t;

struct t_point {
	struct hp_plan plan;
	struct nn_topo topo;
	struct pt_ctx c;
	struct pt_point pt;
	struct rt r;
};

static void t_setup(struct t_point *p, long nsrv, long agents, long clients, int hosts)
{
	memset(p, 0, sizeof(*p));
	p->topo.nclients = hosts;
	p->c.plan = &p->plan;
	p->c.topo = &p->topo;
	p->r.c = &p->c;
	p->r.pt = &p->pt;
	p->r.nsrv = nsrv;
	p->r.nag = nsrv + agents;
	p->pt.agents = agents;
	p->pt.clients = clients;
}

/* Every id once and in order, sizes differing by at most one, the larger first. */
static int t_ids(const struct t_point *p)
{
	long next = 0, prev = -1;

	for (long i = p->r.nsrv; i < p->r.nag; i++) {
		struct lay_agent la = lay_agent_at(&p->r, i);

		if (la.server || la.first != next || (prev >= 0 && (la.n > prev || la.n < prev - 1)))
			return 0;
		next += la.n;
		prev = la.n;
	}
	return next == p->pt.clients;
}

int main(void)
{
	struct t_point p;
	struct lay_agent s, a, b;

	tap_init(&t, stdout);
	tap_plan(&t, 6);

	t_setup(&p, 1, 3, 10, 1);
	a = lay_agent_at(&p.r, 1);
	b = lay_agent_at(&p.r, 3);
	tap_ok(&t, t_ids(&p) && a.n == 4 && b.n == 3 && b.first == 7,
	       "10 clients over 3 agents: 4, 3, 3 from ids 0, 4, 7 (last: %ld from %ld)", b.n,
	       b.first);

	t_setup(&p, 2, 5, 1000, 1);
	tap_ok(&t, t_ids(&p) && lay_agent_at(&p.r, 2).srv == 0 && lay_agent_at(&p.r, 3).srv == 1 &&
	       lay_agent_at(&p.r, 6).srv == 0,
	       "2 servers: client agents 0, 1, 4 talk to servers 0, 1, 0");

	t_setup(&p, 2, 7, 7, 3);
	s = lay_agent_at(&p.r, 1);
	a = lay_agent_at(&p.r, 2);
	b = lay_agent_at(&p.r, 8);
	tap_ok(&t, s.server && s.host == 0 && s.nth == 1 && s.srv == 1 && !s.n,
	       "server 1: host 0, its own server, no ids");
	tap_ok(&t, a.host == 1 && a.nth == 0 && b.host == 1 + 6 % 3 && b.nth == 6 / 3,
	       "3 client hosts: client agent 0 on host 1, agent 6 on host %ld, rank %ld there", b.host,
	       b.nth);
	tap_ok(&t, t_ids(&p), "7 clients over 7 agents: one each, in order");

	t_setup(&p, 1, 4, 3, 1);
	tap_ok(&t, t_ids(&p) && lay_agent_at(&p.r, 4).n == 0,
	       "more agents than clients: the last holds none");
	tap_totals(&t);
	return tap_exit_code(&t);
}
