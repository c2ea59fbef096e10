// SPDX-License-Identifier: MIT
/*
 * Unit tests of --cm-order phased's bookkeeping (agents/cmphase.c), no device
 * needed: a step is over only when every connection has made it or failed
 * (the first only once all have started), the steps come in cmtime's order,
 * a connection that fails in its call, in its event, or by its deadline while
 * it waits for the others leaves the count and the others go on, an order
 * whose connections all failed ends, and the call a waiting connection is
 * named by.
 */
#include <string.h>

#include "agents/cmphase.h"
#include "tap/tap.h"

static struct tap T;

#define N 6

/* the driver's side, as agents/rc/rc_client_phase.c keeps it */
static struct cmph b;
static uint8_t st[N];
static bool dead[N];	/* settled as failed: the driver skips it (its state) */

static void t_issue(uint32_t i)
{
	st[i] = cmph_st(b.step, false);
	cmph_issued(&b);
}

static void t_finish(uint32_t i)
{
	st[i] |= CMPH_FINISHED;
	cmph_finished(&b);
}

static void t_fail(uint32_t i)
{
	cmph_failed(&b, st[i]);
	dead[i] = true;
}

/* every connection due in the step under way makes its call */
static void t_issue_due(void)
{
	for (uint32_t i = 0; i < N; i++)
		if (!dead[i] && cmph_due(st[i], b.step))
			t_issue(i);
}

static void t_finish_waiting(void)
{
	for (uint32_t i = 0; i < N; i++)
		if (st[i] == cmph_st(b.step, false))
			t_finish(i);
}

static void t_all_ok(void)
{
	static const enum cmph_step order[] = { CMPH_ROUTE, CMPH_QP, CMPH_CONNECT, CMPH_DONE };
	bool in_order = true, held = true;

	cmph_init(&b, N);
	for (uint32_t i = 0; i < 3; i++)
		t_issue(i);
	t_finish_waiting();
	tap_ok(&T, !cmph_over(&b) && cmph_next(&b) == CMPH_ADDR,
	       "3 of %d started and resolved: the address step is not over", N);
	for (uint32_t i = 3; i < N; i++)
		t_issue(i);
	t_finish(3);
	t_finish(4);
	tap_ok(&T, !cmph_over(&b) && b.ready == 5 && b.wait == 1,
	       "all started, one address to come: not over (ready %u, wait %u)", b.ready, b.wait);
	t_finish(5);
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		in_order &= cmph_over(&b) && cmph_next(&b) == order[k];
		if (b.step == CMPH_DONE)
			break;
		tap_ok(&T, b.todo == N && !cmph_over(&b), "step %d: %d connections due", b.step, N);
		t_issue_due();
		/* the last connection's event has not come: the others are held */
		for (uint32_t i = 0; i + 1 < N; i++)
			t_finish(i);
		held &= !cmph_over(&b) && cmph_next(&b) == order[k];
		t_finish(N - 1);
	}
	tap_ok(&T, in_order && held && b.step == CMPH_DONE,
	       "steps in cmtime's order, each held until its last connection made it");
}

static void t_failures(void)
{
	memset(dead, 0, sizeof(dead));
	cmph_init(&b, N);
	for (uint32_t i = 0; i < N; i++)
		t_issue(i);
	/* 0: ADDR_ERROR (its event) */
	t_fail(0);
	for (uint32_t i = 1; i < N; i++)
		t_finish(i);
	tap_ok(&T, cmph_over(&b) && cmph_next(&b) == CMPH_ROUTE && b.todo == N - 1,
	       "one address failed: routes for the other %d", N - 1);
	/* 1: its deadline while it waits for its route call; 2: rdma_resolve_route fails */
	t_fail(1);
	t_issue_due();
	t_fail(2);
	tap_ok(&T, b.todo == 0 && b.wait == 3, "a todo and an issued connection failed: 3 wait");
	t_finish(3);
	t_finish(4);
	/* 4: its deadline while it waits for 5's route */
	t_fail(4);
	tap_ok(&T, !cmph_over(&b) && b.ready == 1, "a ready connection failed: 1 ready, 5 waits");
	/* 0 again, failed in an earlier step: not counted in this one */
	cmph_failed(&b, st[0]);
	t_finish(5);
	tap_ok(&T, cmph_over(&b) && cmph_next(&b) == CMPH_QP && b.todo == 2,
	       "routes over: QPs for the 2 left");
	t_issue_due();
	t_fail(3);	/* ibv_create_qp: ENOMEM */
	t_finish(5);
	tap_ok(&T, cmph_over(&b) && cmph_next(&b) == CMPH_CONNECT && b.todo == 1,
	       "a QP failed: one connection to connect");
	t_issue_due();
	t_fail(5);	/* REJECTED */
	tap_ok(&T, cmph_over(&b) && cmph_next(&b) == CMPH_DONE,
	       "the last one rejected: the order is done");
	cmph_init(&b, 2);
	t_issue(0);
	t_issue(1);
	cmph_failed(&b, st[0]);
	cmph_failed(&b, st[1]);
	tap_ok(&T, cmph_next(&b) == CMPH_DONE, "every address failed: no route step, done");
}

static void t_names(void)
{
	tap_ok(&T, !strcmp(cmph_call(cmph_st(CMPH_ADDR, false)), "rdma_resolve_addr") &&
			   !strcmp(cmph_call(cmph_st(CMPH_ADDR, true)), "rdma_resolve_route") &&
			   !strcmp(cmph_call(cmph_st(CMPH_ROUTE, true)), "rdma_create_qp") &&
			   !strcmp(cmph_call(cmph_st(CMPH_QP, true)), "rdma_connect") &&
			   !strcmp(cmph_call(cmph_st(CMPH_CONNECT, false)), "rdma_connect"),
	       "a connection that timed out is named by the call it was in or waited for");
	tap_ok(&T, cmph_due(cmph_st(CMPH_ADDR, true), CMPH_ROUTE) &&
			   !cmph_due(cmph_st(CMPH_ADDR, false), CMPH_ROUTE) &&
			   !cmph_due(cmph_st(CMPH_ROUTE, true), CMPH_ROUTE) &&
			   !cmph_due(cmph_st(CMPH_ADDR, false), CMPH_ADDR) &&
			   cmph_due(cmph_st(CMPH_QP, true), CMPH_CONNECT),
	       "due in a step: only who finished the step before");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 6 + 7 + 2);
	t_all_ok();
	t_failures();
	t_names();
	tap_totals(&T);
	return tap_exit_code(&T);
}
