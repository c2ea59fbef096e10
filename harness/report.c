// SPDX-License-Identifier: MIT
/*
 * rdmacap report: result JSON files -> a Markdown table and an SVG chart.
 *
 * The table is the seed reports' table, from measured figures: Clients,
 * Connected, Success, QPs, CQs, MRs (server device at peak, minus the baseline),
 * peak memory, latency, Status and the cause of the first failure. With
 * --baseline, each row shows the earlier run's figure beside the new one.
 * The SVG has three panels against clients (log scale): success %, QP/CQ/MR
 * counts, and latency p50/p99 on a log axis with round ticks. Every series has
 * its own colour, dash and marker, so series on the same values stay visible.
 * A point run with --repeat shows its medians, with the min..max over the
 * repeats in brackets (Markdown) and as error bars (SVG).
 *
 * Rows and series are per design, named from each file's plan (rp_design):
 * the transport, and what changes the server's resource model (--cq shared,
 * --srq, --qp-share K, --ah wc). Several designs side by side (bench/designs)
 * get one series each, and the resource panel then shows the server's device
 * objects per client (QP+CQ+MR+SRQ, and the agent's address handles for ud).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/fig.h"
#include "harness/rephosts.h"
#include "harness/report.h"

#define RP_MAX 512
#define RP_DESIGN 40 /* "rc qp-share 64 shared-cq srq" */
#define RP_NDESIGN 6 /* series styles */

struct rp_row {
	long clients, connected;
	double success, lat_p50, lat_p99, msgs_per_s;
	int nrep;                  /* repeats of the point (1 without --repeat) */
	double spread[3][2];       /* min, max over the repeats: success, p50, p99 */
	long qp, cq, mr, srq, ah, srv_rss_kb, agents_rss_kb;
	double srv_bytes_per_conn;
	bool have_res;
	char status[16];
	char cause[160];
	char transport[RP_DESIGN]; /* the design (rp_design), "rc" for the defaults */
	json_t *hosts, *total;     /* --hosts: the per-host section (rephosts.h), or NULL */
};

struct rp_set {
	struct rp_row r[RP_MAX];
	int n;
};

static long rp_int(json_t *o, const char *path)
{
	return (long)fig_json_at(o, path);
}

/* The figures a row shows with their spread, in the order of rp_row.spread. */
static const char *const rp_spread_figs[3] = { "success_pct", "lat_us_p50", "lat_us_p99" };

/* min and max over the repeats (repeat.min / repeat.max), else the value itself */
static void rp_spread(json_t *pt, struct rp_row *r)
{
	json_t *rep = json_object_get(pt, "repeat");
	json_t *lo = json_object_get(rep, "min"), *hi = json_object_get(rep, "max");

	r->nrep = json_is_object(lo) && json_is_object(hi) ?
		  (int)json_integer_value(json_object_get(rep, "ran")) : 1;
	for (int i = 0; i < 3; i++) {
		double v = fig_json_num(pt, rp_spread_figs[i]);

		r->spread[i][0] = r->nrep > 1 ? fig_json_num(lo, rp_spread_figs[i]) : v;
		r->spread[i][1] = r->nrep > 1 ? fig_json_num(hi, rp_spread_figs[i]) : v;
	}
}

/* The design of a plan: its transport, then what changes the server's resource model. */
static void rp_design(json_t *plan, char *buf, size_t len)
{
	const char *tr = json_string_value(json_object_get(plan, "transport"));
	const char *cq = json_string_value(json_object_get(plan, "cq"));
	const char *ah = json_string_value(json_object_get(plan, "ah"));
	long share = (long)json_integer_value(json_object_get(plan, "qp_share"));
	int n = snprintf(buf, len, "%s", tr ? tr : "?");

	if (!tr || !strcmp(tr, "tcp") || n < 0)
		return;
	if (share > 0)
		n += snprintf(buf + n, len - (size_t)n, " qp-share %ld", share);
	if (cq && !strcmp(cq, "shared") && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " shared-cq");
	if (json_is_true(json_object_get(plan, "srq")) && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " srq");
	if (!strcmp(tr, "ud") && ah && strcmp(ah, "cache") && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " ah %s", ah);
}

