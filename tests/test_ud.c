// SPDX-License-Identifier: MIT
/*
 * Unit tests of agents/ud's parser and cache, no device needed: the sender's
 * GID from the 40 bytes before a UD payload, the (GID, QPN) -> AH map
 * through growth and backward-shift deletion, and the --ah lru pool's order.
 */
#include <string.h>

#include "agents/ud/ud.h"
#include "tap/tap.h"

static struct tap T;

static void t_grh(void)
{
	uint8_t g[OPT_UD_GRH] = { 0 }, gid[16], want4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	uint8_t want6[16] = { 0xfe, 0x80, [15] = 7 };

	g[20] = 0x45;
	memcpy(g + 32, "\x0a\x00\x00\x02", 4);
	tap_ok(&T, !ud_grh_sgid(g, gid) && !memcmp(gid, want4, 16),
	       "GRH: RoCEv2/IPv4 (20 zero bytes, then the IP header) gives ::ffff:10.0.0.2");
	g[3] = 1;
	tap_ok(&T, ud_grh_sgid(g, gid) == -1, "GRH: an IPv4 header after non-zero bytes is refused");
	memset(g, 0, sizeof(g));
	g[0] = 0x60;
	memcpy(g + 8, want6, 16);
	tap_ok(&T, !ud_grh_sgid(g, gid) && !memcmp(gid, want6, 16), "GRH: IPv6 gives its SGID");
	memset(g, 0, sizeof(g));
	tap_ok(&T, ud_grh_sgid(g, gid) == -1, "GRH: all zeros is neither, refused");
	g[20] = 0x46;	/* IPv4 with options: not what a provider writes */
	tap_ok(&T, ud_grh_sgid(g, gid) == -1, "GRH: an IPv4 header with options is refused");
}

static void t_map(void)
{
	struct ud_ahmap m = { 0 };
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 }, gid2[16];
	struct ud_ahe *e;
	int ok = 1;
	uint32_t q;

	for (q = 2; q < 5002; q++) {
		e = ud_ahmap_put(&m, gid, q);
		ok &= e && e->qpn == q;
		if (e)
			e->ah = (struct ibv_ah *)(uintptr_t)q;
	}
	tap_ok(&T, ok && m.used == 5000 && m.cap >= 10000, "map: 5000 keys in, grown to %u", m.cap);
	tap_ok(&T, !ud_ahmap_put(&m, gid, 77), "map: a key twice is refused (EEXIST)");
	memcpy(gid2, gid, 16);
	gid2[15] = 3;
	tap_ok(&T, !ud_ahmap_get(&m, gid2, 77) && !ud_ahmap_get(&m, gid, 0) &&
			   !ud_ahmap_get(&m, gid, 9999),
	       "map: another GID, QPN 0 or an unknown QPN is absent");
	for (q = 2; q < 5002; q += 2)
		ud_ahmap_del(&m, ud_ahmap_get(&m, gid, q));
	ok = m.used == 2500;
	for (q = 2; q < 5002; q++) {
		e = ud_ahmap_get(&m, gid, q);
		ok &= q % 2 ? e && e->ah == (struct ibv_ah *)(uintptr_t)q : !e;
	}
	tap_ok(&T, ok, "map: after deleting every other key, each of the rest is still found");
	ud_ahmap_free(&m);
	tap_ok(&T, !ud_ahmap_get(&m, gid, 3) && !m.cap, "map: freed, empty");
}

/* fills entry i as the server does and returns it */
static uint32_t lru_new(struct ud_lru *l, uint32_t qpn, bool *evict)
{
	uint32_t i = ud_lru_take(l, evict);

	if (i) {
		l->e[i].qpn = qpn;
		ud_lru_use(l, i, false);
	}
	return i;
}

static void t_lru(void)
{
	struct ud_lru l;
	uint32_t i[4], j, k;
	bool ev, ok = true;

	tap_ok(&T, !ud_lru_init(&l, 3), "lru: a pool of 3");
	for (int n = 0; n < 3; n++) {
		i[n] = lru_new(&l, 100 + (uint32_t)n, &ev);
		ok &= i[n] && !ev;
	}
	tap_ok(&T, ok && l.used == 3 && !ud_lru_room(&l),
	       "lru: 3 entries without evicting, then no room (a REQ makes none)");
	ud_lru_use(&l, i[0], true);	/* 100 used again: 101 is now the oldest */
	j = lru_new(&l, 103, &ev);
	tap_ok(&T, j == i[1] && ev && l.e[j].qpn == 103 && l.used == 3,
	       "lru: a 4th takes the least recently used (101), not the one just used");
	l.e[i[2]].inflight = 1;	/* 102 is the oldest but a send still reads it */
	k = lru_new(&l, 104, &ev);
	tap_ok(&T, k == i[0] && ev, "lru: an entry with a send out is skipped (100 goes)");
	l.e[j].inflight = l.e[k].inflight = 1;
	tap_ok(&T, !ud_lru_take(&l, &ev), "lru: none when every entry has a send out");
	l.e[i[2]].inflight = 0;
	ud_lru_put(&l, i[2], true);
	ok = ud_lru_room(&l);
	i[3] = lru_new(&l, 105, &ev);
	tap_ok(&T, ok && i[3] == i[2] && !ev && l.used == 3 && l.e[i[3]].qpn == 105,
	       "lru: a freed entry is room, reused before evicting");
	ud_lru_free(&l);
}

/* --workers 0 under ud: every send of every round trip in flight fits the slots */
static void t_workers(void)
{
	long w1 = opt_ud_workers(0, 1), w10 = opt_ud_workers(0, 10);

	tap_ok(&T, w1 * OPT_UD_TRIES <= OPT_UD_SRV_RECV && (w1 + 1) * OPT_UD_TRIES > OPT_UD_SRV_RECV,
	       "workers: one agent gets %ld in flight (%d slots, %d sends each)", w1,
	       OPT_UD_SRV_RECV, OPT_UD_TRIES);
	tap_ok(&T, w10 * 10 * OPT_UD_TRIES <= OPT_UD_SRV_RECV && w10 > 0,
	       "workers: 10 agents get %ld each, together within the slots", w10);
	tap_ok(&T, opt_ud_workers(0, 100000) == 1 && opt_ud_workers(7, 10) == 7,
	       "workers: at least 1; a --workers given is kept");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 19);
	t_grh();
	t_map();
	t_lru();
	t_workers();
	tap_totals(&T);
	return tap_exit_code(&T);
}
