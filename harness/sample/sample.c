// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rnl.h"
#include "harness/sample/sample.h"
#include "harness/sample/tcpw.h"

#define SMP_MAX_DEVS 128
#define SMP_MAX_SAMPLES (1u << 20)
#define SMP_MAX_PORTS 64 /* rstat_port is ~7 KiB: every port of every device, on the heap */

_Static_assert(SMP_NRES == RNL_NRES, "sample.h and rnl.h disagree on resources");

struct smp_sampler {
	const struct nn_topo *t;
	struct rnl rnl;
	bool res_ok;
	struct rnl_dev devs[SMP_MAX_DEVS];
	struct rstat_port *ports;
	struct smp_wire_names names;
	struct tcpw *tcpw;	/* tcp: the wire is the namespaces' TCP counters */
};

_Static_assert(TCPW_N <= SMP_NWIRE, "the TCP counters do not fit a wire reading");

/* The TCP counters as the wire; a failure leaves the wire unread, and says why. */
static void smp_open_tcp(struct smp_sampler *s, char *why, size_t len)
{
	char e[200];

	s->tcpw = tcpw_open(s->t, e, sizeof(e));
	if (!s->tcpw) {
		snprintf(why, len, "%s", e);
		return;
	}
	for (int i = 0; i < TCPW_N; i++)
		snprintf(s->names.name[i], sizeof(s->names.name[i]), "%s", tcpw_names[i]);
	s->names.n = TCPW_N;
}

struct smp_sampler *smp_open(const struct nn_topo *t, bool tcp, char *why, size_t len)
{
	struct smp_sampler *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(why, len, "calloc: %s", strerror(errno));
		return NULL;
	}
	s->t = t;
	*why = '\0';
	if (tcp)
		smp_open_tcp(s, why, len);
	if (!t->rxe) {
		if (*why)
			return s;
		snprintf(why, len, "no rxe devices in this topology");
		return s;
	}
	if (rnl_open(&s->rnl)) {
		snprintf(why, len, "%s", s->rnl.err);
		return s;
	}
	s->ports = calloc(SMP_MAX_PORTS, sizeof(*s->ports));
	if (!s->ports) {
		snprintf(why, len, "calloc: %s", strerror(errno));
		rnl_close(&s->rnl);
		return s;
	}
	s->res_ok = true;
	return s;
}

void smp_close(struct smp_sampler *s)
{
	if (!s)
		return;
	if (s->res_ok)
		rnl_close(&s->rnl);
	tcpw_close(s->tcpw);
	free(s->ports);
	free(s);
}

bool smp_has_res(const struct smp_sampler *s)
{
	return s && s->res_ok;
}

bool smp_has_wire(const struct smp_sampler *s)
{
	return s && (s->res_ok || s->tcpw);
}

static void smp_add(uint64_t *dst, const struct rnl_dev *d)
{
	for (int i = 0; i < SMP_NRES; i++)
		dst[i] += d->cur[i];
}

int smp_res_read(struct smp_sampler *s, struct smp_res *r)
{
	const struct nn_topo *t = s->t;
	const struct rnl_dev *d;
	int n;

	memset(r, 0, sizeof(*r));
	if (!s->res_ok)
		return -1;
	n = rnl_sample(&s->rnl, s->devs, SMP_MAX_DEVS);
	if (n < 0)
		return -1;
	d = rnl_find(s->devs, n, t->srv.rxe);
	if (!d)
		return -1;
	smp_add(r->srv, d);
	for (int k = 0; k < t->nclients; k++) {
		if (!strcmp(t->cli[k].rxe, t->srv.rxe))
			continue;
		d = rnl_find(s->devs, n, t->cli[k].rxe);
		if (!d)
			return -1;
		smp_add(r->cli, d);
	}
	r->valid = true;
	return 0;
}

/* Index of counter 'name' in the sampler's names, added when new; -1 when full. */
static int smp_wire_slot(struct smp_wire_names *nm, const char *name)
{
	for (int i = 0; i < nm->n; i++)
		if (!strcmp(nm->name[i], name))
			return i;
	if (nm->n == SMP_NWIRE)
		return -1;
	snprintf(nm->name[nm->n], sizeof(nm->name[0]), "%s", name);
	return nm->n++;
}

