// SPDX-License-Identifier: MIT
/*
 * repsvg: rdmacap report's SVG chart, from the rows report.c read. Three
 * panels against clients (log scale): success %, the server's QP/CQ/MR counts
 * (objects per client when several designs are drawn), and latency p50/p99 on a
 * log axis with round ticks. Every series has its own colour, dash and marker,
 * so series on the same values stay visible; repeats show as error bars.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/report/reprow.h"
#include "harness/report/repsvg.h"

struct rsv_axis {
	double x0, x1, y0, y1;     /* data range (x in log10; y in log10 when ylog) */
	double px, py, pw, ph;     /* panel box */
	bool ylog;
};

/* How a series looks: colour, dash pattern ("" solid) and marker shape. */
struct rsv_style {
	const char *color, *dash;
	int marker;                /* 0 circle, 1 square, 2 triangle, 3 diamond */
};

static double rsv_x(const struct rsv_axis *a, double clients)
{
	double lx = log10(clients < 1 ? 1 : clients);

	return a->px + (a->x1 > a->x0 ? (lx - a->x0) / (a->x1 - a->x0) : 0.5) * a->pw;
}

static double rsv_y(const struct rsv_axis *a, double v)
{
	if (a->ylog)
		v = log10(v > 0 ? v : pow(10, a->y0));
	if (v < a->y0)
		v = a->y0;
	return a->py + a->ph - (a->y1 > a->y0 ? (v - a->y0) / (a->y1 - a->y0) : 0) * a->ph;
}

/* A linear axis step of 1, 2 or 5 times a power of ten giving 3 to 6 ticks. */
static double rsv_step(double span)
{
	double p = pow(10, floor(log10(span > 0 ? span : 1)) - 1), m[] = { 1, 2, 5, 10, 20, 50 };

	for (int i = 0; i < 6; i++)
		if (span / (m[i] * p) <= 6)
			return m[i] * p;
	return 100 * p;
}

static void rsv_ytick(FILE *f, const struct rsv_axis *a, double v, bool label)
{
	double y = rsv_y(a, v);

	fprintf(f, "<line x1='%.0f' y1='%.1f' x2='%.0f' y2='%.1f' stroke='%s'/>\n", a->px, y,
		a->px + a->pw, y, label ? "#ddd" : "#f0f0f0");
	if (label)
		fprintf(f, "<text x='%.0f' y='%.1f' font-size='10' text-anchor='end'>%.*f</text>\n",
			a->px - 4, y + 3, v > 0 && v < 1 ? 1 : 0, v);
}

static void rsv_frame(FILE *f, const struct rsv_axis *a, const char *title, const char *ylabel)
{
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='14' font-weight='bold'>%s</text>\n", a->px,
		a->py - 8, title);
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' text-anchor='middle' "
		   "transform='rotate(-90 %.0f %.0f)'>%s</text>\n",
		a->px - 58, a->py + a->ph / 2, a->px - 58, a->py + a->ph / 2, ylabel);
	for (int d = (int)floor(a->x0); d <= (int)ceil(a->x1); d++) {
		double x = rsv_x(a, pow(10, d));

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
				rsv_ytick(f, a, m * pow(10, d),
					 m == 1 || (a->y1 - a->y0 <= 3 && (m == 2 || m == 5)));
		rsv_ytick(f, a, pow(10, a->y1), true);
	} else {
		double st = rsv_step(a->y1 - a->y0);

		for (double v = ceil(a->y0 / st) * st; v <= a->y1 + st * 1e-9; v += st)
			rsv_ytick(f, a, v, true);
	}
	fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#888'/>\n",
		a->px, a->py, a->pw, a->ph);
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' text-anchor='middle'>clients (log scale)</text>\n",
		a->px + a->pw / 2, a->py + a->ph + 30);
}

typedef double (*rsv_get)(const struct rp_row *r);
static double g_succ(const struct rp_row *r) { return r->success; }
static double g_qp(const struct rp_row *r) { return (double)r->qp; }
static double g_cq(const struct rp_row *r) { return (double)r->cq; }
static double g_mr(const struct rp_row *r) { return (double)r->mr; }
static double g_obj(const struct rp_row *r) { return rp_objs(r); }
static double g_p50(const struct rp_row *r) { return r->lat_p50; }
static double g_p99(const struct rp_row *r) { return r->lat_p99; }

