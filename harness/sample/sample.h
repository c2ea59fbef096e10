/* SPDX-License-Identifier: MIT */
/*
 * sample: the sampler behind every load point. It reads the kernel's RDMA
 * resource counters (RDMA netlink, rdma/rnl.h) for the topology's rxe
 * devices, and the server agent's /proc entries, and keeps a time series;
 * over the same socket, the devices' port statistic counters (rdma/rstat.h)
 * and the run's QPs by state (rdma/rqp.h). One thread: calls never overlap.
 */
#ifndef RDC_HARNESS_SAMPLE_H
#define RDC_HARNESS_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "netns/netns.h"
#include "rdma/rqp.h"
#include "rdma/rstat.h"

/* pd cq qp cm_id mr ctx srq, in rdma/rnl.h's order */
#define HS_NRES 7

struct hs_res {
	bool valid;
	uint64_t srv[HS_NRES]; /* the server's device */
	uint64_t cli[HS_NRES]; /* every client device (loop: the same device, left 0) */
};

/*
 * The wire's own counters (rdma/rstat.h): per side, the sum over its devices'
 * ports of each counter the devices offer. The names are the devices' own, in
 * the order first seen, and the same for every reading of one sampler: srv[i]
 * and cli[i] are the counter hs_wire_names(s)->name[i].
 */
#define HS_NWIRE 32

struct hs_wire_names {
	int n;
	char name[HS_NWIRE][RSTAT_NAME];
};

struct hs_wire {
	bool valid;
	uint64_t srv[HS_NWIRE];
	uint64_t cli[HS_NWIRE]; /* every client device (loop: the same device, left 0) */
};

/* The run's QPs on the server and client devices (rdma/rqp.h), by state. */
#define HS_QP_LIST 8

struct hs_qps {
	bool valid;
	uint32_t owned;                /* QPs of the given pids */
	uint32_t state[RQP_NSTATES];
	uint32_t matched;              /* of those, in the asked states */
	int listed;
	struct rqp list[HS_QP_LIST];   /* the first of them */
};

struct hs_sample {
	uint32_t t_ms;         /* since the point started */
	uint32_t connected;    /* connections reported so far */
	uint32_t srv_rss_kb;
	uint32_t srv_threads;
	struct hs_res res;
	uint32_t wire;         /* 1 + index in the point's wire series, 0: not read */
};

struct hs_series {
	struct hs_sample *s;
	size_t n, cap;
};

/* Port counters read during a point, at a lower rate than the samples. */
struct hs_wire_series {
	struct hs_wire *w;
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
/*
 * Reads the port counters of the topology's devices now (~210 us per port).
 * 0, or -1 (w->valid false).
 */
int hs_wire_read(struct hs_sampler *s, struct hs_wire *w);
const struct hs_wire_names *hs_wire_names(const struct hs_sampler *s);
/*
 * The QPs of pids (sorted) on the server and client devices, counted per
 * state; those in 'states' (a set of 1u << RQP_*, 0: any) listed. Bounded by
 * timeout_ms per device. 0, or -1 (q->valid false).
 */
int hs_qp_scan(struct hs_sampler *s, const uint32_t *pids, int npids, uint32_t states,
	       struct hs_qps *q, int timeout_ms);

/* Appends one sample; bounded (older points stay, later ones are dropped past 1M). */
int hs_series_add(struct hs_series *se, const struct hs_sample *x);
void hs_series_free(struct hs_series *se);
/* Appends one reading, bounded like the samples; its index + 1 for hs_sample.wire, or 0. */
uint32_t hs_wire_series_add(struct hs_wire_series *ws, const struct hs_wire *w);
void hs_wire_series_free(struct hs_wire_series *ws);
/* Resource names for TAP and JSON. */
const char *hs_res_name(int i);

#endif
