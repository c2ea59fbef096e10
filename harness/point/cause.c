// SPDX-License-Identifier: MIT
/*
 * From a failing call and errno to the limit behind it. The text names the knob
 * and its current value, read now, so a reader can check it and change it. When
 * messages were slow or failed, what the wire's counters saw follows (wire.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/deadline.h"
#include "common/opt.h"
#include "harness/point/memfloor.h"
#include "harness/point/rt.h"
#include "harness/sample/wire.h"
#include "rdma/fiprov.h"

static void cause_sysctl(const char *ns, const char *key, char *buf, size_t len)
{
	if (nn_sysctl_get(ns, key, buf, len))
		snprintf(buf, len, "?");
}

static const char *cause_nofile(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return "?";
	snprintf(buf, len, "%llu", (unsigned long long)rl.rlim_max);
	return buf;
}

/*
 * Maps below vm.max_map_count still counted as at it: the most maps read in one
 * process come from a reading after the failed call undid its own (a QP maps 2
 * rings, a CQ 1) and after endpoints left with their clients.
 */
#define CAUSE_MAPS_NEAR 64

/*
 * A verbs call's ENOMEM has two causes: the process's memory maps at
 * vm.max_map_count, or the kernel out of memory. The side's largest process
 * tells which (its maps, read at the peak); unread (--hosts), both are named.
 */
static void cause_enomem(const struct rt *r, const struct pt_cause *k, const char *head,
			 char *out, size_t len)
{
	const struct pt_point *pt = r->pt;
	long maps = k->at_server ? pt->srv_maps_max : pt->cli_maps_max;
	const char *side = k->at_server ? "server" : "client agent";
	char v[64], a[96] = "";
	long cap;

	cause_sysctl("", "vm.max_map_count", v, sizeof(v));
	cap = strtol(v, NULL, 10);
	/* the lowest is read against the floor only; without one, the peak's */
	if (pt->mem_avail_min_kb > 0)
		snprintf(a, sizeof(a), "MemAvailable %ld KiB at its lowest", pt->mem_avail_min_kb);
	else if (pt->mem_peak.avail_kb > 0)
		snprintf(a, sizeof(a), "MemAvailable %ld KiB at the peak", pt->mem_peak.avail_kb);
	if (maps <= 0 || cap <= 0)
		snprintf(out, len,
			 "%s: memory maps per process (vm.max_map_count=%s; each QP maps its SQ and "
			 "RQ, each CQ its ring) or kernel memory%s%s",
			 head, v, a[0] ? " (" : "", a[0] ? a : "");
	else if (maps + CAUSE_MAPS_NEAR >= cap)
		snprintf(out, len,
			 "%s: memory maps per process (vm.max_map_count=%ld; the largest %s "
			 "process held %ld; each QP maps its SQ and RQ, each CQ its ring)",
			 head, cap, side, maps);
	else
		snprintf(out, len,
			 "%s: kernel memory%s%s (the largest %s process held %ld memory maps, "
			 "below vm.max_map_count %ld)",
			 head, a[0] ? ": " : "", a, side, maps, cap);
}

