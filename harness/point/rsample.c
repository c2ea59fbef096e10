// SPDX-License-Identifier: MIT
/*
 * One sampler per host over ssh: `rdma -j resource show` and /proc/meminfo
 * there, three times a point (see rsample.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "harness/hosts/remote.h"
#include "harness/point/rsample.h"
#include "harness/point/rt.h"

#define RSMP_CMD "rdma -j resource show && grep '^Slab:' /proc/meminfo"
#define RSMP_TIMEOUT_S 20
#define RSMP_AFTER_WAIT_S 5

static const char *const rsmp_when_name[RSMP_N] = { "base", "peak", "after" };

/* The JSON array of `rdma -j resource show`: the host's device, or all of them. */
static int rsmp_parse(struct rsmp_host *h, enum rsmp_when w, const char *out)
{
	json_error_t je;
	json_t *a = json_loadb(out, strcspn(out, "\n"), 0, &je), *d;
	const char *slab = strstr(out, "\nSlab:");
	size_t i;

	if (!json_is_array(a) || !slab) {
		snprintf(h->err, sizeof(h->err), "rdma -j resource show: %.100s", out);
		json_decref(a);
		return -1;
	}
	memset(h->res[w], 0, sizeof(h->res[w]));
	json_array_foreach(a, i, d) {
		const char *name = json_string_value(json_object_get(d, "ifname"));

		if (h->device[0] && (!name || strcmp(name, h->device)))
			continue;
		for (int k = 0; k < SMP_NRES; k++)
			h->res[w][k] += (uint64_t)json_integer_value(json_object_get(d, smp_res_name(k)));
	}
	json_decref(a);
	h->slab_kb[w] = atol(slab + 6);
	h->valid[w] = true;
	return 0;
}

static int rsmp_read(struct rt *r, enum rsmp_when w)
{
	struct rm_ctx *rm = r->c->remote;
	struct rsmp_hosts *hs = r->pt->hosts;
	char out[8192];
	int bad = 0;

	for (int k = 0; hs && k < hs->n; k++) {
		struct rsmp_host *h = &hs->h[k];
		int st = h->lost[0] ? -1 : rm_cmd(rm, k, RSMP_CMD, out, sizeof(out), RSMP_TIMEOUT_S);

		h->valid[w] = false;
		if (h->lost[0]) {
			/* not waited for: its counters are unknown, the others' still count */
			snprintf(h->err, sizeof(h->err), "%s: not read: lost", rsmp_when_name[w]);
		} else if (st) {
			snprintf(h->err, sizeof(h->err), "%s: %.120s", rsmp_when_name[w], out);
			bad++;
		} else if (rsmp_parse(h, w, out)) {
			bad++;
		}
	}
	return bad ? -1 : 0;
}

/* The point's srv and cli counters are the server host's and the client hosts' sums. */
static bool rsmp_sum(struct rt *r, enum rsmp_when w, struct smp_res *res)
{
	struct rsmp_hosts *hs = r->pt->hosts;

	memset(res, 0, sizeof(*res));
	for (int k = 0; k < hs->n; k++) {
		if (!hs->h[k].valid[w])
			return false;
		for (int i = 0; i < SMP_NRES; i++)
			(k ? res->cli : res->srv)[i] += hs->h[k].res[w][i];
	}
	res->valid = true;
	return true;
}

void rsmp_base(struct rt *r)
{
	struct rm_ctx *rm = r->c->remote;
	const struct nn_topo *t = r->c->topo;
	struct rsmp_hosts *hs = calloc(1, sizeof(*hs));

	r->pt->hosts = hs;
	if (!hs)
		return;
	hs->n = rm->list.n;
	for (int k = 0; k < hs->n; k++) {
		struct rsmp_host *h = &hs->h[k];

		snprintf(h->dest, sizeof(h->dest), "%s", rm->list.h[k].dest);
		snprintf(h->device, sizeof(h->device), "%s", k ? t->cli[k - 1].rxe : t->srv.rxe);
		h->server = !k;
	}
	rsmp_read(r, RSMP_BASE);
	rsmp_sum(r, RSMP_BASE, &r->pt->res_base);
}

/* Agents per host, each on its lay_agent_at host. */
static void rsmp_agents(struct rt *r)
{
	struct rsmp_hosts *hs = r->pt->hosts;

	for (long i = 0; i < r->nag; i++) {
		struct agt_agent *a = &r->ag[i];
		struct rsmp_host *h = &hs->h[lay_agent_at(r, i).host];

		h->agents++;
		if (a->server)
			continue;
		h->clients += a->n;
		h->connected += a->ok;
		h->failed += a->fail;
	}
}

void rsmp_peak(struct rt *r)
{
	if (!r->pt->hosts)
		return;
	rsmp_read(r, RSMP_PEAK);
	rsmp_sum(r, RSMP_PEAK, &r->pt->res_peak);
}

static bool rsmp_back(struct rt *r)
{
	struct rsmp_hosts *hs = r->pt->hosts;

	if (rsmp_read(r, RSMP_AFTER))
		return false;
	for (int k = 0; k < hs->n; k++)
		if (!hs->h[k].lost[0] &&
		    memcmp(hs->h[k].res[RSMP_AFTER], hs->h[k].res[RSMP_BASE], sizeof(hs->h[k].res[0])))
			return false;
	return true;
}

