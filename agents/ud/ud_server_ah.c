// SPDX-License-Identifier: MIT
/*
 * ud server: the address handles it answers through, one policy per --ah.
 *   cache  one AH per admitted client, made at its REQ (stops at max_ah)
 *   wc     one per reply, from the work completion, destroyed when it is sent
 *   lru    at most --ah-max, made at the REQ while the pool has room, else at
 *          the client's first datagram in place of the least recently used one
 *          (ud_lru); an AH a send still reads is never destroyed
 *   peer   one per GID the clients come from, shared by them all: an AH names
 *          a port, not a QP; nothing but a map entry per client, and no verbs
 *          call in the completion loop but the echo
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/ud/ud_server.h"

/* AHs held in all loops, for their peak: an atomic add, no lock (ud_server.h) */
static void udsa_count(struct uds *s, int d)
{
	struct uds_top *t = uds_top(s);

	if (d < 0) {
		atomic_fetch_sub(&t->ah_live, 1);
		return;
	}
	s->ah_made++;
	srvl_peak(&t->ah_live, &t->ah_peak);
}

static void udsa_destroy(struct uds *s, struct ibv_ah *ah)
{
	int err = ibv_destroy_ah(ah);

	if (err)
		ag_warn("ibv_destroy_ah: %s", strerror(err));
	udsa_count(s, -1);
}

static void udsa_warn(struct uds *s, const struct verbs_fail *f, uint32_t qpn)
{
	if (!s->ah_failed++)
		ag_warn("%s for QPN %u: %s", f->call, qpn, strerror(f->err));
}

/* --ah lru: an entry whose client left waits for its last send to complete */
static void udsa_lru_drop(struct uds *s, uint32_t i)
{
	struct ud_lru_ent *le = &s->lru.e[i];

	le->qpn = 0;
	if (le->inflight)
		return;
	udsa_destroy(s, le->ah);
	ud_lru_put(&s->lru, i, true);
}

/*
 * --ah lru: a pool entry with an AH to client e, in place of the least
 * recently used one when the pool is full; 0 when every AH has a send out
 * (f->err EBUSY) or ibv_create_ah failed.
 */
static uint32_t udsa_lru_make(struct uds *s, struct ud_ahe *e, struct verbs_fail *f)
{
	struct ud_lru *l = &s->lru;
	struct ud_ahe *old;
	bool evict;
	uint32_t i = ud_lru_take(l, &evict);

	if (!i) {
		*f = (struct verbs_fail){ "ud_lru_take", EBUSY };
		return 0;
	}
	if (evict) {
		old = ud_ahmap_get(&s->ahs, l->e[i].gid, l->e[i].qpn);
		if (old)
			old->lru = 0;
		udsa_destroy(s, l->e[i].ah);
		l->evicted++;
	}
	l->e[i].ah = ud_ah_create(&s->dev, e->lid, e->gid, f);
	if (!l->e[i].ah) {
		ud_lru_put(l, i, false);
		return 0;
	}
	udsa_count(s, 1);
	memcpy(l->e[i].gid, e->gid, 16);
	l->e[i].qpn = e->qpn;
	e->lru = i;
	ud_lru_use(l, i, false);
	return i;
}

/* --ah peer: hold the AH of the GID gid, made for its first client */
static int udsa_peer_hold(struct uds *s, uint16_t lid, const uint8_t gid[16],
			   struct verbs_fail *f)
{
	struct ud_ahe *p = ud_ahmap_get(&s->peers, gid, UD_PEER_QPN);

	if (!p) {
		p = ud_ahmap_put(&s->peers, gid, UD_PEER_QPN);
		if (!p) {
			*f = (struct verbs_fail){ "malloc", ENOMEM };
			return -1;
		}
		p->ah = ud_ah_create(&s->dev, lid, gid, f);
		if (!p->ah) {
			ud_ahmap_del(&s->peers, p);
			return -1;
		}
		udsa_count(s, 1);
	}
	p->refs++;
	return 0;
}

/* --ah peer: the GID's last client gone, its AH goes too */
static void udsa_peer_drop(struct uds *s, const uint8_t gid[16])
{
	struct ud_ahe *p = ud_ahmap_get(&s->peers, gid, UD_PEER_QPN);

	if (!p || --p->refs)
		return;
	udsa_destroy(s, p->ah);
	ud_ahmap_del(&s->peers, p);
}

int udsa_admit(struct uds *s, struct ud_ahe *e, struct verbs_fail *f)
{
	struct verbs_fail lf;

	switch (s->o->ah) {
	case OPT_AH_CACHE:
		e->ah = ud_ah_create(&s->dev, e->lid, e->gid, f);
		if (!e->ah)
			return -1;
		udsa_count(s, 1);
		break;
	case OPT_AH_PEER:
		return udsa_peer_hold(s, e->lid, e->gid, f);
	case OPT_AH_LRU:
		/*
		 * here while the pool has room, not in the completion loop at the
		 * first datagram (~190/s there under TCG at load 20, which the round
		 * trips in flight outran); a failure leaves it to that datagram
		 */
		if (ud_lru_room(&s->lru) && !udsa_lru_make(s, e, &lf))
			udsa_warn(s, &lf, e->qpn);
		break;
	default:	/* wc: the map only admits the client; each reply makes its own */
		break;
	}
	return 0;
}

