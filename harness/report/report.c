// SPDX-License-Identifier: MIT
/*
 * rdmacap report: result JSON files -> a Markdown table and an SVG chart.
 *
 * The table has the columns of a capacity report, from measured figures: Clients,
 * Connected, Success, QPs, CQs, MRs (server device at peak, minus the baseline),
 * peak memory, latency, Status and the cause of the first failure. With
 * --baseline, each row shows the earlier run's figure beside the new one.
 * The SVG (repsvg.c) has three panels against clients (log scale): success %, QP/CQ/MR
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
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/figures/fig.h"
#include "harness/report/rephosts.h"
#include "harness/report/report.h"
#include "harness/report/reprow.h"
#include "harness/report/repsvg.h"

/*
 * The largest figure a result may carry, 2^53: every count and time a run writes
 * is a whole number far below it, a double holds it exactly and a long takes it
 * without overflow. A file with a figure outside 0..2^53, or a point with no
 * client (the chart's axis is log10 of the clients), is not a result rdmacap wrote.
 */
#define RP_NUM_MAX 9007199254740992.0

static bool rp_num_ok(double v, double lo)
{
	return v >= lo && v <= RP_NUM_MAX;
}

static long rp_int(json_t *o, const char *path, bool *bad)
{
	double v = fig_json_at(o, path);

	if (!rp_num_ok(v, -RP_NUM_MAX)) {
		*bad = true;
		return 0;
	}
	return (long)v;
}

/* The figure 'name' of point pt, flagged in *bad when outside lo..2^53. */
static double rp_fig(json_t *pt, const char *name, double lo, bool *bad)
{
	double v = fig_json_num(pt, name);

	if (!rp_num_ok(v, lo)) {
		*bad = true;
		return 0;
	}
	return v;
}

/* The figures a row shows with their spread, in the order of rp_row.spread. */
static const char *const rp_spread_figs[3] = { "success_pct", "lat_us_p50", "lat_us_p99" };

/* min and max over the repeats (repeat.min / repeat.max), else the value itself */
static void rp_spread(json_t *pt, struct rp_row *r, bool *bad)
{
	json_t *rep = json_object_get(pt, "repeat");
	json_t *lo = json_object_get(rep, "min"), *hi = json_object_get(rep, "max");
	json_int_t ran = json_integer_value(json_object_get(rep, "ran"));

	r->nrep = json_is_object(lo) && json_is_object(hi) && ran > 1 && ran <= INT_MAX ?
		  (int)ran : 1;
	for (int i = 0; i < 3; i++) {
		double v = rp_fig(pt, rp_spread_figs[i], 0, bad);

		r->spread[i][0] = r->nrep > 1 ? rp_fig(lo, rp_spread_figs[i], 0, bad) : v;
		r->spread[i][1] = r->nrep > 1 ? rp_fig(hi, rp_spread_figs[i], 0, bad) : v;
	}
}

/* The design of a plan: its transport, then what changes the server's resource model. */
static void rp_design(json_t *plan, char *buf, size_t len)
{
	const char *tr = json_string_value(json_object_get(plan, "transport"));
	const char *cq = json_string_value(json_object_get(plan, "cq"));
	const char *mr = json_string_value(json_object_get(plan, "mr"));
	const char *ah = json_string_value(json_object_get(plan, "ah"));
	long share = (long)json_integer_value(json_object_get(plan, "qp_share"));
	int n = snprintf(buf, len, "%s", tr ? tr : "?");

	if (!tr || !strcmp(tr, "tcp") || n < 0)
		return;
	if (share > 0)
		n += snprintf(buf + n, len - (size_t)n, " qp-share %ld", share);
	if (cq && !strcmp(cq, "shared") && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " shared-cq");
	if (mr && !strcmp(mr, "shared") && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " shared-mr");
	if (json_is_true(json_object_get(plan, "srq")) && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " srq");
	if (!strcmp(tr, "ud") && ah && strcmp(ah, "cache") && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " ah %s", ah);
}