static int rp_load(const char *path, struct rp_set *s)
{
	char design[RP_DESIGN];
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je), *pts, *pt;
	size_t i;

	if (!doc) {
		fprintf(stderr, "rdmacap report: %s: %s (line %d)\n", path, je.text, je.line);
		return -1;
	}
	pts = json_object_get(doc, "points");
	if (!json_is_array(pts)) {
		fprintf(stderr, "rdmacap report: %s: no \"points\" array: not an rdmacap result\n",
			path);
		json_decref(doc);
		return -1;
	}
	rp_design(json_object_get(doc, "plan"), design, sizeof(design));
	json_array_foreach(pts, i, pt) {
		struct rp_row *r;
		json_t *peak = json_object_get(json_object_get(pt, "resources"), "peak");
		json_t *base = json_object_get(json_object_get(pt, "resources"), "base");

		if (s->n == RP_MAX)
			break;
		r = &s->r[s->n++];
		memset(r, 0, sizeof(*r));
		r->clients = (long)fig_json_num(pt, "clients");
		r->connected = (long)fig_json_num(pt, "connected");
		r->success = fig_json_num(pt, "success_pct");
		r->lat_p50 = fig_json_num(pt, "lat_us_p50");
		r->lat_p99 = fig_json_num(pt, "lat_us_p99");
		r->msgs_per_s = fig_json_num(pt, "msgs_per_s");
		r->srv_rss_kb = (long)fig_json_num(pt, "srv_rss_kb_peak");
		r->agents_rss_kb = (long)fig_json_num(pt, "agents_rss_kb");
		r->srv_bytes_per_conn = fig_json_num(pt, "srv_bytes_per_conn");
		r->ah = (long)fig_json_num(pt, "srv_ah");
		rp_spread(pt, r);
		if (json_is_object(peak) && json_is_object(base)) {
			r->have_res = true;
			r->qp = rp_int(peak, "server.qp") - rp_int(base, "server.qp");
			r->cq = rp_int(peak, "server.cq") - rp_int(base, "server.cq");
			r->mr = rp_int(peak, "server.mr") - rp_int(base, "server.mr");
			r->srq = rp_int(peak, "server.srq") - rp_int(base, "server.srq");
		}
		snprintf(r->status, sizeof(r->status), "%s",
			 json_string_value(json_object_get(pt, "verdict")) ?: "?");
		snprintf(r->cause, sizeof(r->cause), "%s",
			 json_string_value(json_object_get(pt, "cause")) ?: "");
		/* a failed point always says why, even where no call failed */
		if (!r->cause[0] && !json_is_true(json_object_get(pt, "ok")))
			snprintf(r->cause, sizeof(r->cause), "%s",
				 json_string_value(json_object_get(pt, "why")) ?: "");
		snprintf(r->transport, sizeof(r->transport), "%s", design);
		r->hosts = json_incref(json_object_get(pt, "hosts"));
		r->total = json_incref(json_object_get(pt, "total"));
	}
	json_decref(doc);
	return 0;
}

static int rp_cmp(const void *a, const void *b)
{
	const struct rp_row *x = a, *y = b;

	return (x->clients > y->clients) - (x->clients < y->clients);
}

static const struct rp_row *rp_find(const struct rp_set *s, long clients, const char *tr)
{
	for (int i = 0; i < s->n; i++)
		if (s->r[i].clients == clients && !strcmp(s->r[i].transport, tr))
			return &s->r[i];
	return NULL;
}

static void rp_cell(FILE *f, const char *fmt, double now, const double *old)
{
	fprintf(f, " ");
	fprintf(f, fmt, now);
	if (old) {
		fprintf(f, " (was ");
		fprintf(f, fmt, *old);
		fprintf(f, ")");
	}
	fprintf(f, " |");
}

/* A median with its spread over the repeats: "650.2 [606.0..704.1]". */
static void rp_cell_spread(FILE *f, const char *fmt, const struct rp_row *r, int fig, double now,
			   const double *old)
{
	if (r->nrep > 1) {
		fprintf(f, " ");
		fprintf(f, fmt, now);
		fprintf(f, " [");
		fprintf(f, fmt, r->spread[fig][0]);
		fprintf(f, "..");
		fprintf(f, fmt, r->spread[fig][1]);
		fprintf(f, "]");
		if (old) {
			fprintf(f, " (was ");
			fprintf(f, fmt, *old);
			fprintf(f, ")");
		}
		fprintf(f, " |");
		return;
	}
	rp_cell(f, fmt, now, old);
}