static void rsv_marker(FILE *f, double x, double y, const struct rsv_style *st)
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

static bool rsv_in(const struct rp_row *r, bool need_res, const char *tr)
{
	return (!need_res || r->have_res) && (!tr || !strcmp(r->transport, tr));
}

/* One series: the rows of transport tr (NULL: all), with its legend entry li. */
static void rsv_line(FILE *f, const struct rsv_axis *a, const struct rp_set *s, rsv_get g,
		    const struct rsv_style *st, bool need_res, const char *tr, const char *label, int li)
{
	double lx = a->px + a->pw + 10, ly = a->py + 10 + 16 * li;
	bool any = false;

	for (int i = 0; i < s->n; i++)
		any |= rsv_in(&s->r[i], need_res, tr);
	if (!any)
		return;
	fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' stroke-dasharray='%s' "
		   "points='", st->color, st->dash[0] ? st->dash : "none");
	for (int i = 0; i < s->n; i++)
		if (rsv_in(&s->r[i], need_res, tr))
			fprintf(f, "%.1f,%.1f ", rsv_x(a, (double)s->r[i].clients), rsv_y(a, g(&s->r[i])));
	fprintf(f, "'/>\n");
	for (int i = 0; i < s->n; i++)
		if (rsv_in(&s->r[i], need_res, tr))
			rsv_marker(f, rsv_x(a, (double)s->r[i].clients), rsv_y(a, g(&s->r[i])), st);
	fprintf(f, "<line x1='%.0f' y1='%.0f' x2='%.0f' y2='%.0f' stroke='%s' stroke-width='2' "
		   "stroke-dasharray='%s'/>\n", lx, ly, lx + 24, ly, st->color,
		st->dash[0] ? st->dash : "none");
	rsv_marker(f, lx + 12, ly, st);
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' fill='%s'>%s</text>\n", lx + 30, ly + 4,
		st->color, label);
}

/* Error bars: min..max over the repeats of each point that has them (fig: rp_row.spread). */
static void rsv_bars(FILE *f, const struct rsv_axis *a, const struct rp_set *s, int fig,
		    const struct rsv_style *st, const char *tr)
{
	for (int i = 0; i < s->n; i++) {
		const struct rp_row *r = &s->r[i];
		double x = rsv_x(a, (double)r->clients);

		if (r->nrep < 2 || !rsv_in(r, false, tr))
			continue;
		fprintf(f, "<path d='M%.1f,%.1f V%.1f M%.1f,%.1f h8 M%.1f,%.1f h8' stroke='%s' "
			   "fill='none'/>\n", x, rsv_y(a, r->spread[fig][0]), rsv_y(a, r->spread[fig][1]),
			x - 4, rsv_y(a, r->spread[fig][0]), x - 4, rsv_y(a, r->spread[fig][1]), st->color);
	}
}

static double rsv_max(const struct rp_set *s, rsv_get g)
{
	double m = 0;

	for (int i = 0; i < s->n; i++)
		if (g(&s->r[i]) > m)
			m = g(&s->r[i]);
	return m;
}

/* Smallest positive value of g, or 0 when none. */
static double rsv_min_pos(const struct rp_set *s, rsv_get g)
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
static const struct rsv_style rsv_tr_style[RP_NDESIGN][3] = {
	{ { "#1f77b4", "", 0 }, { "#ff7f0e", "", 0 }, { "#8c564b", "6,3", 2 } },
	{ { "#17becf", "8,4", 1 }, { "#bcbd22", "8,4", 1 }, { "#7f7f7f", "2,3", 3 } },
	{ { "#d62728", "4,2", 2 }, { "#d62728", "", 2 }, { "#e377c2", "6,3", 2 } },
	{ { "#2ca02c", "2,2", 3 }, { "#2ca02c", "", 3 }, { "#98df8a", "6,3", 3 } },
	{ { "#9467bd", "10,3", 0 }, { "#9467bd", "", 1 }, { "#c5b0d5", "6,3", 1 } },
	{ { "#000000", "1,2", 1 }, { "#000000", "", 0 }, { "#555555", "6,3", 2 } },
};

/* Designs side by side: the server's device objects per client, one series each. */
static void rsv_objs_panel(FILE *f, struct rsv_axis *a, const struct rp_set *s,
			  const char *const *trs, int ntr)
{
	double m = rsv_max(s, g_obj);

	a->y1 = m > 0 ? m * 1.1 : 1;
	rsv_frame(f, a, "Server device objects per client (QP+CQ+MR+SRQ+AH)", "per client");
	for (int k = 0; k < ntr; k++)
		rsv_line(f, a, s, g_obj, &rsv_tr_style[k][0], true, trs[k], trs[k], k);
}

