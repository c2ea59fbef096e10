/* SPDX-License-Identifier: MIT */
/*
 * sample: the sampler behind every load point. It reads the kernel's RDMA
 * resource counters (RDMA netlink, rdma/rnl.h) for the topology's rxe
 * devices, and the server agent's /proc entries, and keeps a time series.
 */
#ifndef RDC_HARNESS_SAMPLE_H
#define RDC_HARNESS_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "netns/netns.h"

/* pd cq qp cm_id mr ctx srq, in rdma/rnl.h's order */
#define HS_NRES 7

struct hs_res {
	bool valid;
	uint64_t srv[HS_NRES]; /* the server's device */
	uint64_t cli[HS_NRES]; /* every client device (loop: the same device, left 0) */
};

struct hs_sample {
	uint32_t t_ms;         /* since the point started */
	uint32_t connected;    /* connections reported so far */
	uint32_t srv_rss_kb;
	uint32_t srv_threads;
	struct hs_res res;
};

struct hs_series {
	struct hs_sample *s;
	size_t n, cap;
};

struct hs_sampler;

/*
 * Opens the sampler for topology t. RDMA counters are read only when the
 * topology has rxe devices; 'why' says why they are not available otherwise.
 */
struct hs_sampler *hs_open(const struct nn_topo *t, char *why, size_t len);
void hs_close(struct hs_sampler *s);
/* True when RDMA counters can be read. */
bool hs_has_res(const struct hs_sampler *s);
/* Reads the RDMA counters now. 0, or -1 (r->valid false). */
int hs_res_read(struct hs_sampler *s, struct hs_res *r);
/* Appends one sample; bounded (older points stay, later ones are dropped past 1M). */
int hs_series_add(struct hs_series *se, const struct hs_sample *x);
void hs_series_free(struct hs_series *se);
/* Resource names for TAP and JSON. */
const char *hs_res_name(int i);

#endif