/* Adds every port of device 'dev' in ports[0..n-1] to dst. -1 when it has none. */
static int smp_wire_add(struct smp_sampler *s, int n, const char *dev, uint64_t *dst)
{
	int found = 0;

	for (int p = 0; p < n; p++) {
		const struct rstat_port *sp = &s->ports[p];

		if (strcmp(sp->dev, dev))
			continue;
		found++;
		for (int c = 0; c < sp->n; c++) {
			int i = smp_wire_slot(&s->names, sp->name[c]);

			if (i >= 0)
				dst[i] += sp->val[c];
		}
	}
	return found ? 0 : -1;
}

int smp_wire_read(struct smp_sampler *s, struct smp_wire *w)
{
	const struct nn_topo *t = s->t;
	int n;

	memset(w, 0, sizeof(*w));
	if (s->tcpw) {
		if (tcpw_read(s->tcpw, w->srv, w->cli))
			return -1;
		w->valid = true;
		return 0;
	}
	if (!s->res_ok)
		return -1;
	n = rstat_sample(&s->rnl, s->ports, SMP_MAX_PORTS);
	if (n < 0 || smp_wire_add(s, n, t->srv.rxe, w->srv))
		return -1;
	for (int k = 0; k < t->nclients; k++)
		if (strcmp(t->cli[k].rxe, t->srv.rxe) && smp_wire_add(s, n, t->cli[k].rxe, w->cli))
			return -1;
	w->valid = true;
	return 0;
}

const struct smp_wire_names *smp_wire_names(const struct smp_sampler *s)
{
	return &s->names;
}

/* Adds one device's census to q. */
static int smp_qp_dev(struct smp_sampler *s, int ndev, const char *dev, struct rqp_query *rq,
		     struct smp_qps *q, int timeout_ms)
{
	const struct rnl_dev *d = rnl_find(s->devs, ndev, dev);

	if (!d)
		return -1;
	rq->list = q->list + q->listed;
	rq->maxlist = SMP_QP_LIST - q->listed;
	if (rqp_scan(&s->rnl, d->index, rq, timeout_ms))
		return -1;
	q->owned += rq->owned;
	q->matched += rq->matched;
	q->listed += rq->listed;
	for (int i = 0; i < RQP_NSTATES; i++)
		q->state[i] += rq->state[i];
	return 0;
}

int smp_qp_scan(struct smp_sampler *s, const uint32_t *pids, int npids, uint32_t states,
	       struct smp_qps *q, int timeout_ms)
{
	const struct nn_topo *t = s->t;
	struct rqp_query rq = { .pids = pids, .npids = npids, .states = states };
	int n;

	memset(q, 0, sizeof(*q));
	/* no pids would count every QP of the device: not the run's */
	if (!s->res_ok || npids <= 0)
		return -1;
	n = rnl_sample(&s->rnl, s->devs, SMP_MAX_DEVS);
	if (n < 0 || smp_qp_dev(s, n, t->srv.rxe, &rq, q, timeout_ms))
		return -1;
	for (int k = 0; k < t->nclients; k++)
		if (strcmp(t->cli[k].rxe, t->srv.rxe) &&
		    smp_qp_dev(s, n, t->cli[k].rxe, &rq, q, timeout_ms))
			return -1;
	q->valid = true;
	return 0;
}

/* Room for one more of 'size' bytes in *p (n used of *cap). 0, or -1 past the bound. */
static int smp_grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 1024;
	void *q;

	if (n < *cap)
		return 0;
	if (c > SMP_MAX_SAMPLES)
		return -1;
	q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

int smp_series_add(struct smp_series *se, const struct smp_sample *x)
{
	if (smp_grow((void **)&se->s, &se->cap, se->n, sizeof(*se->s)))
		return -1;
	se->s[se->n++] = *x;
	return 0;
}

void smp_series_free(struct smp_series *se)
{
	free(se->s);
	memset(se, 0, sizeof(*se));
}

uint32_t smp_wire_series_add(struct smp_wire_series *ws, const struct smp_wire *w)
{
	if (smp_grow((void **)&ws->w, &ws->cap, ws->n, sizeof(*ws->w)))
		return 0;
	ws->w[ws->n++] = *w;
	return (uint32_t)ws->n;
}

void smp_wire_series_free(struct smp_wire_series *ws)
{
	free(ws->w);
	memset(ws, 0, sizeof(*ws));
}

const char *smp_res_name(int i)
{
	return rnl_res_name((enum rnl_res)i);
}

json_t *smp_res_json(const uint64_t *v)
{
	json_t *o = json_object();

	for (int i = 0; i < SMP_NRES; i++)
		json_object_set_new(o, smp_res_name(i), json_integer((json_int_t)v[i]));
	return o;
}
