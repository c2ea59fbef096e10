// SPDX-License-Identifier: MIT
/*
 * The --server-threads loops of the event servers: heads, threads, stop and
 * the hand-over queue. See loops.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/srv/loops.h"
#include "agents/tag.h"
#include "common/clock.h"

/* a queue's first room, in requests; it doubles from there */
#define SRVL_HCAP0 64

int srvl_init(struct srvl_top *t, uint32_t n, size_t size, size_t hsize, const char *what)
{
	struct srvl *l;
	int err;

	*t = (struct srvl_top){ .what = what, .size = size, .hsize = hsize, .n = n ? n : 1 };
	t->loops = calloc(t->n, size);
	if (!t->loops) {
		ag_fatal("calloc", "server loops", ENOMEM);
		return -1;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		l = srvl_at(t, i);
		l->top = t;
		l->lid = i;
		l->wake = -1;
		l->tick = -1;
		err = pthread_mutex_init(&l->hmu, NULL);
		if (err) {
			ag_fatal("pthread_mutex_init", what, err);
			t->n = i;
			srvl_fini(t);
			return -1;
		}
	}
	return 0;
}

void srvl_fini(struct srvl_top *t)
{
	struct srvl *l;

	for (uint32_t i = 0; t->loops && i < t->n; i++) {
		l = srvl_at(t, i);
		if (l->wake >= 0)
			close(l->wake);
		if (l->tick >= 0)
			close(l->tick);
		free(l->hq);
		pthread_mutex_destroy(&l->hmu);
	}
	free(t->loops);
	t->loops = NULL;
}

struct srvl *srvl_at(const struct srvl_top *t, uint32_t i)
{
	return (struct srvl *)((char *)t->loops + (size_t)i * t->size);
}

int srvl_wake_open(struct srvl *l, int ep, uint64_t tag)
{
	l->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->wake < 0) {
		ag_fatal("eventfd", l->top->what, errno);
		return -1;
	}
	return tag_watch(ep, l->wake, EPOLLIN, tag, "loop eventfd");
}

/* Wakes l through its eventfd (none yet: nothing to wake); a failed write is warned. */
static void srvl_wake(struct srvl *l)
{
	uint64_t one = 1;

	if (l->wake >= 0 && write(l->wake, &one, sizeof(one)) < 0)
		ag_warn("write loop %u eventfd: %s", l->lid, strerror(errno));
}