static int rp_load(const char *path, int file, struct rp_set *s)
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
		bool bad = false;

		if (s->n == RP_MAX)
			break;
		r = &s->r[s->n];
		memset(r, 0, sizeof(*r));
		r->clients = (long)rp_fig(pt, "clients", 1, &bad);
		r->connected = (long)rp_fig(pt, "connected", 0, &bad);
		r->success = rp_fig(pt, "success_pct", 0, &bad);
		r->lat_p50 = rp_fig(pt, "lat_us_p50", 0, &bad);
		r->lat_p99 = rp_fig(pt, "lat_us_p99", 0, &bad);
		r->msgs_per_s = rp_fig(pt, "msgs_per_s", 0, &bad);
		r->srv_rss_kb = (long)rp_fig(pt, "srv_rss_kb_peak", 0, &bad);
		r->agents_rss_kb = (long)rp_fig(pt, "agents_rss_kb", 0, &bad);
		r->srv_bytes_per_conn = rp_fig(pt, "srv_bytes_per_conn", -RP_NUM_MAX, &bad);
		r->ah = (long)rp_fig(pt, "srv_ah", 0, &bad);
		rp_spread(pt, r, &bad);
		if (json_is_object(peak) && json_is_object(base)) {
			r->have_res = true;
			r->qp = rp_int(peak, "server.qp", &bad) - rp_int(base, "server.qp", &bad);
			r->cq = rp_int(peak, "server.cq", &bad) - rp_int(base, "server.cq", &bad);
			r->mr = rp_int(peak, "server.mr", &bad) - rp_int(base, "server.mr", &bad);
			r->srq = rp_int(peak, "server.srq", &bad) - rp_int(base, "server.srq", &bad);
		}
		if (bad) {
			fprintf(stderr, "rdmacap report: %s: point %zu: a figure outside 0..2^53 "
					"or no clients: not an rdmacap result\n", path, i + 1);
			json_decref(doc);
			return -1;
		}
		s->n++;
		snprintf(r->status, sizeof(r->status), "%s",
			 json_string_value(json_object_get(pt, "verdict")) ?: "?");
		snprintf(r->cause, sizeof(r->cause), "%s",
			 json_string_value(json_object_get(pt, "cause")) ?: "");
		/* a failed point always says why, even where no call failed */
		if (!r->cause[0] && !json_is_true(json_object_get(pt, "ok")))
			snprintf(r->cause, sizeof(r->cause), "%s",
				 json_string_value(json_object_get(pt, "why")) ?: "");
		snprintf(r->transport, sizeof(r->transport), "%s", design);
		r->file = file;
		r->hosts = json_incref(json_object_get(pt, "hosts"));
		r->total = json_incref(json_object_get(pt, "total"));
	}
	json_decref(doc);
	return 0;
}

/*
 * Several runs of one design (the demo's ramp and its two limit searches, all
 * "rc") would share a line that zigzags between them: when a design comes from
 * more than one file, each file's rows carry its name ("rc (limit-maps-1000)").
 */
static void rp_name_runs(struct rp_set *s, const char *const *files)
{
	bool clash[RP_MAX] = { false };

	for (int i = 0; i < s->n; i++)
		for (int j = 0; j < s->n && !clash[i]; j++)
			clash[i] = s->r[j].file != s->r[i].file &&
				   !strcmp(s->r[j].transport, s->r[i].transport);
	for (int i = 0; i < s->n; i++) {
		struct rp_row *r = &s->r[i];
		const char *b = strrchr(files[r->file], '/');
		size_t l = strlen(r->transport), bl;

		if (!clash[i])
			continue;
		b = b ? b + 1 : files[r->file];
		bl = strlen(b);
		if (bl > 5 && !strcmp(b + bl - 5, ".json"))
			bl -= 5;
		snprintf(r->transport + l, sizeof(r->transport) - l, " (%.*s)", (int)bl, b);
	}
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

/*
 * A cell: now, with its spread over the repeats of row r when there are any
 * ("650.2 [606.0..704.1]"), and the baseline's value when there is one.
 */
static void rp_cell_spread(FILE *f, const char *fmt, const struct rp_row *r, int fig, double now,
			   const double *old)
{
	fprintf(f, " ");
	fprintf(f, fmt, now);
	if (r && r->nrep > 1) {
		fprintf(f, " [");
		fprintf(f, fmt, r->spread[fig][0]);
		fprintf(f, "..");
		fprintf(f, fmt, r->spread[fig][1]);
		fprintf(f, "]");
	}
	if (old) {
		fprintf(f, " (was ");
		fprintf(f, fmt, *old);
		fprintf(f, ")");
	}
	fprintf(f, " |");
}

static void rp_cell(FILE *f, const char *fmt, double now, const double *old)
{
	rp_cell_spread(f, fmt, NULL, 0, now, old);
}

double rp_objs(const struct rp_row *r)
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
	if (p->figures) {
		free(s);
		return fig_doc(stdout) ? 1 : 0;
	}
	for (int i = 0; i < p->nfiles; i++)
		if (rp_load(p->files[i], i, s))
			goto out;
	if (!s->n) {
		fprintf(stderr, "rdmacap report: no load points in the given files\n");
		goto out;
	}
	rp_name_runs(s, p->files);
	qsort(s->r, (size_t)s->n, sizeof(s->r[0]), rp_cmp);
	if (p->baseline) {
		old = calloc(1, sizeof(*old));
		if (!old || rp_load(p->baseline, 0, old))
			goto out;
		qsort(old->r, (size_t)old->n, sizeof(old->r[0]), rp_cmp);
	}
	if (rp_out(p->out_md, rp_md, s, old))
		goto out;
	if (p->out_svg && rp_out(p->out_svg, rsv_draw, s, old))
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
