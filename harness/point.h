/* SPDX-License-Identifier: MIT */
/*
 * point: one load point. N clients spread over P agent processes against one
 * server agent, released together; every phase has a deadline; the point's
 * metrics, failures and their causes, and the sampler's series end up in
 * struct hr_point, which the plans turn into TAP and JSON.
 */
#ifndef RDC_HARNESS_POINT_H
#define RDC_HARNESS_POINT_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/plan.h"
#include "harness/sample.h"
#include "harness/stats.h"
#include "tap/tap.h"

#define HR_MAX_FAILS 32
#define HR_MAX_CAUSES 16

struct hr_fail {
	long id;           /* client id, -1 for an agent-wide failure */
	char phase[8];     /* connect | traffic | start */
	char call[32];     /* the failing call as the agent named it */
	int err;           /* errno, 0 when the cause is not an errno */
	char errname[24];  /* ENOMEM, timeout, signal_9_KILL ... */
	double t_s;        /* since "go" */
	struct hs_res res; /* counters at that moment (when sampled) */
};

struct hr_cause {
	char call[32];
	char errname[24];
	int err;
	long count;
};

struct hr_point {
	long clients, agents, ports, servers;
	long timeout_s;                    /* deadline per phase used for this point */
	long per_agent_nofile, nofile_got; /* what agents needed / what the limit allowed */
	char capped[160];                  /* which limit capped the run, "" if none */

	long connected, failed, unsettled;
	double connect_pct, success_pct;
	struct hs_summary conn_us;         /* exact, per connection */
	double t_connect_s;

	uint64_t msgs, verified, bad, lost, expect_msgs;
	struct hs_summary lat_ns;          /* from the agents' histograms */
	uint64_t lat_slow;                 /* round trips slower than 10x the median */
	double t_traffic_s, msgs_per_s;

	long srv_rss_base_kb, srv_rss_peak_kb, srv_fds, srv_threads;
	double srv_bytes_per_conn;         /* user-space RSS growth per connection */
	long tcp_inuse_peak;
	long slab_base_kb, slab_peak_kb;   /* /proc/meminfo Slab: system-wide */
	double kern_bytes_per_conn;        /* kernel slab growth per connection, both ends */
	long cli_rss_kb, cli_rss_max_kb, cli_threads, cli_fds;
	long srv_maps_max, cli_maps_max;   /* most memory maps in one process (vm.max_map_count) */
	long srv_accepted, srv_drops;
	long proto_errors;                 /* malformed agent records */

	bool have_res;                     /* RDMA counters were sampled */
	struct hs_res res_base, res_peak, res_after;
	bool leak;
	char leak_what[160];

	struct hr_fail fails[HR_MAX_FAILS];
	int nfails;
	struct hr_cause causes[HR_MAX_CAUSES];
	int ncauses;
	char cause[256];                   /* the first cause, explained */

	bool started;                      /* server and every agent said hello */
	bool timeout_connect, timeout_traffic, aborted;
	char why[512];                     /* why the point is not ok */
	bool ok;

	struct hs_series series;
};

struct hr_ctx {
	const struct hp_plan *plan;
	struct nn_topo *topo;
	struct tap *tap;
	int sigfd;          /* signalfd: SIGCHLD, SIGINT, SIGTERM (blocked by main) */
	volatile bool aborted;
	bool tty;           /* progress line on stderr */
	struct hs_sampler *sampler;
	char tls_dir[64];   /* throwaway PKI of this run (oob-tls without --tls-*), or "" */
};

/* Runs one point; fills pt (caller frees with hr_point_free). 0, or -1 if aborted. */
int hr_point_run(struct hr_ctx *c, long clients, struct hr_point *pt);
void hr_point_free(struct hr_point *pt);

/* Writes the point as a TAP subtest plus its parent result line "desc". */
enum tap_res hr_point_tap(struct hr_ctx *c, const struct hr_point *pt, const char *desc, bool probe);

/* Explains a failing call/errno as the limit behind it (reads the sysctls involved). */
void hr_explain(const struct hr_ctx *c, const char *call, int err, const char *errname, long n,
		char *out, size_t len);

#endif
