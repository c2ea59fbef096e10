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
 * Uses: harness/sample/sample.h, harness/hosts/remote.h, rt.h, jansson, tap/.
 */
#ifndef RDC_HARNESS_RSAMPLE_H
#define RDC_HARNESS_RSAMPLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "harness/hosts/hosts.h"
#include "harness/sample/sample.h"
#include "tap/tap.h"

enum rsmp_when { RSMP_BASE, RSMP_PEAK, RSMP_AFTER, RSMP_N };

#define RSMP_LOST_MAX 128

struct rsmp_host {
	char dest[HOSTS_NAME_MAX + 34];
	char device[64];
	bool server;
	long agents, clients, connected, failed;
	bool valid[RSMP_N];
	uint64_t res[RSMP_N][SMP_NRES];
	long slab_kb[RSMP_N];
	char err[160];          /* why a reading failed, "" if none did */
	/* lost mid-point (harness/point/lost.c): not read again in this point */
	char lost[RSMP_LOST_MAX]; /* the cause, "" = not lost */
	const char *lost_phase;   /* the phase it was lost in */
	double lost_s;            /* when: seconds after "go" (before it: after the start) */
	long lost_clients;        /* its clients failed or lost with it */
};

struct rsmp_hosts {
	int n;
	struct rsmp_host h[HOSTS_MAX];
};

struct rt;

/* Before the agents: every host's baseline (pt->hosts is allocated here). */
void rsmp_base(struct rt *r);
/* Every connection held. */
void rsmp_peak(struct rt *r);
/* Agents gone: each host back at its baseline within a few seconds, or a leak. */
void rsmp_after(struct rt *r);

/*
 * "# host=... role=... agents=..." per host, "# host_lost host=... role=...
 * phase=... after_s=... clients=... cause=..." after a lost one's, then
 * "# hosts_total ...".
 */
void rsmp_tap(struct tap *t, const struct rsmp_hosts *hs);
/* {"hosts": [...], "total": {...}}; a lost host has "lost": {cause, phase, after_s, clients} */
json_t *rsmp_json(const struct rsmp_hosts *hs);

#endif
