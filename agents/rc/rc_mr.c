// SPDX-License-Identifier: MIT
/*
 * --mr shared: the connections' slices of an agent's few MRs (struct rc_mrs,
 * rc.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/rc/rc.h"

/* chunks are whole pages: a registration pins no page another chunk has */
#define RC_MR_ALIGN 4096

size_t rc_mr_stride(uint32_t size, bool note)
{
	/* an atomic's counter is 8 bytes whatever --size says */
	size_t rlen = size < 8 ? 8 : size;

	return (((size_t)size + 7) / 8 * 8 + (rlen + 7) / 8 * 8 + (note ? RC_NOTE_LEN : 0) + 63) /
	       64 * 64;
}

uint32_t rc_mr_slices(uint32_t c, size_t stride)
{
	uint32_t n = RC_MR_CHUNK;
	size_t most = RC_MR_CHUNK_BYTES / stride;

	if (c < 32 && ((uint64_t)RC_MR_FIRST << c) < RC_MR_CHUNK)
		n = RC_MR_FIRST << c;
	if (n > most)
		n = most ? (uint32_t)most : 1;
	return n;
}

void rc_mr_init(struct rc_mrs *m, uint32_t size, bool note, int access)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->mu, NULL);
	m->stride = rc_mr_stride(size, note);
	m->access = access;
}

static void rc_mr_drop(struct rc_mrchunk *k)
{
	int err;

	if (k->mr && (err = ibv_dereg_mr(k->mr)))
		ag_warn("ibv_dereg_mr shared chunk of %u slices: %s", k->n, strerror(err));
	free(k->buf);
	free(k->free);
	memset(k, 0, sizeof(*k));
}

void rc_mr_fini(struct rc_mrs *m)
{
	for (uint32_t c = 0; c < m->nc; c++) {
		if (!m->c[c].mr)
			continue;
		/* endpoints are gone: a slice still out is a leak */
		if (m->c[c].nfree != m->c[c].n)
			ag_warn("shared MR chunk %u still has %u slices at close", c,
				m->c[c].n - m->c[c].nfree);
		rc_mr_drop(&m->c[c]);
	}
	free(m->c);
	m->c = NULL;
	m->nc = 0;
	pthread_mutex_destroy(&m->mu);
}

/* registers chunk c (free, below m->nc) */
static int rc_mr_chunk(struct rc_mrs *m, struct ibv_pd *pd, uint32_t c, struct verbs_fail *f)
{
	struct rc_mrchunk *k = &m->c[c];
	uint32_t n = rc_mr_slices(c, m->stride);
	size_t len = (m->stride * n + RC_MR_ALIGN - 1) / RC_MR_ALIGN * RC_MR_ALIGN;

	k->buf = aligned_alloc(RC_MR_ALIGN, len);
	k->free = malloc(n * sizeof(*k->free));
	if (!k->buf || !k->free) {
		f->call = "malloc";
		f->err = ENOMEM;
		goto err;
	}
	k->mr = ibv_reg_mr(pd, k->buf, len, m->access);
	if (!k->mr) {
		f->call = "ibv_reg_mr";
		f->err = errno ? errno : EIO;
		ag_warn("ibv_reg_mr shared chunk %u of %u slices (%zu bytes): %s", c, n, len,
			strerror(f->err));
		goto err;
	}
	/* popped from the top: slice 0 first */
	for (uint32_t i = 0; i < n; i++)
		k->free[i] = n - 1 - i;
	k->n = k->nfree = n;
	return 0;
err:
	rc_mr_drop(k);
	return -1;
}

static int rc_mr_find(struct rc_mrs *m, struct ibv_pd *pd, uint32_t *c, struct verbs_fail *f)
{
	uint32_t hole = UINT32_MAX, i;
	struct rc_mrchunk *p;

	for (i = 0; i < m->nc; i++) {
		if (m->c[i].mr && m->c[i].nfree) {
			*c = i;
			return 0;
		}
		if (!m->c[i].mr && hole == UINT32_MAX)
			hole = i;
	}
	if (hole == UINT32_MAX) {
		p = realloc(m->c, (m->nc + 1) * sizeof(*p));
		if (!p) {
			f->call = "malloc";
			f->err = ENOMEM;
			return -1;
		}
		m->c = p;
		memset(&m->c[m->nc], 0, sizeof(*p));
		hole = m->nc++;
	}
	*c = hole;
	return rc_mr_chunk(m, pd, hole, f);
}

int rc_mr_get(struct rc_mrs *m, struct ibv_pd *pd, uint32_t *c, uint32_t *i, uint8_t **buf,
	      struct ibv_mr **mr, struct verbs_fail *f)
{
	struct rc_mrchunk *k;
	int ret;

	pthread_mutex_lock(&m->mu);
	ret = rc_mr_find(m, pd, c, f);
	if (!ret) {
		k = &m->c[*c];
		*i = k->free[--k->nfree];
		*buf = k->buf + rc_mr_off(m->stride, *i);
		*mr = k->mr;
		memset(*buf, 0, m->stride);
	}
	pthread_mutex_unlock(&m->mu);
	return ret;
}

void rc_mr_put(struct rc_mrs *m, uint32_t c, uint32_t i)
{
	struct rc_mrchunk *k;

	pthread_mutex_lock(&m->mu);
	k = &m->c[c];
	k->free[k->nfree++] = i;
	/* an empty chunk goes, so the counters return to the baseline */
	if (k->nfree == k->n)
		rc_mr_drop(k);
	pthread_mutex_unlock(&m->mu);
}