void rsmp_after(struct rt *r)
{
	struct pt_point *pt = r->pt;
	struct rsmp_hosts *hs = pt->hosts;
	double end = clock_s() + RSMP_AFTER_WAIT_S;
	bool back;

	if (!hs)
		return;
	rsmp_agents(r);
	while (!(back = rsmp_back(r)) && clock_s() < end)
		usleep(200000);
	if (!rsmp_sum(r, RSMP_AFTER, &pt->res_after) || !rsmp_sum(r, RSMP_BASE, &pt->res_base))
		return; /* a host could not be read: rsmp_tap names it, no verdict on counters */
	pt->have_res = true;
	for (int k = 0; !back && k < hs->n; k++) {
		size_t l = strlen(pt->leak_what);

		if (memcmp(hs->h[k].res[RSMP_AFTER], hs->h[k].res[RSMP_BASE], sizeof(hs->h[k].res[0])))
			snprintf(pt->leak_what + l, sizeof(pt->leak_what) - l, "%s%s not back at its "
				 "baseline", l ? ", " : "", hs->h[k].dest);
	}
	pt->leak |= !back;
}

static void rsmp_res_str(const uint64_t *v, const char *tag, char *buf, size_t len)
{
	size_t n = 0;

	for (int i = 0; i < SMP_NRES && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s_%s=%llu", smp_res_name(i), tag,
				      (unsigned long long)v[i]);
}

void rsmp_tap(struct tap *t, const struct rsmp_hosts *hs)
{
	long ag = 0, cl = 0, ok = 0, fail = 0;
	char b[256], p[256], a[256];

	for (int k = 0; k < hs->n; k++) {
		const struct rsmp_host *h = &hs->h[k];

		rsmp_res_str(h->res[RSMP_BASE], "base", b, sizeof(b));
		rsmp_res_str(h->res[RSMP_PEAK], "peak", p, sizeof(p));
		rsmp_res_str(h->res[RSMP_AFTER], "after", a, sizeof(a));
		tap_diag(t, "host=%s role=%s device=%s agents=%ld clients=%ld connected=%ld failed=%ld "
			 "slab_kb_base=%ld slab_kb_peak=%ld%s%s%s%s%s", h->dest,
			 h->server ? "server" : "client", h->device[0] ? h->device : "all", h->agents,
			 h->clients, h->connected, h->failed, h->slab_kb[RSMP_BASE],
			 h->slab_kb[RSMP_PEAK], b, p, a, h->err[0] ? " error=" : "", h->err);
		if (h->lost[0])
			tap_diag(t, "host_lost host=%s role=%s phase=%s after_s=%.1f clients=%ld cause=%s",
				 h->dest, h->server ? "server" : "client", h->lost_phase, h->lost_s,
				 h->lost_clients, h->lost);
		ag += h->agents;
		cl += h->clients;
		ok += h->connected;
		fail += h->failed;
	}
	tap_diag(t, "hosts_total hosts=%d agents=%ld clients=%ld connected=%ld failed=%ld", hs->n,
		 ag, cl, ok, fail);
}

json_t *rsmp_json(const struct rsmp_hosts *hs)
{
	json_t *arr = json_array(), *tot;
	long ag = 0, cl = 0, ok = 0, fail = 0;

	for (int k = 0; k < hs->n; k++) {
		const struct rsmp_host *h = &hs->h[k];
		json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "host",
				      h->dest, "role", h->server ? "server" : "client", "device",
				      h->device, "agents", (json_int_t)h->agents, "clients",
				      (json_int_t)h->clients, "connected", (json_int_t)h->connected,
				      "failed", (json_int_t)h->failed, "slab_kb_base",
				      (json_int_t)h->slab_kb[RSMP_BASE], "slab_kb_peak",
				      (json_int_t)h->slab_kb[RSMP_PEAK], "back_at_base",
				      h->valid[RSMP_AFTER] && !memcmp(h->res[RSMP_AFTER], h->res[RSMP_BASE],
								    sizeof(h->res[0])));

		for (int w = 0; w < RSMP_N; w++)
			json_object_set_new(o, rsmp_when_name[w], h->valid[w] ? smp_res_json(h->res[w]) :
					    json_null());
		if (h->err[0])
			json_object_set_new(o, "error", json_string(h->err));
		if (h->lost[0])
			json_object_set_new(o, "lost", json_pack("{s:s, s:s, s:f, s:I}", "cause", h->lost,
								 "phase", h->lost_phase, "after_s",
								 h->lost_s, "clients",
								 (json_int_t)h->lost_clients));
		json_array_append_new(arr, o);
		ag += h->agents;
		cl += h->clients;
		ok += h->connected;
		fail += h->failed;
	}
	tot = json_pack("{s:i, s:I, s:I, s:I, s:I}", "hosts", hs->n, "agents", (json_int_t)ag,
			"clients", (json_int_t)cl, "connected", (json_int_t)ok, "failed",
			(json_int_t)fail);
	return json_pack("{s:o, s:o}", "hosts", arr, "total", tot);
}
