// SPDX-License-Identifier: MIT
/*
 * The verdict: once the agents are gone, the point's figures from what they
 * reported (connections, round trips, latency histogram, /proc peaks), the
 * cause of its failures, and whether it is ok and, if not, why.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/point/rt.h"

/* A client succeeds when it connected and none of its traffic was lost or bad. */
static double vd_success_pct(struct rt *r)
{
	struct pt_point *pt = r->pt;
	long lost = (long)(pt->lost + pt->bad);
	long good = pt->connected - (lost > pt->connected ? pt->connected : lost);
	uint64_t m = (uint64_t)r->c->plan->msgs, due = (uint64_t)pt->connected * m;

	/* round trips that never happened count whole clients as failed */
	if (pt->msgs < due && !lost && m)
		good = pt->connected - (long)((due - pt->msgs + m - 1) / m);
	if (good < 0)
		good = 0;
	return 100.0 * (double)good / (double)pt->clients;
}

/* growth from the baseline to the peak (KiB) in bytes per connection */
static double vd_per_conn(const struct pt_point *pt, long kb)
{
	return 1024.0 * (double)kb / (double)pt->connected;
}

static void vd_mem_per_conn(struct pt_point *pt)
{
	const struct proc_mem *b = &pt->mem_base, *k = &pt->mem_peak;

	pt->kern_bytes_per_conn = vd_per_conn(pt, k->slab_kb - b->slab_kb);
	/* rxe's queue rings are vmalloc'ed and mapped into the process */
	pt->kern_all_bytes_per_conn = vd_per_conn(pt, k->slab_kb - b->slab_kb + k->vmalloc_kb -
							 b->vmalloc_kb + k->pagetables_kb - b->pagetables_kb);
	pt->used_bytes_per_conn = vd_per_conn(pt, k->used_kb - b->used_kb);
	pt->cli_bytes_per_conn = vd_per_conn(pt, pt->cli_rss_kb);
	pt->user_bytes_per_conn = pt->srv_bytes_per_conn + pt->cli_bytes_per_conn;
	pt->all_bytes_per_conn = vd_per_conn(pt, k->used_kb - pt->mem_start.used_kb);
}

static void vd_figures(struct rt *r)
{
	struct pt_point *pt = r->pt;
	uint32_t *ok_us;
	long n = 0;

	pt->connected = r->nconn_ok;
	pt->failed = r->nconn_fail;
	pt->unsettled = pt->clients - pt->connected - pt->failed;
	pt->connect_pct = 100.0 * (double)pt->connected / (double)pt->clients;
	pt->success_pct = vd_success_pct(r);
	ok_us = malloc(sizeof(*ok_us) * (size_t)(pt->connected + 1));
	if (ok_us) {
		for (long id = 0; id < pt->clients; id++)
			if (r->st[id] == RT_OK)
				ok_us[n++] = r->us[id];
		stats_exact(ok_us, (size_t)n, &pt->conn_us);
		free(ok_us);
	}
	stats_hist(r->hist->n, PROTO_HIST_BUCKETS, &pt->lat_ns);
	for (int s = 0; s < PROTO_NSTEPS; s++)
		stats_hist(r->steps[s].n, PROTO_HIST_BUCKETS, &pt->step_ns[s]);
	for (unsigned b = 0; b < PROTO_HIST_BUCKETS; b++)
		if (pt->lat_ns.p50 && proto_hist_value(b) > 10 * pt->lat_ns.p50)
			pt->lat_slow += r->hist->n[b];
	pf_figures(r);
	if (pt->t_traffic_s > 0)
		pt->msgs_per_s = (double)pt->msgs / pt->t_traffic_s;
	if (pt->connected) {
		pt->srv_bytes_per_conn = 1024.0 * (double)(pt->srv_rss_peak_kb - pt->srv_rss_base_kb) /
					 (double)pt->connected;
		vd_mem_per_conn(pt);
	}
}

/*
 * The servers' atomic adds against the clients' count. A fault that loses
 * connections leaves adds the server made whose replies never came back (more
 * adds than counted), and a killed server takes its counters with it: then
 * only "at least as many" holds, or nothing is left to compare.
 */
static bool vd_atomics_ok(const struct rt *r, bool expect_loss)
{
	const struct pt_point *pt = r->pt;

	if (!expect_loss)
		return pt->srv_atomics == (long)pt->msgs;
	if (r->c->plan->fault.kind == FLT_KILL_SERVER)
		return true;
	return pt->srv_atomics >= (long)pt->msgs;
}

void vd_verdict(struct rt *r)
{
	struct pt_point *pt = r->pt;
	/* a kill, stop or link-down costs connections: those it cost are the finding */
	bool expect_loss = flt_destructive(&r->c->plan->fault);
	char fw[sizeof(pt->why)] = "";

	vd_figures(r);
	cause_pick(r);
	if (pt->fault.asked && pt->started && pt->connected == pt->clients)
		pf_check(r->c->plan, pt, fw, sizeof(fw));
	pt->ok = false;
	if (pt->aborted)
		snprintf(pt->why, sizeof(pt->why), "interrupted");
	else if (pt->why[0])
		;
	else if (pt->mem_floor_hit) /* whatever else happened, the floor ended it */
		snprintf(pt->why, sizeof(pt->why), "%s", pt->cause);
	else if (fw[0])
		snprintf(pt->why, sizeof(pt->why), "%s", fw);
	else if (pt->connected < pt->clients)
		snprintf(pt->why, sizeof(pt->why), "%ld of %ld clients did not connect: %s",
			 pt->clients - pt->connected, pt->clients, pt->cause[0] ? pt->cause : "?");
	else if (!expect_loss &&
		 (pt->bad || pt->lost || pt->msgs != pt->expect_msgs || pt->verified != pt->msgs))
		snprintf(pt->why, sizeof(pt->why),
			 "traffic: %llu of %llu round trips, %llu verified, %llu bad, %llu lost%s%s",
			 (unsigned long long)pt->msgs, (unsigned long long)pt->expect_msgs,
			 (unsigned long long)pt->verified, (unsigned long long)pt->bad,
			 (unsigned long long)pt->lost, pt->cause[0] ? ": " : "", pt->cause);
	else if (r->c->plan->op == OPT_OP_ATOMIC && !vd_atomics_ok(r, expect_loss))
		snprintf(pt->why, sizeof(pt->why),
			 "atomics: the servers' counters hold %ld adds, the clients did %llu",
			 pt->srv_atomics, (unsigned long long)pt->msgs);
	else if (pt->leak)
		snprintf(pt->why, sizeof(pt->why), "RDMA resources not back to baseline: %s",
			 pt->leak_what);
	else if (pt->proto_errors)
		snprintf(pt->why, sizeof(pt->why), "%ld malformed agent records", pt->proto_errors);
	else
		pt->ok = true;
}
