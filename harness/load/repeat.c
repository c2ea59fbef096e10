// SPDX-License-Identifier: MIT
/* A load point run R times: figures over the repeats, the verdict as repeats passed. */
#include <stdio.h>
#include <stdlib.h>

#include "harness/figures/fig.h"
#include "harness/figures/json.h"
#include "harness/figures/pointtap.h"
#include "harness/load/repeat.h"

struct rpt {
	struct pt_point *pts[HP_MAX_REPEAT];
	enum tap_res res[HP_MAX_REPEAT];
	int ran, passed, shown;
};

static double rpt_num(const struct fig_val *v)
{
	switch (v->type) {
	case FIG_LONG:
		return (double)v->l;
	case FIG_U64:
		return (double)v->u;
	case FIG_DBL:
		return v->d;
	case FIG_STR:
		break;
	}
	return 0;
}

static int rpt_cmp(const void *a, const void *b)
{
	double x = rpt_num(a), y = rpt_num(b);

	return (x > y) - (x < y);
}

struct fig_agg *rpt_aggregate(const struct pt_point *const *pts, int n, int shown,
			      const struct hp_plan *p)
{
	struct fig_agg *a = calloc(fig_nrows(), sizeof(*a));
	struct fig_val v[HP_MAX_REPEAT];

	if (!a)
		return NULL;
	if (n > HP_MAX_REPEAT)
		n = HP_MAX_REPEAT;
	if (shown < 0 || shown >= n)
		shown = 0;
	for (size_t i = 0; fig_table[i].name && n > 0; i++) {
		for (int k = 0; k < n; k++)
			fig_get(&fig_table[i], pts[k], p, &v[k]);
		if (v[0].type == FIG_STR) {
			a[i].min = a[i].med = a[i].max = v[shown];
			continue;
		}
		qsort(v, (size_t)n, sizeof(v[0]), rpt_cmp);
		a[i].min = v[0];
		a[i].med = v[(n - 1) / 2];
		a[i].max = v[n - 1];
	}
	return a;
}

/* The summary of the repeats: figures as min/median/max, then how many passed. */
static void rpt_tap(struct pt_ctx *c, const struct rpt *r, const struct fig_agg *a, int n)
{
	struct tap *t = c->tap;

	tap_kv(t, "repeats", "%d ran=%d passed=%d figures=min/median/max", n, r->ran, r->passed);
	for (int line = FIG_L_PLAN; a && line <= FIG_L_QP; line++)
		fig_tap_spread(t, (enum fig_line)line, a, c->plan);
	tap_result(t, r->passed == n ? TAP_PASS : TAP_FAIL, NULL,
		   "%d of %d repeats passed", r->passed, n);
}

static json_t *rpt_json(struct pt_ctx *c, const struct rpt *r, const struct fig_agg *a, int n,
			enum tap_res res)
{
	json_t *o, *rep, *verdicts = json_array();

	if (!r->ran)
		return NULL;
	o = js_point(r->pts[r->shown], c->plan, tap_res_name(res));
	for (int k = 0; k < r->ran; k++)
		json_array_append_new(verdicts, json_string(tap_res_name(r->res[k])));
	rep = json_pack("{s:i, s:i, s:i, s:o, s:i}", "n", n, "ran", r->ran, "passed", r->passed,
			"verdicts", verdicts, "shown", r->shown + 1);
	json_object_set_new(o, "repeat", rep);
	if (a)
		fig_json_spread(o, a, c->plan);
	json_object_set_new(o, "ok", json_boolean(r->passed == n));
	return o;
}

int rpt_point(struct pt_ctx *c, long clients, const char *label, json_t *points)
{
	int n = (int)c->plan->repeat, rc = 0;
	struct rpt *r = calloc(1, sizeof(*r));
	struct fig_agg *a = NULL;
	enum tap_res res;
	char desc[160];
	json_t *o;

	if (!r)
		return -1;
	r->shown = -1;
	tap_sub_begin(c->tap);
	tap_plan(c->tap, n + 1);
	for (int k = 0; k < n && !rc && !c->aborted; k++) {
		struct pt_point *pt = calloc(1, sizeof(*pt));

		if (!pt) {
			rc = -1;
			break;
		}
		fprintf(stderr, "rdmacap: %s: %ld clients, repeat %d of %d\n", label, clients, k + 1, n);
		rc = pt_run(c, clients, pt);
		snprintf(desc, sizeof(desc), "repeat %d/%d clients=%ld connected=%ld success=%.2f%%",
			 k + 1, n, clients, pt->connected, pt->success_pct);
		r->pts[r->ran] = pt;
		r->res[r->ran] = ptap_point(c, pt, desc, false);
		if (r->res[r->ran] == TAP_PASS)
			r->passed++;
		else if (r->shown < 0)
			r->shown = r->ran;
		r->ran++;
	}
	if (r->shown < 0)
		r->shown = r->ran ? r->ran - 1 : 0;
	if (r->ran)
		a = rpt_aggregate((const struct pt_point *const *)r->pts, r->ran, r->shown, c->plan);
	rpt_tap(c, r, a, n);
	res = tap_sub_end(c->tap, "%s clients=%ld repeats=%d passed=%d/%d", label, clients, n,
			  r->passed, n);
	o = rpt_json(c, r, a, n, res);
	if (o)
		json_array_append_new(points, o);
	free(a);
	for (int k = 0; k < r->ran; k++) {
		pt_free(r->pts[k]);
		free(r->pts[k]);
	}
	free(r);
	return rc;
}
