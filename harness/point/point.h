/* SPDX-License-Identifier: MIT */
/*
 * point: one load point. N clients spread over P agent processes against one
 * server agent, released together; every phase has a deadline; the point's
 * metrics, failures and their causes, and the sampler's series end up in
 * struct pt_point, which the plans turn into TAP and JSON.
 */
#ifndef RDC_HARNESS_POINT_H
#define RDC_HARNESS_POINT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/proto.h"
#include "harness/cli/plan.h"
#include "harness/point/proc.h"
#include "harness/sample/sample.h"
#include "harness/sample/stats.h"
#include "tap/tap.h"

#define PT_MAX_FAILS 32
/*
 * Memory maps per rc connection in one process (QP SQ and RQ, two CQ rings):
 * 20,142 maps for 5,000 connections in the rxe VM, and ibv_create_cq ENOMEM at
 * the 16,348th connection of one process under vm.max_map_count 65530.
 */
#define PT_MAPS_PER_CONN 4
#define PT_MAPS_SLACK 512       /* the agent's own maps: ~144, and room for TLS */
#define PT_MAX_CAUSES 16

struct pt_fail {
	long id;           /* client id, -1 for an agent-wide failure */
	char phase[8];     /* connect | traffic | start */
	char call[32];     /* the failing call as the agent named it */
	int err;           /* errno, 0 when the cause is not an errno */
	char errname[24];  /* ENOMEM, timeout, signal_9_KILL ... */
	double t_s;        /* since "go" */
	struct smp_res res; /* counters at that moment (when sampled) */
};

struct pt_cause {
	char call[32];
	char errname[24];
	int err;
	bool at_server;	/* the server's call, told to its client (rc REJ: proto.h at=server) */
	long count;
};

struct pt_point {
	long clients, agents, ports, servers;
	long timeout_s;                    /* deadline per phase used for this point */
	long workers;                      /* --workers given each client agent */
	long per_agent_nofile, nofile_got; /* what agents needed / what the limit allowed */
	char capped[160];                  /* which limit capped the run, "" if none */

	long connected, failed, unsettled;
	double connect_pct, success_pct;
	struct stats_summary conn_us;         /* exact, per connection */
	double t_connect_s;
	struct stats_summary step_ns[PROTO_NSTEPS];	/* setup steps, from the agents' histograms */

	uint64_t msgs, verified, bad, lost, expect_msgs;
	uint64_t retried, late;            /* ud: resends after a timeout, late echoes */
	struct stats_summary lat_ns;          /* from the agents' histograms */
	uint64_t lat_slow;                 /* round trips slower than 10x the median */
	double t_traffic_s, msgs_per_s;

