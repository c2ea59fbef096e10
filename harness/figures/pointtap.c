// SPDX-License-Identifier: MIT
/* A load point as a TAP subtest: one check per phase, figures (fig.h) as diagnostics. */
#include <stdio.h>
#include <string.h>

#include "harness/figures/fig.h"
#include "harness/figures/pointtap.h"
#include "harness/point/rsample.h"
#include "harness/sample/wire.h"

static void ptap_res_diag(struct tap *t, const char *what, const struct smp_res *r)
{
	char line[512];
	size_t l = 0;

	for (int i = 0; i < SMP_NRES; i++)
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %s_%s=%llu", what, smp_res_name(i),
				      (unsigned long long)(r->srv[i] + r->cli[i]));
	tap_diag(t, "%s", line + 1);
}

static void ptap_delta_diag(struct tap *t, const char *what, const uint64_t *peak,
			  const uint64_t *base)
{
	char line[256];
	size_t l = 0;

	for (int i = 0; i < SMP_NRES; i++)
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %s=%lld", smp_res_name(i),
				      (long long)(peak[i] - base[i]));
	tap_diag(t, "%s%s", what, line);
}

/* The port counters' deltas over the point, per side (loop: one device, the server's). */
static void ptap_wire(struct tap *t, const struct pt_point *pt)
{
	const struct smp_wire *end = pt->wire_after.valid ? &pt->wire_after : &pt->wire_peak;
	bool cli = false;
	char line[1024];

	if (!pt->have_wire || !end->valid || !pt->wire_base.valid)
		return;
	for (int i = 0; i < pt->wire_names.n; i++)
		cli |= end->cli[i] != 0;
	wire_diag(&pt->wire_names, end->srv, pt->wire_base.srv, line, sizeof(line));
	tap_diag(t, "wire_srv %s", line);
	if (cli) {
		wire_diag(&pt->wire_names, end->cli, pt->wire_base.cli, line, sizeof(line));
		tap_diag(t, "wire_cli %s", line);
	}
}

/* One census as "RTS:100,ERR:2" (the states with QPs), or "-". */
static const char *ptap_states(const struct smp_qps *q, char *buf, size_t len)
{
	size_t l = 0;

	snprintf(buf, len, "-");
	for (unsigned s = 0; s < RQP_NSTATES && l < len; s++)
		if (q->state[s])
			l += (size_t)snprintf(buf + l, len - l, "%s%s:%u", l ? "," : "",
					      rqp_state_name(s), q->state[s]);
	return buf;
}

static void ptap_qp_list(struct tap *t, const char *what, const struct smp_qps *q)
{
	for (int i = 0; i < q->listed; i++)
		tap_diag(t, "%s lqpn=%u type=%s state=%s port=%u pid=%u comm=%s", what,
			 q->list[i].lqpn, rqp_type_name(q->list[i].type),
			 rqp_state_name(q->list[i].state), q->list[i].port, q->list[i].pid,
			 q->list[i].comm[0] ? q->list[i].comm : "(gone)");
	if (q->matched > (uint32_t)q->listed)
		tap_diag(t, "%s ... %u more", what, q->matched - (uint32_t)q->listed);
}

/* The run's QPs by state at peak and once traffic is done; those in ERR or left, named. */
static void ptap_qps(struct tap *t, const struct pt_point *pt, const struct hp_plan *p)
{
	char a[160], b[160];

	if (!pt->qp_peak.valid && !pt->qp_end.valid && !pt->qp_after.valid)
		return;
	fig_tap(t, FIG_L_QP, pt, p);
	tap_diag(t, "qp_states peak=%s end=%s", ptap_states(&pt->qp_peak, a, sizeof(a)),
		 ptap_states(&pt->qp_end, b, sizeof(b)));
	ptap_qp_list(t, "qp_err_peak", &pt->qp_peak);
	ptap_qp_list(t, "qp_err_end", &pt->qp_end);
	ptap_qp_list(t, "qp_left", &pt->qp_after);
}