/* The server's device objects per connected client (0 without counters or clients). */
static double rp_objs(const struct rp_row *r)
{
	if (!r->have_res || r->connected <= 0)
		return 0;
	return (double)(r->qp + r->cq + r->mr + r->srq + r->ah) / (double)r->connected;
}

/* --hosts: each host over the points of a transport (rephosts.h) */
static void rp_md_hosts_series(FILE *f, const struct rp_set *s)
{
	json_t **h = calloc((size_t)s->n + 1, sizeof(*h));
	long *cl = calloc((size_t)s->n + 1, sizeof(*cl));

	for (int i = 0; h && cl && i < s->n; i++) {
		int n = 0;
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(s->r[j].transport, s->r[i].transport);
		if (seen)
			continue;
		for (int j = i; j < s->n; j++) {
			if (strcmp(s->r[j].transport, s->r[i].transport))
				continue;
			h[n] = s->r[j].hosts;
			cl[n++] = s->r[j].clients;
		}
		rph_series(f, s->r[i].transport, h, cl, n);
	}
	free(h);
	free(cl);
}

static void rp_md(FILE *f, const struct rp_set *s, const struct rp_set *old)
{
	fprintf(f, "| Transport | Clients | Connected | Success | QPs | CQs | MRs | Server RSS (MiB) "
		   "| Agents RSS (MiB) | Latency p50 (us) | Latency p99 (us) | msgs/s | Server B/client "
		   "| Objects/client | Status | Cause |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
	for (int i = 0; i < s->n; i++) {
		const struct rp_row *r = &s->r[i];
		const struct rp_row *o = old ? rp_find(old, r->clients, r->transport) : NULL;
		double v;

		fprintf(f, "| %s | %ld |", r->transport, r->clients);
		rp_cell(f, "%.0f", (double)r->connected, o ? &(double){ (double)o->connected } : NULL);
		rp_cell_spread(f, "%.2f%%", r, 0, r->success, o ? &o->success : NULL);
		if (r->have_res) {
			rp_cell(f, "%.0f", (double)r->qp, o && o->have_res ? &(double){ (double)o->qp } : NULL);
			rp_cell(f, "%.0f", (double)r->cq, o && o->have_res ? &(double){ (double)o->cq } : NULL);
			rp_cell(f, "%.0f", (double)r->mr, o && o->have_res ? &(double){ (double)o->mr } : NULL);
		} else {
			fprintf(f, " - | - | - |");
		}
		v = (double)r->srv_rss_kb / 1024.0;
		rp_cell(f, "%.1f", v, o ? &(double){ (double)o->srv_rss_kb / 1024.0 } : NULL);
		v = (double)r->agents_rss_kb / 1024.0;
		rp_cell(f, "%.1f", v, o ? &(double){ (double)o->agents_rss_kb / 1024.0 } : NULL);
		rp_cell_spread(f, "%.1f", r, 1, r->lat_p50, o ? &o->lat_p50 : NULL);
		rp_cell_spread(f, "%.1f", r, 2, r->lat_p99, o ? &o->lat_p99 : NULL);
		rp_cell(f, "%.0f", r->msgs_per_s, o ? &o->msgs_per_s : NULL);
		rp_cell(f, "%.0f", r->srv_bytes_per_conn,
			o ? &o->srv_bytes_per_conn : NULL);
		if (r->have_res && r->connected > 0)
			fprintf(f, " %.2f |", rp_objs(r));
		else
			fprintf(f, " - |");
		fprintf(f, " %s | %s |\n", r->status, r->cause[0] ? r->cause : "");
	}
	fprintf(f, "\nQPs/CQs/MRs: the server device's counters at peak minus the baseline "
		   "before the point (RDMA netlink); '-' where the transport uses none. "
		   "A point run with --repeat shows medians, [min..max] over its repeats. "
		   "Server B/client: the server's RSS growth over the point per connected client; "
		   "Objects/client: the server's QPs+CQs+MRs+SRQs (and ud's address handles, "
		   "counted by the agent) per connected client.\n");
	for (int i = 0; i < s->n; i++)
		rph_md(f, s->r[i].transport, s->r[i].clients, s->r[i].hosts, s->r[i].total);
	rp_md_hosts_series(f, s);
}

/* --- SVG --- */

struct rp_axis {
	double x0, x1, y0, y1;     /* data range (x in log10; y in log10 when ylog) */
	double px, py, pw, ph;     /* panel box */
	bool ylog;
};

/* How a series looks: colour, dash pattern ("" solid) and marker shape. */
struct rp_style {
	const char *color, *dash;
	int marker;                /* 0 circle, 1 square, 2 triangle, 3 diamond */
};

static double rp_x(const struct rp_axis *a, double clients)
{
	double lx = log10(clients < 1 ? 1 : clients);

	return a->px + (a->x1 > a->x0 ? (lx - a->x0) / (a->x1 - a->x0) : 0.5) * a->pw;
}

static double rp_y(const struct rp_axis *a, double v)
{
	if (a->ylog)
		v = log10(v > 0 ? v : pow(10, a->y0));
	if (v < a->y0)
		v = a->y0;
	return a->py + a->ph - (a->y1 > a->y0 ? (v - a->y0) / (a->y1 - a->y0) : 0) * a->ph;
}

/* A linear axis step of 1, 2 or 5 times a power of ten giving 3 to 6 ticks. */
static double rp_step(double span)
{
	double p = pow(10, floor(log10(span > 0 ? span : 1)) - 1), m[] = { 1, 2, 5, 10, 20, 50 };

	for (int i = 0; i < 6; i++)
		if (span / (m[i] * p) <= 6)
			return m[i] * p;
	return 100 * p;
}

static void rp_ytick(FILE *f, const struct rp_axis *a, double v, bool label)
{
	double y = rp_y(a, v);

	fprintf(f, "<line x1='%.0f' y1='%.1f' x2='%.0f' y2='%.1f' stroke='%s'/>\n", a->px, y,
		a->px + a->pw, y, label ? "#ddd" : "#f0f0f0");
	if (label)
		fprintf(f, "<text x='%.0f' y='%.1f' font-size='10' text-anchor='end'>%.*f</text>\n",
			a->px - 4, y + 3, v > 0 && v < 1 ? 1 : 0, v);
}

static void rp_frame(FILE *f, const struct rp_axis *a, const char *title, const char *ylabel)
{
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='14' font-weight='bold'>%s</text>\n", a->px,
		a->py - 8, title);
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' text-anchor='middle' "
		   "transform='rotate(-90 %.0f %.0f)'>%s</text>\n",
		a->px - 58, a->py + a->ph / 2, a->px - 58, a->py + a->ph / 2, ylabel);
	for (int d = (int)floor(a->x0); d <= (int)ceil(a->x1); d++) {
		double x = rp_x(a, pow(10, d));

		if (x < a->px - 1 || x > a->px + a->pw + 1)
			continue;
		fprintf(f, "<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='#ddd'/>\n", x, a->py,
			x, a->py + a->ph);
		fprintf(f, "<text x='%.1f' y='%.0f' font-size='10' text-anchor='middle'>%.0f</text>\n",
			x, a->py + a->ph + 14, pow(10, d));
	}
	if (a->ylog) {
		/* decades labelled, 2x and 5x labelled too while the axis spans few decades */
		for (int d = (int)a->y0; d < (int)a->y1; d++)
			for (int m = 1; m < 10; m++)
				rp_ytick(f, a, m * pow(10, d),
					 m == 1 || (a->y1 - a->y0 <= 3 && (m == 2 || m == 5)));
		rp_ytick(f, a, pow(10, a->y1), true);
	} else {
		double st = rp_step(a->y1 - a->y0);

		for (double v = ceil(a->y0 / st) * st; v <= a->y1 + st * 1e-9; v += st)
			rp_ytick(f, a, v, true);
	}
	fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#888'/>\n",
		a->px, a->py, a->pw, a->ph);
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' text-anchor='middle'>clients (log scale)</text>\n",
		a->px + a->pw / 2, a->py + a->ph + 30);
}