	long srv_rss_base_kb, srv_rss_peak_kb, srv_fds, srv_threads;
	double srv_bytes_per_conn;         /* user-space RSS growth per connection */
	long tcp_inuse_peak;
	struct proc_mem mem_base, mem_peak; /* /proc/meminfo, system-wide: both ends */
	double kern_bytes_per_conn;        /* kernel slab growth per connection, both ends */
	double kern_all_bytes_per_conn;    /* Slab + VmallocUsed + PageTables growth, the same */
	double used_bytes_per_conn;        /* MemTotal - MemAvailable growth: user and kernel */
	double cli_bytes_per_conn;         /* the client agents' RSS per connection */
	double user_bytes_per_conn;        /* user space: server RSS growth + agents' RSS */
	struct proc_mem mem_start;         /* /proc/meminfo before any agent started */
	double all_bytes_per_conn;         /* used growth from mem_start: the agents' start
					    * and the server's endpoints made before hello too */
	long mem_floor_kb;                 /* --mem-floor in KiB, 0 off (memfloor.h) */
	long mem_avail_min_kb;             /* lowest MemAvailable read against the floor */
	/*
	 * MemAvailable fell below the floor: the point's waits end (LP_MEMORY),
	 * the point fails. Not mem_floor_avail_kb != 0: the kernel clamps a
	 * negative MemAvailable estimate to 0, so a hit can read 0 KiB, under
	 * exactly the pressure the floor is for (JSON memory.floor_hit_avail_kb
	 * is then 0 as when not hit; the cause and why say "memory").
	 */
	bool mem_floor_hit;
	long mem_floor_avail_kb, mem_floor_connected; /* then: MemAvailable, connected */
	long cli_rss_kb, cli_rss_max_kb, cli_threads, cli_fds;
	long srv_maps_max, cli_maps_max;   /* most memory maps in one process (vm.max_map_count) */
	long srv_accepted, srv_drops;
	long srv_ah;                       /* ud: most address handles the servers held */
	long srv_atomics;                  /* --op atomic: the servers' counters, summed */
	long cli_qps;                      /* rc, uc: the QPs the clients' round trips rode */
	long srv_ah_made;                  /* ud: address handles the servers created */
	/* --server-threads > 1: each event loop's "accepted:cpu_ms", servers in turn */
	char srv_loops[1024];
	/* each local server process's and client agent's "cpu_ms/wall_ms" of setup (measure.c) */
	char setup_srv_cpu[256], setup_cli_cpu[1024];
	/* --poll busy|adaptive: each agent's CPUs ("srv0:0,cli0:1"), or why none is bound */
	char cpus[256], not_pinned[96];
	/* rc, uc: what the completion pollers did (common/proto.h struct proto_cq) */
	struct proto_cq srv_cq, cli_cq;
	/*
	 * utime + stime of the agents during the traffic phase, from /proc ("run"
	 * to the last result); -1 when not read (agents on other hosts)
	 */
	double srv_cpu_s, cli_cpu_s;
	long proto_errors;                 /* malformed agent records */

	bool have_res;                     /* RDMA counters were sampled */
	struct smp_res res_base, res_peak, res_after;
	bool leak;
	char leak_what[160];

	/* the wire's counters (sample.h): at the baseline, peak and after the agents */
	bool have_wire;
	struct smp_wire_names wire_names;
	struct smp_wire wire_base, wire_peak, wire_after;
	struct smp_wire_series wire_series; /* smp_sample.wire indexes it */
	/* the run's QPs: every connection held, traffic done, agents gone */
	struct smp_qps qp_peak, qp_end, qp_after;

	struct pt_fail fails[PT_MAX_FAILS];
	int nfails;
	struct pt_cause causes[PT_MAX_CAUSES];
	int ncauses;
	char cause[1024];                  /* the first cause, explained; the wire's account */

	bool started;                      /* server and every agent said hello */
	bool timeout_connect, timeout_traffic, aborted;
	char why[1536];                    /* why the point is not ok */
	bool ok;

	struct smp_series series;
	struct flt_result fault;           /* --fault: what it did and cost (fault.h) */
	struct rsmp_hosts *hosts;            /* --hosts: each host's figures (rsample.h) */
};

struct rsmp_hosts;
struct rm_ctx;

struct pt_ctx {
	const struct hp_plan *plan;
	struct nn_topo *topo;
	struct tap *tap;
	int sigfd;          /* signalfd: SIGCHLD, SIGINT, SIGTERM (blocked by main) */
	volatile bool aborted;
	bool tty;           /* progress line on stderr */
	struct smp_sampler *sampler;
	char tls_dir[64];   /* throwaway PKI of this run (oob-tls without --tls-*), or "" */
	struct rm_ctx *remote; /* --hosts: the hosts the agents run on (remote.h), or NULL */
	long mem_floor_kb;  /* --mem-floor resolved once per run (memfloor.h), 0: off */
};

/*
 * The fault check of a finished point (pfault.c; its TAP line, its why): --fault
 * applied and undone, every connection it cost named, noticed within the
 * dead-peer bound, none only at a phase deadline. true, or false with which
 * condition failed in why (when not NULL), one text per condition.
 */
bool pf_check(const struct hp_plan *p, const struct pt_point *pt, char *why, size_t len);

/* Runs one point; fills pt (caller frees with pt_free). 0, or -1 if aborted. */
int pt_run(struct pt_ctx *c, long clients, struct pt_point *pt);
void pt_free(struct pt_point *pt);

#endif
