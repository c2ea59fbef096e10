// SPDX-License-Identifier: MIT
/* A load point as a TAP subtest: one check per phase, figures as diagnostics. */
#include <stdio.h>
#include <string.h>

#include "harness/pointtap.h"

static void ptap_res_diag(struct tap *t, const char *what, const struct hs_res *r)
{
	char line[512];
	size_t l = 0;

	for (int i = 0; i < HS_NRES; i++)
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %s_%s=%llu", what, hs_res_name(i),
				      (unsigned long long)(r->srv[i] + r->cli[i]));
	tap_diag(t, "%s", line + 1);
}

static void ptap_delta_diag(struct tap *t, const char *what, const uint64_t *peak,
			  const uint64_t *base)
{
	char line[256];
	size_t l = 0;

	for (int i = 0; i < HS_NRES; i++)
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %s=%lld", hs_res_name(i),
				      (long long)(peak[i] - base[i]));
	tap_diag(t, "%s%s", what, line);
}

/*
 * Storm figures: how fast N simultaneous clients got connected, and whether the
 * first message afterwards was fair - connections starved behind a long
 * handshake queue show up as a long tail against the median.
 */
static void ptap_storm_diag(struct tap *t, const struct pt_point *pt)
{
	double p50 = (double)pt->lat_ns.p50;

	tap_diag(t, "storm setup_rate_cps=%.0f t_all_connected_s=%.3f",
		 pt->t_connect_s > 0 ? (double)pt->connected / pt->t_connect_s : 0.0,
		 pt->t_connect_s);
	tap_diag(t, "storm first_msg_us_p50=%.1f first_msg_us_p99=%.1f first_msg_us_max=%.1f "
		 "first_msg_p99_over_p50=%.2f first_msg_over_10x_p50=%llu",
		 p50 / 1e3, (double)pt->lat_ns.p99 / 1e3, (double)pt->lat_ns.max / 1e3,
		 p50 > 0 ? (double)pt->lat_ns.p99 / p50 : 0.0,
		 (unsigned long long)pt->lat_slow);
}

/*
 * 'probe': the point is a step of a limit search, where failing to connect is
 * the finding, not a defect: those checks become XFAIL. Leaks, crashes and
 * malformed records still fail.
 */
enum tap_res ptap_point(struct pt_ctx *c, const struct pt_point *pt, const char *desc, bool probe)
{
	const struct hp_plan *p = c->plan;
	struct tap *t = c->tap;
	enum tap_res miss = probe ? TAP_XFAIL : TAP_FAIL;
	bool conn_ok = pt->connected == pt->clients;
	bool traffic_ok = pt->msgs == pt->expect_msgs && pt->verified == pt->msgs && !pt->bad &&
			  !pt->lost;

	tap_sub_begin(t);
	tap_plan(t, 4);
	tap_diag(t, "clients=%ld agents=%ld servers=%ld ports=%ld transport=%s%s%s topology=%s "
		 "server_model=%s msgs=%ld size=%ld workers=%ld",
		 pt->clients, pt->agents, pt->servers, pt->ports, opt_word(OPT_TRANSPORT, p->transport),
		 p->transport == OPT_TR_RC ? " cm=" : "",
		 p->transport == OPT_TR_RC ? opt_word(OPT_CM, p->cm) : "", p->topo_spec,
		 opt_word(OPT_SERVER_MODEL, p->server_model), p->msgs, p->size, p->workers);
	tap_kv(t, "timeout_s", "%ld", pt->timeout_s);
	if (pt->capped[0])
		tap_kv(t, "capped", "%s", pt->capped);
	tap_result(t, pt->started ? TAP_PASS : TAP_FAIL, NULL, "server and %ld client agents started%s%s",
		   pt->agents, pt->started ? "" : ": ", pt->started ? "" : pt->why);

	tap_diag(t, "connected=%ld failed=%ld unsettled=%ld connect_pct=%.2f t_connect_s=%.3f",
		 pt->connected, pt->failed, pt->unsettled, pt->connect_pct, pt->t_connect_s);
	tap_diag(t, "connect_us_avg=%.0f connect_us_p50=%llu connect_us_p99=%llu connect_us_max=%llu",
		 pt->conn_us.avg, (unsigned long long)pt->conn_us.p50,
		 (unsigned long long)pt->conn_us.p99, (unsigned long long)pt->conn_us.max);
	for (int i = 0; i < pt->ncauses; i++)
		tap_diag(t, "failures call=%s err=%s count=%ld", pt->causes[i].call,
			 pt->causes[i].errname, pt->causes[i].count);
	if (pt->nfails)
		tap_diag(t, "first_failure id=%ld phase=%s call=%s errno=%d err=%s t_s=%.3f",
			 pt->fails[0].id, pt->fails[0].phase, pt->fails[0].call, pt->fails[0].err,
			 pt->fails[0].errname, pt->fails[0].t_s);
	if (pt->cause[0])
		tap_kv(t, "cause", "%s", pt->cause);
	if (!pt->started)
		tap_result(t, TAP_SKIP, "agents did not start", "connected");
	else
		tap_result(t, conn_ok ? TAP_PASS : miss, conn_ok ? NULL : pt->cause,
			   "connected %ld/%ld%s", pt->connected, pt->clients,
			   pt->timeout_connect ? " (connect phase deadline)" : "");

