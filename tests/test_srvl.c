// SPDX-License-Identifier: MIT
/*
 * Unit tests of the event servers' loops (agents/srv/loops.c), no device
 * needed: the hand-over queue keeps its order through growth and reuse of
 * its taken front, srvl_run runs every loop once and the first to end stops
 * the others, a failed loop fails the run, requests go to the loops in turn,
 * the counts and the result's per-loop list, and the tick.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "agents/srv/loops.h"
#include "common/clock.h"
#include "tap/tap.h"

static struct tap T;

/* 20 bytes: no power of two, so no element lines up by chance */
struct t_req {
	uint32_t seq;
	uint8_t pad[13];
};

/* what each loop's run saw */
static atomic_uint t_runs[3];
static int t_fail_lid = -1;

static void t_queue(void)
{
	struct srvl_top t;
	struct srvl *l;
	struct t_req r = { 0 }, out[7];
	uint32_t want = 0, n, i;
	int order = 1, pad = 1;

	if (srvl_init(&t, 2, sizeof(struct srvl), sizeof(struct t_req), "test loop")) {
		tap_ok(&T, 0, "srvl_init");
		return;
	}
	l = srvl_at(&t, 1);
	memset(r.pad, 0xa5, sizeof(r.pad));
	/* 100 in (room 128), 70 out, 300 more in: the taken front reused, then growth */
	for (r.seq = 0; r.seq < 100; r.seq++)
		if (srvl_hand(l, &r))
			order = 0;
	for (i = 0; i < 70; i++) {
		if (srvl_take(l, out, 1) != 1 || out[0].seq != want++)
			order = 0;
	}
	for (; r.seq < 400; r.seq++)
		if (srvl_hand(l, &r))
			order = 0;
	while ((n = srvl_take(l, out, 7)))
		for (i = 0; i < n; i++) {
			if (out[i].seq != want++)
				order = 0;
			if (out[i].pad[0] != 0xa5 || out[i].pad[12] != 0xa5)
				pad = 0;
		}
	tap_ok(&T, order && want == 400, "the queue gives 400 requests back oldest first (%u)",
	       want);
	tap_ok(&T, pad, "every request comes back whole (%zu bytes)", sizeof(struct t_req));
	tap_ok(&T, !srvl_take(l, out, 7) && l->hhead == 0, "an empty queue takes nothing");
	srvl_fini(&t);
}

/* loop 0 ends at once; the others wait for the stop it makes */
static int t_run(struct srvl *l)
{
	atomic_fetch_add(&t_runs[l->lid], 1);
	if (l->lid)
		while (!atomic_load(&l->top->stop))
			usleep(1000);
	return (int)l->lid == t_fail_lid ? -1 : 0;
}

static void t_threads(void)
{
	struct srvl_top t;
	int ret;

	if (srvl_init(&t, 3, sizeof(struct srvl), 0, "test loop")) {
		tap_ok(&T, 0, "srvl_init");
		return;
	}
	ret = srvl_run(&t, t_run);
	tap_ok(&T, !ret && t_runs[0] == 1 && t_runs[1] == 1 && t_runs[2] == 1 &&
		   atomic_load(&t.stop), "3 loops: each runs once, loop 0's end stops the others");
	for (uint32_t i = 0; i < 3; i++)
		t_runs[i] = 0;
	t.stop = false;
	for (uint32_t i = 0; i < 3; i++)
		srvl_at(&t, i)->started = false;
	t_fail_lid = 2;
	ret = srvl_run(&t, t_run);
	tap_ok(&T, ret == -1 && srvl_at(&t, 2)->failed && !srvl_at(&t, 1)->failed,
	       "a loop that fails fails the run, and only it is marked");
	srvl_fini(&t);
}

static void t_counts(void)
{
	struct srvl_top t;
	char buf[SRVL_LOOPS_LEN];
	const char *s;
	int turns = 1;

	if (srvl_init(&t, 2, sizeof(struct srvl), 0, "test loop")) {
		tap_ok(&T, 0, "srvl_init");
		return;
	}
	for (uint32_t i = 0; i < 5; i++)
		if (srvl_next(&t)->lid != i % 2)
			turns = 0;
	tap_ok(&T, turns, "requests go to the loops in turn");
	srvl_up(srvl_at(&t, 0));
	srvl_up(srvl_at(&t, 1));
	srvl_up(srvl_at(&t, 1));
	srvl_down(srvl_at(&t, 0));
	srvl_up(srvl_at(&t, 0));
	tap_ok(&T, t.live == 3 && t.peak == 3 && srvl_at(&t, 0)->accepted == 2 &&
		   srvl_at(&t, 1)->accepted == 2, "live %u, peak %u, accepted per loop",
	       (unsigned)t.live, (unsigned)t.peak);
	srvl_at(&t, 0)->cpu_ns = 5 * 1000000ull;
	srvl_at(&t, 1)->cpu_ns = 7 * 1000000ull + 999999;
	s = srvl_loops(&t, buf);
	tap_ok(&T, s && !strcmp(s, "2:5,2:7"), "the result lists each loop (%s)", s ? s : "NULL");
	t.n = 1;
	tap_ok(&T, !srvl_loops(&t, buf), "one loop: no list");
	t.n = 2;
	srvl_fini(&t);
}

/* The tick fires after SRVL_TICK_S, is quiet once read, and srvl_fini closes it. */
static void t_tick(void)
{
	struct epoll_event ev = { 0 };
	struct srvl_top t;
	struct srvl *l;
	uint64_t t0, ms;
	int ep, n, tick;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || srvl_init(&t, 1, sizeof(struct srvl), 0, "test loop")) {
		tap_ok(&T, 0, "epoll_create1, srvl_init");
		return;
	}
	l = srvl_at(&t, 0);
	t0 = clock_ns();
	n = srvl_tick_open(l, ep, 42) ? -1 : epoll_wait(ep, &ev, 1, 3000 * SRVL_TICK_S);
	ms = (clock_ns() - t0) / 1000000;
	tap_ok(&T, n == 1 && ev.data.u64 == 42 && ms >= 1000 * SRVL_TICK_S &&
		   ms < 2000 * SRVL_TICK_S, "the tick fires after SRVL_TICK_S (%llu ms)",
	       (unsigned long long)ms);
	srvl_ticked(l);
	n = epoll_wait(ep, &ev, 1, 0);
	tick = l->tick;
	srvl_fini(&t);
	tap_ok(&T, !n && fcntl(tick, F_GETFD) < 0 && errno == EBADF,
	       "read, the tick is quiet until the next; srvl_fini closes it");
	close(ep);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 11);
	t_queue();
	t_threads();
	t_counts();
	t_tick();
	tap_totals(&T);
	return tap_exit_code(&T);
}