typedef double (*rp_get)(const struct rp_row *r);
static double g_succ(const struct rp_row *r) { return r->success; }
static double g_qp(const struct rp_row *r) { return (double)r->qp; }
static double g_cq(const struct rp_row *r) { return (double)r->cq; }
static double g_mr(const struct rp_row *r) { return (double)r->mr; }
static double g_obj(const struct rp_row *r) { return rp_objs(r); }
static double g_p50(const struct rp_row *r) { return r->lat_p50; }
static double g_p99(const struct rp_row *r) { return r->lat_p99; }

static void rp_marker(FILE *f, double x, double y, const struct rp_style *st)
{
	switch (st->marker) {
	case 1:
		fprintf(f, "<rect x='%.1f' y='%.1f' width='7' height='7' fill='none' stroke='%s' "
			   "stroke-width='1.5'/>\n", x - 3.5, y - 3.5, st->color);
		break;
	case 2:
		fprintf(f, "<polygon points='%.1f,%.1f %.1f,%.1f %.1f,%.1f' fill='%s'/>\n", x, y - 5,
			x - 4.5, y + 3.5, x + 4.5, y + 3.5, st->color);
		break;
	case 3:
		fprintf(f, "<polygon points='%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f' fill='none' "
			   "stroke='%s' stroke-width='1.5'/>\n", x, y - 5, x + 5, y, x, y + 5, x - 5, y,
			st->color);
		break;
	default:
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n", x, y, st->color);
	}
}