void rsv_draw(FILE *f, const struct rp_set *s, const struct rp_set *old)
{
	static const struct rsv_style qp = { "#d62728", "", 0 }, cq = { "#2ca02c", "", 1 },
				     mr = { "#9467bd", "6,4", 3 };
	struct rsv_axis a = { .px = 80, .pw = 500, .ph = 220 };
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
	rsv_frame(f, &a, "Success rate (% of clients connected)", "% of clients");
	li = 0;
	for (int k = 0; k < ntr; k++) {
		struct rsv_style bs = rsv_tr_style[k][0];
		char l[64];

		snprintf(l, sizeof(l), "success %s", trs[k]);
		rsv_line(f, &a, s, g_succ, &rsv_tr_style[k][0], false, trs[k], l, li++);
		rsv_bars(f, &a, s, 0, &rsv_tr_style[k][0], trs[k]);
		if (old) {
			bs.dash = "3,3";
			snprintf(l, sizeof(l), "baseline %s", trs[k]);
			rsv_line(f, &a, old, g_succ, &bs, false, trs[k], l, li++);
		}
	}

	a.py = 330, a.y0 = 0;
	if (ntr > 1) {
		rsv_objs_panel(f, &a, s, trs, ntr);
		goto lat;
	}
	m = fmax(rsv_max(s, g_cq), fmax(rsv_max(s, g_qp), rsv_max(s, g_mr)));
	a.y1 = m > 0 ? m * 1.1 : 1;
	rsv_frame(f, &a, "Server RDMA resources at peak (count above baseline)", "count");
	rsv_line(f, &a, s, g_qp, &qp, true, NULL, "QP", 0);
	rsv_line(f, &a, s, g_cq, &cq, true, NULL, "CQ", 1);
	/* MRs equal CQs with 2 of each per client: dashed, other marker, so both stay visible */
	rsv_line(f, &a, s, g_mr, &mr, true, NULL, "MR", 2);
	if (m <= 0)
		fprintf(f, "<text x='%.0f' y='%.0f' font-size='12' fill='#888' text-anchor='middle'>"
			   "no RDMA counters in these results (tcp)</text>\n", a.px + a.pw / 2,
			a.py + a.ph / 2);

lat:
	/* latency spans decades between 10 and 100,000 clients: log scale */
	a.py = 620, a.ylog = true;
	m = fmax(rsv_max(s, g_p99), old ? rsv_max(old, g_p99) : 0);
	for (int i = 0; i < s->n; i++)
		m = fmax(m, s->r[i].spread[2][1]);
	lo = rsv_min_pos(s, g_p50);
	if (old && rsv_min_pos(old, g_p50) > 0)
		lo = lo > 0 ? fmin(lo, rsv_min_pos(old, g_p50)) : rsv_min_pos(old, g_p50);
	a.y0 = floor(log10(lo > 0 ? lo : 1));
	a.y1 = ceil(log10(m > 0 ? m : 10));
	if (a.y1 <= a.y0)
		a.y1 = a.y0 + 1;
	rsv_frame(f, &a, "Round-trip latency (microseconds, log scale)", "microseconds");
	li = 0;
	for (int k = 0; k < ntr; k++) {
		struct rsv_style bs = rsv_tr_style[k][2];
		char l[64];

		snprintf(l, sizeof(l), "p50 %s", trs[k]);
		rsv_line(f, &a, s, g_p50, &rsv_tr_style[k][1], false, trs[k], l, li++);
		rsv_bars(f, &a, s, 1, &rsv_tr_style[k][1], trs[k]);
		snprintf(l, sizeof(l), "p99 %s", trs[k]);
		rsv_line(f, &a, s, g_p99, &rsv_tr_style[k][2], false, trs[k], l, li++);
		rsv_bars(f, &a, s, 2, &rsv_tr_style[k][2], trs[k]);
		if (old) {
			bs.dash = "1,3";
			snprintf(l, sizeof(l), "p99 %s baseline", trs[k]);
			rsv_line(f, &a, old, g_p99, &bs, false, trs[k], l, li++);
		}
	}
	fprintf(f, "</svg>\n");
}
