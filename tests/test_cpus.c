// SPDX-License-Identifier: MIT
/*
 * Unit tests of the placement of spinning loops (harness/point/cpus.c): with
 * --poll busy or adaptive every loop of the point gets a CPU of its own, the
 * servers' loops first, round-robin over the CPUs this process may run on; the
 * agents' --cpus lists and the point's cpus figure say the same; more loops
 * than CPUs bind none and say why; --poll event and --hosts bind none. The
 * CPUs are this process's own, narrowed with sched_setaffinity to the first
 * two (or one) it has; needs two.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A point of 'agents' client agents for 'clients' clients, 'nsrv' servers. */
static void t_setup(struct t_point *p, enum opt_poll poll, long nsrv, long agents, long clients)
{
	memset(p, 0, sizeof(*p));
	p->plan.transport = OPT_TR_RC;
	p->plan.poll = poll;
	p->plan.server_threads = 1;
	p->topo.nclients = 1;
	p->c.plan = &p->plan;
	p->c.topo = &p->topo;
	p->r.c = &p->c;
	p->r.pt = &p->pt;
	p->r.nsrv = nsrv;
	p->r.nag = nsrv + agents;
	p->pt.agents = agents;
	p->pt.clients = clients;
}

static char *t_arg(struct t_point *p, long i)
{
	static char buf[64];

	if (cpu_arg(&p->r, i, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "(short)");
	return buf;
}

int main(void)
{
	static struct t_point p;
	cpu_set_t all, two;
	int c0 = -1, c1 = -1;
	char want[64];

	tap_init(&t, stdout);
	if (sched_getaffinity(0, sizeof(all), &all) || CPU_COUNT(&all) < 2) {
		tap_skip_all(&t, "needs two CPUs to run on");
		return tap_exit_code(&t);
	}
	for (int c = 0; c < CPU_SETSIZE && c1 < 0; c++)
		if (CPU_ISSET(c, &all))
			*(c0 < 0 ? &c0 : &c1) = c;
	CPU_ZERO(&two);
	CPU_SET(c0, &two);
	CPU_SET(c1, &two);
	tap_plan(&t, 8);
	if (sched_setaffinity(0, sizeof(two), &two)) {
		tap_bail(&t, "sched_setaffinity: the first two CPUs");
		return 1;
	}

	t_setup(&p, OPT_POLL_BUSY, 1, 1, 1);
	cpu_place(&p.r);
	snprintf(want, sizeof(want), "srv0:%d,cli0:%d", c0, c1);
	tap_ok(&t, !strcmp(p.pt.cpus, want) && !p.pt.not_pinned[0],
	       "busy, 1 server loop, 1 client agent: %s (want %s)", p.pt.cpus, want);
	snprintf(want, sizeof(want), "%d", c1);
	tap_ok(&t, atoi(t_arg(&p, 0)) == c0 && !strcmp(t_arg(&p, 1), want),
	       "--cpus: server %d, client %s", c0, t_arg(&p, 1));

	t_setup(&p, OPT_POLL_ADAPTIVE, 1, 1, 2);
	p.plan.server_model = OPT_MODEL_THREAD;
	p.plan.oob_session = OPT_OOB_PER_CONN;
	cpu_place(&p.r);
	tap_ok(&t, !strcmp(p.pt.not_pinned, "3 spinning loops, 2 CPUs") && !p.pt.cpus[0] &&
	       !t_arg(&p, 0)[0],
	       "adaptive, a thread server's 2 sessions and a client: none bound (%s)",
	       p.pt.not_pinned);

	t_setup(&p, OPT_POLL_ADAPTIVE, 1, 1, 2);
	p.plan.server_model = OPT_MODEL_THREAD;
	cpu_place(&p.r);
	tap_ok(&t, p.pt.cpus[0] && !p.pt.not_pinned[0],
	       "adaptive, a thread server's one session per agent and a client: %s", p.pt.cpus);

	t_setup(&p, OPT_POLL_BUSY, 1, 1, 1);
	p.plan.server_threads = 2;
	cpu_place(&p.r);
	tap_ok(&t, !strcmp(p.pt.not_pinned, "3 spinning loops, 2 CPUs") && !p.r.ncpu,
	       "busy, --server-threads 2 and a client on 2 CPUs: none bound (%s)",
	       p.pt.not_pinned);

	t_setup(&p, OPT_POLL_EVENT, 1, 1, 1);
	cpu_place(&p.r);
	tap_ok(&t, !p.pt.cpus[0] && !p.pt.not_pinned[0] && !t_arg(&p, 1)[0],
	       "event: nothing bound, nothing said");

	t_setup(&p, OPT_POLL_BUSY, 1, 1, 1);
	p.c.remote = (struct rm_ctx *)&p;	/* only its presence is read */
	cpu_place(&p.r);
	tap_ok(&t, !p.pt.cpus[0] && strstr(p.pt.not_pinned, "--hosts"),
	       "--hosts: none bound (%s)", p.pt.not_pinned);

	CPU_ZERO(&two);
	CPU_SET(c1, &two);
	if (sched_setaffinity(0, sizeof(two), &two)) {
		tap_bail(&t, "sched_setaffinity: one CPU");
		return 1;
	}
	t_setup(&p, OPT_POLL_BUSY, 1, 1, 1);
	cpu_place(&p.r);
	tap_ok(&t, !strcmp(p.pt.not_pinned, "2 spinning loops, 1 CPUs"),
	       "busy on the one CPU rdmacap may use: none bound (%s)", p.pt.not_pinned);
	tap_totals(&t);
	return tap_exit_code(&t);
}
