/* SPDX-License-Identifier: MIT */
/*
 * rephosts: rdmacap report's per-host section of a --hosts run: one Markdown
 * table per load point, a row per host (role, device, agents, clients,
 * connected, failed, QPs held at peak over its baseline, back at baseline) and
 * the total. Reads the "hosts" and "total" a point's JSON carries (rsample.h).
 *
 * Uses: jansson, stdio.
 */
#ifndef RDC_HARNESS_REPHOSTS_H
#define RDC_HARNESS_REPHOSTS_H

#include <jansson.h>
#include <stdio.h>

/* The section for one point; nothing when hosts is not an array. */
void rph_md(FILE *f, const char *transport, long clients, json_t *hosts, json_t *total);

#endif
