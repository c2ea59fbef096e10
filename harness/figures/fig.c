// SPDX-License-Identifier: MIT
/* The table of a load point's figures, a row's value, and the table as Markdown. */
#include <stdio.h>
#include <string.h>

#include "harness/figures/fig.h"

#define L(f) .type = FIG_LONG, .off = offsetof(struct pt_point, f)
#define U(f) .type = FIG_U64, .off = offsetof(struct pt_point, f)
#define D(f) .type = FIG_DBL, .off = offsetof(struct pt_point, f)
#define S(f) .type = FIG_STR, .off = offsetof(struct pt_point, f)
#define G(fn) .get = fn

/* --- figures computed from others, or words of the plan --- */

static void g_transport(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)pt;
	*v = (struct fig_val){ .type = FIG_STR, .s = opt_word(OPT_TRANSPORT, p->transport) };
}

static void g_cm(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)pt;
	*v = (struct fig_val){ .type = FIG_STR, .s = opt_word(OPT_CM, p->cm) };
}

static void g_topology(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)pt;
	*v = (struct fig_val){ .type = FIG_STR, .s = p->topo_spec };
}

static void g_server_model(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)pt;
	*v = (struct fig_val){ .type = FIG_STR, .s = opt_word(OPT_SERVER_MODEL, p->server_model) };
}

#define PLAN_LONG(fn, field)                                                                      \
	static void fn(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)     \
	{                                                                                         \
		(void)pt;                                                                         \
		*v = (struct fig_val){ .type = FIG_LONG, .l = p->field };                         \
	}
PLAN_LONG(g_msgs, msgs)
PLAN_LONG(g_size, size)

/* a latency summary in ns, as us */
#define LAT_US(fn, field)                                                                         \
	static void fn(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)     \
	{                                                                                         \
		(void)p;                                                                          \
		*v = (struct fig_val){ .type = FIG_DBL, .d = (double)pt->lat_ns.field / 1e3 };    \
	}
LAT_US(g_lat_avg, avg)
LAT_US(g_lat_p50, p50)
LAT_US(g_lat_p99, p99)
LAT_US(g_lat_max, max)

/* a setup step's summary in ns, as us */
#define STEP_US(fn, step, field)                                                                  \
	static void fn(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)     \
	{                                                                                         \
		(void)p;                                                                          \
		*v = (struct fig_val){ .type = FIG_DBL,                                           \
				       .d = (double)pt->step_ns[PROTO_STEP_##step].field / 1e3 }; \
	}
#define STEP_FNS(step) STEP_US(g_##step##_p50, step, p50) STEP_US(g_##step##_p99, step, p99)
STEP_FNS(ADDR)
STEP_FNS(ROUTE)
STEP_FNS(QP)
STEP_FNS(CONN)
STEP_FNS(TLS)
STEP_FNS(XCHG)
STEP_FNS(RTS)

static void g_msgs_per_qp(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)p;
	*v = (struct fig_val){ .type = FIG_DBL,
			       .d = pt->cli_qps ? (double)pt->msgs / (double)pt->cli_qps : 0 };
}

static void g_clients_per_qp(const struct pt_point *pt, const struct hp_plan *p,
			     struct fig_val *v)
{
	(void)p;
	*v = (struct fig_val){ .type = FIG_DBL,
			       .d = pt->cli_qps ? (double)pt->connected / (double)pt->cli_qps : 0 };
}

/* the agents' CPU per round trip of the traffic phase, both sides, in us */
static void g_cpu_per_msg(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	double cpu = pt->srv_cpu_s + pt->cli_cpu_s;

	(void)p;
	*v = (struct fig_val){ .type = FIG_DBL, .d = pt->msgs && pt->srv_cpu_s >= 0 &&
			       pt->cli_cpu_s >= 0 ? cpu * 1e6 / (double)pt->msgs : -1 };
}

static void g_setup_rate(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)p;
	*v = (struct fig_val){ .type = FIG_DBL, .d = pt->t_connect_s > 0 ?
			       (double)pt->connected / pt->t_connect_s : 0.0 };
}

static void g_p99_over_p50(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	double p50 = (double)pt->lat_ns.p50;

	(void)p;
	*v = (struct fig_val){ .type = FIG_DBL, .d = p50 > 0 ? (double)pt->lat_ns.p99 / p50 : 0.0 };
}

