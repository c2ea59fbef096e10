// SPDX-License-Identifier: MIT
/*
 * Peak and after: what the server and the agents hold once every client is
 * connected (from /proc, harness/point/proc.h), and whether the RDMA counters are
 * back at their baseline once the agents are gone. Both wait through lp_loop,
 * so an agent that dies meanwhile is reaped and named. Beside them the wire's
 * port counters, and the run's QPs by state (at peak, once traffic is done,
 * and after: a QP still there then is a leak).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "harness/point/proc.h"
#include "harness/point/rt.h"

#define MEAS_PEAK_WAIT_S 5  /* the server catches up with accepts within this */
#define MEAS_QP_SCAN_MS 2000 /* one QP dump of a device: ~25 ms per 3,000 QPs on rxe */
#define MEAS_AFTER_NOTE_S 1.0 /* an after-wait longer than this is said on stderr */

static void meas_wire(struct rt *r, struct smp_wire *w)
{
	struct pt_point *pt = r->pt;

	if (!r->c->sampler || !smp_has_wire(r->c->sampler) || smp_wire_read(r->c->sampler, w))
		return;
	pt->wire_names = *smp_wire_names(r->c->sampler);
	pt->have_wire = true;
}

static int meas_pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The run's QPs (every agent's, alive or not) into q; those in 'states' listed. */
static void meas_qps(struct rt *r, uint32_t states, struct smp_qps *q)
{
	uint32_t *pids;
	long n = 0;

	memset(q, 0, sizeof(*q));
	if (!r->c->sampler || !smp_has_res(r->c->sampler) ||
	    !opt_tr_rdma(r->c->plan->transport, r->c->plan->fi_provider))
		return;
	pids = calloc((size_t)r->nag + 1, sizeof(*pids));
	if (!pids)
		return;
	for (long i = 0; i < r->nag; i++)
		if (r->ag[i].pid > 0)
			pids[n++] = (uint32_t)r->ag[i].pid;
	qsort(pids, (size_t)n, sizeof(*pids), meas_pid_cmp);
	smp_qp_scan(r->c->sampler, pids, (int)n, states, q, MEAS_QP_SCAN_MS);
	free(pids);
	/* a user QP's owner by name while it lives; "" once it is gone */
	for (int i = 0; i < q->listed; i++)
		if (q->list[i].pid && proc_comm((pid_t)q->list[i].pid, q->list[i].comm,
						sizeof(q->list[i].comm)))
			q->list[i].comm[0] = '\0';
}

void meas_res_base(struct rt *r)
{
	struct pt_point *pt = r->pt;

	if (r->c->sampler && smp_has_res(r->c->sampler) && !smp_res_read(r->c->sampler, &pt->res_base)) {
		pt->have_res = true;
		r->res_now = pt->res_base;
	}
	meas_wire(r, &pt->wire_base);
}

void meas_base(struct rt *r)
{
	struct proc_stat p;

	for (long i = 0; i < r->nsrv; i++)
		if (!proc_read(r->ag[i].pid, true, &p)) {
			r->pt->srv_rss_base_kb += p.rss_kb;
			r->srv_fds_base += p.fds;
		}
	proc_meminfo(&r->pt->mem_base);
}

void meas_cpu_start(struct rt *r)
{
	for (long i = 0; i < r->nag; i++)
		if (r->c->remote || r->ag[i].exited || proc_cpu(r->ag[i].pid, &r->ag[i].cpu_s))
			r->ag[i].cpu_s = -1;
}

void meas_cpu_end(struct rt *r)
{
	struct pt_point *pt = r->pt;
	double now;

	pt->srv_cpu_s = pt->cli_cpu_s = r->c->remote ? -1 : 0;
	if (r->c->remote)
		return;
	/* an agent gone before the end is left out: its pid may be another's */
	for (long i = 0; i < r->nag; i++)
		if (r->ag[i].cpu_s >= 0 && !r->ag[i].exited && !proc_cpu(r->ag[i].pid, &now))
			*(i < r->nsrv ? &pt->srv_cpu_s : &pt->cli_cpu_s) += now - r->ag[i].cpu_s;
}

void meas_setup_start(struct rt *r)
{
	for (long i = 0; i < r->nag; i++) {
		struct agt_agent *a = &r->ag[i];

		a->setup_cpu_s = -1;
		if (r->c->remote || a->exited || proc_cpu(a->pid, &a->go_cpu_s))
			a->go_cpu_s = -1;
	}
}

void meas_setup_agent(struct rt *r, struct agt_agent *a)
{
	double now;

	if (a->go_cpu_s < 0 || a->setup_cpu_s >= 0 || a->exited || proc_cpu(a->pid, &now))
		return;
	a->setup_cpu_s = now - a->go_cpu_s;
	a->setup_s = clock_s() - r->t_go;
}

