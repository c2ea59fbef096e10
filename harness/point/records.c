// SPDX-License-Identifier: MIT
/*
 * Records into the point's state: each parsed agent record (common/proto.h)
 * settles a client, counts a failure under its cause, or adds what an agent
 * measured. A record is counted whatever phase it arrives in: a result that
 * comes after "stop" is still what the point earned.
 */
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "harness/point/rt.h"

void rec_fail(struct rt *r, long id, const char *call, int err, const char *errname,
	      bool at_server)
{
	static const char *const phases[RT_NPHASES] = {
		[RT_START] = "start", [RT_CONNECT] = "connect",
		[RT_TRAFFIC] = "traffic", [RT_STOP] = "stop",
	};
	struct pt_point *pt = r->pt;
	int i;

	for (i = 0; i < pt->ncauses; i++)
		if (!strcmp(pt->causes[i].call, call) && !strcmp(pt->causes[i].errname, errname) &&
		    pt->causes[i].at_server == at_server)
			break;
	if (i == pt->ncauses && i < PT_MAX_CAUSES) {
		snprintf(pt->causes[i].call, sizeof(pt->causes[i].call), "%s", call);
		snprintf(pt->causes[i].errname, sizeof(pt->causes[i].errname), "%s", errname);
		pt->causes[i].err = err;
		pt->causes[i].at_server = at_server;
		pt->ncauses++;
	}
	if (i < PT_MAX_CAUSES)
		pt->causes[i].count++;
	pf_failed(r, call, errname);
	if (pt->nfails < PT_MAX_FAILS) {
		struct pt_fail *f = &pt->fails[pt->nfails++];

		f->id = id;
		snprintf(f->phase, sizeof(f->phase), "%s", phases[r->phase]);
		snprintf(f->call, sizeof(f->call), "%s", call);
		f->err = err;
		snprintf(f->errname, sizeof(f->errname), "%s", errname);
		f->t_s = r->t_go ? clock_s() - r->t_go : 0;
		/* the counters of the latest reading: one tick old, more where readings are costly (loop.c) */
		f->res = r->res_now;
	}
}

static void rec_settle(struct rt *r, long id, enum rt_st st)
{
	if (r->st[id] != RT_PENDING)
		return;
	r->st[id] = (uint8_t)st;
	if (st == RT_OK)
		r->nconn_ok++;
	else
		r->nconn_fail++;
}

/* Every still-pending client of agent a fails with the same cause. */
void rec_fail_pending(struct rt *r, struct agt_agent *a, const char *call, const char *errname)
{
	for (long id = a->first; id < a->first + a->n; id++) {
		if (r->st[id] != RT_PENDING)
			continue;
		rec_fail(r, id, call, 0, errname, false);
		rec_settle(r, id, RT_FAIL);
		a->fail++;
	}
}

void rec_agent_done(struct rt *r, struct agt_agent *a)
{
	if (a->result)
		return;
	a->result = true;
	r->n_result_agents++;
}

void rec_agent_lost(struct rt *r, struct agt_agent *a, const char *call, const char *why)
{
	if (a->result)
		return;
	if (a->ok) {
		/* connected clients whose traffic never reported: lost, and why */
		r->pt->lost += (uint64_t)a->ok;
		rec_fail(r, -1, call, 0, why, false);
		for (long id = a->first; id < a->first + a->n; id++)
			if (r->st[id] == RT_OK)
				pf_mark_lost(r, id);
	}
	rec_agent_done(r, a);
}

/* A client id the agent owns, or -1 (a protocol error). */
static long rec_id(struct rt *r, struct agt_agent *a, uint64_t v)
{
	if (v >= (uint64_t)(a->first + a->n) || (long)v < a->first) {
		r->pt->proto_errors++;
		return -1;
	}
	return (long)v;
}

/* a poller's counters into the point's sum; absent ones add nothing */
static void rec_cq(struct proto_cq *sum, const struct proto_cq *c)
{
	if (c->events != PROTO_NONE)
		sum->events += c->events;
	if (c->arms != PROTO_NONE)
		sum->arms += c->arms;
	if (c->spins != PROTO_NONE)
		sum->spins += c->spins;
}

static void rec_result_server(struct rt *r, struct agt_agent *a,
			      const struct proto_result_server *s)
{
	a->result = true;
	r->pt->srv_accepted += (long)s->accepted;
	r->pt->srv_drops += (long)s->dropped;
	/* --op atomic: a server's "echoed" is the adds its counters took */
	r->pt->srv_atomics += (long)s->echoed;
	if (s->ah != PROTO_NONE)
		r->pt->srv_ah += (long)s->ah;
	if (s->ah_made != PROTO_NONE)
		r->pt->srv_ah_made += (long)s->ah_made;
	/* checked by the parser; a list that does not fit is cut at a loop */
	if (s->loops) {
		char *l = r->pt->srv_loops;
		size_t n = strlen(l), k = strlen(s->loops);

		if (n + k + 2 <= sizeof(r->pt->srv_loops))
			snprintf(l + n, sizeof(r->pt->srv_loops) - n, "%s%s", n ? "," : "",
				 s->loops);
	}
	rec_cq(&r->pt->srv_cq, &(struct proto_cq){ s->cq_events, s->cq_arms, s->cq_spins });
}

