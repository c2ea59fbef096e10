// SPDX-License-Identifier: MIT
/*
 * Unit tests of the orchestrator's own logic: the histogram mapping, percentiles, the command line (good lines parse, bad
 * ones are rejected naming the bad part, with nothing created), and the fault check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "harness/cli/plan.h"
#include "harness/point/point.h"
#include "harness/sample/stats.h"
#include "tap/tap.h"

static struct tap t;

static void t_hist(void)
{
	static struct proto_hist ph;
	uint64_t h[PROTO_HIST_BUCKETS] = { 0 };
	struct stats_summary s;
	bool mono = true;

	for (unsigned b = 1; b < PROTO_HIST_BUCKETS; b++)
		if (proto_hist_value(b) <= proto_hist_value(b - 1))
			mono = false;
	tap_ok(&t, mono, "hist: bucket lower bounds strictly increase");
	tap_ok(&t, proto_hist_bucket(proto_hist_value(500)) == 500 &&
			   proto_hist_bucket(123456789) == proto_hist_bucket(proto_hist_value(
								  proto_hist_bucket(123456789))),
	       "hist: value -> bucket -> value round trip");
	tap_ok(&t, !proto_hist_decode("16:3,200:1", &ph) && !proto_hist_decode("16:1", &ph) &&
			   ph.n[16] == 4 && ph.n[200] == 1 && ph.total == 5,
	       "hist: decode adds b:c pairs from several agents");

	memset(h, 0, sizeof(h));
	/* 99 samples at ~1000 ns and one at ~1 ms */
	h[proto_hist_bucket(1000)] = 99;
	h[proto_hist_bucket(1000000)] = 1;
	stats_hist(h, PROTO_HIST_BUCKETS, &s);
	tap_ok(&t, s.n == 100 && s.p50 >= 960 && s.p50 <= 1040 && s.p99 <= 1040 &&
			   s.max >= 960000 && s.max <= 1040000,
	       "hist: p50/p99/max within bucket resolution (p50=%llu p99=%llu max=%llu)",
	       (unsigned long long)s.p50, (unsigned long long)s.p99, (unsigned long long)s.max);
}

static void t_exact(void)
{
	uint32_t v[200];
	struct stats_summary s;

	for (int i = 0; i < 200; i++)
		v[i] = (uint32_t)(200 - i); /* 1..200 reversed */
	stats_exact(v, 200, &s);
	tap_ok(&t, s.p50 == 100 && s.p99 == 198 && s.max == 200 && s.avg > 100.4 && s.avg < 100.6,
	       "stats: nearest-rank p50=%llu p99=%llu max=%llu", (unsigned long long)s.p50,
	       (unsigned long long)s.p99, (unsigned long long)s.max);
	stats_exact(v, 0, &s);
	tap_ok(&t, s.n == 0 && s.max == 0, "stats: empty input");
}

static int parse(const char *line, struct hp_plan *p, char *err, size_t errlen)
{
	char buf[512], *argv[32];
	int argc = 0, rc;
	FILE *f = fmemopen(err, errlen, "w");

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *s = strtok(buf, " "); s && argc < 31; s = strtok(NULL, " "))
		argv[argc++] = s;
	argv[argc] = NULL;
	memset(err, 0, errlen);
	rc = hp_parse(p, argc, argv, f);
	fclose(f);
	return rc;
}

