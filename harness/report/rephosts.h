/* SPDX-License-Identifier: MIT */
/*
 * rephosts: rdmacap report's per-host section of a --hosts run: one Markdown
 * table per load point, a row per host (role, device, agents, clients,
 * connected, failed, QPs held at peak over its baseline, back at baseline) and
 * the total; and over the points of one transport, a series: a row per host,
 * a column per point (connected of its clients, QPs held at peak). Reads the
 * "hosts" and "total" a point's JSON carries (rsample.h).
 *
 * Uses: jansson, stdio.
 */
#ifndef RDC_HARNESS_REPHOSTS_H
#define RDC_HARNESS_REPHOSTS_H

#include <jansson.h>
#include <stdio.h>

/* The section for one point; nothing when hosts is not an array. */
void rph_md(FILE *f, const char *transport, long clients, json_t *hosts, json_t *total);

/*
 * The series of n points (hosts[i] the "hosts" of the point with clients[i]);
 * the rows are the hosts of the first point that has them; nothing for one
 * point or none.
 */
void rph_series(FILE *f, const char *transport, json_t *const hosts[], const long clients[],
		int n);

#endif