static bool rp_in(const struct rp_row *r, bool need_res, const char *tr)
{
	return (!need_res || r->have_res) && (!tr || !strcmp(r->transport, tr));
}

/* One series: the rows of transport tr (NULL: all), with its legend entry li. */
static void rp_line(FILE *f, const struct rp_axis *a, const struct rp_set *s, rp_get g,
		    const struct rp_style *st, bool need_res, const char *tr, const char *label, int li)
{
	double lx = a->px + a->pw + 10, ly = a->py + 10 + 16 * li;
	bool any = false;

	for (int i = 0; i < s->n; i++)
		any |= rp_in(&s->r[i], need_res, tr);
	if (!any)
		return;
	fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' stroke-dasharray='%s' "
		   "points='", st->color, st->dash[0] ? st->dash : "none");
	for (int i = 0; i < s->n; i++)
		if (rp_in(&s->r[i], need_res, tr))
			fprintf(f, "%.1f,%.1f ", rp_x(a, (double)s->r[i].clients), rp_y(a, g(&s->r[i])));
	fprintf(f, "'/>\n");
	for (int i = 0; i < s->n; i++)
		if (rp_in(&s->r[i], need_res, tr))
			rp_marker(f, rp_x(a, (double)s->r[i].clients), rp_y(a, g(&s->r[i])), st);
	fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='%s' stroke-width='2' "
		   "stroke-dasharray='%s'/>\n", lx, ly, lx + 24, ly, st->color,
		st->dash[0] ? st->dash : "none");
	rp_marker(f, lx + 12, ly, st);
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' fill='%s'>%s</text>\n", lx + 30, ly + 4,
		st->color, label);
}

/* Error bars: min..max over the repeats of each point that has them (fig: rp_row.spread). */
static void rp_bars(FILE *f, const struct rp_axis *a, const struct rp_set *s, int fig,
		    const struct rp_style *st, const char *tr)
{
	for (int i = 0; i < s->n; i++) {
		const struct rp_row *r = &s->r[i];
		double x = rp_x(a, (double)r->clients);

		if (r->nrep < 2 || !rp_in(r, false, tr))
			continue;
		fprintf(f, "<path d='M%.1f,%.1f V%.1f M%.1f,%.1f h8 M%.1f,%.1f h8' stroke='%s' "
			   "fill='none'/>\n", x, rp_y(a, r->spread[fig][0]), rp_y(a, r->spread[fig][1]),
			x - 4, rp_y(a, r->spread[fig][0]), x - 4, rp_y(a, r->spread[fig][1]), st->color);
	}
}

static double rp_max(const struct rp_set *s, rp_get g)
{
	double m = 0;

	for (int i = 0; i < s->n; i++)
		if (g(&s->r[i]) > m)
			m = g(&s->r[i]);
	return m;
}

