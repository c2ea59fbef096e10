// SPDX-License-Identifier: MIT
/*
 * Unit tests of rdmacap report's --hosts section (harness/report/rephosts.h): the
 * per-host table of one point with its total, and the series of each host
 * over the points, from the "hosts" and "total" JSON a point carries.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/rephosts.h"
#include "tap/tap.h"

static struct tap t;

/* One point's "hosts": a server host and two client hosts, n clients each. */
static json_t *t_hosts(long n, long qp_peak, bool back)
{
	return json_pack("[{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:{s:i}, s:{s:i}},"
			 " {s:s, s:s, s:s, s:i, s:I, s:I, s:i, s:b, s:{s:i}, s:{s:I}},"
			 " {s:s, s:s, s:s, s:i, s:I, s:I, s:i, s:b, s:{s:i}, s:{s:I}}]",
			 "host", "10.0.0.1", "role", "server", "device", "rxe0", "agents", 1,
			 "clients", 0, "connected", 0, "failed", 0, "back_at_base", 1, "base", "qp",
			 1, "peak", "qp", 1 + 2 * (int)n,
			 "host", "10.0.0.2", "role", "client", "device", "rxe1", "agents", 1,
			 "clients", (json_int_t)n, "connected", (json_int_t)n, "failed", 0,
			 "back_at_base", back, "base", "qp", 0, "peak", "qp", (json_int_t)qp_peak,
			 "host", "10.0.0.3", "role", "client", "device", "rxe2", "agents", 1,
			 "clients", (json_int_t)n, "connected", (json_int_t)(n - 1), "failed", 1,
			 "back_at_base", 1, "base", "qp", 0, "peak", "qp", (json_int_t)qp_peak);
}

static char *t_out(void (*draw)(FILE *f, void *ctx), void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	draw(f, ctx);
	fclose(f);
	return buf;
}

struct t_point {
	json_t *hosts, *total;
};

static void t_draw_md(FILE *f, void *ctx)
{
	struct t_point *p = ctx;

	rph_md(f, "rc", 40, p->hosts, p->total);
}

static void t_table(void)
{
	struct t_point p = { t_hosts(20, 20, false),
			     json_pack("{s:i, s:i, s:i, s:i, s:i}", "hosts", 3, "agents", 3,
				       "clients", 40, "connected", 39, "failed", 1) };
	char *s = t_out(t_draw_md, &p);

	tap_ok(&t, s && strstr(s, "### rc, 40 clients: per host"), "table: a heading per point");
	tap_ok(&t, s && strstr(s, "| 10.0.0.1 | server | rxe0 | 1 | 0 | 0 | 0 | 40 | yes |"),
	       "table: the server host's row, QPs at peak over its baseline");
	tap_ok(&t, s && strstr(s, "| 10.0.0.2 | client | rxe1 | 1 | 20 | 20 | 0 | 20 | no |"),
	       "table: a client host not back at its baseline says no");
	tap_ok(&t, s && strstr(s, "| 10.0.0.3 | client | rxe2 | 1 | 20 | 19 | 1 | 20 | yes |"),
	       "table: a host's failed connections");
	tap_ok(&t, s && strstr(s, "| total (3 hosts) | | | 3 | 40 | 39 | 1 | | |"),
	       "table: the total row");
	free(s);
	json_object_set_new(json_array_get(p.hosts, 2), "lost",
			    json_pack("{s:s, s:s, s:f, s:i}", "cause", "channel EOF: ssh ended (exit 255)",
				      "phase", "traffic", "after_s", 6.25, "clients", 20));
	s = t_out(t_draw_md, &p);
	tap_ok(&t, s && strstr(s, "\n10.0.0.3 (client) lost in the traffic phase, 6.2 s in: channel "
			     "EOF: ssh ended (exit 255); 20 clients with it\n"),
	       "table: a lost host named under it, with its cause");
	free(s);
	json_decref(p.hosts);
	p.hosts = json_null();
	s = t_out(t_draw_md, &p);
	tap_ok(&t, s && !*s, "table: nothing for a point without hosts");
	free(s);
	json_decref(p.total);
}

struct t_series {
	json_t *h[3];
	long cl[3];
	int n;
};

static void t_draw_series(FILE *f, void *ctx)
{
	struct t_series *s = ctx;

	rph_series(f, "tcp", s->h, s->cl, s->n);
}

static void t_series(void)
{
	struct t_series s = { { t_hosts(10, 0, true), t_hosts(50, 0, true), json_null() },
			      { 20, 100, 200 }, 3 };
	char *o = t_out(t_draw_series, &s);

	tap_ok(&t, o && strstr(o, "### tcp: each host over the points"), "series: a heading");
	tap_ok(&t, o && strstr(o, "| Host | Role | 20 | 100 | 200 |"), "series: a column per point");
	tap_ok(&t, o && strstr(o, "| 10.0.0.3 | client | 9/10, 0 QPs | 49/50, 0 QPs | - |"),
	       "series: a row per host, '-' where a point has no hosts");
	free(o);
	s.n = 1;
	o = t_out(t_draw_series, &s);
	tap_ok(&t, o && !*o, "series: nothing for one point");
	free(o);
	for (int i = 0; i < 3; i++)
		json_decref(s.h[i]);
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, 11);
	t_table();
	t_series();
	tap_totals(&t);
	return tap_exit_code(&t);
}
