/* SPDX-License-Identifier: MIT */
/*
 * repeat: one load point run --repeat R times (R > 1), for run, ramp and storm.
 *
 * TAP: the point's subtest holds one nested subtest per repeat (pointtap.h,
 * each with its own checks and figures), then every figure as min/median/max
 * over the repeats (fig.h: fig_tap_spread) and one check, "P of R repeats
 * passed", that fails unless all did. JSON: one point object whose figures are
 * the medians; "repeat" holds n, passed, each repeat's verdict, min and max
 * (fig_json_spread), and which repeat's records (failures, resources, QPs,
 * series) the object shows: the first that did not pass, else the last.
 *
 * May use harness/point/point.h, harness/figures/ (fig.h, json.h, pointtap.h) and tap/.
 */
#ifndef RDC_HARNESS_REPEAT_H
#define RDC_HARNESS_REPEAT_H

#include <jansson.h>

#include "harness/figures/fig.h"
#include "harness/point/point.h"

/*
 * Every row of fig_table over pts[0..n) (n <= HP_MAX_REPEAT), text rows from
 * pts[shown]. The median is the nearest-rank one (the lower middle when n is
 * even), so it is always a measured value. Returns a malloc'd array of
 * fig_nrows() (text values point into pts, which must outlive it), or NULL
 * without memory.
 */
struct fig_agg *rpt_aggregate(const struct pt_point *const *pts, int n, int shown,
			      const struct hp_plan *p);

/*
 * Runs the point c->plan->repeat times into TAP (c->tap) and appends its JSON
 * object to points. Returns 0, or -1 when a repeat was aborted (the rest are
 * not run).
 */
int rpt_point(struct pt_ctx *c, long clients, const char *label, json_t *points);

#endif
