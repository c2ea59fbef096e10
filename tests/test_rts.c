// SPDX-License-Identifier: MIT
/*
 * Unit tests of the rc client's RTS thread (agents/rc/rc_rts.c), no device
 * needed: jobs come back in the order given, each once, with what its run
 * said; the eventfd is readable while done jobs wait and not after they are
 * taken; no more than cap jobs are out; a stop ends the thread after the job
 * in hand and gives the others back undone.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "agents/rc/rc_rts.h"
#include "tap/tap.h"

static struct tap T;
static atomic_uint t_ran;
static atomic_bool t_hold;

/* 1 ms a job, as a short RTR; every third fails naming its slot's call */
static void t_run(struct rts_job *j)
{
	usleep(1000);
	atomic_fetch_add(&t_ran, 1);
	if (j->slot % 3 == 2) {
		j->call = "ibv_modify_qp";
		j->err = (int)j->slot;
	}
}

/* held until t_hold clears: the thread busy with one job */
static void t_run_hold(struct rts_job *j)
{
	(void)j;
	while (atomic_load(&t_hold))
		usleep(1000);
	atomic_fetch_add(&t_ran, 1);
}

static bool t_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void t_order(void)
{
	struct rts r;
	struct rts_job j;
	uint32_t slot, want = 0, bad = 0, failed = 0, tries;
	int marks[100] = { 0 };
	bool done, over;

	if (rts_start(&r, 100, t_run)) {
		tap_ok(&T, 0, "rts_start");
		return;
	}
	for (slot = 0; slot < 100; slot++) {
		j = (struct rts_job){ .slot = slot, .arg = &marks[slot] };
		if (rts_put(&r, &j))
			bad++;
	}
	j = (struct rts_job){ .slot = 100 };
	errno = 0;
	over = rts_put(&r, &j) == -1 && errno == EOVERFLOW;
	tap_ok(&T, !bad && over, "100 jobs go in, the 101st is refused with EOVERFLOW");
	/* each wake-up: clear, then take all; 100 ms a round is far more than a job */
	for (tries = 0; want < 100 && tries < 1000 && t_readable(r.fd, 100); tries++) {
		rts_clear(&r);
		while (rts_take(&r, &j, &done)) {
			if (!done || j.slot != want || j.arg != &marks[want])
				bad++;
			if (j.call && (j.slot % 3 != 2 || strcmp(j.call, "ibv_modify_qp") ||
				       j.err != (int)j.slot))
				bad++;
			failed += j.call != NULL;
			want++;
		}
	}
	tap_ok(&T, want == 100 && !bad,
	       "100 jobs back, done, in order, each with its own arg (%u, %u bad)", want, bad);
	tap_ok(&T, failed == 33, "a job's failure comes back with it: 33 of 100 (%u)", failed);
	tap_ok(&T, !rts_out(&r) && !rts_take(&r, &j, &done), "nothing left out once all are taken");
	rts_clear(&r);
	tap_ok(&T, !t_readable(r.fd, 20), "the eventfd is quiet once cleared and emptied");
	rts_fini(&r);
}

static void t_stop(void)
{
	struct rts r;
	struct rts_job j;
	uint32_t slot, ndone = 0, nundone = 0, next = 0, bad = 0;
	bool done;

	atomic_store(&t_ran, 0);
	atomic_store(&t_hold, true);
	if (rts_start(&r, 8, t_run_hold)) {
		tap_ok(&T, 0, "rts_start");
		return;
	}
	for (slot = 0; slot < 5; slot++) {
		j = (struct rts_job){ .slot = slot };
		if (rts_put(&r, &j))
			bad++;
	}
	/* the thread holds job 0 a moment; the stop may come before or after
	 * it takes the next ones, never in the middle of one */
	usleep(2000);
	atomic_store(&t_hold, false);
	rts_stop(&r);
	while (rts_take(&r, &j, &done)) {
		if (j.slot != next++)
			bad++;
		if (done)
			ndone++;
		else
			nundone++;
	}
	tap_ok(&T, !bad && next == 5 && ndone == atomic_load(&t_ran) && ndone >= 1 &&
	       ndone + nundone == 5,
	       "a stop gives every job back in order: %u done, %u undone", ndone, nundone);
	rts_fini(&r);
	/* a zeroed one that never started: nothing to end, fd 0 left alone */
	memset(&r, 0, sizeof(r));
	rts_fini(&r);
	tap_ok(&T, fcntl(0, F_GETFD) != -1, "rts_fini of a zeroed rts leaves fd 0 open");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 7);
	t_order();
	t_stop();
	tap_totals(&T);
	return tap_exit_code(&T);
}
