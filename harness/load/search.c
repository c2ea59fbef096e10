// SPDX-License-Identifier: MIT
/* The limit search: grow by doubling, then bisect; see harness/load/search.h. */
#include "harness/load/search.h"

static const struct srch_point *srch_find(const struct srch *s, long n)
{
	for (int i = 0; i < s->npts; i++)
		if (s->pts[i].n == n)
			return &s->pts[i];
	return NULL;
}

/*
 * A point met the threshold when enough clients succeeded and memory did not
 * end it: the floor may stop a point whose finished clients were all fine.
 */
static bool srch_met(const struct srch_point *p, double th)
{
	return p->success >= th && !p->floor;
}

/* Largest n that met th, and the smallest n above it that did not (0 if none). */
static void srch_bounds(const struct srch *s, double th, long *lo, long *hi)
{
	*lo = 0;
	*hi = 0;
	for (int i = 0; i < s->npts; i++)
		if (srch_met(&s->pts[i], th) && s->pts[i].n > *lo)
			*lo = s->pts[i].n;
	for (int i = 0; i < s->npts; i++)
		if (!srch_met(&s->pts[i], th) && s->pts[i].n > *lo &&
		    (!*hi || s->pts[i].n < *hi))
			*hi = s->pts[i].n;
}

static bool srch_budget(const struct srch *s)
{
	return !s->stopped && s->ran < s->steps && (!s->more || s->more(s->arg));
}

/* Measures n unless a threshold before measured it. 0, or -1: stop. */
static int srch_probe(struct srch *s, long n)
{
	struct srch_point pt = { .n = n };
	int rc;

	if (srch_find(s, n))
		return 0;
	rc = s->measure(s->arg, n, &pt);
	s->ran++;
	pt.n = n;
	if (pt.cut)
		s->stopped = true;
	else if (s->npts < SRCH_MAX_POINTS)
		s->pts[s->npts++] = pt;
	return rc;
}

int srch_run(struct srch *s, double th)
{
	long lo, hi, n;

	srch_bounds(s, th, &lo, &hi);
	/* grow: double from the best point so far until one misses the threshold */
	n = lo ? lo * 2 : s->start;
	while (!hi && srch_budget(s)) {
		if (n > s->max)
			n = s->max;
		if (srch_find(s, n) && n == s->max)
			break;
		if (srch_probe(s, n))
			return -1;
		srch_bounds(s, th, &lo, &hi);
		if (n == s->max)
			break;
		n *= 2;
	}
	/* bisect to 2% of the limit (or 1 client) */
	while (hi && hi - lo > (lo / 50 > 1 ? lo / 50 : 1) && srch_budget(s)) {
		n = lo + (hi - lo) / 2;
		if (srch_probe(s, n))
			return -1;
		srch_bounds(s, th, &lo, &hi);
	}
	return 0;
}

enum srch_end srch_result(const struct srch *s, double th, long *lo, long *hi,
			  const struct srch_point **miss)
{
	srch_bounds(s, th, lo, hi);
	*miss = *hi ? srch_find(s, *hi) : NULL;
	if (*hi)
		return SRCH_FOUND;
	return *lo >= s->max ? SRCH_MAX : SRCH_OPEN;
}
