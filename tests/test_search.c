// SPDX-License-Identifier: MIT
/*
 * Unit tests of harness/load/search.h on synthetic success curves: a flat curve
 * reaches --max, a cliff and a slow decline are bracketed within 2% by points
 * that met and missed the threshold, a point the memory floor ended misses, a
 * curve failing at --start has no limit, a cut point ends the search and counts
 * as neither, the budget leaves the search open, and a second threshold reuses
 * the first one's points. A search that does not end within 10 s is killed by
 * SIGALRM, a failure.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/load/search.h"
#include "tap/tap.h"

static struct tap t;

/* A curve: success % at n clients; cut_at: the point whose run a signal cuts. */
struct t_curve {
	double (*success)(long n);
	long cut_at;
	long floor_from;	/* --mem-floor ends every point from this n, 0: none */
	long measured[SRCH_MAX_POINTS];
	int nmeasured;
	long budget;	/* more() says no after this many points, 0: never */
};

static int t_measure(void *arg, long n, struct srch_point *pt)
{
	struct t_curve *cv = arg;

	cv->measured[cv->nmeasured++] = n;
	pt->success = cv->success(n);
	pt->cut = n == cv->cut_at;
	pt->floor = cv->floor_from && n >= cv->floor_from;
	snprintf(pt->cause, sizeof(pt->cause), "%s", pt->success < 100 ? "ENOMEM" : "");
	return 0;
}

static bool t_more(void *arg)
{
	struct t_curve *cv = arg;

	return !cv->budget || cv->nmeasured < cv->budget;
}

/* Where a search stands at one threshold. */
struct t_res {
	enum srch_end end;
	long lo, hi;
	const struct srch_point *miss;
};

/* Searches cv from scratch at threshold th into *r. */
static void t_limit(struct srch *s, struct t_curve *cv, long start, long max, long steps,
		    double th, struct t_res *r)
{
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->max = max;
	s->steps = steps;
	s->measure = t_measure;
	s->more = t_more;
	s->arg = cv;
	srch_run(s, th);
	r->end = srch_result(s, th, &r->lo, &r->hi, &r->miss);
}

/* Goes on with threshold th over the points s holds. */
static void t_again(struct srch *s, double th, struct t_res *r)
{
	srch_run(s, th);
	r->end = srch_result(s, th, &r->lo, &r->hi, &r->miss);
}

static bool t_measured_twice(const struct t_curve *cv)
{
	for (int i = 0; i < cv->nmeasured; i++)
		for (int j = i + 1; j < cv->nmeasured; j++)
			if (cv->measured[i] == cv->measured[j])
				return true;
	return false;
}

static double t_flat(long n)
{
	(void)n;
	return 100;
}

/* every client up to 21802 succeeds, none above (one process's map count) */
static double t_cliff(long n)
{
	return n <= 21802 ? 100 : 100.0 * 21802 / (double)n;
}

/* a slow decline: 100% to 1000, then 1% less per 200 clients; 95% at 2000 */
static double t_decline(long n)
{
	return n <= 1000 ? 100 : 100 - (double)(n - 1000) / 200;
}

static double t_none(long n)
{
	(void)n;
	return 0;
}

static void t_flat_curve(void)
{
	struct t_curve cv = { .success = t_flat };
	struct srch s;
	struct t_res r;

	t_limit(&s, &cv, 10, 5000, 100, 100, &r);
	tap_ok(&t, r.end == SRCH_MAX && r.lo == 5000 && !r.hi && !r.miss,
	       "flat: --max reached, no failure (lo=%ld hi=%ld)", r.lo, r.hi);
	tap_ok(&t, cv.nmeasured == 10 && cv.measured[0] == 10 && cv.measured[8] == 2560 &&
		   cv.measured[9] == 5000,
	       "flat: doubles from --start, the last point is --max (%d points)", cv.nmeasured);
}

static void t_cliff_curve(void)
{
	struct t_curve cv = { .success = t_cliff };
	struct srch s;
	struct t_res r;

	t_limit(&s, &cv, 100, 100000, 100, 100, &r);
	tap_ok(&t, r.end == SRCH_FOUND && r.lo <= 21802 && r.hi > 21802 &&
		   r.hi - r.lo <= r.lo / 50 && r.miss && r.miss->n == r.hi &&
		   !strcmp(r.miss->cause, "ENOMEM"),
	       "cliff at 21802: bracketed within 2%% (lo=%ld hi=%ld)", r.lo, r.hi);
	tap_ok(&t, !t_measured_twice(&cv), "cliff: no point measured twice (%d points)",
	       cv.nmeasured);
}