/* "cpu_ms/wall_ms" of each agent of one side, comma separated; cut at an agent */
static void meas_setup_list(struct rt *r, bool server, char *l, size_t len)
{
	size_t n = 0;
	int k;

	l[0] = 0;
	for (long i = server ? 0 : r->nsrv; i < (server ? r->nsrv : r->nag); i++) {
		const struct agt_agent *a = &r->ag[i];

		if (a->setup_cpu_s < 0)
			continue;
		k = snprintf(l + n, len - n, "%s%.0f/%.0f", n ? "," : "", a->setup_cpu_s * 1e3,
			     a->setup_s * 1e3);
		if (k < 0 || (size_t)k >= len - n) {
			l[n] = 0;
			return;
		}
		n += (size_t)k;
	}
}

void meas_setup_end(struct rt *r)
{
	for (long i = 0; i < r->nag; i++) {
		meas_setup_agent(r, &r->ag[i]);
		/* a server's span is the connect phase's (t_all_connected_s) */
		if (i < r->nsrv)
			r->ag[i].setup_s = r->pt->t_connect_s;
	}
	meas_setup_list(r, true, r->pt->setup_srv_cpu, sizeof(r->pt->setup_srv_cpu));
	meas_setup_list(r, false, r->pt->setup_cli_cpu, sizeof(r->pt->setup_cli_cpu));
}

/*
 * Sums reset on each reading; the most maps in one process is the most seen at
 * any reading. An agent that exited is not read: its pid may be another's.
 */
void meas_agents(struct rt *r, unsigned int which, bool full)
{
	struct pt_point *pt = r->pt;
	struct proc_stat p;

	if (which & MEAS_SRV) {
		pt->srv_rss_peak_kb = pt->srv_threads = 0;
		if (full)
			pt->srv_fds = 0;
	}
	if (which & MEAS_CLI) {
		pt->cli_rss_kb = pt->cli_rss_max_kb = pt->cli_threads = 0;
		if (full)
			pt->cli_fds = 0;
	}
	for (long i = 0; i < r->nag; i++) {
		bool srv = i < r->nsrv;
		long *maps_max = srv ? &pt->srv_maps_max : &pt->cli_maps_max;

		if (!(which & (srv ? MEAS_SRV : MEAS_CLI)) || r->ag[i].exited ||
		    proc_read(r->ag[i].pid, full, &p))
			continue;
		if (srv) {
			pt->srv_rss_peak_kb += p.rss_kb;
			pt->srv_threads += p.threads;
			pt->srv_fds += full ? p.fds : 0;
		} else {
			pt->cli_rss_kb += p.rss_kb;
			pt->cli_threads += p.threads;
			pt->cli_fds += full ? p.fds : 0;
			if (p.rss_kb > pt->cli_rss_max_kb)
				pt->cli_rss_max_kb = p.rss_kb;
		}
		if (full && p.maps > *maps_max)
			*maps_max = p.maps;
	}
}

/*
 * A client is connected once the kernel finished the handshake; the server may
 * still be accepting. It holds every connection once it has one fd each beyond
 * its baseline (the thread model also one thread each, +1: main). Read at every
 * sampler tick. A verbs server holds a connection without an fd of its own (and
 * answered its REQ before the client said "conn ok"): waiting for fds there
 * only spent MEAS_PEAK_WAIT_S re-reading the server's maps, 200,000 lines of
 * /proc/PID/maps a tick at 200,000 QPs.
 */
static bool meas_srv_holds_all(struct rt *r)
{
	struct pt_point *pt = r->pt;
	bool threads = r->c->plan->server_model == OPT_MODEL_THREAD;
	bool fds = r->c->plan->transport == OPT_TR_TCP;

	if (r->srv_exited)
		return true;
	meas_agents(r, MEAS_SRV, true);
	return (!fds || pt->srv_fds >= r->srv_fds_base + pt->connected) &&
	       (!threads || pt->srv_threads >= pt->connected + r->nsrv);
}

void meas_peak(struct rt *r)
{
	struct pt_point *pt = r->pt;

	lp_loop(r, meas_srv_holds_all, clock_s() + MEAS_PEAK_WAIT_S);
	proc_sockstat(r->ag[0].pid, &pt->tcp_inuse_peak, &(long){ 0 });
	proc_meminfo(&pt->mem_peak);
	meas_agents(r, MEAS_CLI, true);
	if (r->c->sampler && smp_has_res(r->c->sampler) && !smp_res_read(r->c->sampler, &pt->res_peak))
		pt->have_res = true;
	meas_wire(r, &pt->wire_peak);
	meas_qps(r, 1u << RQP_ERR, &pt->qp_peak);
}

void meas_end(struct rt *r)
{
	meas_qps(r, 1u << RQP_ERR, &r->pt->qp_end);
}

/* QPs of the run still there once its agents are gone: named, and a leak. */
static void meas_qp_left(struct rt *r)
{
	struct pt_point *pt = r->pt;
	size_t l = strlen(pt->leak_what);

	meas_qps(r, 0, &pt->qp_after);
	if (!pt->qp_after.owned)
		return;
	pt->leak = true;
	snprintf(pt->leak_what + l, sizeof(pt->leak_what) - l, "%s%u QPs left", l ? ", " : "",
		 pt->qp_after.owned);
}