static void cause_explain(const struct rt *r, const struct pt_cause *k, char *out, size_t len)
{
	const struct pt_ctx *c = r->c;
	const char *call = k->call, *errname = k->errname;
	int err = k->err;
	long n = k->count;
	const char *cns = c->topo->cli[0].ns, *sns = c->topo->srv.ns;
	/* fi-msg, fi-rdm over verbs: an fi_ call fails as the verbs call beneath it did */
	bool fiv = !strncmp(call, "fi_", 3) && opt_tr_rdma(c->plan->transport, c->plan->fi_provider);
	bool verbs = !strncmp(call, "ibv_", 4) || !strncmp(call, "rdma_", 5) || fiv;
	/* a verbs call fails in one process: the server's (told to its client) or the client's */
	const char *where = !verbs ? "" : k->at_server ? " at the server" : " in a client agent";
	char v[64], w[64], head[128];
	const char *why = NULL;

	snprintf(head, sizeof(head), "%s %s%s (%ld times)", call, errname, where, n);

	/* fi-rdm over verbs;ofi_rxm: the server's answers refused for want of CQ credit */
	if (!strcmp(call, "server") && !strcmp(errname, "EAGAIN") &&
	    c->plan->transport == OPT_TR_FI_RDM && !c->plan->srq &&
	    opt_tr_rdma(c->plan->transport, c->plan->fi_provider)) {
		long ports = r->pt->ports > 0 ? r->pt->ports : 1;
		char cr[512];

		if (fip_rxm_credit_why((r->pt->clients + ports - 1) / ports, cr, sizeof(cr))) {
			snprintf(out, len, "%s: %s", head, cr);
			return;
		}
	}
	if ((!strcmp(errname, "EMFILE") || err == EMFILE) && !k->at_server &&
	    r->pt->per_agent_nofile > 0) {
		/* rdmacap set the client agents' limit (layout.c): say what it gave them */
		snprintf(out, len, "%s %s (%ld times): per-process open files (RLIMIT_NOFILE: a "
			 "client agent got %ld, %ld fds a client; hard limit %s)", call, errname, n,
			 r->pt->per_agent_nofile, lay_fds_per_client(c->plan),
			 cause_nofile(w, sizeof(w)));
		return;
	}
	if (!strcmp(errname, "EMFILE") || err == EMFILE) {
		snprintf(v, sizeof(v), "%s", cause_nofile(w, sizeof(w)));
		snprintf(out, len, "%s %s (%ld times): per-process open files (RLIMIT_NOFILE, hard %s)",
			 call, errname, n, v);
		return;
	}
	if (!strcmp(errname, "ENFILE") || err == ENFILE) {
		cause_sysctl("", "fs.file-max", v, sizeof(v));
		snprintf(out, len, "%s %s (%ld times): system-wide open files (fs.file-max=%s)", call,
			 errname, n, v);
		return;
	}
	if (!strcmp(errname, "EADDRNOTAVAIL") || err == EADDRNOTAVAIL) {
		cause_sysctl(cns, "net.ipv4.ip_local_port_range", v, sizeof(v));
		snprintf(out, len,
			 "%s %s (%ld times): ephemeral ports exhausted (net.ipv4.ip_local_port_range=%s, "
			 "--ports spreads clients over more server ports)",
			 call, errname, n, v);
		return;
	}
	if (!strcmp(errname, "ECONNREFUSED") && !verbs) {
		cause_sysctl(sns, "net.core.somaxconn", v, sizeof(v));
		snprintf(out, len,
			 "%s %s (%ld times): server refused (listen backlog full or not listening; "
			 "net.core.somaxconn=%s)",
			 call, errname, n, v);
		return;
	}
	if ((!strcmp(call, "ibv_reg_mr") || (fiv && !strcmp(call, "fi_mr_reg"))) &&
	    (err == ENOMEM || err == EPERM || err == EAGAIN)) {
		struct rlimit rl;

		if (!getrlimit(RLIMIT_MEMLOCK, &rl))
			snprintf(v, sizeof(v), "%s", rl.rlim_cur == RLIM_INFINITY ? "unlimited" :
				 (snprintf(w, sizeof(w), "%llu", (unsigned long long)rl.rlim_cur), w));
		else
			snprintf(v, sizeof(v), "?");
		snprintf(out, len, "%s: locked memory (RLIMIT_MEMLOCK=%s) or memory", head, v);
		return;
	}
	if (verbs && err == ENOMEM) {
		cause_enomem(r, k, head, out, len);
		return;
	}
	if (verbs && err == EINVAL) {
		if (!strcmp(call, "ibv_create_qp"))
			why = "device max_qp";
		else if (!strcmp(call, "ibv_create_cq"))
			why = "device max_cq, or a CQ deeper than max_cqe";
		else if (!strcmp(call, "ibv_reg_mr"))
			why = "device max_mr";
		else if (!strcmp(call, "ibv_create_srq"))
			why = "device max_srq";
		else if (!strcmp(call, "ibv_alloc_pd"))
			why = "device max_pd";
		else if (!strcmp(call, "ibv_create_ah"))
			why = "device max_ah (a ud server holds one address handle per client)";
	}
	if (!strcmp(call, "ibv_open_device") || !strcmp(call, "ibv_alloc_pd"))
		why = why ? why : "device contexts (one per process opening the device)";
	if (!strcmp(errname, "REJECTED") || !strcmp(errname, "ECONNREFUSED")) {
		cause_sysctl("", "net.rdma_ucm.max_backlog", v, sizeof(v));
		snprintf(out, len, "%s %s (%ld times): CM reject (listen backlog net.rdma_ucm.max_backlog=%s)",
			 call, errname, n, v);
		return;
	}
	if (!strcmp(call, "ud_retry")) {
		snprintf(out, len, "%s %s (%ld times): datagrams lost: no echo after every resend "
			 "(see retried)", call, errname, n);
		return;
	}
	if (!strcmp(call, "uc_retry")) {
		snprintf(out, len, "%s %s (%ld times): uc: no echo after %d sends over at most "
			 "%.0f ms (common/deadline.h); uc does not retransmit (see retried)", call,
			 errname, n, DL_UC_TRIES, (double)dl_peer_ns() / 1e6);
		return;
	}
	if (err == ETIMEDOUT && !strcmp(call, "fi_trecv") &&
	    c->plan->transport == OPT_TR_FI_RDM) {
		snprintf(out, len, "%s %s (%ld times): fi-rdm: no echo %.0f s after the send "
			 "(common/deadline.h); ofi_rxm reports no error to a receive from any "
			 "source when the connection beneath fails", call, errname, n,
			 (double)dl_fi_echo_ns() / 1e9);
		return;
	}
	/*
	 * A socket's ETIMEDOUT is the kernel's, set by rdmacap's own policy: data
	 * unacknowledged, or keepalive probes unanswered, for TCP_USER_TIMEOUT.
	 */
	if (!verbs && err == ETIMEDOUT && strcmp(errname, "timeout") &&
	    c->plan->transport == OPT_TR_TCP) {
		snprintf(out, len,
			 "%s %s (%ld times): rdmacap's %.0f s TCP_USER_TIMEOUT (common/deadline.h): "
			 "data unacknowledged, or keepalive probes unanswered, for that long",
			 call, errname, n, DL_TCP_USER_TIMEOUT_MS / 1000.0);
		return;
	}
	if (err == ETIMEDOUT && (!strcmp(call, "rdma_resolve_addr") ||
				 !strcmp(call, "rdma_resolve_route"))) {
		snprintf(out, len, "%s %s (%ld times): not resolved within rdmacap's %.0f s rdma_cm "
			 "step timeout (common/deadline.h): no neighbour or route answer for the "
			 "address", call, errname, n, DL_CM_STEP_MS / 1000.0);
		return;
	}
	/*
	 * rdma_cm's UNREACHABLE carries -ETIMEDOUT whatever ended the connection:
	 * the CM's own retries of a REQ or REP (~4.3 s each), a MAD that failed to
	 * send, or on RoCE a neighbour update for the destination naming another MAC
	 * (cma_netevent_callback); rdmacap's --timeout is a "timeout".
	 */
	if (!strcmp(errname, "UNREACHABLE")) {
		snprintf(out, len, "%s %s (%ld times): the CM gave up on the connection: a REQ or "
			 "REP unanswered after its retries, a MAD send failed, or a neighbour "
			 "update for the destination named another MAC", call, errname, n);
		return;
	}
	if (!strcmp(errname, "timeout") || err == ETIMEDOUT) {
		snprintf(out, len, "%s %s (%ld times): not done within the phase deadline (--timeout)",
			 call, errname, n);
		return;
	}
	if (!strcmp(call, "host")) {
		snprintf(out, len, "lost with their host (%s, %ld times)", errname, n);
		return;
	}
	if (!strcmp(call, "agent")) {
		snprintf(out, len, "agent process ended early (%s, %ld times)", errname, n);
		return;
	}
	if (!strcmp(call, "verify")) {
		snprintf(out, len, "payload mismatch (%ld times): echoed bytes differ from those sent", n);
		return;
	}
	snprintf(out, len, "%s%s%s", head, why ? ": " : "", why ? why : "");
}