static void t_decline_curve(void)
{
	struct t_curve cv = { .success = t_decline };
	struct t_res r100, r95;
	struct srch s;
	int n100;

	t_limit(&s, &cv, 10, 100000, 100, 100, &r100);
	n100 = cv.nmeasured;
	t_again(&s, 95, &r95);
	tap_ok(&t, r95.end == SRCH_FOUND && r95.lo <= 2000 && r95.hi > 2000 &&
		   r95.hi - r95.lo <= r95.lo / 50 && t_decline(r95.lo) >= 95 &&
		   t_decline(r95.hi) < 95,
	       "decline crosses 95%% at 2000: bracketed within 2%% (lo=%ld hi=%ld)", r95.lo,
	       r95.hi);
	tap_ok(&t, r100.lo <= 1000 && r100.hi > 1000 && r100.hi - r100.lo <= r100.lo / 50,
	       "decline: 100%% ends at 1000 (lo=%ld hi=%ld)", r100.lo, r100.hi);
	tap_ok(&t, !t_measured_twice(&cv) && cv.nmeasured > n100,
	       "95%% reuses the 100%% points: %d then %d points, none twice", n100, cv.nmeasured);
}

static void t_floor(void)
{
	struct t_curve cv = { .success = t_flat, .floor_from = 3000 };
	struct srch s;
	struct t_res r;

	t_limit(&s, &cv, 10, 100000, 100, 95, &r);
	tap_ok(&t, r.end == SRCH_FOUND && r.lo < 3000 && r.hi >= 3000 && r.hi - r.lo <= r.lo / 50,
	       "a point --mem-floor ended misses every threshold (lo=%ld hi=%ld)", r.lo, r.hi);
}

static void t_fail_at_start(void)
{
	struct t_curve cv = { .success = t_none };
	struct srch s;
	struct t_res r;

	t_limit(&s, &cv, 10, 1000, 100, 100, &r);
	tap_ok(&t, r.end == SRCH_FOUND && r.lo == 0 && r.hi == 1 && cv.measured[0] == 10,
	       "fails at --start: bisected down to no client met it (lo=%ld hi=%ld)", r.lo, r.hi);
}

static void t_cut(void)
{
	struct t_curve cv = { .success = t_flat, .cut_at = 80 };
	struct srch s;
	struct t_res r;

	t_limit(&s, &cv, 10, 1000, 100, 100, &r);
	t_again(&s, 95, &r);
	t_again(&s, 100, &r);
	tap_ok(&t, r.end == SRCH_OPEN && r.lo == 40 && !r.hi && cv.nmeasured == 4 && s.ran == 4 &&
		   s.npts == 3,
	       "a cut point is no limit and ends the search (lo=%ld hi=%ld, %d points)", r.lo, r.hi,
	       cv.nmeasured);
}

static void t_budget(void)
{
	struct t_curve cv = { .success = t_cliff };
	struct t_curve cw = { .success = t_cliff, .budget = 3 };
	struct srch s;
	struct t_res r;

	t_limit(&s, &cv, 100, 100000, 5, 100, &r);
	tap_ok(&t, r.end == SRCH_OPEN && r.lo == 1600 && !r.hi && cv.nmeasured == 5,
	       "--steps 5 ends the search open at 1600 (%d points)", cv.nmeasured);
	t_limit(&s, &cw, 100, 100000, 100, 100, &r);
	tap_ok(&t, r.end == SRCH_OPEN && r.lo == 400 && cw.nmeasured == 3,
	       "the caller's budget ends the search open at 400 (%d points)", cw.nmeasured);
}

int main(void)
{
	/* a search that never ends (a midpoint it measured before) fails, not hangs:
	 * all of these take well under 1 s */
	alarm(10);
	tap_init(&t, stdout);
	tap_plan(&t, 12);
	t_flat_curve();
	t_cliff_curve();
	t_decline_curve();
	t_floor();
	t_fail_at_start();
	t_cut();
	t_budget();
	tap_totals(&t);
	return tap_exit_code(&t);
}