/*
 * The sampler tick's paced reading (res_now, loop.c) at the baseline. Reading
 * the counters here on every wake-up (>= 50 Hz) made the kernel walk every
 * object still held, under the lock their destruction takes, while hundreds of
 * thousands were being freed; the tick reads them at most a share of the time.
 * meas_after starts the wait with a fresh reading of its own that is not at the
 * baseline, so a match is always a reading taken since.
 */
/*
 * Counters that may stay above the baseline: nvmet-rdma and ib_srpt take
 * their CQs from ib_core's shared CQ pool (ib_cq_pool_get), which keeps them
 * with the device until it is unregistered, also after the modules are gone.
 */
static bool meas_kept(const struct rt *r, int i)
{
	return opt_tr_kernel(r->c->plan->transport) && i == RNL_CQ;
}

static bool meas_res_at_base(const struct rt *r, const struct smp_res *now,
			   const struct smp_res *base)
{
	if (!now->valid)
		return false;
	for (int i = 0; i < SMP_NRES; i++)
		if (!meas_kept(r, i) && (now->srv[i] != base->srv[i] || now->cli[i] != base->cli[i]))
			return false;
	return true;
}

static bool meas_back_at_base(struct rt *r)
{
	return meas_res_at_base(r, &r->res_now, &r->pt->res_base);
}

/* objects above the baseline in a reading */
static uint64_t meas_above(const struct smp_res *now, const struct smp_res *base)
{
	uint64_t n = 0;

	for (int i = 0; i < SMP_NRES; i++) {
		if (now->srv[i] > base->srv[i])
			n += now->srv[i] - base->srv[i];
		if (now->cli[i] > base->cli[i])
			n += now->cli[i] - base->cli[i];
	}
	return n;
}

uint64_t meas_held(struct rt *r)
{
	struct pt_point *pt = r->pt;
	struct smp_res now;

	if (!pt->have_res || smp_res_read(r->c->sampler, &now))
		return 0;
	return meas_above(&now, &pt->res_base);
}

static bool meas_agents_gone(struct rt *r)
{
	for (long i = 0; i < r->nag; i++)
		if (r->ag[i].pid > 0 && !r->ag[i].exited)
			return false;
	return true;
}

/*
 * The counters back at the baseline, waited for as long as the objects still
 * held may take to free (common/deadline.h). Not back by then: a leak once the
 * agents are gone, teardown still under way while one is exiting.
 */
void meas_after(struct rt *r)
{
	struct pt_point *pt = r->pt;
	double t0 = clock_s(), wait;
	uint64_t held = 0;

	if (!pt->have_res)
		goto out;
	/* the wait's first reading; the tick's next ones (res_now) follow it */
	if (!smp_res_read(r->c->sampler, &r->res_now))
		held = meas_above(&r->res_now, &pt->res_base);
	wait = (double)dl_teardown_ns(held) / 1e9;
	if (lp_loop(r, meas_back_at_base, t0 + wait) == LP_DONE) {
		pt->res_after = r->res_now;
		/* a teardown worth a line: small points come back at once */
		if (clock_s() - t0 > MEAS_AFTER_NOTE_S)
			fprintf(stderr, "rdmacap: counters back at the baseline %.1f s after stop "
				"(%llu objects freed)\n", clock_s() - t0, (unsigned long long)held);
		goto out;
	}
	/* the last reading, for the leak's account: the tick's, or one now */
	pt->res_after = r->res_now;
	if (!pt->res_after.valid && smp_res_read(r->c->sampler, &pt->res_after))
		fprintf(stderr, "rdmacap: RDMA resource counters unreadable after the point\n");
	pt->leak = true;
	if (!meas_agents_gone(r))
		snprintf(pt->leak_what, sizeof(pt->leak_what),
			 "teardown unfinished after %.0f s, agents still exiting: ", wait);
	else
		snprintf(pt->leak_what, sizeof(pt->leak_what), "leak, agents gone: ");
	for (int i = 0; i < SMP_NRES; i++) {
		size_t l = strlen(pt->leak_what);

		if (!meas_kept(r, i) && (pt->res_after.srv[i] != pt->res_base.srv[i] ||
				       pt->res_after.cli[i] != pt->res_base.cli[i]))
			snprintf(pt->leak_what + l, sizeof(pt->leak_what) - l, "%s%s %+lld",
				 l && pt->leak_what[l - 1] != ' ' ? ", " : "", smp_res_name(i),
				 (long long)(pt->res_after.srv[i] + pt->res_after.cli[i]) -
					 (long long)(pt->res_base.srv[i] + pt->res_base.cli[i]));
	}
out:
	meas_wire(r, &pt->wire_after);
	meas_qp_left(r);
}
