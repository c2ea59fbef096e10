// SPDX-License-Identifier: MIT
/*
 * Peak and after: what the server and the agents hold once every client is
 * connected (from /proc, harness/proc.h), and whether the RDMA counters are
 * back at their baseline once the agents are gone. Both wait through lp_loop,
 * so an agent that dies meanwhile is reaped and named.
 */
#include <string.h>

#include "common/clock.h"
#include "harness/proc.h"
#include "harness/run.h"

#define MS_PEAK_WAIT_S 5  /* the server catches up with accepts within this */
#define MS_AFTER_WAIT_S 5 /* RDMA objects are freed asynchronously after exit */

void ms_res_base(struct run *r)
{
	struct pt_point *pt = r->pt;

	if (r->c->sampler && hs_has_res(r->c->sampler) && !hs_res_read(r->c->sampler, &pt->res_base)) {
		pt->have_res = true;
		r->res_now = pt->res_base;
	}
}

void ms_base(struct run *r)
{
	struct proc_stat p;

	for (long i = 0; i < r->nsrv; i++)
		if (!proc_read(r->ag[i].pid, true, &p)) {
			r->pt->srv_rss_base_kb += p.rss_kb;
			r->srv_fds_base += p.fds;
		}
	proc_slab_kb(&r->pt->slab_base_kb);
}

static void ms_srv_read(struct run *r)
{
	struct pt_point *pt = r->pt;
	struct proc_stat p;

	pt->srv_rss_peak_kb = pt->srv_fds = pt->srv_threads = 0;
	for (long i = 0; i < r->nsrv; i++) {
		if (proc_read(r->ag[i].pid, true, &p))
			continue;
		pt->srv_rss_peak_kb += p.rss_kb;
		pt->srv_fds += p.fds;
		pt->srv_threads += p.threads;
		if (p.maps > pt->srv_maps_max)
			pt->srv_maps_max = p.maps;
	}
}

/*
 * A client is connected once the kernel finished the handshake; the server may
 * still be accepting. It holds every connection once it has one fd each beyond
 * its baseline (the thread model also one thread each, +1: main). Read at every
 * sampler tick.
 */
static bool ms_srv_holds_all(struct run *r)
{
	struct pt_point *pt = r->pt;
	bool threads = r->c->plan->server_model == OPT_MODEL_THREAD;

	if (r->srv_exited)
		return true;
	ms_srv_read(r);
	return pt->srv_fds >= r->srv_fds_base + pt->connected &&
	       (!threads || pt->srv_threads >= pt->connected + r->nsrv);
}

void ms_peak(struct run *r)
{
	struct pt_point *pt = r->pt;
	struct proc_stat p;

	lp_loop(r, ms_srv_holds_all, clock_s() + MS_PEAK_WAIT_S);
	proc_sockstat(r->ag[0].pid, &pt->tcp_inuse_peak, &(long){ 0 });
	proc_slab_kb(&pt->slab_peak_kb);
	for (long i = r->nsrv; i < r->nag; i++) {
		if (r->ag[i].exited || proc_read(r->ag[i].pid, true, &p))
			continue;
		pt->cli_rss_kb += p.rss_kb;
		pt->cli_threads += p.threads;
		pt->cli_fds += p.fds;
		if (p.rss_kb > pt->cli_rss_max_kb)
			pt->cli_rss_max_kb = p.rss_kb;
		if (p.maps > pt->cli_maps_max)
			pt->cli_maps_max = p.maps;
	}
	if (r->c->sampler && hs_has_res(r->c->sampler) && !hs_res_read(r->c->sampler, &pt->res_peak))
		pt->have_res = true;
}

static bool ms_back_at_base(struct run *r)
{
	struct pt_point *pt = r->pt;

	return !hs_res_read(r->c->sampler, &pt->res_after) &&
	       !memcmp(pt->res_after.srv, pt->res_base.srv, sizeof(pt->res_base.srv)) &&
	       !memcmp(pt->res_after.cli, pt->res_base.cli, sizeof(pt->res_base.cli));
}

void ms_after(struct run *r)
{
	struct pt_point *pt = r->pt;

	if (!pt->have_res || lp_loop(r, ms_back_at_base, clock_s() + MS_AFTER_WAIT_S) == LP_DONE)
		return;
	pt->leak = true;
	for (int i = 0; i < HS_NRES; i++) {
		size_t l = strlen(pt->leak_what);

		if (pt->res_after.srv[i] != pt->res_base.srv[i] ||
		    pt->res_after.cli[i] != pt->res_base.cli[i])
			snprintf(pt->leak_what + l, sizeof(pt->leak_what) - l, "%s%s %+lld",
				 l ? ", " : "", hs_res_name(i),
				 (long long)(pt->res_after.srv[i] + pt->res_after.cli[i]) -
					 (long long)(pt->res_base.srv[i] + pt->res_base.cli[i]));
	}
}