void udsa_drop(struct uds *s, const struct uds_key *k)
{
	struct ud_ahe *e = ud_ahmap_get(&s->ahs, k->gid, k->qpn);

	if (!e)
		return;
	if (e->ah)
		udsa_destroy(s, e->ah);
	if (e->lru)
		udsa_lru_drop(s, e->lru);
	if (s->o->ah == OPT_AH_PEER)
		udsa_peer_drop(s, k->gid);
	ud_ahmap_del(&s->ahs, e);
	srvl_down(&s->loop);
}

/*
 * --ah wc: an AH for the reply out of slot, from the completion and the GRH in
 * front of the datagram; it lives until the send completes, so the AHs held
 * never exceed the receive slots, whatever the number of clients.
 */
static struct ibv_ah *udsa_from_wc(struct uds *s, const struct ibv_wc *wc, uint32_t slot)
{
	struct ibv_ah *ah;

	ah = ibv_create_ah_from_wc(s->dev.pd, (struct ibv_wc *)wc,
				   (struct ibv_grh *)ud_rbuf(&s->dev, &s->qp, slot), s->dev.port);
	if (!ah) {
		if (!s->ah_failed++)
			ag_warn("ibv_create_ah_from_wc from QPN %u: %s", wc->src_qp,
				strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	udsa_count(s, 1);
	s->slot_ah[slot] = ah;
	return ah;
}

/* --ah lru: client e's AH, made now if it has none (evicted, or no room at its REQ) */
static struct ibv_ah *udsa_lru_ah(struct uds *s, struct ud_ahe *e, uint32_t slot)
{
	struct ud_lru *l = &s->lru;
	struct verbs_fail f;
	uint32_t i = e->lru;

	if (i) {
		ud_lru_use(l, i, true);
	} else if (!(i = udsa_lru_make(s, e, &f))) {
		/* EBUSY: every AH has a send out, the client resends */
		if (f.err != EBUSY)
			udsa_warn(s, &f, e->qpn);
		return NULL;
	}
	l->e[i].inflight++;
	s->slot_lru[slot] = i;
	return l->e[i].ah;
}

struct ibv_ah *udsa_reply(struct uds *s, struct ud_ahe *e, const struct ibv_wc *wc,
			 uint32_t slot)
{
	struct ud_ahe *p;

	switch (s->o->ah) {
	case OPT_AH_LRU:
		return udsa_lru_ah(s, e, slot);
	case OPT_AH_WC:
		return udsa_from_wc(s, wc, slot);
	case OPT_AH_PEER:
		p = ud_ahmap_get(&s->peers, e->gid, UD_PEER_QPN);
		return p ? p->ah : NULL;
	default:
		return e->ah;
	}
}

static void udsa_lru_sent(struct uds *s, uint32_t slot)
{
	uint32_t i = s->slot_lru[slot];

	s->slot_lru[slot] = 0;
	if (!i || --s->lru.e[i].inflight || s->lru.e[i].qpn)
		return;
	udsa_destroy(s, s->lru.e[i].ah);
	ud_lru_put(&s->lru, i, true);
}

void udsa_slot_done(struct uds *s, uint32_t slot)
{
	if (s->slot_ah && s->slot_ah[slot]) {
		udsa_destroy(s, s->slot_ah[slot]);
		s->slot_ah[slot] = NULL;
	}
	if (s->slot_lru)
		udsa_lru_sent(s, slot);
}

static int udsa_lru_init(struct uds *s)
{
	uint32_t max = (uint32_t)s->dev.attr.max_ah, cap = s->o->ah_max;

	if (!cap)
		cap = max > UD_AH_SPARE ? max - UD_AH_SPARE : max;
	/* the device's AHs are every loop's: each pools a T-th (ud_server.h) */
	cap = cap / s->loop.top->n ? cap / s->loop.top->n : 1;
	if (cap * s->loop.top->n > max)
		ag_warn("--ah-max %u above the device's max_ah %u: ibv_create_ah will say so",
			cap * s->loop.top->n, max);
	if (ud_lru_init(&s->lru, cap) ||
	    !(s->slot_lru = calloc(s->nslots, sizeof(*s->slot_lru)))) {
		ag_fatal("calloc", "address handle pool", ENOMEM);
		return -1;
	}
	return 0;
}

int udsa_init(struct uds *s)
{
	if (s->o->ah == OPT_AH_WC && !(s->slot_ah = calloc(s->nslots, sizeof(*s->slot_ah)))) {
		ag_fatal("calloc", "reply address handles", ENOMEM);
		return -1;
	}
	if (s->o->ah == OPT_AH_LRU)
		return udsa_lru_init(s);
	return 0;
}

void udsa_fini(struct uds *s)
{
	for (uint32_t i = 0; s->slot_ah && i < s->nslots; i++)
		if (s->slot_ah[i])
			udsa_destroy(s, s->slot_ah[i]);
	free(s->slot_ah);
	/* rdma_cm clients have no session to take their AHs with them */
	for (uint32_t i = 0; i < s->ahs.cap; i++)
		if (s->ahs.e[i].qpn && s->ahs.e[i].ah)
			udsa_destroy(s, s->ahs.e[i].ah);
	for (uint32_t i = 0; i < s->peers.cap; i++)
		if (s->peers.e[i].qpn)
			udsa_destroy(s, s->peers.e[i].ah);
	ud_ahmap_free(&s->peers);
	for (uint32_t i = s->lru.e ? s->lru.e[0].next : 0; i; i = s->lru.e[i].next)
		udsa_destroy(s, s->lru.e[i].ah);
	if (s->lru.evicted)
		ag_warn("--ah lru: %llu address handles evicted, at most %u held",
			(unsigned long long)s->lru.evicted, s->lru.cap);
	ud_lru_free(&s->lru);
	free(s->slot_lru);
}
