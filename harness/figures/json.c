// SPDX-License-Identifier: MIT
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/figures/fig.h"
#include "harness/figures/json.h"
#include "harness/point/rsample.h"

json_t *js_plan(const struct hp_plan *p)
{
	json_t *cl = json_array(), *o;

	for (int i = 0; i < p->npoints; i++)
		json_array_append_new(cl, json_integer(p->clients[i]));
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:I}",
			 "command", p->cmd_name, "transport", opt_word(OPT_TRANSPORT, p->transport),
			 "cm", opt_word(OPT_CM, p->cm), "server_model",
			 opt_word(OPT_SERVER_MODEL, p->server_model), "cq", opt_word(OPT_CQ, p->cq),
			 "mr", opt_word(OPT_MR, p->mr), "srq", p->srq, "op", opt_word(OPT_OP, p->op),
			 "topology", p->topo_spec, "clients", cl, "agents", (json_int_t)p->agents,
			 "msgs", (json_int_t)p->msgs, "size", (json_int_t)p->size, "think_ms",
			 (json_int_t)p->think_ms, "stagger_ms", (json_int_t)p->stagger_ms, "workers",
			 (json_int_t)p->workers, "timeout_s", (json_int_t)p->timeout_s, "ports",
			 (json_int_t)p->ports, "oob_session",
			 opt_word(OPT_OOB_SESSION, p->oob_session), "poll",
			 opt_word(OPT_POLL, p->poll), "ah", opt_word(OPT_AH, p->ah), "ah_max",
			 (json_int_t)p->ah_max, "max",
			 (json_int_t)p->max, "server_threads", (json_int_t)p->server_threads,
			 "qp_share", (json_int_t)p->qp_share);
	if (o)
		json_object_set_new(o, "repeat", json_integer((json_int_t)p->repeat));
	if (o)
		json_object_set_new(o, "rx_depth", json_integer((json_int_t)p->rx_depth));
	if (o)
		json_object_set_new(o, "sl", json_integer(p->sl));
	if (o)
		json_object_set_new(o, "tclass", json_integer(p->tclass));
	/* oob-tls has no rdma_cm steps: only an rdmacm plan names their order */
	if (o && p->cm == OPT_CM_RDMACM)
		json_object_set_new(o, "cm_order", json_string(opt_word(OPT_CM_ORDER, p->cm_order)));
	/* -1: the default floor, whose KiB each point holds (memory.floor_kb) */
	if (o)
		json_object_set_new(o, "mem_floor_mib", json_integer((json_int_t)p->mem_floor_mib));
	return o;
}

static json_t *js_res_pair(const struct smp_res *r)
{
	if (!r->valid)
		return json_null();
	return json_pack("{s:o, s:o}", "server", smp_res_json(r->srv), "clients",
			 smp_res_json(r->cli));
}

/* One side's port counters: name -> now - base (base NULL: the values), zeros kept or not. */
static json_t *js_wire_side(const struct smp_wire_names *nm, const uint64_t *now,
			    const uint64_t *base, bool zeros)
{
	json_t *o = json_object();

	for (int i = 0; i < nm->n; i++) {
		json_int_t v = (json_int_t)(now[i] - (base ? base[i] : 0));

		if (v || zeros)
			json_object_set_new(o, nm->name[i], json_integer(v));
	}
	return o;
}

/* Both sides' deltas; the clients' only when their devices are not the server's. */
static json_t *js_wire_pair(const struct pt_point *pt, const struct smp_wire *now, bool zeros)
{
	const struct smp_wire *b = &pt->wire_base;
	json_t *o = json_object();

	json_object_set_new(o, "server", js_wire_side(&pt->wire_names, now->srv, b->srv, zeros));
	json_object_set_new(o, "clients", js_wire_side(&pt->wire_names, now->cli, b->cli, zeros));
	return o;
}

/* The point's port counters: baseline, and deltas at peak and after, per side. */
static json_t *js_wire(const struct pt_point *pt)
{
	const struct smp_wire *b = &pt->wire_base;

	if (!pt->have_wire || !b->valid)
		return json_null();
	return json_pack("{s:{s:o, s:o}, s:o, s:o}", "base", "server",
			 js_wire_side(&pt->wire_names, b->srv, NULL, true), "clients",
			 js_wire_side(&pt->wire_names, b->cli, NULL, true), "delta_peak",
			 pt->wire_peak.valid ? js_wire_pair(pt, &pt->wire_peak, true) : json_null(),
			 "delta", pt->wire_after.valid ? js_wire_pair(pt, &pt->wire_after, true) :
			 json_null());
}

static json_t *js_qp_states(const struct smp_qps *q)
{
	json_t *o;

	if (!q->valid)
		return json_null();
	o = json_object();
	for (unsigned s = 0; s < RQP_NSTATES; s++)
		json_object_set_new(o, rqp_state_name(s), json_integer(q->state[s]));
	return o;
}

static json_t *js_qp_list(const struct smp_qps *q)
{
	json_t *a = json_array();

	for (int i = 0; i < q->listed; i++)
		json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:I, s:I, s:s}", "lqpn",
						   (json_int_t)q->list[i].lqpn, "type",
						   rqp_type_name(q->list[i].type), "state",
						   rqp_state_name(q->list[i].state), "port",
						   (json_int_t)q->list[i].port, "pid",
						   (json_int_t)q->list[i].pid, "comm", q->list[i].comm));
	return a;
}