static void t_cli(void)
{
	struct hp_plan *p = calloc(1, sizeof(*p));
	char err[1024];

	tap_ok(&t, !parse("rdmacap ramp --transport tcp --topology star:4 --clients 10,100,1000,10000 --msgs 10",
			  p, err, sizeof(err)) &&
			   p->cmd == HP_RAMP && p->npoints == 4 && p->clients[3] == 10000 &&
			   p->topo.kind == NN_STAR && p->topo.nclients == 4 && p->msgs == 10,
	       "cli: the README's ramp line parses");
	tap_ok(&t, !parse("rdmacap limit --transport=tcp --max 100000", p, err, sizeof(err)) &&
			   p->cmd == HP_LIMIT && p->max == 100000 && p->thresholds[0] == 100 &&
			   p->thresholds[1] == 95,
	       "cli: limit with defaults 100%% and 95%%");
	tap_ok(&t, parse("rdmacap run --frob 3", p, err, sizeof(err)) == -1 &&
			   strstr(err, "--frob") && strstr(err, "usage: rdmacap run"),
	       "cli: unknown option named, usage printed");
	tap_ok(&t, parse("rdmacap run --clients 0", p, err, sizeof(err)) == -1 &&
			   strstr(err, "--clients"),
	       "cli: --clients 0 rejected");
	tap_ok(&t, parse("rdmacap ramp --clients 10,,20", p, err, sizeof(err)) == -1 &&
			   parse("rdmacap ramp --clients 10,x", p, err, sizeof(err)) == -1 &&
			   parse("rdmacap ramp --clients 99999999999999999999", p, err, sizeof(err)) == -1,
	       "cli: malformed client lists rejected");
	tap_ok(&t, parse("rdmacap run --topology star:0", p, err, sizeof(err)) == -1 &&
			   strstr(err, "star:0"),
	       "cli: bad topology names the bad part: %s", strtok(err, "\n"));
	tap_ok(&t, parse("rdmacap env --clients 5", p, err, sizeof(err)) == -1 &&
			   strstr(err, "does not apply"),
	       "cli: load option on env rejected");
	tap_ok(&t, parse("rdmacap frobnicate", p, err, sizeof(err)) == -1 &&
			   strstr(err, "frobnicate"),
	       "cli: unknown command named");
	tap_ok(&t, parse("rdmacap run --transport udp", p, err, sizeof(err)) == -1 &&
			   strstr(err, "udp"),
	       "cli: bad transport value named");
	tap_ok(&t, parse("rdmacap run --clients 5 extra", p, err, sizeof(err)) == -1 &&
			   strstr(err, "extra"),
	       "cli: stray argument named");
	tap_ok(&t, parse("rdmacap run --msgs", p, err, sizeof(err)) == -1 &&
			   strstr(err, "--msgs") && strstr(err, "needs a value"),
	       "cli: missing value named");
	tap_ok(&t, parse("rdmacap run --clients 10,20", p, err, sizeof(err)) == -1,
	       "cli: a list of clients is only for ramp");
	tap_ok(&t, parse("rdmacap run --transport tcp --srq", p, err, sizeof(err)) == -1,
	       "cli: --srq needs --transport rc");
	tap_ok(&t, parse("rdmacap run --tls-ca a.pem", p, err, sizeof(err)) == -1,
	       "cli: TLS files go together");
	tap_ok(&t, parse("rdmacap down --run zz12", p, err, sizeof(err)) == -1 &&
			   !parse("rdmacap down --run 0a1f", p, err, sizeof(err)) && !strcmp(p->run, "0a1f"),
	       "cli: run ids are 4 hex digits");
	tap_ok(&t, !parse("rdmacap run --transport rc --cm rdmacm --cq shared --srq --agents 500 --clients 500",
			  p, err, sizeof(err)) &&
			   p->cm == OPT_CM_RDMACM && p->srq && p->agents == 500,
	       "cli: rc options parse");
	tap_ok(&t, !parse("rdmacap run", p, err, sizeof(err)) && p->repeat == 1 &&
			   !parse("rdmacap storm --repeat 3", p, err, sizeof(err)) && p->repeat == 3 &&
			   !parse("rdmacap ramp --repeat 100 --clients 1,2", p, err, sizeof(err)) &&
			   p->repeat == 100,
	       "cli: --repeat defaults to 1, run/ramp/storm take it");
	tap_ok(&t, parse("rdmacap limit --repeat 2", p, err, sizeof(err)) == -1 &&
			   strstr(err, "does not apply") &&
			   parse("rdmacap run --repeat 0", p, err, sizeof(err)) == -1 &&
			   parse("rdmacap run --repeat 101", p, err, sizeof(err)) == -1,
	       "cli: --repeat not for limit, and within 1..100");
	free(p);
}

/* A fault point that passes the check: applied, undone, both failures named, in time. */
static void fc_ok(struct hp_plan *p, struct pt_point *pt)
{
	memset(p, 0, sizeof(*p));
	p->fault.kind = FLT_STOP_SERVER;
	p->fault.ms = 1500;
	snprintf(p->fault.text, sizeof(p->fault.text), "stop-server:1500");
	memset(pt, 0, sizeof(*pt));
	pt->fault.asked = pt->fault.applied = pt->fault.undone = true;
	pt->fault.failed = pt->fault.named = 2;
}

/*
 * The fault check: a point that passes has no why; each way to fail it fails
 * the check, with or without a why asked for, and the why names the spec.
 */
static void t_fault_check(void)
{
	struct pt_point *pt = calloc(1, sizeof(*pt));
	struct hp_plan p;
	struct flt_result *f;
	char why[512];
	int bad = 0, c;

	if (!pt) {
		tap_ok(&t, false, "fault check: calloc: out of memory");
		return;
	}
	f = &pt->fault;
	fc_ok(&p, pt);
	tap_ok(&t, pf_check(&p, pt, why, sizeof(why)) && !why[0] && pf_check(&p, pt, NULL, 0),
	       "fault check: applied, undone, named, in time: passes, no why");
	for (c = 0; c < 7; c++) {
		fc_ok(&p, pt);
		switch (c) {
		case 0: f->applied = false; break;
		case 1: snprintf(f->err, sizeof(f->err), "tc: exit 2"); break;
		case 2: f->undone = false; break;
		case 3: pt->timeout_traffic = true; break;
		case 4: f->late = true; break;
		case 5: f->at_deadline = 3; break;
		case 6: f->named = 1; break;
		}
		bad += pf_check(&p, pt, why, sizeof(why)) || pf_check(&p, pt, NULL, 0) ||
		       !strstr(why, "--fault stop-server:1500");
	}
	tap_ok(&t, !bad, "fault check: each of %d failing conditions fails it, named (%d did not)",
	       c, bad);
	fc_ok(&p, pt);
	f->at_deadline = 20;
	tap_ok(&t, !pf_check(&p, pt, why, sizeof(why)) &&
			   strstr(why, "20 connections learned of it only at the phase deadline"),
	       "fault check: a fault learned of only at the deadline says how many");
	free(pt);
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, 27);
	t_hist();
	t_exact();
	t_cli();
	t_fault_check();
	tap_totals(&t);
	return tap_exit_code(&t);
}
