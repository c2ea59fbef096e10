// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/fig.h"
#include "harness/json.h"

json_t *hj_plan(const struct hp_plan *p)
{
	json_t *cl = json_array();

	for (int i = 0; i < p->npoints; i++)
		json_array_append_new(cl, json_integer(p->clients[i]));
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I, s:s, s:s, s:I, s:I}",
			 "command", p->cmd_name, "transport", opt_word(OPT_TRANSPORT, p->transport),
			 "cm", opt_word(OPT_CM, p->cm), "server_model",
			 opt_word(OPT_SERVER_MODEL, p->server_model), "cq", opt_word(OPT_CQ, p->cq),
			 "srq", p->srq, "op", opt_word(OPT_OP, p->op),
			 "topology", p->topo_spec, "clients", cl, "agents", (json_int_t)p->agents,
			 "msgs", (json_int_t)p->msgs, "size", (json_int_t)p->size, "think_ms",
			 (json_int_t)p->think_ms, "stagger_ms", (json_int_t)p->stagger_ms, "workers",
			 (json_int_t)p->workers, "timeout_s", (json_int_t)p->timeout_s, "ports",
			 (json_int_t)p->ports, "oob_session",
			 opt_word(OPT_OOB_SESSION, p->oob_session), "poll",
			 opt_word(OPT_POLL, p->poll), "max",
			 (json_int_t)p->max, "server_threads", (json_int_t)p->server_threads);
}

static json_t *hj_res(const uint64_t *v)
{
	json_t *o = json_object();

	for (int i = 0; i < HS_NRES; i++)
		json_object_set_new(o, hs_res_name(i), json_integer((json_int_t)v[i]));
	return o;
}

static json_t *hj_res_pair(const struct hs_res *r)
{
	if (!r->valid)
		return json_null();
	return json_pack("{s:o, s:o}", "server", hj_res(r->srv), "clients", hj_res(r->cli));
}

static json_t *hj_series(const struct hs_series *se)
{
	json_t *a = json_array();

	for (size_t i = 0; i < se->n; i++) {
		const struct hs_sample *x = &se->s[i];
		json_t *o = json_pack("{s:I, s:I, s:I, s:I}", "t_ms", (json_int_t)x->t_ms, "connected",
				      (json_int_t)x->connected, "srv_rss_kb", (json_int_t)x->srv_rss_kb,
				      "srv_threads", (json_int_t)x->srv_threads);

		if (x->res.valid)
			json_object_set_new(o, "res", hj_res_pair(&x->res));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *hj_point(const struct pt_point *pt, const struct hp_plan *plan, const char *verdict)
{
	json_t *fails = json_array(), *causes = json_array(), *o;

	for (int i = 0; i < pt->nfails; i++) {
		const struct pt_fail *f = &pt->fails[i];

		json_array_append_new(fails, json_pack("{s:I, s:s, s:s, s:i, s:s, s:f, s:o}", "id",
						       (json_int_t)f->id, "phase", f->phase, "call",
						       f->call, "errno", f->err, "err", f->errname,
						       "t_s", f->t_s, "res", hj_res_pair(&f->res)));
	}
	for (int i = 0; i < pt->ncauses; i++)
		json_array_append_new(causes, json_pack("{s:s, s:s, s:i, s:I}", "call",
							pt->causes[i].call, "err",
							pt->causes[i].errname, "errno",
							pt->causes[i].err, "count",
							(json_int_t)pt->causes[i].count));
	o = json_object();
	fig_json(o, pt, plan);
	json_object_set_new(o, "resources",
			    json_pack("{s:o, s:o, s:o, s:b, s:s}", "base", hj_res_pair(&pt->res_base),
				      "peak", hj_res_pair(&pt->res_peak), "after",
				      hj_res_pair(&pt->res_after), "leak", pt->leak, "leak_what",
				      pt->leak_what));
	json_object_set_new(o, "failures", fails);
	json_object_set_new(o, "causes", causes);
	json_object_set_new(o, "ok", json_boolean(pt->ok));
	json_object_set_new(o, "why", json_string(pt->why));
	json_object_set_new(o, "verdict", json_string(verdict));
	json_object_set_new(o, "timeout_connect", json_boolean(pt->timeout_connect));
	json_object_set_new(o, "timeout_traffic", json_boolean(pt->timeout_traffic));
	json_object_set_new(o, "series", hj_series(&pt->series));
	return o;
}

int hj_write(json_t *doc, const char *path)
{
	char tmp[4096];

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "rdmacap: %s: path too long\n", path);
		return -1;
	}
	if (json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_SORT_KEYS)) {
		fprintf(stderr, "rdmacap: write %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "rdmacap: rename %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
