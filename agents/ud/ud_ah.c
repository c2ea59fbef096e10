// SPDX-License-Identifier: MIT
/*
 * ud: the sender of a datagram from its GRH, and the server's AH cache keyed
 * by (GID, QPN): open addressing, linear probing, deletion by backward shift
 * (no tombstones, so a long run of joins and leaves never slows lookups).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ud/ud.h"

int ud_grh_sgid(const uint8_t grh[OPT_UD_GRH], uint8_t gid[16])
{
	static const uint8_t zero[20];

	/* RoCEv2 over IPv4: the provider leaves 20 zero bytes, then the IP header */
	if (!memcmp(grh, zero, sizeof(zero)) && grh[20] == 0x45) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, grh + 20 + 12, 4);
		return 0;
	}
	if ((grh[0] >> 4) == 6) {
		memcpy(gid, grh + 8, 16);
		return 0;
	}
	return -1;
}

static uint32_t ud_hash(const uint8_t gid[16], uint32_t qpn)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x100000001b3ull;
	h = (h ^ qpn) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

static struct ud_ahe *ud_ahmap_slot(const struct ud_ahmap *m, const uint8_t gid[16],
				    uint32_t qpn)
{
	uint32_t i = ud_hash(gid, qpn) & (m->cap - 1);

	while (m->e[i].qpn && (m->e[i].qpn != qpn || memcmp(m->e[i].gid, gid, 16)))
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

struct ud_ahe *ud_ahmap_get(const struct ud_ahmap *m, const uint8_t gid[16], uint32_t qpn)
{
	struct ud_ahe *e;

	if (!m->cap || !qpn)
		return NULL;
	e = ud_ahmap_slot(m, gid, qpn);
	return e->qpn ? e : NULL;
}

static int ud_ahmap_grow(struct ud_ahmap *m)
{
	struct ud_ahmap n = { .cap = m->cap ? m->cap * 2 : 1024 };

	n.e = calloc(n.cap, sizeof(*n.e));
	if (!n.e)
		return -1;
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->e[i].qpn)
			*ud_ahmap_slot(&n, m->e[i].gid, m->e[i].qpn) = m->e[i];
	n.used = m->used;
	free(m->e);
	*m = n;
	return 0;
}

struct ud_ahe *ud_ahmap_put(struct ud_ahmap *m, const uint8_t gid[16], uint32_t qpn)
{
	struct ud_ahe *e;

	/* at most half full: probe runs stay short */
	if (2 * (m->used + 1) > m->cap && ud_ahmap_grow(m)) {
		errno = ENOMEM;
		return NULL;
	}
	e = ud_ahmap_slot(m, gid, qpn);
	if (e->qpn) {
		errno = EEXIST;
		return NULL;
	}
	memcpy(e->gid, gid, 16);
	e->qpn = qpn;
	e->ah = NULL;
	e->lru = 0;
	m->used++;
	return e;
}

void ud_ahmap_del(struct ud_ahmap *m, struct ud_ahe *e)
{
	uint32_t i = (uint32_t)(e - m->e), j = i, k;

	m->e[i].qpn = 0;
	m->used--;
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->e[j].qpn)
			return;
		k = ud_hash(m->e[j].gid, m->e[j].qpn) & (m->cap - 1);
		/* j's entry may move into the hole i unless its home k lies in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->e[i] = m->e[j];
		m->e[j].qpn = 0;
		i = j;
	}
}

void ud_ahmap_free(struct ud_ahmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}
