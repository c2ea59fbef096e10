// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "common/proto.h"
#include "harness/sample/stats.h"

static int stats_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank: the smallest value with at least q of the samples at or below it */
static size_t stats_rank(uint64_t n, double q)
{
	uint64_t r = (uint64_t)(q * (double)n + 0.999999);

	return r ? r - 1 : 0;
}

void stats_exact(uint32_t *v, size_t n, struct stats_summary *s)
{
	double sum = 0;

	*s = (struct stats_summary){ .n = n };
	if (!n)
		return;
	qsort(v, n, sizeof(*v), stats_cmp);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->avg = sum / (double)n;
	s->p50 = v[stats_rank(n, 0.50)];
	s->p99 = v[stats_rank(n, 0.99)];
	s->max = v[n - 1];
}

static uint64_t stats_mid(unsigned b)
{
	uint64_t lo = proto_hist_value(b), hi = proto_hist_value(b + 1);

	return b + 1 >= PROTO_HIST_BUCKETS ? lo : lo + (hi - lo) / 2;
}

static uint64_t stats_at(const uint64_t *hist, unsigned nb, uint64_t rank)
{
	uint64_t c = 0;

	for (unsigned b = 0; b < nb; b++) {
		c += hist[b];
		if (c > rank)
			return stats_mid(b);
	}
	return 0;
}

void stats_hist(const uint64_t *hist, unsigned nb, struct stats_summary *s)
{
	double sum = 0;
	uint64_t n = 0;

	*s = (struct stats_summary){ 0 };
	for (unsigned b = 0; b < nb; b++) {
		n += hist[b];
		sum += (double)hist[b] * (double)stats_mid(b);
		if (hist[b])
			s->max = stats_mid(b);
	}
	s->n = n;
	if (!n)
		return;
	s->avg = sum / (double)n;
	s->p50 = stats_at(hist, nb, stats_rank(n, 0.50));
	s->p99 = stats_at(hist, nb, stats_rank(n, 0.99));
}
