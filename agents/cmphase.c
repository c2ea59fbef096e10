// SPDX-License-Identifier: MIT
/*
 * --cm-order phased's counts: which step is under way and when it is over.
 * See cmphase.h.
 */
#include "agents/cmphase.h"

static const char *const cmph_calls[] = {
	[CMPH_ADDR] = "rdma_resolve_addr", [CMPH_ROUTE] = "rdma_resolve_route",
	[CMPH_QP] = "rdma_create_qp", [CMPH_CONNECT] = "rdma_connect",
	[CMPH_DONE] = "rdma_connect",
};

void cmph_init(struct cmph *b, uint32_t n)
{
	*b = (struct cmph){ .step = n ? CMPH_ADDR : CMPH_DONE, .n = n, .unstarted = n };
}

/* a count that would go below zero is a driver's bug; it stays at zero rather than wrap */
static void cmph_dec(uint32_t *v)
{
	if (*v)
		(*v)--;
}

void cmph_issued(struct cmph *b)
{
	if (b->step == CMPH_DONE)
		return;
	cmph_dec(b->step == CMPH_ADDR ? &b->unstarted : &b->todo);
	b->wait++;
}

void cmph_finished(struct cmph *b)
{
	if (b->step == CMPH_DONE || !b->wait)
		return;
	b->wait--;
	b->ready++;
}

void cmph_failed(struct cmph *b, uint8_t st)
{
	enum cmph_step s = (enum cmph_step)(st & ~CMPH_FINISHED);
	bool fin = st & CMPH_FINISHED;

	if (b->step == CMPH_DONE)
		return;
	if (s == b->step)
		cmph_dec(fin ? &b->ready : &b->wait);
	/* failed while it waited for this step's call (its deadline) */
	else if (fin && b->step > CMPH_ADDR && s == b->step - 1)
		cmph_dec(&b->todo);
}

bool cmph_over(const struct cmph *b)
{
	return b->step == CMPH_DONE ||
	       (!b->todo && !b->wait && (b->step != CMPH_ADDR || !b->unstarted));
}

enum cmph_step cmph_next(struct cmph *b)
{
	if (!cmph_over(b) || b->step == CMPH_DONE)
		return b->step;
	b->step = b->step == CMPH_CONNECT ? CMPH_DONE : b->step + 1;
	b->todo = b->ready;
	b->ready = b->wait = 0;
	/* every connection failed on the way: nothing is left to order */
	if (!b->todo)
		b->step = CMPH_DONE;
	return b->step;
}

bool cmph_due(uint8_t st, enum cmph_step s)
{
	return s > CMPH_ADDR && s < CMPH_DONE && st == cmph_st(s - 1, true);
}

const char *cmph_call(uint8_t st)
{
	unsigned s = st & ~CMPH_FINISHED;

	if (st & CMPH_FINISHED)
		s++;
	return cmph_calls[s < CMPH_DONE ? s : CMPH_DONE];
}
