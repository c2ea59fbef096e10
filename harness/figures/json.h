/* SPDX-License-Identifier: MIT */
/* json: the JSON side file of a run, built with jansson. */
#ifndef RDC_HARNESS_JSON_H
#define RDC_HARNESS_JSON_H

#include <jansson.h>

#include "harness/cli/plan.h"
#include "harness/point/point.h"

json_t *js_plan(const struct hp_plan *p);
/* A point: its figures (harness/figures/fig.h), resources, failures, verdict and series. */
json_t *js_point(const struct pt_point *pt, const struct hp_plan *plan, const char *verdict);
/* Writes doc to path atomically (temp file + rename), and its sha256sum(1) line
 * to path.sha256 the same way. 0 or -1 with a message. */
int js_write(json_t *doc, const char *path);

#endif
