// SPDX-License-Identifier: MIT
/*
 * ud: the server's address handles under --ah lru. A fixed pool of cap
 * entries in a doubly linked list, most recently used first; entry 0 is the
 * list's head and never handed out. Pure bookkeeping: the server creates and
 * destroys the AHs and keeps the map's entries pointing here (ud_ahe.lru).
 */
#include <stdlib.h>
#include <string.h>

#include "agents/ud/ud.h"

static void ud_lru_unlink(struct ud_lru *l, uint32_t i)
{
	l->e[l->e[i].prev].next = l->e[i].next;
	l->e[l->e[i].next].prev = l->e[i].prev;
}

static void ud_lru_front(struct ud_lru *l, uint32_t i)
{
	l->e[i].prev = 0;
	l->e[i].next = l->e[0].next;
	l->e[l->e[0].next].prev = i;
	l->e[0].next = i;
}

int ud_lru_init(struct ud_lru *l, uint32_t cap)
{
	memset(l, 0, sizeof(*l));
	l->e = calloc((size_t)cap + 1, sizeof(*l->e));
	if (!l->e)
		return -1;
	l->cap = cap;
	/* never used entries are taken in order after the freed ones */
	l->fresh = 1;
	return 0;
}

uint32_t ud_lru_take(struct ud_lru *l, bool *evict)
{
	uint32_t i;

	*evict = false;
	if (l->free) {
		i = l->free;
		l->free = l->e[i].next;
	} else if (l->fresh <= l->cap) {
		i = l->fresh++;
	} else {
		/* the least recently used one that no send still reads */
		for (i = l->e[0].prev; i && l->e[i].inflight; i = l->e[i].prev)
			;
		if (!i)
			return 0;
		ud_lru_unlink(l, i);
		l->used--;
		*evict = true;
		return i;
	}
	memset(&l->e[i], 0, sizeof(l->e[i]));
	return i;
}

void ud_lru_use(struct ud_lru *l, uint32_t i, bool listed)
{
	if (listed)
		ud_lru_unlink(l, i);
	else
		l->used++;
	ud_lru_front(l, i);
}

void ud_lru_put(struct ud_lru *l, uint32_t i, bool listed)
{
	if (listed) {
		ud_lru_unlink(l, i);
		l->used--;
	}
	memset(&l->e[i], 0, sizeof(l->e[i]));
	l->e[i].next = l->free;
	l->free = i;
}

void ud_lru_free(struct ud_lru *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}
