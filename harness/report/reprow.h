/* SPDX-License-Identifier: MIT */
/*
 * reprow: the rows rdmacap report reads from result files (report.c fills
 * them), shared with its SVG half (repsvg.c). Uses jansson (the --hosts
 * sections stay JSON).
 */
#ifndef RDC_HARNESS_REPROW_H
#define RDC_HARNESS_REPROW_H

#include <stdbool.h>

#include <jansson.h>

#define RP_MAX 512
#define RP_DESIGN 64 /* "rc qp-share 64 shared-cq shared-mr srq", and " (file)" (rp_name_runs) */
#define RP_NDESIGN 6 /* series styles */

struct rp_row {
	long clients, connected;
	double success, lat_p50, lat_p99, msgs_per_s;
	int nrep;                  /* repeats of the point (1 without --repeat) */
	double spread[3][2];       /* min, max over the repeats: success, p50, p99 */
	long qp, cq, mr, srq, ah, srv_rss_kb, agents_rss_kb;
	double srv_bytes_per_conn;
	bool have_res;
	char status[16];
	char cause[160];
	char transport[RP_DESIGN]; /* the design (rp_design), "rc" for the defaults */
	int file;                  /* index of the result file the row came from */
	json_t *hosts, *total;     /* --hosts: the per-host section (rephosts.h), or NULL */
};

struct rp_set {
	struct rp_row r[RP_MAX];
	int n;
};

/* The server's device objects per connected client (0 without counters or clients). */
double rp_objs(const struct rp_row *r);

#endif