/* Beside the qp.* figures: every state's count, and the QPs named (ERR, left). */
static void js_qps(json_t *o, const struct pt_point *pt)
{
	json_t *qp = json_object_get(o, "qp");

	if (!qp)
		return;
	json_object_set_new(qp, "states", json_pack("{s:o, s:o, s:o}", "peak",
						    js_qp_states(&pt->qp_peak), "end",
						    js_qp_states(&pt->qp_end), "after",
						    js_qp_states(&pt->qp_after)));
	json_object_set_new(qp, "named", json_pack("{s:o, s:o, s:o}", "err_peak",
						   js_qp_list(&pt->qp_peak), "err_end",
						   js_qp_list(&pt->qp_end), "left",
						   js_qp_list(&pt->qp_after)));
}

static json_t *js_series(const struct pt_point *pt)
{
	const struct smp_series *se = &pt->series;
	json_t *a = json_array();

	for (size_t i = 0; i < se->n; i++) {
		const struct smp_sample *x = &se->s[i];
		json_t *o = json_pack("{s:I, s:I, s:I, s:I}", "t_ms", (json_int_t)x->t_ms, "connected",
				      (json_int_t)x->connected, "srv_rss_kb", (json_int_t)x->srv_rss_kb,
				      "srv_threads", (json_int_t)x->srv_threads);

		if (x->res.valid)
			json_object_set_new(o, "res", js_res_pair(&x->res));
		/* the port counters' deltas since the baseline, those that moved */
		if (x->wire && x->wire <= pt->wire_series.n && pt->wire_base.valid)
			json_object_set_new(o, "wire",
					    js_wire_pair(pt, &pt->wire_series.w[x->wire - 1], false));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *js_point(const struct pt_point *pt, const struct hp_plan *plan, const char *verdict)
{
	json_t *fails = json_array(), *causes = json_array(), *o;

	for (int i = 0; i < pt->nfails; i++) {
		const struct pt_fail *f = &pt->fails[i];

		json_array_append_new(fails, json_pack("{s:I, s:s, s:s, s:i, s:s, s:f, s:o}", "id",
						       (json_int_t)f->id, "phase", f->phase, "call",
						       f->call, "errno", f->err, "err", f->errname,
						       "t_s", f->t_s, "res", js_res_pair(&f->res)));
	}
	for (int i = 0; i < pt->ncauses; i++)
		json_array_append_new(causes, json_pack("{s:s, s:s, s:i, s:b, s:I}", "call",
							pt->causes[i].call, "err",
							pt->causes[i].errname, "errno",
							pt->causes[i].err, "at_server",
							pt->causes[i].at_server, "count",
							(json_int_t)pt->causes[i].count));
	o = json_object();
	fig_json(o, pt, plan);
	json_object_set_new(o, "resources",
			    json_pack("{s:o, s:o, s:o, s:b, s:s}", "base", js_res_pair(&pt->res_base),
				      "peak", js_res_pair(&pt->res_peak), "after",
				      js_res_pair(&pt->res_after), "leak", pt->leak, "leak_what",
				      pt->leak_what));
	if (pt->hosts)
		json_object_update_new(o, rsmp_json(pt->hosts));
	json_object_set_new(o, "failures", fails);
	json_object_set_new(o, "causes", causes);
	json_object_set_new(o, "ok", json_boolean(pt->ok));
	json_object_set_new(o, "why", json_string(pt->why));
	json_object_set_new(o, "verdict", json_string(verdict));
	json_object_set_new(o, "timeout_connect", json_boolean(pt->timeout_connect));
	json_object_set_new(o, "timeout_traffic", json_boolean(pt->timeout_traffic));
	json_object_set_new(o, "wire", js_wire(pt));
	js_qps(o, pt);
	json_object_set_new(o, "series", js_series(pt));
	return o;
}

/* writes len bytes of buf to path atomically: path.tmp.PID, then rename */
static int js_put(const char *path, const char *buf, size_t len)
{
	char tmp[4096];
	FILE *f;
	int n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "rdmacap: %s: path too long\n", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f)
		goto err;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		goto err_unlink;
	}
	if (fclose(f))
		goto err_unlink;
	if (rename(tmp, path)) {
		fprintf(stderr, "rdmacap: rename %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
err_unlink:
	n = errno;
	unlink(tmp);
	errno = n;
err:
	fprintf(stderr, "rdmacap: write %s: %s\n", tmp, strerror(errno));
	return -1;
}

/* The JSON, then beside it PATH.sha256 in sha256sum(1)'s format ("HEX  NAME",
 * NAME the JSON's base name), so `sha256sum -c` in its folder proves a result
 * file is what the run wrote. */
int js_write(json_t *doc, const char *path)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	char side[4096], line[2 * EVP_MAX_MD_SIZE + 4096];
	const char *base = strrchr(path, '/');
	unsigned int mdlen = 0;
	size_t len;
	char *s;
	int n, rc = -1;

	base = base ? base + 1 : path;
	if (snprintf(side, sizeof(side), "%s.sha256", path) >= (int)sizeof(side)) {
		fprintf(stderr, "rdmacap: %s: path too long\n", path);
		return -1;
	}
	s = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!s) {
		fprintf(stderr, "rdmacap: %s: cannot encode the JSON\n", path);
		return -1;
	}
	len = strlen(s);
	if (!EVP_Digest(s, len, md, &mdlen, EVP_sha256(), NULL)) {
		fprintf(stderr, "rdmacap: %s: sha256 failed\n", path);
		goto out;
	}
	n = 0;
	for (unsigned int i = 0; i < mdlen; i++)
		n += snprintf(line + n, sizeof(line) - n, "%02x", md[i]);
	n += snprintf(line + n, sizeof(line) - n, "  %s\n", base);
	if (n >= (int)sizeof(line)) {
		fprintf(stderr, "rdmacap: %s: path too long\n", path);
		goto out;
	}
	if (js_put(path, s, len) || js_put(side, line, (size_t)n))
		goto out;
	rc = 0;
out:
	free(s);
	return rc;
}
