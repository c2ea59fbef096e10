/* SPDX-License-Identifier: MIT */
/* pointtap: a load point as a TAP subtest, its figures from harness/figures/fig.h. */
#ifndef RDC_HARNESS_POINTTAP_H
#define RDC_HARNESS_POINTTAP_H

#include "harness/point/point.h"

/*
 * Writes the point as a TAP subtest plus its parent result line "desc".
 * 'probe': a step of a limit search, where failing to connect is the finding
 * (XFAIL), not a defect.
 */
enum tap_res ptap_point(struct pt_ctx *c, const struct pt_point *pt, const char *desc, bool probe);

#endif