/* growth of a /proc/meminfo figure from the baseline to the peak, in KiB */
#define MEM_DELTA(field)                                                                     \
	static void g_##field##_delta(const struct pt_point *pt, const struct hp_plan *p,      \
				      struct fig_val *v)                                     \
	{                                                                                    \
		(void)p;                                                                     \
		*v = (struct fig_val){ .type = FIG_LONG,                                     \
				       .l = pt->mem_peak.field - pt->mem_base.field };       \
	}
MEM_DELTA(slab_kb)
MEM_DELTA(sunreclaim_kb)
MEM_DELTA(vmalloc_kb)
MEM_DELTA(pagetables_kb)
MEM_DELTA(used_kb)

static void g_total_threads(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)p;
	*v = (struct fig_val){ .type = FIG_LONG, .l = pt->cli_threads + pt->srv_threads };
}

static void g_total_fds(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)p;
	*v = (struct fig_val){ .type = FIG_LONG, .l = pt->cli_fds + pt->srv_fds };
}

static void g_fault(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)
{
	(void)pt;
	*v = (struct fig_val){ .type = FIG_STR, .s = p->fault.text };
}

/* the run's QPs (sample.h: smp_qps) in one state, or all of them (-1) */
#define QP_N(fn, when, st)                                                                        \
	static void fn(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v)     \
	{                                                                                         \
		(void)p;                                                                          \
		*v = (struct fig_val){ .type = FIG_LONG,                                          \
				       .l = (st) < 0 ? (long)pt->when.owned :                     \
				       (long)pt->when.state[(st) < 0 ? 0 : (st)] };               \
	}
QP_N(g_qp_peak, qp_peak, -1)
QP_N(g_qp_peak_rts, qp_peak, RQP_RTS)
QP_N(g_qp_peak_err, qp_peak, RQP_ERR)
QP_N(g_qp_end, qp_end, -1)
QP_N(g_qp_end_rts, qp_end, RQP_RTS)
QP_N(g_qp_end_err, qp_end, RQP_ERR)
QP_N(g_qp_left, qp_after, -1)