/*
 * The first failure's cause names the limit. When what a client saw is only
 * the effect of the server closing on it (EOF, reset), the server's own reason
 * for dropping peers is the cause.
 */
static void cause_errno(struct rt *r)
{
	struct pt_point *pt = r->pt;
	const char *e = pt->fails[0].errname;
	bool effect = !strcmp(e, "eof") || !strcmp(e, "ECONNRESET") || !strcmp(e, "EPIPE");
	int best = 0;

	if (!pt->ncauses)
		return;
	for (int i = 0; i < pt->ncauses; i++)
		if (!strcmp(pt->causes[i].call, pt->fails[0].call) &&
		    !strcmp(pt->causes[i].errname, e))
			best = i;
	for (int i = pt->ncauses - 1; effect && i >= 0; i--)
		if (!strcmp(pt->causes[i].call, "server"))
			best = i;
	cause_explain(r, &pt->causes[best], pt->cause, sizeof(pt->cause));
}

/*
 * Messages slow (beyond 10x the median) or failed: the transport's own account
 * of it (RNR NAKs, retries, sequence errors), from the port counters over the
 * whole point, after the errno's cause.
 */
static void cause_wire(struct rt *r)
{
	struct pt_point *pt = r->pt;
	bool trouble = pt->bad || pt->lost || pt->msgs < pt->expect_msgs || pt->timeout_traffic ||
		       pt->lat_slow || pt->nfails;
	const struct smp_wire *now = pt->wire_after.valid ? &pt->wire_after : &pt->wire_peak;
	long qps_err = pt->qp_end.valid ? (long)pt->qp_end.state[RQP_ERR] : -1;
	const struct hp_plan *p = r->c->plan;
	size_t l = strlen(pt->cause);
	char w[640], rx[64];

	if (p->rx_depth)
		snprintf(rx, sizeof(rx), "rx depth %ld%s", p->rx_depth, p->srq ? ", SRQ" : " per QP");
	else
		snprintf(rx, sizeof(rx), "rx depth as the QPs need%s", p->srq ? ", SRQ" : "");
	/* RNR NAKs cost no message, only time: they are worth naming on their own */
	if (pt->have_wire && !trouble)
		trouble = wire_rnr(&pt->wire_names, now, &pt->wire_base);
	if (!pt->have_wire || !trouble ||
	    !wire_cause(&pt->wire_names, now, &pt->wire_base, qps_err, rx, w, sizeof(w)))
		return;
	snprintf(pt->cause + l, sizeof(pt->cause) - l, "%swire: %s", l ? "; " : "", w);
}

