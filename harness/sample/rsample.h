/* SPDX-License-Identifier: MIT */
/*
 * rsample: each host's own figures in a --hosts run, read by one sampler per
 * host: an ssh command running iproute2's `rdma -j resource show` and reading
 * /proc/meminfo there, at the baseline, the peak and after the agents.
 *
 * Why a sampler per host and not the agents: the agents stay a traffic engine
 * with the one record protocol (common/proto.h) unchanged, and what a host
 * holds is read the same way whether an agent is alive, crashed or never
 * started there; the price is one ssh round trip per reading, so a host has
 * three readings per point, not the local sampler's time series.
 *
 * The counters of a host are those of its device (hosts file "/DEV", or
 * --device), or of every device it has. They feed the point's resource
 * figures (server host: srv, client hosts: cli) and its leak verdict, and a
 * section per host plus the total in TAP and JSON.
 *
 * Uses: harness/out/json.h (hj_res), harness/hosts/remote.h, harness/point/run.h, jansson, tap/.
 */
#ifndef RDC_HARNESS_RSAMPLE_H
#define RDC_HARNESS_RSAMPLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "harness/hosts/hosts.h"
#include "harness/sample/sample.h"
#include "tap/tap.h"

enum rs_when { RS_BASE, RS_PEAK, RS_AFTER, RS_N };

struct rs_host {
	char dest[HST_NAME_MAX + 34];
	char device[64];
	bool server;
	long agents, clients, connected, failed;
	bool valid[RS_N];
	uint64_t res[RS_N][HS_NRES];
	long slab_kb[RS_N];
	char err[160];          /* why a reading failed, "" if none did */
};

struct rs_hosts {
	int n;
	struct rs_host h[HST_MAX];
};

struct run;

/* Before the agents: every host's baseline (pt->hosts is allocated here). */
void rs_base(struct run *r);
/* Every connection held. */
void rs_peak(struct run *r);
/* Agents gone: each host back at its baseline within a few seconds, or a leak. */
void rs_after(struct run *r);

/* "# host=... role=... agents=..." per host, then "# hosts_total ...". */
void rs_tap(struct tap *t, const struct rs_hosts *hs);
/* {"hosts": [...], "total": {...}} */
json_t *rs_json(const struct rs_hosts *hs);

#endif
