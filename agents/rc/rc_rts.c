// SPDX-License-Identifier: MIT
/*
 * rc_rts: a thread for an event loop's blocking calls (rc_rts.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/rc/rc_rts.h"

static void *rts_main(void *arg)
{
	struct rts *r = arg;
	uint64_t one = 1;
	struct rts_job j;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->stop && r->next == r->tail)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop)
			break;
		j = r->q[r->next % r->cap];
		pthread_mutex_unlock(&r->mu);
		j.call = NULL;
		j.err = 0;
		r->run(&j);
		pthread_mutex_lock(&r->mu);
		r->q[r->next % r->cap] = j;
		r->next++;
		/* a full counter only means the loop has not read it yet: it is readable */
		if (write(r->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			ag_warn("rts: write eventfd: %s", strerror(errno));
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int rts_start(struct rts *r, uint32_t cap, rts_fn *run)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->run = run;
	r->cap = cap ? cap : 1;
	r->q = calloc(r->cap, sizeof(*r->q));
	if (!r->q) {
		ag_fatal("calloc", "rts jobs", ENOMEM);
		return -1;
	}
	r->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->fd < 0) {
		ag_fatal("eventfd", "rts", errno);
		return -1;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	err = pthread_create(&r->th, NULL, rts_main, r);
	if (err) {
		ag_fatal("pthread_create", "rts", err);
		return -1;
	}
	r->started = true;
	return 0;
}

int rts_put(struct rts *r, const struct rts_job *j)
{
	int ret = 0;

	pthread_mutex_lock(&r->mu);
	if (r->tail - r->head >= r->cap) {
		ret = -1;
		errno = EOVERFLOW;
	} else {
		r->q[r->tail++ % r->cap] = *j;
		pthread_cond_signal(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return ret;
}

void rts_clear(struct rts *r)
{
	uint64_t v;

	if (r->fd >= 0 && read(r->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		ag_warn("rts: read eventfd: %s", strerror(errno));
}

int rts_take(struct rts *r, struct rts_job *j, bool *done)
{
	int got = 0;

	if (r->started)
		pthread_mutex_lock(&r->mu);
	/* done ones first; once stopped, the ones never started */
	if (r->head != r->next) {
		*done = true;
	} else if (!r->started && r->head != r->tail) {
		*done = false;
		r->next++;
	}
	if (r->head != r->next) {
		*j = r->q[r->head++ % r->cap];
		got = 1;
	}
	if (r->started)
		pthread_mutex_unlock(&r->mu);
	return got;
}

uint32_t rts_out(struct rts *r)
{
	uint32_t n;

	if (!r->started)
		return r->tail - r->head;
	pthread_mutex_lock(&r->mu);
	n = r->tail - r->head;
	pthread_mutex_unlock(&r->mu);
	return n;
}

void rts_stop(struct rts *r)
{
	int err;

	if (!r->started)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	err = pthread_join(r->th, NULL);
	if (err)
		ag_warn("rts: pthread_join: %s", strerror(err));
	r->started = false;
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
}

void rts_fini(struct rts *r)
{
	rts_stop(r);
	/* never started: a zeroed struct, whose fd 0 is not ours */
	if (!r->q)
		return;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->q);
	r->q = NULL;
}