/* name, unit, meaning, TAP line, TAP format, JSON path, when TAP shows it, JSON real?, value */
const struct fig fig_table[] = {
	{ "clients", "", "clients asked for in this point",
	  FIG_L_PLAN, "%ld", "clients", 0, 0, L(clients) },
	{ "agents", "processes", "client agent processes the clients are spread over",
	  FIG_L_PLAN, "%ld", "agents", 0, 0, L(agents) },
	{ "servers", "processes", "server agent processes",
	  FIG_L_PLAN, "%ld", "servers", 0, 0, L(servers) },
	{ "ports", "", "server ports (listeners) the clients are spread over",
	  FIG_L_PLAN, "%ld", "ports", 0, 0, L(ports) },
	{ "transport", "", "--transport", FIG_L_PLAN, "%s", NULL, 0, 0, G(g_transport) },
	{ "cm", "", "--cm: how RDMA connections are set up",
	  FIG_L_PLAN, "%s", NULL, FIG_RC | FIG_UD, 0, G(g_cm) },
	{ "topology", "", "--topology", FIG_L_PLAN, "%s", NULL, 0, 0, G(g_topology) },
	{ "server_model", "", "--server-model", FIG_L_PLAN, "%s", NULL, 0, 0, G(g_server_model) },
	{ "msgs", "per client", "round trips each client makes (--msgs)",
	  FIG_L_PLAN, "%ld", NULL, 0, 0, G(g_msgs) },
	{ "size", "bytes", "message size (--size)", FIG_L_PLAN, "%ld", NULL, 0, 0, G(g_size) },
	{ "workers", "", "round trips in flight per agent (--workers; 0: all at once)",
	  FIG_L_PLAN, "%ld", NULL, 0, 0, L(workers) },
	{ "timeout_s", "s", "deadline of each phase of the point",
	  FIG_L_TIMEOUT, "%ld", "timeout_s", 0, 0, L(timeout_s) },
	{ "capped", "", "which limit capped the run (e.g. RLIMIT_NOFILE split the server)",
	  FIG_L_CAPPED, "%s", "capped", FIG_NONZERO, 0, S(capped) },

	{ "connected", "clients", "clients whose connection was made",
	  FIG_L_CONNECT, "%ld", "connected", 0, 0, L(connected) },
	{ "failed", "clients", "clients whose connection failed (a failure record each)",
	  FIG_L_CONNECT, "%ld", "failed", 0, 0, L(failed) },
	{ "unsettled", "clients", "clients neither connected nor failed at the deadline",
	  FIG_L_CONNECT, "%ld", "unsettled", 0, 0, L(unsettled) },
	{ "connect_pct", "%", "connected / clients",
	  FIG_L_CONNECT, "%.2f", "connect_pct", 0, 0, D(connect_pct) },
	{ "t_connect_s", "s", "from \"go\" until every client settled",
	  FIG_L_CONNECT, "%.3f", "t_connect_s", 0, 0, D(t_connect_s) },
	{ "connect_us_n", "", "connections the setup time was measured over",
	  FIG_JSON_ONLY, NULL, "connect_us.n", 0, 0, U(conn_us.n) },
	{ "connect_us_avg", "us", "one connection's setup time, mean",
	  FIG_L_CONNECT_US, "%.0f", "connect_us.avg", 0, 0, D(conn_us.avg) },
	{ "connect_us_p50", "us", "one connection's setup time, median",
	  FIG_L_CONNECT_US, "%llu", "connect_us.p50", 0, 1, U(conn_us.p50) },
	{ "connect_us_p99", "us", "one connection's setup time, 99th percentile",
	  FIG_L_CONNECT_US, "%llu", "connect_us.p99", 0, 1, U(conn_us.p99) },
	{ "connect_us_max", "us", "one connection's setup time, largest",
	  FIG_L_CONNECT_US, "%llu", "connect_us.max", 0, 1, U(conn_us.max) },
	/* per setup step (common/proto.h enum proto_step), in the order they happen */
#define STEP_ROWS(step, w, when)                                                          \
	{ "setup_" w "_us_p50", "us", "setup step " w ", median", FIG_L_STEPS, "%.1f",    \
	  "setup_us." w ".p50", FIG_RC | (when), 0, G(g_##step##_p50) },                  \
	{ "setup_" w "_us_p99", "us", "setup step " w ", 99th percentile", FIG_L_STEPS,   \
	  "%.1f", "setup_us." w ".p99", FIG_RC | (when), 0, G(g_##step##_p99) }
	STEP_ROWS(ADDR, "resolve_addr", FIG_RDMACM),
	STEP_ROWS(QP, "create_qp", 0),
	STEP_ROWS(ROUTE, "resolve_route", FIG_RDMACM),
	STEP_ROWS(CONN, "established", FIG_RDMACM),
	STEP_ROWS(TLS, "tls", FIG_OOB),
	STEP_ROWS(XCHG, "exchange", FIG_OOB),
	STEP_ROWS(RTS, "rtr_rts", FIG_OOB),
	{ "cause", "", "the first cause of the point's failures (docs/causes.md)",
	  FIG_L_CAUSE, "%s", "cause", FIG_NONZERO, 0, S(cause) },
	{ "success_pct", "%", "clients that connected and finished their round trips / clients",
	  FIG_JSON_ONLY, NULL, "success_pct", 0, 0, D(success_pct) },

	{ "msgs", "round trips", "round trips completed",
	  FIG_L_TRAFFIC, "%llu", "traffic.msgs", 0, 0, U(msgs) },
	{ "expected", "round trips", "round trips asked for (clients x msgs)",
	  FIG_L_TRAFFIC, "%llu", "traffic.expected", 0, 0, U(expect_msgs) },
	{ "verified", "round trips", "round trips whose payload came back byte for byte",
	  FIG_L_TRAFFIC, "%llu", "traffic.verified", 0, 0, U(verified) },
	{ "bad", "round trips", "round trips whose payload came back wrong",
	  FIG_L_TRAFFIC, "%llu", "traffic.bad", 0, 0, U(bad) },
	{ "lost", "round trips", "round trips that never completed",
	  FIG_L_TRAFFIC, "%llu", "traffic.lost", 0, 0, U(lost) },
	{ "retried", "sends", "sends repeated after a timeout (ud, uc)",
	  FIG_L_TRAFFIC, "%llu", "traffic.retried", FIG_UD | FIG_UC, 0, U(retried) },
	{ "late", "echoes", "echoes that came after their send was retried (ud, uc)",
	  FIG_L_TRAFFIC, "%llu", "traffic.late", FIG_UD | FIG_UC, 0, U(late) },
	/* per QP beside per client: --qp-share puts many clients on one QP */
	{ "qps", "QPs", "client QPs the round trips ran over",
	  FIG_L_TRAFFIC, "%ld", "traffic.qps", FIG_RC, 0, L(cli_qps) },
	{ "msgs_per_qp", "round trips", "round trips per client QP",
	  FIG_L_TRAFFIC, "%.1f", "traffic.msgs_per_qp", FIG_RC, 0,
	  G(g_msgs_per_qp) },
	{ "clients_per_qp", "clients", "clients per client QP (--qp-share)",
	  FIG_L_TRAFFIC, "%.1f", "traffic.clients_per_qp", FIG_RC, 0,
	  G(g_clients_per_qp) },
	{ "t_traffic_s", "s", "from the first round trip to the last",
	  FIG_L_TRAFFIC, "%.3f", "traffic.t_traffic_s", 0, 0, D(t_traffic_s) },
	{ "msgs_per_s", "1/s", "round trips per second over the traffic phase",
	  FIG_L_TRAFFIC, "%.0f", "traffic.msgs_per_s", 0, 0, D(msgs_per_s) },
	{ "lat_us_n", "", "round trips the latency was measured over",
	  FIG_JSON_ONLY, NULL, "traffic.lat_us.n", 0, 0, U(lat_ns.n) },
	{ "lat_us_avg", "us", "round trip time, mean",
	  FIG_L_LAT, "%.1f", "traffic.lat_us.avg", 0, 0, G(g_lat_avg) },
	{ "lat_us_p50", "us", "round trip time, median",
	  FIG_L_LAT, "%.1f", "traffic.lat_us.p50", 0, 0, G(g_lat_p50) },
	{ "lat_us_p99", "us", "round trip time, 99th percentile",
	  FIG_L_LAT, "%.1f", "traffic.lat_us.p99", 0, 0, G(g_lat_p99) },
	{ "lat_us_max", "us", "round trip time, largest",
	  FIG_L_LAT, "%.1f", "traffic.lat_us.max", 0, 0, G(g_lat_max) },
	/* /proc utime + stime from "run" to the last result (measure.c) */
	{ "srv_cpu_s", "s", "server agents' CPU time (user + system) in the traffic phase; -1: not read (--hosts)",
	  FIG_L_CPU, "%.2f", "cpu.server_s", 0, 1, D(srv_cpu_s) },
	{ "agents_cpu_s", "s", "client agents' CPU time (user + system) in the traffic phase; -1: not read (--hosts)",
	  FIG_L_CPU, "%.2f", "cpu.agents_s", 0, 1, D(cli_cpu_s) },
	{ "cpu_us_per_msg", "us", "server and client agents' CPU time per round trip; -1: not read",
	  FIG_L_CPU, "%.1f", "cpu.us_per_msg", 0, 1, G(g_cpu_per_msg) },
	/* the completion pollers (--poll; common/proto.h struct proto_cq) */
	{ "srv_cq_events", "events", "server agents: completion events read",
	  FIG_L_POLL, "%llu", "poll.server.events", FIG_RC, 0, U(srv_cq.events) },
	{ "srv_cq_arms", "arms", "server agents: CQs armed again after a completion",
	  FIG_L_POLL, "%llu", "poll.server.arms", FIG_RC, 0, U(srv_cq.arms) },
	{ "srv_cq_spins", "polls", "server agents: polls that found a spinning CQ empty",
	  FIG_L_POLL, "%llu", "poll.server.spins", FIG_RC, 0, U(srv_cq.spins) },
	{ "agents_cq_events", "events", "client agents: completion events read",
	  FIG_L_POLL, "%llu", "poll.agents.events", FIG_RC, 0, U(cli_cq.events) },
	{ "agents_cq_arms", "arms", "client agents: CQs armed again after a completion",
	  FIG_L_POLL, "%llu", "poll.agents.arms", FIG_RC, 0, U(cli_cq.arms) },
	{ "agents_cq_spins", "polls", "client agents: polls that found a spinning CQ empty",
	  FIG_L_POLL, "%llu", "poll.agents.spins", FIG_RC, 0, U(cli_cq.spins) },

	{ "cpus", "", "each spinning loop's CPU by agent, srvI:CPU[+CPU] then cliJ:CPU "
	  "(--poll busy or adaptive, agents on this host)",
	  FIG_L_POLL, "%s", "poll.cpus", FIG_RC | FIG_NONZERO, 0, S(cpus) },
	{ "not_pinned", "", "why no spinning loop was bound to a CPU (TAP: \"# not pinned: ...\")",
	  FIG_JSON_ONLY, "%s", "poll.not_pinned", FIG_RC | FIG_NONZERO, 0, S(not_pinned) },

	{ "setup_rate_cps", "1/s", "storm: connections made per second",
	  FIG_L_STORM_SETUP, "%.0f", "storm.setup_rate_cps", FIG_STORM, 0, G(g_setup_rate) },
	{ "t_all_connected_s", "s", "storm: from \"go\" until all connected",
	  FIG_L_STORM_SETUP, "%.3f", "storm.t_all_connected_s", FIG_STORM, 0, D(t_connect_s) },
	{ "setup_srv_cpu_ms", "ms/ms", "storm: each server process's CPU time over the wall "
	  "time from \"go\" until all connected (a process near 1:1 held the setup)",
	  FIG_L_STORM_SETUP, "%s", "setup_cpu_ms.server", FIG_STORM | FIG_NONZERO, 0,
	  S(setup_srv_cpu) },
	{ "setup_agents_cpu_ms", "ms/ms", "storm: each client agent's CPU time over its wall "
	  "time from \"go\" to its last connection settled",
	  FIG_L_STORM_SETUP, "%s", "setup_cpu_ms.agents", FIG_STORM | FIG_NONZERO, 0,
	  S(setup_cli_cpu) },
	{ "first_msg_us_p50", "us", "storm: first round trip after connecting, median",
	  FIG_L_STORM_FIRST, "%.1f", "storm.first_msg_us.p50", FIG_STORM, 0, G(g_lat_p50) },
	{ "first_msg_us_p99", "us", "storm: first round trip after connecting, 99th percentile",
	  FIG_L_STORM_FIRST, "%.1f", "storm.first_msg_us.p99", FIG_STORM, 0, G(g_lat_p99) },
	{ "first_msg_us_max", "us", "storm: first round trip after connecting, largest",
	  FIG_L_STORM_FIRST, "%.1f", "storm.first_msg_us.max", FIG_STORM, 0, G(g_lat_max) },
	{ "first_msg_p99_over_p50", "", "storm: fairness of the first round trips (p99 / p50)",
	  FIG_L_STORM_FIRST, "%.2f", "storm.first_msg_p99_over_p50", FIG_STORM, 0,
	  G(g_p99_over_p50) },
	{ "first_msg_over_10x_p50", "round trips", "storm: first round trips slower than 10 x the median",
	  FIG_L_STORM_FIRST, "%llu", "lat_over_10x_p50",
	  FIG_STORM, 0, U(lat_slow) },

	{ "srv_rss_kb_base", "KiB", "server agents' resident memory before the clients",
	  FIG_L_SERVER, "%ld", "server.rss_kb_base", 0, 0, L(srv_rss_base_kb) },
	{ "srv_rss_kb_peak", "KiB", "server agents' resident memory at the peak",
	  FIG_L_SERVER, "%ld", "server.rss_kb_peak", 0, 0, L(srv_rss_peak_kb) },
	{ "srv_bytes_per_conn", "B", "server resident memory per connection, base to peak",
	  FIG_L_SERVER, "%.0f", "server.bytes_per_conn", 0, 0,
	  D(srv_bytes_per_conn) },
	{ "srv_fds", "fds", "server agents' open file descriptors at the peak",
	  FIG_L_SERVER, "%ld", "server.fds", 0, 0, L(srv_fds) },
	{ "srv_threads", "threads", "server agents' threads at the peak",
	  FIG_L_SERVER, "%ld", "server.threads", 0, 0, L(srv_threads) },
	{ "srv_accepted", "connections", "connections the servers accepted",
	  FIG_L_SERVER, "%ld", "server.accepted", 0, 0, L(srv_accepted) },
	{ "srv_drops", "connections", "connections the servers dropped",
	  FIG_L_SERVER, "%ld", "server.drops", 0, 0, L(srv_drops) },
	{ "srv_atomics", "adds", "atomic adds the server's counter received (--op atomic)",
	  FIG_L_SERVER, "%ld", "server.atomics", FIG_RC | FIG_ATOMIC, 0,
	  L(srv_atomics) },
	{ "srv_ah", "address handles", "address handles the ud server holds at the end",
	  FIG_L_SERVER, "%ld", "server.ah", FIG_UD, 0, L(srv_ah) },
	{ "srv_ah_made", "address handles", "address handles the ud server created",
	  FIG_L_SERVER, "%ld", "server.ah_made", FIG_UD, 0,
	  L(srv_ah_made) },
	{ "srv_loops", "accepted:ms", "each server event loop's connections accepted and its "
	  "thread's CPU ms while it served (--server-threads > 1)",
	  FIG_L_SERVER, "%s", "server.loops", FIG_NONZERO, 0, S(srv_loops) },
	{ "tcp_inuse_peak", "sockets", "TCP sockets in use in the server namespace (IPv4 and IPv6), peak",
	  FIG_L_TCP, "%ld", "server.tcp_inuse_peak", FIG_TCP, 0,
	  L(tcp_inuse_peak) },
	/* system-wide (both ends when they share a kernel), baseline to peak */
	{ "kern_slab_bytes_per_conn", "B", "kernel slab per connection, base to peak",
	  FIG_L_KMEM, "%.0f", "server.kern_slab_bytes_per_conn",
	  0, 0, D(kern_bytes_per_conn) },
	{ "kern_bytes_per_conn", "B", "kernel memory (slab, vmalloc, page tables) per connection",
	  FIG_L_KMEM, "%.0f", "kernel.bytes_per_conn", 0, 0,
	  D(kern_all_bytes_per_conn) },
	{ "mem_used_bytes_per_conn", "B", "memory in use (MemTotal - MemAvailable) per connection",
	  FIG_L_KMEM, "%.0f", "kernel.used_bytes_per_conn", 0, 0,
	  D(used_bytes_per_conn) },
#define MEM_ROW(key, what, path, field) { key, "KiB", what, FIG_L_KMEM, "%ld", path, 0, 0, G(g_##field##_delta) }
	MEM_ROW("slab_kb_delta", "/proc/meminfo Slab, base to peak", "server.slab_kb_delta",
	  slab_kb),
	MEM_ROW("sunreclaim_kb_delta", "/proc/meminfo SUnreclaim, base to peak", "kernel.sunreclaim_kb_delta",
	  sunreclaim_kb),
	MEM_ROW("vmalloc_kb_delta", "/proc/meminfo VmallocUsed, base to peak", "kernel.vmalloc_kb_delta",
	  vmalloc_kb),
	MEM_ROW("pagetables_kb_delta", "/proc/meminfo PageTables, base to peak", "kernel.pagetables_kb_delta",
	  pagetables_kb),
	MEM_ROW("mem_used_kb_delta", "/proc/meminfo MemTotal - MemAvailable, base to peak", "kernel.used_kb_delta",
	  used_kb),
	{ "user_bytes_per_conn", "B", "agents' resident memory per connection, both sides",
	  FIG_JSON_ONLY, NULL, "memory.user_bytes_per_conn", 0, 0,
	  D(user_bytes_per_conn) },
	{ "all_bytes_per_conn", "B", "user and kernel memory per connection",
	  FIG_JSON_ONLY, NULL, "memory.all_bytes_per_conn", 0, 0,
	  D(all_bytes_per_conn) },
	/* --mem-floor (memfloor.h): the floor, the lowest MemAvailable, when it ended the point */
	{ "mem_floor_kb", "KiB", "--mem-floor: MemAvailable below which the point ends",
	  FIG_JSON_ONLY, NULL, "memory.floor_kb", 0, 0, L(mem_floor_kb) },
	{ "mem_avail_min_kb", "KiB", "lowest MemAvailable during the point",
	  FIG_L_KMEM, "%ld", "memory.avail_min_kb", FIG_NONZERO, 0,
	  L(mem_avail_min_kb) },
	{ "mem_floor_hit_avail_kb", "KiB", "MemAvailable when the floor ended the point",
	  FIG_L_KMEM, "%ld", "memory.floor_hit_avail_kb",
	  FIG_NONZERO, 0, L(mem_floor_avail_kb) },

	{ "agents_rss_kb", "KiB", "client agents' resident memory, sum",
	  FIG_L_AGENTS, "%ld", "agents_total.rss_kb", 0, 0, L(cli_rss_kb) },
	{ "agents_rss_kb_max", "KiB", "client agents' resident memory, largest agent",
	  FIG_L_AGENTS, "%ld", "agents_total.rss_kb_max", 0, 0,
	  L(cli_rss_max_kb) },
	{ "agents_bytes_per_conn", "B", "client agents' resident memory per connection",
	  FIG_L_AGENTS, "%.0f", "agents_total.bytes_per_conn", 0, 0,
	  D(cli_bytes_per_conn) },
	{ "agents_threads", "threads", "client agents' threads",
	  FIG_L_AGENTS, "%ld", "agents_total.threads", 0, 0, L(cli_threads) },
	{ "agents_fds", "fds", "client agents' open file descriptors",
	  FIG_L_AGENTS, "%ld", "agents_total.fds", 0, 0, L(cli_fds) },
	{ "total_threads", "threads", "threads of all agents",
	  FIG_L_AGENTS, "%ld", NULL, 0, 0, G(g_total_threads) },
	{ "total_fds", "fds", "open file descriptors of all agents",
	  FIG_L_AGENTS, "%ld", NULL, 0, 0, G(g_total_fds) },
	{ "nofile_needed", "fds", "file descriptors one client agent needs",
	  FIG_JSON_ONLY, NULL, "agents_total.nofile_needed", 0, 0,
	  L(per_agent_nofile) },
	{ "nofile_cap", "fds", "RLIMIT_NOFILE the client agents got",
	  FIG_JSON_ONLY, NULL, "agents_total.nofile_cap", 0, 0, L(nofile_got) },
	{ "srv_maps_max", "maps", "memory mappings of the largest server agent (vm.max_map_count)",
	  FIG_L_MAPS, "%ld", "srv_maps_max", 0, 0, L(srv_maps_max) },
	{ "agents_maps_max", "maps", "memory mappings of the largest client agent (vm.max_map_count)",
	  FIG_L_MAPS, "%ld", "agents_maps_max", 0, 0, L(cli_maps_max) },
	{ "qp_peak", "QPs", "QPs of the run at the peak",
	  FIG_L_QP, "%ld", "qp.peak", FIG_RC, 0, G(g_qp_peak) },
	{ "qp_peak_rts", "QPs", "QPs in RTS at the peak",
	  FIG_L_QP, "%ld", "qp.peak_rts", FIG_RC, 0, G(g_qp_peak_rts) },
	{ "qp_peak_err", "QPs", "QPs in ERR at the peak",
	  FIG_L_QP, "%ld", "qp.peak_err", FIG_RC, 0, G(g_qp_peak_err) },
	{ "qp_end", "QPs", "QPs of the run once traffic is done",
	  FIG_L_QP, "%ld", "qp.end", FIG_RC, 0, G(g_qp_end) },
	{ "qp_end_rts", "QPs", "QPs in RTS once traffic is done",
	  FIG_L_QP, "%ld", "qp.end_rts", FIG_RC, 0, G(g_qp_end_rts) },
	{ "qp_end_err", "QPs", "QPs in ERR once traffic is done",
	  FIG_L_QP, "%ld", "qp.end_err", FIG_RC, 0, G(g_qp_end_err) },
	{ "qp_left", "QPs", "QPs still there after the agents are gone (a leak)",
	  FIG_L_QP, "%ld", "qp.left", FIG_RC, 0, G(g_qp_left) },
	{ "proto_errors", "records", "agent records that did not parse",
	  FIG_L_PROTO, "%ld", NULL, FIG_NONZERO, 0, L(proto_errors) },
	/* --fault: what it did (fault.h struct flt_result) */
	{ "fault", "", "--fault: what was injected",
	  FIG_L_FAULT, "%s", "fault.spec", FIG_FAULT, 0, G(g_fault) },
	{ "fault_at_ms", "ms", "when the fault was injected, from \"go\"",
	  FIG_L_FAULT, "%.0f", "fault.at_ms", FIG_FAULT, 0, D(fault.at_ms) },
	{ "fault_survived", "clients", "clients that finished despite the fault",
	  FIG_L_FAULT, "%ld", "fault.survived", FIG_FAULT, 0,
	  L(fault.survived) },
	{ "fault_failed", "clients", "clients the fault made fail",
	  FIG_L_FAULT, "%ld", "fault.failed", FIG_FAULT, 0,
	  L(fault.failed) },
	{ "fault_named", "clients", "failed clients whose failure named the fault",
	  FIG_L_FAULT, "%ld", "fault.named", FIG_FAULT, 0, L(fault.named) },
	{ "fault_detect_ms", "ms", "first failure an agent reported after the fault; -1: none",
	  FIG_L_FAULT, "%.0f", "fault.detect_ms", FIG_FAULT, 0,
	  D(fault.detect_ms) },
	{ "fault_undo_ms", "ms", "when a timed fault was undone, after applying it; 0: none",
	  FIG_L_FAULT, "%.0f", "fault.undo_ms", FIG_FAULT | FIG_NONZERO, 0,
	  D(fault.undo_ms) },
	{ "fault_recover_ms", "ms", "the longest round trip less the outage; 0: none",
	  FIG_L_FAULT, "%.0f", "fault.recover_ms", FIG_FAULT, 0,
	  D(fault.recover_ms) },
	{ "fault_tcp_retrans", "segments", "TCP retransmissions during the fault",
	  FIG_L_FAULT, "%ld", "fault.tcp_retrans",
	  FIG_FAULT | FIG_TCP, 0, L(fault.tcp_retrans) },
	{ "fault_did", "", "what the fault did, in words",
	  FIG_L_FAULT_DID, "%s", "fault.did", FIG_FAULT | FIG_NONZERO, 0,
	  S(fault.did) },
	{ "fault_err", "", "why the fault could not be injected",
	  FIG_L_FAULT_DID, "%s", "fault.err", FIG_FAULT | FIG_NONZERO, 0,
	  S(fault.err) },
	{ .name = NULL },
};

void fig_get(const struct fig *f, const struct pt_point *pt, const struct hp_plan *p,
	     struct fig_val *v)
{
	const char *base = (const char *)pt + f->off;

	if (f->get) {
		f->get(pt, p, v);
		return;
	}
	v->type = f->type;
	switch (f->type) {
	case FIG_LONG:
		memcpy(&v->l, base, sizeof(v->l));
		break;
	case FIG_U64:
		memcpy(&v->u, base, sizeof(v->u));
		break;
	case FIG_DBL:
		memcpy(&v->d, base, sizeof(v->d));
		break;
	case FIG_STR:
		v->s = base;
		break;
	}
}

size_t fig_nrows(void)
{
	size_t n = 0;

	while (fig_table[n].name)
		n++;
	return n;
}

/* when TAP shows a row, in words */
static void fig_doc_when(const struct fig *f, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *word;
	} w[] = {
		{ FIG_TCP, "tcp" },	    { FIG_RC, "rc, uc" },     { FIG_UD, "ud" },
		{ FIG_UC, "uc" },
		{ FIG_STORM, "storm" },	    { FIG_RDMACM, "rdmacm" }, { FIG_OOB, "oob-tls" },
		{ FIG_FAULT, "--fault" },   { FIG_ATOMIC, "--op atomic" },
		{ FIG_NONZERO, "when not 0" },
	};
	size_t n = 0;

	if (f->line == FIG_JSON_ONLY) {
		snprintf(buf, len, "JSON only");
		return;
	}
	n = (size_t)snprintf(buf, len, "yes");
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]) && n < len; i++)
		if (f->when & w[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n == 3 ? ": " : ", ",
					      w[i].word);
}

int fig_doc(FILE *f)
{
	char when[128];

	fprintf(f, "# The figures of a load point\n\n"
		   "Generated by `rdmacap report --figures` from the one table of figures "
		   "(harness/figures/fig.c);\n`make results` rewrites this file and "
		   "tests/docs.t fails when it differs.\nEach figure is a `# key=value` in "
		   "the point's TAP and a number at its JSON path in\nthe point's object "
		   "(`points[]`; docs/output.md). With `--repeat R` TAP shows\n"
		   "`min/median/max` and JSON the median, with min and max under `repeat`.\n"
		   "Paths under `" FIG_JSON_STORM ".` are in a storm's points only, and "
		   "`fault.` in a point with `--fault`.\n\n"
		   "| figure | unit | meaning | JSON path | in TAP |\n|---|---|---|---|---|\n");
	for (const struct fig *r = fig_table; r->name; r++) {
		fig_doc_when(r, when, sizeof(when));
		fprintf(f, "| `%s` | %s | %s | %s%s%s | %s |\n", r->name, r->unit, r->what,
			r->json ? "`" : "", r->json ? r->json : "TAP only", r->json ? "`" : "",
			when);
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}
