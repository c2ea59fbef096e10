/* SPDX-License-Identifier: MIT */
/*
 * sample: the sampler behind every load point. It reads the kernel's RDMA
 * resource counters (RDMA netlink, rdma/rnl.h) for the topology's rxe
 * devices, and the server agent's /proc entries, and keeps a time series;
 * over the same socket, the devices' port statistic counters (rdma/rstat.h)
 * and the run's QPs by state (rdma/rqp.h). One thread: calls never overlap.
 * A tcp point's wire is the namespaces' TCP counters instead (tcpw.h).
 */
#ifndef RDC_HARNESS_SAMPLE_H
#define RDC_HARNESS_SAMPLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "netns/netns.h"
#include "rdma/rqp.h"
#include "rdma/rstat.h"

/* pd cq qp cm_id mr ctx srq, in rdma/rnl.h's order */
#define SMP_NRES 7

struct smp_res {
	bool valid;
	uint64_t srv[SMP_NRES]; /* the server's device */
	uint64_t cli[SMP_NRES]; /* every client device (loop: the same device, left 0) */
};

/*
 * The wire's own counters (rdma/rstat.h): per side, the sum over its devices'
 * ports of each counter the devices offer. The names are the devices' own, in
 * the order first seen, and the same for every reading of one sampler: srv[i]
 * and cli[i] are the counter smp_wire_names(s)->name[i].
 */
#define SMP_NWIRE 32

struct smp_wire_names {
	int n;
	char name[SMP_NWIRE][RSTAT_NAME];
};

struct smp_wire {
	bool valid;
	uint64_t srv[SMP_NWIRE];
	uint64_t cli[SMP_NWIRE]; /* every client device (loop: the same device, left 0) */
};

/* The run's QPs on the server and client devices (rdma/rqp.h), by state. */
#define SMP_QP_LIST 8

struct smp_qps {
	bool valid;
	uint32_t owned;                /* QPs of the given pids */
	uint32_t state[RQP_NSTATES];
	uint32_t matched;              /* of those, in the asked states */
	int listed;
	struct rqp list[SMP_QP_LIST];   /* the first of them */
};

struct smp_sample {
	uint32_t t_ms;         /* since the point started */
	uint32_t connected;    /* connections reported so far */
	uint32_t srv_rss_kb;
	uint32_t srv_threads;
	struct smp_res res;
	uint32_t wire;         /* 1 + index in the point's wire series, 0: not read */
};

struct smp_series {
	struct smp_sample *s;
	size_t n, cap;
};

/* Port counters read during a point, at a lower rate than the samples. */
struct smp_wire_series {
	struct smp_wire *w;
	size_t n, cap;
};

struct smp_sampler;

/*
 * Opens the sampler for topology t. RDMA counters are read only when the
 * topology has rxe devices; 'why' says why they are not available otherwise.
 * tcp: the wire is the kernel's TCP counters of t's namespaces (tcpw.h), not
 * the devices' port counters.
 */
struct smp_sampler *smp_open(const struct nn_topo *t, bool tcp, char *why, size_t len);
void smp_close(struct smp_sampler *s);
/* True when RDMA counters can be read. */
bool smp_has_res(const struct smp_sampler *s);
/* True when the wire's counters can be read (smp_wire_read). */
bool smp_has_wire(const struct smp_sampler *s);
/* Reads the RDMA counters now. 0, or -1 (r->valid false). */
int smp_res_read(struct smp_sampler *s, struct smp_res *r);
/*
 * Reads the port counters of the topology's devices now (~210 us per port),
 * or a tcp sampler's TCP counters. 0, or -1 (w->valid false).
 */
int smp_wire_read(struct smp_sampler *s, struct smp_wire *w);
const struct smp_wire_names *smp_wire_names(const struct smp_sampler *s);
/*
 * The QPs of pids (sorted) on the server and client devices, counted per
 * state; those in 'states' (a set of 1u << RQP_*, 0: any) listed. Bounded by
 * timeout_ms per device. 0, or -1 (q->valid false).
 */
int smp_qp_scan(struct smp_sampler *s, const uint32_t *pids, int npids, uint32_t states,
	       struct smp_qps *q, int timeout_ms);

/* Appends one sample; bounded (older points stay, later ones are dropped past 1M). */
int smp_series_add(struct smp_series *se, const struct smp_sample *x);
void smp_series_free(struct smp_series *se);
/* Appends one reading, bounded like the samples; its index + 1 for smp_sample.wire, or 0. */
uint32_t smp_wire_series_add(struct smp_wire_series *ws, const struct smp_wire *w);
void smp_wire_series_free(struct smp_wire_series *ws);
/* Resource names for TAP and JSON. */
const char *smp_res_name(int i);
/* One side's counters (SMP_NRES of them) as the JSON object {"pd": n, "cq": n, ...}. */
json_t *smp_res_json(const uint64_t *v);

#endif