/* --fault: applied, undone, every connection it cost named, noticed within its bound. */
static void ptap_fault(struct tap *t, const struct pt_point *pt, const struct hp_plan *p)
{
	const struct flt_result *f = &pt->fault;
	bool ok = pf_check(p, pt, NULL, 0);

	fig_tap(t, FIG_L_FAULT, pt, p);
	fig_tap(t, FIG_L_FAULT_DID, pt, p);
	if (!pt->started || pt->connected < pt->clients) {
		tap_result(t, TAP_SKIP, "not every client connected", "fault %s", p->fault.text);
		return;
	}
	tap_result(t, ok ? TAP_PASS : TAP_FAIL, NULL,
		   "fault %s: %s at %.0f ms%s; %ld survived, %ld failed (%ld named)", p->fault.text,
		   f->applied ? "applied" : "not applied", f->at_ms,
		   f->undone ? ", undone" : ", NOT undone", f->survived, f->failed, f->named);
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
	bool fault = p->fault.kind != FLT_NONE;
	/* what a kill, stop or link-down costs is the finding: its fifth check judges it */
	enum tap_res tmiss = flt_destructive(&p->fault) ? TAP_XFAIL : miss;
	bool conn_ok = pt->connected == pt->clients;
	bool traffic_ok = pt->msgs == pt->expect_msgs && pt->verified == pt->msgs && !pt->bad &&
			  !pt->lost;

	tap_sub_begin(t);
	tap_plan(t, fault ? 5 : 4);
	fig_tap(t, FIG_L_PLAN, pt, p);
	fig_tap(t, FIG_L_TIMEOUT, pt, p);
	fig_tap(t, FIG_L_CAPPED, pt, p);
	tap_result(t, pt->started ? TAP_PASS : TAP_FAIL, NULL, "server and %ld client agents started%s%s",
		   pt->agents, pt->started ? "" : ": ", pt->started ? "" : pt->why);

	fig_tap(t, FIG_L_CONNECT, pt, p);
	fig_tap(t, FIG_L_CONNECT_US, pt, p);
	fig_tap(t, FIG_L_STEPS, pt, p);
	for (int i = 0; i < pt->ncauses; i++)
		tap_diag(t, "failures call=%s err=%s count=%ld%s", pt->causes[i].call,
			 pt->causes[i].errname, pt->causes[i].count,
			 pt->causes[i].at_server ? " at=server" : "");
	if (pt->nfails)
		tap_diag(t, "first_failure id=%ld phase=%s call=%s errno=%d err=%s t_s=%.3f",
			 pt->fails[0].id, pt->fails[0].phase, pt->fails[0].call, pt->fails[0].err,
			 pt->fails[0].errname, pt->fails[0].t_s);
	fig_tap(t, FIG_L_CAUSE, pt, p);
	if (!pt->started)
		tap_result(t, TAP_SKIP, "agents did not start", "connected");
	else
		tap_result(t, conn_ok ? TAP_PASS : miss, conn_ok ? NULL : pt->cause,
			   "connected %ld/%ld%s", pt->connected, pt->clients,
			   pt->timeout_connect ? " (connect phase deadline)" : "");

	fig_tap(t, FIG_L_TRAFFIC, pt, p);
	fig_tap(t, FIG_L_LAT, pt, p);
	fig_tap(t, FIG_L_CPU, pt, p);
	fig_tap(t, FIG_L_POLL, pt, p);
	if (pt->not_pinned[0])
		tap_diag(t, "not pinned: %s", pt->not_pinned);
	/* storm: how fast N simultaneous clients got connected, and whether the first
	 * message afterwards was fair (a long tail against the median) */
	fig_tap(t, FIG_L_STORM_SETUP, pt, p);
	fig_tap(t, FIG_L_STORM_FIRST, pt, p);
	if (!pt->started)
		tap_result(t, TAP_SKIP, "agents did not start", "traffic");
	else
		tap_result(t, traffic_ok ? TAP_PASS : tmiss, NULL,
			   "traffic: %llu/%llu round trips of %ld bytes, payloads verified %llu",
			   (unsigned long long)pt->msgs, (unsigned long long)pt->expect_msgs, p->size,
			   (unsigned long long)pt->verified);

	if (fault)
		ptap_fault(t, pt, p);

	fig_tap(t, FIG_L_SERVER, pt, p);
	fig_tap(t, FIG_L_TCP, pt, p);
	fig_tap(t, FIG_L_KMEM, pt, p);
	fig_tap(t, FIG_L_AGENTS, pt, p);
	fig_tap(t, FIG_L_MAPS, pt, p);
	fig_tap(t, FIG_L_PROTO, pt, p);
	if (pt->hosts)
		rsmp_tap(t, pt->hosts);
	/* the wire's deltas: the ports' counters, or a tcp point's TCP counters */
	ptap_wire(t, pt);
	if (pt->have_res) {
		ptap_res_diag(t, "base", &pt->res_base);
		ptap_res_diag(t, "peak", &pt->res_peak);
		ptap_res_diag(t, "after", &pt->res_after);
		/* what each side's devices hold at peak above their baseline: per client
		 * this is the resource model (one process per client: 1 QP, 2 CQs, 2 MRs), and ctx
		 * counts the processes that opened the device */
		ptap_delta_diag(t, "srv_dev_delta", pt->res_peak.srv, pt->res_base.srv);
		ptap_delta_diag(t, "cli_dev_delta", pt->res_peak.cli, pt->res_base.cli);
		ptap_qps(t, pt, p);
		tap_result(t, pt->leak || pt->proto_errors ? TAP_FAIL : TAP_PASS, NULL,
			   "RDMA resources back to baseline%s%s", pt->leak ? ": " : "", pt->leak_what);
	} else if (pt->proto_errors) {
		tap_result(t, TAP_FAIL, NULL, "agent records well-formed");
	} else {
		tap_result(t, TAP_SKIP, opt_tr_rdma(p->transport, p->fi_provider) ?
			   "RDMA counters not readable" : p->transport == OPT_TR_TCP ?
			   "tcp transport uses no RDMA resources" :
			   "this libfabric provider uses no RDMA resources",
			   "RDMA resources back to baseline");
	}
	if (!pt->ok && !probe)
		tap_kv(t, "why", "%s", pt->why);
	return tap_sub_end(t, "%s", desc);
}