/* An injected fault is the first cause of whatever failed or slowed down. */
static void cause_fault(struct rt *r)
{
	struct pt_point *pt = r->pt;
	char f[200], rest[sizeof(pt->cause)];

	if (!pt->fault.applied || !(pt->nfails || pt->lost || pt->bad || pt->lat_slow))
		return;
	pf_cause(r, f, sizeof(f));
	snprintf(rest, sizeof(rest), "%s", pt->cause);
	snprintf(pt->cause, sizeof(pt->cause), "%s%s%s", f, rest[0] ? "; " : "", rest);
}

/*
 * The OOM killer ended processes during the point: memory is the first cause
 * (an agent it killed reports only "signal 9", a verbs call only ENOMEM).
 */
static void cause_oom(struct rt *r)
{
	struct pt_point *pt = r->pt;
	struct proc_mem now;
	char rest[sizeof(pt->cause)];
	const char *unprot = mf_oom_unprotected();

	if (!(pt->nfails || pt->lost || pt->bad || pt->connected < pt->clients) ||
	    proc_meminfo(&now) || now.oom_kills <= pt->mem_base.oom_kills)
		return;
	snprintf(rest, sizeof(rest), "%s", pt->cause);
	snprintf(pt->cause, sizeof(pt->cause),
		 "memory: the kernel's OOM killer ended %ld process%s (/proc/vmstat oom_kill; "
		 "MemAvailable %ld KiB at the peak, %.0f bytes per connection in use%s%s%s)%s%s",
		 now.oom_kills - pt->mem_base.oom_kills,
		 now.oom_kills - pt->mem_base.oom_kills > 1 ? "es" : "", pt->mem_peak.avail_kb,
		 pt->used_bytes_per_conn, unprot ? "; rdmacap itself was not protected: " : "",
		 unprot ? unprot : "", unprot ? ", it may have been one" : "", rest[0] ? "; " : "",
		 rest);
}

/*
 * MemAvailable fell below --mem-floor (memfloor.c) and the point was ended:
 * memory is the first cause, with what a connection costs.
 */
static void cause_mem_floor(struct rt *r)
{
	struct pt_point *pt = r->pt;
	char rest[sizeof(pt->cause)];

	if (!pt->mem_floor_hit)
		return;
	snprintf(rest, sizeof(rest), "%s", pt->cause);
	snprintf(pt->cause, sizeof(pt->cause),
		 "memory: MemAvailable fell to %ld KiB (floor %ld KiB) with %ld of %ld connected; "
		 "%.0f bytes per connection in use (user %.0f, kernel %.0f)%s%s",
		 pt->mem_floor_avail_kb, pt->mem_floor_kb, pt->mem_floor_connected, pt->clients,
		 pt->used_bytes_per_conn, pt->user_bytes_per_conn, pt->kern_all_bytes_per_conn,
		 rest[0] ? "; " : "", rest);
}

void cause_pick(struct rt *r)
{
	cause_errno(r);
	lost_cause(r);
	cause_oom(r);
	cause_mem_floor(r);
	cause_fault(r);
	cause_wire(r);
}