/* Smallest positive value of g, or 0 when none. */
static double rp_min_pos(const struct rp_set *s, rp_get g)
{
	double m = 0;

	for (int i = 0; s && i < s->n; i++)
		if (g(&s->r[i]) > 0 && (m == 0 || g(&s->r[i]) < m))
			m = g(&s->r[i]);
	return m;
}

/*
 * Styles: per transport a colour family and a marker, per figure a dash, so two
 * series on the same values (rc and tcp both at 100%) stay apart by shape.
 */
static const struct rp_style rp_tr_style[RP_NDESIGN][3] = {
	{ { "#1f77b4", "", 0 }, { "#ff7f0e", "", 0 }, { "#8c564b", "6,3", 2 } },
	{ { "#17becf", "8,4", 1 }, { "#bcbd22", "8,4", 1 }, { "#7f7f7f", "2,3", 3 } },
	{ { "#d62728", "4,2", 2 }, { "#d62728", "", 2 }, { "#e377c2", "6,3", 2 } },
	{ { "#2ca02c", "2,2", 3 }, { "#2ca02c", "", 3 }, { "#98df8a", "6,3", 3 } },
	{ { "#9467bd", "10,3", 0 }, { "#9467bd", "", 1 }, { "#c5b0d5", "6,3", 1 } },
	{ { "#000000", "1,2", 1 }, { "#000000", "", 0 }, { "#555555", "6,3", 2 } },
};

/* Designs side by side: the server's device objects per client, one series each. */
static void rp_objs_panel(FILE *f, struct rp_axis *a, const struct rp_set *s,
			  const char *const *trs, int ntr)
{
	double m = rp_max(s, g_obj);

	a->y1 = m > 0 ? m * 1.1 : 1;
	rp_frame(f, a, "Server device objects per client (QP+CQ+MR+SRQ+AH)", "per client");
	for (int k = 0; k < ntr; k++)
		rp_line(f, a, s, g_obj, &rp_tr_style[k][0], true, trs[k], trs[k], k);
}

static void rp_svg(FILE *f, const struct rp_set *s, const struct rp_set *old)
{
	static const struct rp_style qp = { "#d62728", "", 0 }, cq = { "#2ca02c", "", 1 },
				     mr = { "#9467bd", "6,4", 3 };
	struct rp_axis a = { .px = 80, .pw = 500, .ph = 220 };
	double maxc = 1, minc = 1e12, m, lo;

	for (int i = 0; i < s->n; i++) {
		maxc = fmax(maxc, (double)s->r[i].clients);
		minc = fmin(minc, (double)s->r[i].clients);
	}
	a.x0 = floor(log10(minc));
	a.x1 = ceil(log10(maxc));
	if (a.x1 <= a.x0)
		a.x1 = a.x0 + 1;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='800' height='880' "
		   "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n");

	/* one series per design: rc and tcp rows never share a line */
	const char *trs[RP_NDESIGN] = { NULL };
	int ntr = 0, li;

	for (int i = 0; i < s->n && ntr < RP_NDESIGN; i++) {
		int k = 0;

		while (k < ntr && strcmp(s->r[i].transport, trs[k]))
			k++;
		if (k == ntr)
			trs[ntr++] = s->r[i].transport;
	}

	a.py = 40, a.y0 = 0, a.y1 = 100;
	rp_frame(f, &a, "Success rate (% of clients connected)", "% of clients");
	li = 0;
	for (int k = 0; k < ntr; k++) {
		struct rp_style bs = rp_tr_style[k][0];
		char l[64];

		snprintf(l, sizeof(l), "success %s", trs[k]);
		rp_line(f, &a, s, g_succ, &rp_tr_style[k][0], false, trs[k], l, li++);
		rp_bars(f, &a, s, 0, &rp_tr_style[k][0], trs[k]);
		if (old) {
			bs.dash = "3,3";
			snprintf(l, sizeof(l), "baseline %s", trs[k]);
			rp_line(f, &a, old, g_succ, &bs, false, trs[k], l, li++);
		}
	}

	a.py = 330, a.y0 = 0;
	if (ntr > 1) {
		rp_objs_panel(f, &a, s, trs, ntr);
		goto lat;
	}
	m = fmax(rp_max(s, g_cq), fmax(rp_max(s, g_qp), rp_max(s, g_mr)));
	a.y1 = m > 0 ? m * 1.1 : 1;
	rp_frame(f, &a, "Server RDMA resources at peak (count above baseline)", "count");
	rp_line(f, &a, s, g_qp, &qp, true, NULL, "QP", 0);
	rp_line(f, &a, s, g_cq, &cq, true, NULL, "CQ", 1);
	/* MRs equal CQs in the seed model: dashed, other marker, so both stay visible */
	rp_line(f, &a, s, g_mr, &mr, true, NULL, "MR", 2);
	if (m <= 0)
		fprintf(f, "<text x='%.0f' y='%.0f' font-size='12' fill='#888' text-anchor='middle'>"
			   "no RDMA counters in these results (tcp)</text>\n", a.px + a.pw / 2,
			a.py + a.ph / 2);

