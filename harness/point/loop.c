// SPDX-License-Identifier: MIT
/*
 * The point's event loop: epoll over every agent's stdout, a timerfd for the
 * sampler and the signalfd main() set up (SIGCHLD, SIGINT, SIGTERM). Every wait
 * of the orchestrator is a call of lp_loop(), so an agent that dies is reaped
 * and named whatever the point is waiting for. The tick also holds
 * MemAvailable against the floor (memfloor.c): below it, the point's waits
 * end as at ^C, and it stops.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "harness/point/proc.h"
#include "harness/point/rt.h"

#define LP_TICK_MS 20 /* 50 Hz sampler */
/*
 * Port counters at 4 Hz: a reading costs ~210 us per port (rdma/README.md), 0.1%
 * of the time per port at this rate where 50 Hz would take 1% per port (a star
 * of 16 client devices: 18%); counters move per packet and are cumulative, so a
 * slower series loses no event, only its timing within 250 ms.
 */
#define LP_WIRE_S 0.25
/*
 * The resource counters at most 1/LP_RES_SHARE of the time: a reading walks
 * every object of every device in the kernel (rdma_restrack_count, under the
 * lock that creating an object takes), so its cost grows with the clients and
 * is taken from the agents being measured; read at every 50 Hz tick it slows
 * the connection setup it measures several times over. A skipped tick's sample
 * has no res (JSON leaves it out).
 */
#define LP_RES_SHARE 50
#define LP_EV_SIG UINT32_MAX
#define LP_EV_TICK (UINT32_MAX - 1)

/* --- pid lookup: agents may be thousands; reaping must not be O(P^2) --- */

void lp_pid_put(struct rt *r, pid_t pid, long idx)
{
	size_t h = ((size_t)pid * 2654435761u) & (r->pid_cap - 1);

	while (r->pid_of[h * 2])
		h = (h + 1) & (r->pid_cap - 1);
	r->pid_of[h * 2] = pid;
	r->pid_of[h * 2 + 1] = (pid_t)idx;
}

static long lp_pid_get(struct rt *r, pid_t pid)
{
	size_t h = ((size_t)pid * 2654435761u) & (r->pid_cap - 1);

	while (r->pid_of[h * 2]) {
		if (r->pid_of[h * 2] == pid)
			return r->pid_of[h * 2 + 1];
		h = (h + 1) & (r->pid_cap - 1);
	}
	return -1;
}

void lp_drain(struct rt *r, struct agt_agent *a)
{
	/* at EOF agt_read closed the fd, which also left epoll */
	if (a->out_fd >= 0 && agt_read(a, rec_line, r) < 0) {
		r->pt->proto_errors++;
		close(a->out_fd);
		a->out_fd = -1;
	}
}

/* An agent ended: what it wrote last counts, then what its end means for the point. */
static void lp_ended(struct rt *r, struct agt_agent *a, pid_t pid, int status)
{
	bool clean = WIFEXITED(status) && !WEXITSTATUS(status), lost;
	char st[48];

	a->exited = true;
	a->status = status;
	lp_drain(r, a);
	if (a->server)
		r->srv_exited++;
	if (r->phase == RT_STOP && clean)
		return;
	agt_status_str(status, st, sizeof(st));
	/* its host lost (lost.c): named there, its clients failed with that cause */
	lost = lost_ended(r, a, status);
	if (a->server) {
		if (!lost && r->phase < RT_STOP && !r->pt->why[0] && !r->srv_kill_expected)
			snprintf(r->pt->why, sizeof(r->pt->why), "server agent %s", st);
		return;
	}
	if (r->phase < RT_STOP && !clean && !lost)
		fprintf(stderr, "rdmacap: client agent %d (pid %d) %s\n", a->idx, (int)pid, st);
	/* its pending clients fail; connected ones are lost unless it reported them */
	rec_fail_pending(r, a, "agent", st);
	if (r->phase < RT_STOP)
		rec_agent_lost(r, a, "agent", st);
	if (!a->connected) {
		a->connected = true;
		r->n_connected_agents++;
	}
}

void lp_reap(struct rt *r)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		long i = lp_pid_get(r, pid);

		if (i >= 0)
			lp_ended(r, &r->ag[i], pid, status);
	}
}

void lp_progress(struct rt *r, bool force)
{
	double now = clock_s();

	/* not a terminal: one plain line when a phase settles */
	if (!r->c->tty && force)
		fprintf(stderr, "rdmacap: [%ld clients] connected %ld failed %ld  %.1fs\n",
			r->pt->clients, r->nconn_ok, r->nconn_fail, r->t_go ? now - r->t_go : 0.0);
	if (!r->c->tty || (!force && now - r->last_progress < 0.2))
		return;
	r->last_progress = now;
	fprintf(stderr, "\r\033[K[%ld clients] connected %ld failed %ld  %.1fs", r->pt->clients,
		r->nconn_ok, r->nconn_fail, r->t_go ? now - r->t_go : 0.0);
	if (force)
		fputc('\n', stderr);
}

