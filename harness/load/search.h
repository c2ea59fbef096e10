/* SPDX-License-Identifier: MIT */
/*
 * search: `rdmacap limit`'s search for the largest N whose point meets a
 * success threshold. It grows by doubling from --start (then from the best
 * point so far) until a point misses the threshold or --max is met, then
 * bisects between the best point that met it and the smallest above it that
 * did not, until they are 2% of the limit apart (or 1 client). A point is
 * measured once and reused by every threshold. A point cut by SIGTERM or ^C
 * neither met nor missed a threshold: it is not kept, and the search ends.
 *
 * Pure: points are measured by the caller's callback, the budget is the
 * caller's (--steps, here; wall time and ^C, through more()). Never prints.
 * Uses libc only.
 */
#ifndef RDC_HARNESS_SEARCH_H
#define RDC_HARNESS_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#define SRCH_MAX_POINTS 256

/* What one point measured, filled by the callback. */
struct srch_point {
	long n;
	double success;	/* % of the clients that succeeded */
	bool floor;	/* ended by --mem-floor: a miss at any threshold */
	bool cut;	/* ended by SIGTERM or ^C: kept by no threshold */
	char cause[1024];	/* why clients failed, "" if not identified */
};

/* Measures a point of n clients into *pt (n set by the search). 0, or -1: stop. */
typedef int (*srch_measure_fn)(void *arg, long n, struct srch_point *pt);
/* Whether the caller's budget (wall time, ^C) allows another point. */
typedef bool (*srch_more_fn)(void *arg);

struct srch {
	long start, max;	/* --start, --max */
	long steps;		/* --steps: points measured at most */
	srch_measure_fn measure;
	srch_more_fn more;	/* NULL: no budget beyond steps */
	void *arg;
	/* filled by srch_run */
	struct srch_point pts[SRCH_MAX_POINTS];
	int npts;
	long ran;		/* points measured, cut ones included */
	bool stopped;		/* a point was cut: no more points */
};

/*
 * Searches for the limit at threshold th (%), measuring only points no earlier
 * call measured. 0, or -1 when measure() returned -1 (a later call may go on).
 */
int srch_run(struct srch *s, double th);

/* Where the search stands at threshold th. */
enum srch_end {
	SRCH_FOUND,	/* a point above lo missed th: hi (within 2% unless the budget ended) */
	SRCH_MAX,	/* lo met th at --max, nothing missed it */
	SRCH_OPEN,	/* the budget ended the search before either */
};

/*
 * The largest n that met th (lo, 0 if none) and the smallest above it that did
 * not (hi, 0 if none), with that point (*miss, NULL if none).
 */
enum srch_end srch_result(const struct srch *s, double th, long *lo, long *hi,
			  const struct srch_point **miss);

#endif
