// SPDX-License-Identifier: MIT
/*
 * Unit tests of the figures over repeats (harness/load/repeat.h, fig.h): min /
 * median / max per figure, the median a measured value (the lower middle for an
 * even count), text from the shown repeat, and the same numbers in TAP and in
 * JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/figures/fig.h"
#include "harness/load/repeat.h"
#include "tap/tap.h"

static struct tap t;
static struct pt_point pts[4];

static const struct fig_agg *t_row(const struct fig_agg *a, const char *name)
{
	for (size_t i = 0; i < fig_nrows(); i++)
		if (!strcmp(fig_table[i].name, name) && fig_table[i].json)
			return &a[i];
	return NULL;
}

/* TAP line 'line' of the spread, into buf. */
static void t_tap_line(const struct fig_agg *a, const struct hp_plan *p, enum fig_line line,
		       char *buf, size_t len)
{
	FILE *m = fmemopen(buf, len, "w");
	struct tap mt;

	memset(buf, 0, len);
	if (!m)
		return;
	tap_init(&mt, m);
	fig_tap_spread(&mt, line, a, p);
	fclose(m);
}

static void t_spread(void)
{
	const struct pt_point *pp[4] = { &pts[0], &pts[1], &pts[2], &pts[3] };
	struct hp_plan p = { .cmd = HP_RUN, .transport = OPT_TR_TCP, .repeat = 3 };
	const uint64_t p50[4] = { 300000, 100000, 200000, 50000 };
	const long conn[4] = { 10, 8, 9, 10 };
	const struct fig_agg *r;
	struct fig_agg *a;
	char buf[2048];
	json_t *o;

	for (int k = 0; k < 4; k++) {
		memset(&pts[k], 0, sizeof(pts[k]));
		pts[k].clients = 10;
		pts[k].connected = conn[k];
		pts[k].lat_ns.p50 = p50[k];
		snprintf(pts[k].cause, sizeof(pts[k].cause), "cause of repeat %d", k + 1);
	}
	a = rpt_aggregate(pp, 3, 1, &p);
	if (!a) {
		tap_bail(&t, "rpt_aggregate: no memory");
		exit(1);
	}
	r = t_row(a, "lat_us_p50");
	tap_ok(&t, r && r->min.d == 100.0 && r->med.d == 200.0 && r->max.d == 300.0,
	       "3 repeats: lat_us_p50 min 100 / median 200 / max 300 (unsorted input)");
	r = t_row(a, "connected");
	tap_ok(&t, r && r->min.l == 8 && r->med.l == 9 && r->max.l == 10,
	       "3 repeats: connected 8 / 9 / 10, as integers");
	r = t_row(a, "cause");
	tap_ok(&t, r && !strcmp(r->med.s, "cause of repeat 2") && !strcmp(r->min.s, r->med.s),
	       "text figures are the shown repeat's");

	t_tap_line(a, &p, FIG_L_LAT, buf, sizeof(buf));
	tap_ok(&t, strstr(buf, "lat_us_p50=100.0/200.0/300.0") != NULL,
	       "TAP: lat_us_p50=min/median/max");
	t_tap_line(a, &p, FIG_L_PLAN, buf, sizeof(buf));
	tap_ok(&t, strstr(buf, "# clients=10 ") != NULL,
	       "TAP: the point's settings print once, not as a spread");

	o = json_object();
	fig_json_spread(o, a, &p);
	tap_ok(&t, fig_json_num(o, "lat_us_p50") == 200.0 &&
			   fig_json_num(json_object_get(json_object_get(o, "repeat"), "min"),
					"lat_us_p50") == 100.0 &&
			   fig_json_num(json_object_get(json_object_get(o, "repeat"), "max"),
					"lat_us_p50") == 300.0,
	       "JSON: the median at the figure's path, min and max under repeat");
	json_decref(o);
	free(a);

	/* an even count: the lower middle, a value some repeat measured */
	a = rpt_aggregate(pp, 4, 0, &p);
	r = a ? t_row(a, "lat_us_p50") : NULL;
	tap_ok(&t, r && r->min.d == 50.0 && r->med.d == 100.0 && r->max.d == 300.0,
	       "4 repeats: the median is the lower middle (100 of 50,100,200,300)");
	free(a);

	/* one repeat: all three are its value */
	a = rpt_aggregate(pp, 1, 0, &p);
	r = a ? t_row(a, "lat_us_p50") : NULL;
	tap_ok(&t, r && r->min.d == 300.0 && r->med.d == 300.0 && r->max.d == 300.0,
	       "1 repeat: min = median = max");
	free(a);
}

/* a storm's figures in its JSON, as TAP prints them; no storm object elsewhere */
static void t_storm(void)
{
	struct hp_plan p = { .cmd = HP_STORM, .transport = OPT_TR_RC };
	struct pt_point pt = { .clients = 400, .connected = 400, .t_connect_s = 0.5,
			       .lat_ns = { .p50 = 2000, .p99 = 9000, .max = 12000 } };
	json_t *o = json_object(), *st;
	char buf[1024];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	struct tap mt;

	memset(buf, 0, sizeof(buf));
	if (!m)
		tap_bail(&t, "fmemopen: %s", strerror(errno));
	tap_init(&mt, m);
	fig_tap(&mt, FIG_L_STORM_SETUP, &pt, &p);
	fig_tap(&mt, FIG_L_STORM_FIRST, &pt, &p);
	fclose(m);
	fig_json(o, &pt, &p);
	st = json_object_get(o, FIG_JSON_STORM);
	tap_ok(&t, strstr(buf, "setup_rate_cps=800 ") && strstr(buf, "first_msg_us_p99=9.0 ") &&
		   fig_json_num(o, "setup_rate_cps") == 800.0 &&
		   fig_json_num(o, "t_all_connected_s") == 0.5 &&
		   fig_json_num(o, "first_msg_us_p50") == 2.0 &&
		   fig_json_num(o, "first_msg_us_p99") == 9.0 &&
		   fig_json_num(o, "first_msg_us_max") == 12.0 &&
		   fig_json_num(o, "first_msg_p99_over_p50") == 4.5 &&
		   json_number_value(json_object_get(st, "setup_rate_cps")) == 800.0,
	       "storm: setup_rate_cps and first_msg_* in JSON as in TAP (%s)", buf);
	json_decref(o);
	o = json_object();
	p.cmd = HP_RUN;
	fig_json(o, &pt, &p);
	tap_ok(&t, !json_object_get(o, FIG_JSON_STORM) && json_object_get(o, "traffic"),
	       "run: no storm object in the point's JSON");
	json_decref(o);
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, 10);
	t_storm();
	t_spread();
	tap_totals(&t);
	return tap_exit_code(&t);
}
