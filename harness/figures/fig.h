/* SPDX-License-Identifier: MIT */
/*
 * fig: the table of a load point's figures. Each row names one figure, its
 * unit, its TAP key and the "# " line it is printed on, its path in the point's
 * JSON object, how to read it from struct pt_point, and when TAP shows it.
 * The TAP subtest (pointtap.c), the JSON side file (json.c) and `rdmacap
 * report` (report.c) are all produced from it: a new figure is one row of
 * fig_table in fig.c. A point run --repeat R times reports every figure as
 * min / median / max over its repeats (repeat.c aggregates them): TAP as
 * "min/median/max", JSON as the median at the figure's path and min and max
 * under "repeat". Counters with a value per resource (base/peak/after),
 * the port counters by the devices' names, the QPs by state and those named,
 * the failure records and the series are structures, not figures: json.c and
 * pointtap.c write those themselves.
 * May use harness/point/point.h, jansson and tap/.
 */
#ifndef RDC_HARNESS_FIG_H
#define RDC_HARNESS_FIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/point/point.h"
#include "tap/tap.h"

/* The "# " lines of a point's TAP, in the order pointtap.c prints them. */
enum fig_line {
	FIG_JSON_ONLY, FIG_L_PLAN, FIG_L_TIMEOUT, FIG_L_CAPPED, FIG_L_CONNECT, FIG_L_CONNECT_US,
	FIG_L_STEPS,
	FIG_L_CAUSE, FIG_L_TRAFFIC, FIG_L_LAT, FIG_L_STORM_SETUP, FIG_L_STORM_FIRST, FIG_L_SERVER,
	FIG_L_TCP, FIG_L_KMEM, FIG_L_AGENTS, FIG_L_MAPS, FIG_L_PROTO, FIG_L_QP, FIG_L_FAULT, FIG_L_FAULT_DID,
	FIG_L_CPU, FIG_L_POLL,
};

/* When TAP shows a row (JSON always has every row with a path). */
enum fig_when {
	FIG_ALWAYS = 0,
	FIG_TCP = 1 << 0,      /* --transport tcp */
	FIG_RC = 1 << 1,       /* --transport rc (or uc) */
	FIG_STORM = 1 << 2,    /* the storm command */
	FIG_NONZERO = 1 << 3,  /* the value is not 0 / not "" */
	FIG_UD = 1 << 4,       /* --transport ud */
	FIG_RDMACM = 1 << 5,   /* --cm rdmacm (with FIG_RC) */
	FIG_OOB = 1 << 6,      /* --cm oob-tls (with FIG_RC) */
	FIG_FAULT = 1 << 7,    /* --fault */
	FIG_ATOMIC = 1 << 8,   /* --op atomic */
	FIG_UC = 1 << 9,       /* --transport uc */
};

enum fig_type { FIG_LONG, FIG_U64, FIG_DBL, FIG_STR };

struct fig_val {
	enum fig_type type;
	union {
		long l;
		uint64_t u;
		double d;
		const char *s;
	};
};

struct fig {
	const char *name;     /* the figure, and its TAP key; NULL only to end the table */
	const char *unit;
	const char *what;     /* its meaning, one line (docs/figures.md) */
	enum fig_line line;   /* FIG_JSON_ONLY: not in TAP */
	const char *fmt;      /* TAP format of the value */
	const char *json;     /* dotted path in the point's JSON object, NULL: TAP only */
	unsigned when;        /* enum fig_when */
	bool jreal;           /* JSON as a real number, also when the value is integer */
	enum fig_type type;   /* with off: a field of struct pt_point */
	size_t off;
	void (*get)(const struct pt_point *pt, const struct hp_plan *p, struct fig_val *v);
};

extern const struct fig fig_table[];

/*
 * The object of a storm's own figures (setup rate, first round trips) in a
 * point's JSON: only the storm command's points have it.
 */
#define FIG_JSON_STORM "storm"


/*
 * A figure over the repeats of one point (repeat.h: rpt_aggregate): numbers
 * as min, median and max; text figures (cause, capped) the shown repeat's.
 */
struct fig_agg {
	struct fig_val min, med, max;
};

/* The rows of fig_table (the size of an array of struct fig_agg). */
size_t fig_nrows(void);

/* The value of row f in point pt. */
void fig_get(const struct fig *f, const struct pt_point *pt, const struct hp_plan *p,
	     struct fig_val *v);

/* Writes TAP line 'line' ("# k=v k=v ..."), if any row of it applies. */
void fig_tap(struct tap *t, enum fig_line line, const struct pt_point *pt, const struct hp_plan *p);

/*
 * TAP line 'line' over the repeats: each number as "min/median/max", text as
 * the shown repeat's. The point's settings (FIG_L_PLAN, FIG_L_TIMEOUT) are
 * the same in every repeat and print as one value.
 */
void fig_tap_spread(struct tap *t, enum fig_line line, const struct fig_agg *a,
		    const struct hp_plan *p);

/* Sets every row with a JSON path in point object o. */
void fig_json(json_t *o, const struct pt_point *pt, const struct hp_plan *p);

/*
 * Over the repeats: each row's median at its path in o, its min and max at the
 * same path under o.repeat.min and o.repeat.max.
 */
void fig_json_spread(json_t *o, const struct fig_agg *a, const struct hp_plan *p);

/*
 * The table as Markdown (docs/figures.md is this output, tests/docs.t checks
 * it): one row per figure with its name, unit, meaning, JSON path and when TAP
 * shows it. 0, or -1 when f could not be written.
 */
int fig_doc(FILE *f);

/* The number at a dotted path ("server.qp"), 0 when absent. */
double fig_json_at(json_t *o, const char *path);

/* The figure 'name' read back from a point's JSON object; 0 when absent. */
double fig_json_num(json_t *o, const char *name);

#endif
