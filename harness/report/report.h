/* SPDX-License-Identifier: MIT */
/* report: result JSON files -> Markdown table (stdout or --md) and SVG chart (--svg). */
#ifndef RDC_HARNESS_REPORT_H
#define RDC_HARNESS_REPORT_H

#include "harness/cli/plan.h"

/* 0, or 1 after printing why (unreadable file, not an rdmacap result, ...). */
int rp_main(const struct hp_plan *p);

#endif
