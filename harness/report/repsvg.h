/* SPDX-License-Identifier: MIT */
/* repsvg: rdmacap report's SVG chart of a set of rows (and an older set beside it). */
#ifndef RDC_HARNESS_REPSVG_H
#define RDC_HARNESS_REPSVG_H

#include <stdio.h>

#include "harness/report/reprow.h"

/* The chart of s on f; old (or NULL): --baseline's rows, drawn dashed beside. */
void rsv_draw(FILE *f, const struct rp_set *s, const struct rp_set *old);

#endif
