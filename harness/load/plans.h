/* SPDX-License-Identifier: MIT */
/* plans: run, ramp and limit over one topology. */
#ifndef RDC_HARNESS_PLANS_H
#define RDC_HARNESS_PLANS_H

#include <jansson.h>

#include "harness/point/point.h"

/*
 * Brings up c->topo, runs the plan's points into TAP (c->tap) and doc, tears the
 * topology down. A missing capability is a whole-run SKIP. -1 on a fatal error.
 */
int pl_load(struct pt_ctx *c, json_t *doc);

#endif