void srvl_woken(struct srvl *l)
{
	uint64_t exp;

	if (read(l->wake, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("read loop %u eventfd: %s", l->lid, strerror(errno));
}

int srvl_tick_open(struct srvl *l, int ep, uint64_t tag)
{
	struct itimerspec its = { .it_interval.tv_sec = SRVL_TICK_S,
				  .it_value.tv_sec = SRVL_TICK_S };

	l->tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->tick < 0) {
		ag_fatal("timerfd_create", l->top->what, errno);
		return -1;
	}
	if (timerfd_settime(l->tick, 0, &its, NULL)) {
		ag_fatal("timerfd_settime", l->top->what, errno);
		return -1;
	}
	return tag_watch(ep, l->tick, EPOLLIN, tag, "loop tick");
}

void srvl_ticked(struct srvl *l)
{
	uint64_t exp;

	if (read(l->tick, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		ag_warn("read loop %u tick: %s", l->lid, strerror(errno));
}

void srvl_stop_all(struct srvl_top *t)
{
	atomic_store(&t->stop, true);
	for (uint32_t i = 0; i < t->n; i++)
		srvl_wake(srvl_at(t, i));
}

/* One loop's run; the first loop to end ends the others. */
static void srvl_go(struct srvl *l)
{
	uint64_t cpu0 = clock_thread_ns();

	if (l->top->run(l))
		l->failed = true;
	l->cpu_ns = clock_thread_ns() - cpu0;
	srvl_stop_all(l->top);
}

static void *srvl_thread(void *arg)
{
	srvl_go(arg);
	return NULL;
}

int srvl_run(struct srvl_top *t, srvl_fn *run)
{
	struct srvl *l, *l0 = srvl_at(t, 0);
	int ret = 0, err;
	uint32_t i;

	t->run = run;
	for (i = 1; i < t->n; i++) {
		l = srvl_at(t, i);
		err = pthread_create(&l->th, NULL, srvl_thread, l);
		if (err) {
			ag_fatal("pthread_create", t->what, err);
			srvl_stop_all(t);
			l0->failed = true;
			break;
		}
		l->started = true;
	}
	if (!l0->failed)
		srvl_go(l0);
	for (i = 0; i < t->n; i++) {
		l = srvl_at(t, i);
		if (l->started && (err = pthread_join(l->th, NULL)))
			ag_warn("pthread_join: %s", strerror(err));
		if (l->failed)
			ret = -1;
	}
	return ret;
}

void srvl_peak(atomic_uint *live, atomic_uint *peak)
{
	unsigned now = atomic_fetch_add(live, 1) + 1;
	unsigned top = atomic_load(peak);

	while (now > top && !atomic_compare_exchange_weak(peak, &top, now))
		;
}

void srvl_up(struct srvl *l)
{
	l->accepted++;
	srvl_peak(&l->top->live, &l->top->peak);
}

void srvl_down(struct srvl *l)
{
	atomic_fetch_sub(&l->top->live, 1);
}

const char *srvl_loops(const struct srvl_top *t, char *buf)
{
	struct proto_loop lp[PROTO_LOOPS_MAX];
	uint32_t n = t->n < PROTO_LOOPS_MAX ? t->n : PROTO_LOOPS_MAX;
	const struct srvl *l;

	if (t->n < 2)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		l = srvl_at(t, i);
		lp[i] = (struct proto_loop){ l->accepted, l->cpu_ns / 1000000 };
	}
	return proto_loops_encode(lp, n, buf, SRVL_LOOPS_LEN) > 0 ? buf : NULL;
}

struct srvl *srvl_next(struct srvl_top *t)
{
	return srvl_at(t, t->next++ % t->n);
}

/* Room for one more at the queue's end: the taken front reused first, else twice the room. */
static int srvl_room(struct srvl *l)
{
	size_t hs = l->top->hsize;
	uint32_t cap;
	uint8_t *q;

	if (l->hhead + l->nh < l->hcap)
		return 0;
	/* half the room or more is taken: moving the rest down costs at most what filled it */
	if (l->hhead && l->hhead >= l->hcap / 2) {
		memmove(l->hq, l->hq + (size_t)l->hhead * hs, (size_t)l->nh * hs);
		l->hhead = 0;
		return 0;
	}
	if (l->hcap > UINT32_MAX / 2)
		return -1;
	cap = l->hcap ? 2 * l->hcap : SRVL_HCAP0;
	q = reallocarray(l->hq, cap, hs);
	if (!q)
		return -1;
	l->hq = q;
	l->hcap = cap;
	return 0;
}

int srvl_hand(struct srvl *l, const void *e)
{
	size_t hs = l->top->hsize;
	int ret;

	pthread_mutex_lock(&l->hmu);
	ret = srvl_room(l);
	if (!ret)
		memcpy(l->hq + (size_t)(l->hhead + l->nh++) * hs, e, hs);
	pthread_mutex_unlock(&l->hmu);
	if (ret) {
		errno = ENOMEM;
		return -1;
	}
	srvl_wake(l);
	return 0;
}

uint32_t srvl_take(struct srvl *l, void *out, uint32_t max)
{
	size_t hs = l->top->hsize;
	uint32_t n;

	pthread_mutex_lock(&l->hmu);
	n = l->nh < max ? l->nh : max;
	if (n)
		memcpy(out, l->hq + (size_t)l->hhead * hs, (size_t)n * hs);
	l->hhead += n;
	l->nh -= n;
	if (!l->nh)
		l->hhead = 0;
	pthread_mutex_unlock(&l->hmu);
	return n;
}