	tap_diag(t, "msgs=%llu expected=%llu verified=%llu bad=%llu lost=%llu t_traffic_s=%.3f "
		 "msgs_per_s=%.0f",
		 (unsigned long long)pt->msgs, (unsigned long long)pt->expect_msgs,
		 (unsigned long long)pt->verified, (unsigned long long)pt->bad,
		 (unsigned long long)pt->lost, pt->t_traffic_s, pt->msgs_per_s);
	tap_diag(t, "lat_us_avg=%.1f lat_us_p50=%.1f lat_us_p99=%.1f lat_us_max=%.1f",
		 pt->lat_ns.avg / 1e3, (double)pt->lat_ns.p50 / 1e3, (double)pt->lat_ns.p99 / 1e3,
		 (double)pt->lat_ns.max / 1e3);
	if (p->cmd == HP_STORM)
		ptap_storm_diag(t, pt);
	if (!pt->started)
		tap_result(t, TAP_SKIP, "agents did not start", "traffic");
	else
		tap_result(t, traffic_ok ? TAP_PASS : miss, NULL,
			   "traffic: %llu/%llu round trips of %ld bytes, payloads verified %llu",
			   (unsigned long long)pt->msgs, (unsigned long long)pt->expect_msgs, p->size,
			   (unsigned long long)pt->verified);

	tap_diag(t, "srv_rss_kb_base=%ld srv_rss_kb_peak=%ld srv_bytes_per_conn=%.0f srv_fds=%ld "
		 "srv_threads=%ld srv_accepted=%ld srv_drops=%ld",
		 pt->srv_rss_base_kb, pt->srv_rss_peak_kb, pt->srv_bytes_per_conn, pt->srv_fds,
		 pt->srv_threads, pt->srv_accepted, pt->srv_drops);
	if (p->transport == OPT_TR_TCP)
		tap_diag(t, "tcp_inuse_peak=%ld kern_slab_bytes_per_conn=%.0f", pt->tcp_inuse_peak,
			 pt->kern_bytes_per_conn);
	tap_diag(t, "agents_rss_kb=%ld agents_rss_kb_max=%ld agents_threads=%ld agents_fds=%ld "
		 "total_threads=%ld total_fds=%ld",
		 pt->cli_rss_kb, pt->cli_rss_max_kb, pt->cli_threads, pt->cli_fds,
		 pt->cli_threads + pt->srv_threads, pt->cli_fds + pt->srv_fds);
	tap_diag(t, "srv_maps_max=%ld agents_maps_max=%ld", pt->srv_maps_max, pt->cli_maps_max);
	if (pt->proto_errors)
		tap_kv(t, "proto_errors", "%ld", pt->proto_errors);
	if (pt->have_res) {
		ptap_res_diag(t, "base", &pt->res_base);
		ptap_res_diag(t, "peak", &pt->res_peak);
		ptap_res_diag(t, "after", &pt->res_after);
		/* what each side's devices hold at peak above their baseline: per client
		 * this is the resource model (the seed's: 1 QP, 2 CQs, 2 MRs), and ctx
		 * counts the processes that opened the device */
		ptap_delta_diag(t, "srv_dev_delta", pt->res_peak.srv, pt->res_base.srv);
		ptap_delta_diag(t, "cli_dev_delta", pt->res_peak.cli, pt->res_base.cli);
		tap_result(t, pt->leak || pt->proto_errors ? TAP_FAIL : TAP_PASS, NULL,
			   "RDMA resources back to baseline%s%s", pt->leak ? ": " : "", pt->leak_what);
	} else if (pt->proto_errors) {
		tap_result(t, TAP_FAIL, NULL, "agent records well-formed");
	} else {
		tap_result(t, TAP_SKIP, p->transport != OPT_TR_TCP ? "RDMA counters not readable" :
			   "tcp transport uses no RDMA resources", "RDMA resources back to baseline");
	}
	if (!pt->ok && !probe)
		tap_kv(t, "why", "%s", pt->why);
	return tap_sub_end(t, "%s", desc);
}
