/* SPDX-License-Identifier: MIT */
/* stats: percentiles over exact samples and over merged proto histograms. */
#ifndef RDC_HARNESS_STATS_H
#define RDC_HARNESS_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	uint64_t n;
	double avg;
	uint64_t p50, p99, max;
};

/* Exact percentiles (nearest-rank) of v[0..n); v is sorted in place. */
void stats_exact(uint32_t *v, size_t n, struct stats_summary *s);
/*
 * Percentiles of a proto histogram (common/proto.h). Values are bucket midpoints,
 * so they carry the histogram's resolution (1/16 of a power of two, ~3%).
 */
void stats_hist(const uint64_t *hist, unsigned nb, struct stats_summary *s);

#endif