static void lp_tick(struct rt *r)
{
	struct smp_sample x = { 0 };
	struct proc_stat p;
	uint64_t exp;

	if (read(r->tfd, &exp, sizeof(exp)) != sizeof(exp))
		return;
	x.t_ms = (uint32_t)((clock_s() - r->t_start) * 1000);
	x.connected = (uint32_t)r->nconn_ok;
	for (long i = 0; i < r->nsrv; i++) {
		if (proc_read(r->ag[i].pid, false, &p))
			continue;
		x.srv_rss_kb += (uint32_t)p.rss_kb;
		x.srv_threads += (uint32_t)p.threads;
	}
	if (r->c->sampler && smp_has_res(r->c->sampler) && clock_s() >= r->t_res_next) {
		double t0 = clock_s();

		if (!smp_res_read(r->c->sampler, &r->res_now))
			x.res = r->res_now;
		r->t_res_next = t0 + LP_RES_SHARE * (clock_s() - t0);
	}
	if (r->pt->have_wire && clock_s() - r->t_wire >= LP_WIRE_S) {
		struct smp_wire w;

		r->t_wire = clock_s();
		if (!smp_wire_read(r->c->sampler, &w))
			x.wire = smp_wire_series_add(&r->pt->wire_series, &w);
	}
	smp_series_add(&r->pt->series, &x);
	if (r->pt->fault.applied)
		flt_tick(&r->flt, clock_s());
	mf_tick(r);
	lp_progress(r, false);
}

static void lp_signals(struct rt *r)
{
	struct signalfd_siginfo si;

	while (read(r->c->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
			r->c->aborted = true;
	lp_reap(r);
}

enum lp_end lp_loop(struct rt *r, bool (*done)(struct rt *), double deadline)
{
	struct epoll_event ev[64];

	while (!done(r)) {
		double left = deadline - clock_s();
		int n;

		/* once stopping, an interrupt no longer cuts the waits short: they are
		 * bounded, and what the agents report last is still the point's */
		if (r->c->aborted && r->phase != RT_STOP)
			return LP_ABORTED;
		if (r->pt->mem_floor_hit && r->phase != RT_STOP)
			return LP_MEMORY;
		if (left <= 0)
			return LP_DEADLINE;
		n = epoll_wait(r->ep, ev, 64, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			return LP_ABORTED;
		for (int i = 0; i < n; i++) {
			uint32_t k = ev[i].data.u32;

			if (k == LP_EV_TICK)
				lp_tick(r);
			else if (k == LP_EV_SIG)
				lp_signals(r);
			else if (k < r->nag)
				lp_drain(r, &r->ag[k]);
		}
		/* SIGCHLD may be coalesced or arrive before the pipe drains */
		lp_reap(r);
	}
	return LP_DONE;
}

int lp_setup(struct rt *r, long clients)
{
	/* tv_nsec must stay below 1 s: a tick of 1,000 ms or more goes in tv_sec */
	struct timespec tick = { LP_TICK_MS / 1000, (LP_TICK_MS % 1000) * 1000000L };
	struct itimerspec its = { .it_interval = tick, .it_value = tick };
	struct epoll_event ev;

	mf_open(r);
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->ep < 0 || r->tfd < 0 || timerfd_settime(r->tfd, 0, &its, NULL))
		return -1;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = LP_EV_TICK };
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->tfd, &ev))
		return -1;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = LP_EV_SIG };
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->c->sigfd, &ev))
		return -1;
	r->nag = r->pt->agents + r->nsrv;
	r->ag = calloc((size_t)r->nag, sizeof(*r->ag));
	for (r->pid_cap = 16; r->pid_cap < (size_t)r->nag * 2; r->pid_cap *= 2)
		;
	r->pid_of = calloc(r->pid_cap * 2, sizeof(*r->pid_of));
	r->st = calloc((size_t)clients, 1);
	r->us = calloc((size_t)clients, sizeof(*r->us));
	r->hist = calloc(1, sizeof(*r->hist));
	r->steps = calloc(PROTO_NSTEPS, sizeof(*r->steps));
	r->lost_id = calloc((size_t)clients, 1);
	if (!r->ag || !r->pid_of || !r->st || !r->us || !r->hist || !r->steps || !r->lost_id)
		return -1;
	return 0;
}

void lp_teardown(struct rt *r)
{
	for (long i = 0; i < r->nag; i++)
		agt_free(&r->ag[i]);
	free(r->ag);
	free(r->pid_of);
	free(r->st);
	free(r->us);
	free(r->hist);
	free(r->steps);
	free(r->lost_id);
	mf_close(r);
	if (r->tfd >= 0)
		close(r->tfd);
	if (r->ep >= 0)
		close(r->ep);
}