lat:
	/* latency spans decades between 10 and 100,000 clients: log scale */
	a.py = 620, a.ylog = true;
	m = fmax(rp_max(s, g_p99), old ? rp_max(old, g_p99) : 0);
	for (int i = 0; i < s->n; i++)
		m = fmax(m, s->r[i].spread[2][1]);
	lo = rp_min_pos(s, g_p50);
	if (old && rp_min_pos(old, g_p50) > 0)
		lo = lo > 0 ? fmin(lo, rp_min_pos(old, g_p50)) : rp_min_pos(old, g_p50);
	a.y0 = floor(log10(lo > 0 ? lo : 1));
	a.y1 = ceil(log10(m > 0 ? m : 10));
	if (a.y1 <= a.y0)
		a.y1 = a.y0 + 1;
	rp_frame(f, &a, "Round-trip latency (microseconds, log scale)", "microseconds");
	li = 0;
	for (int k = 0; k < ntr; k++) {
		struct rp_style bs = rp_tr_style[k][2];
		char l[64];

		snprintf(l, sizeof(l), "p50 %s", trs[k]);
		rp_line(f, &a, s, g_p50, &rp_tr_style[k][1], false, trs[k], l, li++);
		rp_bars(f, &a, s, 1, &rp_tr_style[k][1], trs[k]);
		snprintf(l, sizeof(l), "p99 %s", trs[k]);
		rp_line(f, &a, s, g_p99, &rp_tr_style[k][2], false, trs[k], l, li++);
		rp_bars(f, &a, s, 2, &rp_tr_style[k][2], trs[k]);
		if (old) {
			bs.dash = "1,3";
			snprintf(l, sizeof(l), "p99 %s baseline", trs[k]);
			rp_line(f, &a, old, g_p99, &bs, false, trs[k], l, li++);
		}
	}
	fprintf(f, "</svg>\n");
}

static int rp_out(const char *path, void (*fn)(FILE *, const struct rp_set *, const struct rp_set *),
		  const struct rp_set *s, const struct rp_set *old)
{
	FILE *f = path ? fopen(path, "we") : stdout;

	if (!f) {
		fprintf(stderr, "rdmacap report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fn(f, s, old);
	if (path && fclose(f)) {
		fprintf(stderr, "rdmacap report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int rp_main(const struct hp_plan *p)
{
	struct rp_set *s = calloc(1, sizeof(*s)), *old = NULL;
	int rc = 1;

	if (!s)
		return 1;
	for (int i = 0; i < p->nfiles; i++)
		if (rp_load(p->files[i], s))
			goto out;
	if (!s->n) {
		fprintf(stderr, "rdmacap report: no load points in the given files\n");
		goto out;
	}
	qsort(s->r, (size_t)s->n, sizeof(s->r[0]), rp_cmp);
	if (p->baseline) {
		old = calloc(1, sizeof(*old));
		if (!old || rp_load(p->baseline, old))
			goto out;
		qsort(old->r, (size_t)old->n, sizeof(old->r[0]), rp_cmp);
	}
	if (rp_out(p->out_md, rp_md, s, old))
		goto out;
	if (p->out_svg && rp_out(p->out_svg, rp_svg, s, old))
		goto out;
	rc = 0;
out:
	for (int i = 0; i < s->n; i++) {
		json_decref(s->r[i].hosts);
		json_decref(s->r[i].total);
	}
	for (int i = 0; old && i < old->n; i++) {
		json_decref(old->r[i].hosts);
		json_decref(old->r[i].total);
	}
	free(old);
	free(s);
	return rc;
}
