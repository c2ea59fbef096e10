// SPDX-License-Identifier: MIT
/*
 * CPUs of the spinning loops: with --poll busy or adaptive each event loop of
 * the point's agents polls its CQs without sleeping, and one that shares a CPU
 * with the peer it waits for holds that peer off the CPU until the scheduler
 * preempts it (a one-client rc ping-pong under TCG, both agents on one CPU:
 * 8x the median round trip or more of the two on CPUs of their own). So each loop
 * gets a CPU of its own: round-robin over the CPUs rdmacap may run on, the
 * servers' loops first, then one per client agent. More loops than CPUs: none
 * is bound, as no placement keeps them apart. --poll event sleeps and is not
 * bound; agents on --hosts run where this host cannot see the CPUs.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "harness/point/rt.h"

/* The sessions a thread-model server opens: one per client agent, or per client. */
static long cpu_sessions(const struct rt *r, long i)
{
	const struct hp_plan *p = r->c->plan;
	long n = 0;

	for (long k = r->nsrv; k < r->nsrv + r->pt->agents; k++) {
		struct lay_agent la = lay_agent_at(r, k);

		if (la.srv == i)
			n += p->oob_session == OPT_OOB_PER_CONN ? la.n : 1;
	}
	return n;
}

/* Spinning loops of agent i: a server's event loops or sessions, a client's one. */
static long cpu_loops(const struct rt *r, long i)
{
	const struct hp_plan *p = r->c->plan;

	if (i >= r->nsrv)
		return 1;
	return p->server_model == OPT_MODEL_THREAD ? cpu_sessions(r, i) : p->server_threads;
}

/* The first slot of agent i in r->cpu: the loops of the agents before it. */
static long cpu_first(const struct rt *r, long i)
{
	long first = 0;

	for (long j = 0; j < i; j++)
		first += cpu_loops(r, j);
	return first;
}

/* "srv0:0+1,cli0:2": each agent's CPUs, for the point's record. */
static void cpu_record(struct rt *r)
{
	char *out = r->pt->cpus, list[OPT_CPUS_MAX * 5];
	size_t len = sizeof(r->pt->cpus), l = 0;

	for (long i = 0, at = 0; i < r->nag && l < len; i++) {
		long n = cpu_loops(r, i);
		bool srv = i < r->nsrv;

		if (opt_cpus_str(r->cpu + at, (int)n, '+', list, sizeof(list)))
			break;
		l += (size_t)snprintf(out + l, len - l, "%s%s%ld:%s", l ? "," : "",
				      srv ? "srv" : "cli", srv ? i : i - r->nsrv, list);
		at += n;
	}
}

void cpu_place(struct rt *r)
{
	const struct hp_plan *p = r->c->plan;
	struct pt_point *pt = r->pt;
	long loops = 0, most = 0, ncpu;
	cpu_set_t set;

	r->ncpu = 0;
	pt->cpus[0] = pt->not_pinned[0] = '\0';
	if (p->poll == OPT_POLL_EVENT)
		return;
	if (r->c->remote) {
		snprintf(pt->not_pinned, sizeof(pt->not_pinned),
			 "agents on --hosts, whose CPUs are not this host's");
		return;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(pt->not_pinned, sizeof(pt->not_pinned), "sched_getaffinity: %s",
			 strerror(errno));
		return;
	}
	for (long i = 0; i < r->nag; i++) {
		long n = cpu_loops(r, i);

		loops += n;
		most = n > most ? n : most;
	}
	ncpu = CPU_COUNT(&set);
	if (loops > ncpu) {
		snprintf(pt->not_pinned, sizeof(pt->not_pinned), "%ld spinning loops, %ld CPUs",
			 loops, ncpu);
		return;
	}
	if (most > OPT_CPUS_MAX) {
		snprintf(pt->not_pinned, sizeof(pt->not_pinned),
			 "%ld spinning loops in one agent, --%s takes %d", most, OPT_CPUS, OPT_CPUS_MAX);
		return;
	}
	for (int c = 0; c < CPU_SETSIZE && r->ncpu < loops; c++)
		if (CPU_ISSET(c, &set))
			r->cpu[r->ncpu++] = c;
	cpu_record(r);
}

int cpu_arg(const struct rt *r, long i, char *buf, size_t len)
{
	*buf = '\0';
	if (!r->ncpu)
		return 0;
	return opt_cpus_str(r->cpu + cpu_first(r, i), (int)cpu_loops(r, i), ',', buf, len);
}