static void rec_result_client(struct rt *r, struct agt_agent *a,
			      const struct proto_result_client *c)
{
	struct pt_point *pt = r->pt;

	rec_agent_done(r, a);
	pt->msgs += c->msgs;
	pt->verified += c->verified;
	pt->bad += c->bad;
	pt->lost += c->errors;
	if (c->retried != PROTO_NONE)
		pt->retried += c->retried;
	if (c->late != PROTO_NONE)
		pt->late += c->late;
	if (c->qps != PROTO_NONE)
		pt->cli_qps += (long)c->qps;
	rec_cq(&pt->cli_cq, &c->cq);
	/* checked by proto_parse: only a total overflow can fail here */
	if (proto_hist_decode(c->hist, r->hist))
		pt->proto_errors++;
	for (int s = 0; s < PROTO_NSTEPS; s++)
		if (c->steps[s] && proto_hist_decode(c->steps[s], &r->steps[s]))
			pt->proto_errors++;
}

static void rec_conn(struct rt *r, struct agt_agent *a, const struct proto_rec *rc)
{
	long id = rec_id(r, a, rc->type == PROTO_CONN_OK ? rc->conn_ok.id : rc->fail.id);

	if (id < 0 || r->st[id] != RT_PENDING)
		return;
	if (rc->type == PROTO_CONN_OK) {
		r->us[id] = rc->conn_ok.us > UINT32_MAX ? UINT32_MAX : (uint32_t)rc->conn_ok.us;
		rec_settle(r, id, RT_OK);
		a->ok++;
	} else {
		rec_fail(r, id, rc->fail.call, (int)rc->fail.err, rc->fail.errname,
			 rc->fail.at_server);
		rec_settle(r, id, RT_FAIL);
		a->fail++;
	}
}

static void rec_error(struct rt *r, struct agt_agent *a, const struct proto_fail *f)
{
	fprintf(stderr, "rdmacap: agent %d: %s: %s\n", a->idx, f->call, f->errname);
	a->fatal = true;
	if (a->server)
		snprintf(r->pt->why, sizeof(r->pt->why), "server agent: %s: %s", f->call,
			 f->errname);
	else
		rec_fail_pending(r, a, f->call, f->errname);
}

/* 0 handled, 1 a record of the other role. */
static int rec_dispatch(struct rt *r, struct agt_agent *a, const struct proto_rec *rc)
{
	switch (rc->type) {
	case PROTO_HELLO_SERVER:
	case PROTO_HELLO_CLIENT:
		if ((rc->type == PROTO_HELLO_SERVER) != a->server)
			return 1;
		if (!a->hello)
			r->n_hello++;
		a->hello = true;
		a->host_pid = (long)(a->server ? rc->hello_server.pid : rc->hello_client.pid);
		return 0;
	case PROTO_CONN_OK:
	case PROTO_CONN_FAIL:
		if (a->server)
			return 1;
		rec_conn(r, a, rc);
		return 0;
	case PROTO_CONNECTED:
		if (a->server)
			return 1;
		if (!a->connected)
			r->n_connected_agents++;
		a->connected = true;
		meas_setup_agent(r, a);
		/* anything the agent did not report is lost: count it, don't wait for it */
		rec_fail_pending(r, a, "agent", "unreported");
		return 0;
	case PROTO_MSG_FAIL: {
		long id = rec_id(r, a, rc->fail.id);

		rec_fail(r, id, rc->fail.call, (int)rc->fail.err, rc->fail.errname,
			 rc->fail.at_server);
		pf_mark_lost(r, id);
		return 0;
	}
	case PROTO_VERIFY_FAIL: {
		long id = rec_id(r, a, rc->verify_fail.id);

		rec_fail(r, id, "verify", 0, "mismatch", false);
		pf_mark_lost(r, id);
		return 0;
	}
	case PROTO_RESULT_SERVER:
		if (!a->server)
			return 1;
		rec_result_server(r, a, &rc->result_server);
		return 0;
	case PROTO_RESULT_CLIENT:
		if (a->server)
			return 1;
		rec_result_client(r, a, &rc->result_client);
		return 0;
	case PROTO_BYE:
		a->bye = true;
		return 0;
	case PROTO_DROP:
		/* the server side of a failure: often the real cause of a client's EOF */
		rec_fail(r, -1, "server", 0, rc->drop.reason, true);
		if (r->c->plan->verbose)
			fprintf(stderr, "rdmacap: server dropped %s: %s\n", rc->drop.peer,
				rc->drop.reason);
		return 0;
	case PROTO_ERROR:
		rec_error(r, a, &rc->fail);
		return 0;
	case PROTO_NTYPES:
		break;
	}
	return 1;
}

int rec_line(void *ctx, struct agt_agent *a, char *line)
{
	struct rt *r = ctx;
	struct proto_rec rc;
	int err;

	if (r->c->plan->verbose)
		fprintf(stderr, "rdmacap: agent %d: %s\n", a->idx, line);
	err = proto_parse(line, &rc);
	if (err) {
		if (r->c->plan->verbose)
			fprintf(stderr, "rdmacap: agent %d: %s\n", a->idx, proto_strerror(err));
		r->pt->proto_errors++;
		return 0;
	}
	if (rec_dispatch(r, a, &rc))
		r->pt->proto_errors++; /* a record of the other role */
	return 0;
}
