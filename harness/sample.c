// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rnl.h"
#include "harness/sample.h"

#define HS_MAX_DEVS 128
#define HS_MAX_SAMPLES (1u << 20)

_Static_assert(HS_NRES == RNL_NRES, "sample.h and rnl.h disagree on resources");

struct hs_sampler {
	const struct nn_topo *t;
	struct rnl rnl;
	bool res_ok;
	struct rnl_dev devs[HS_MAX_DEVS];
};

struct hs_sampler *hs_open(const struct nn_topo *t, char *why, size_t len)
{
	struct hs_sampler *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(why, len, "calloc: %s", strerror(errno));
		return NULL;
	}
	s->t = t;
	*why = '\0';
	if (!t->rxe) {
		snprintf(why, len, "no rxe devices in this topology");
		return s;
	}
	if (rnl_open(&s->rnl)) {
		snprintf(why, len, "%s", s->rnl.err);
		return s;
	}
	s->res_ok = true;
	return s;
}

void hs_close(struct hs_sampler *s)
{
	if (!s)
		return;
	if (s->res_ok)
		rnl_close(&s->rnl);
	free(s);
}

bool hs_has_res(const struct hs_sampler *s)
{
	return s && s->res_ok;
}

static void hs_add(uint64_t *dst, const struct rnl_dev *d)
{
	for (int i = 0; i < HS_NRES; i++)
		dst[i] += d->cur[i];
}

int hs_res_read(struct hs_sampler *s, struct hs_res *r)
{
	const struct nn_topo *t = s->t;
	const struct rnl_dev *d;
	int n;

	memset(r, 0, sizeof(*r));
	if (!s->res_ok)
		return -1;
	n = rnl_sample(&s->rnl, s->devs, HS_MAX_DEVS);
	if (n < 0)
		return -1;
	d = rnl_find(s->devs, n, t->srv.rxe);
	if (!d)
		return -1;
	hs_add(r->srv, d);
	for (int k = 0; k < t->nclients; k++) {
		if (!strcmp(t->cli[k].rxe, t->srv.rxe))
			continue;
		d = rnl_find(s->devs, n, t->cli[k].rxe);
		if (!d)
			return -1;
		hs_add(r->cli, d);
	}
	r->valid = true;
	return 0;
}

int hs_series_add(struct hs_series *se, const struct hs_sample *x)
{
	if (se->n == se->cap) {
		size_t cap = se->cap ? se->cap * 2 : 1024;
		struct hs_sample *s;

		if (cap > HS_MAX_SAMPLES)
			return -1;
		s = realloc(se->s, cap * sizeof(*s));
		if (!s)
			return -1;
		se->s = s;
		se->cap = cap;
	}
	se->s[se->n++] = *x;
	return 0;
}

void hs_series_free(struct hs_series *se)
{
	free(se->s);
	memset(se, 0, sizeof(*se));
}

const char *hs_res_name(int i)
{
	return rnl_res_name((enum rnl_res)i);
}
