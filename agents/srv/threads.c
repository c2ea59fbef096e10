// SPDX-License-Identifier: MIT
/*
 * The thread-model servers' sessions: spawn, end and stop. See threads.h.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/srv/srv.h"
#include "agents/srv/threads.h"

int srvt_init(struct srvt *t, size_t stack)
{
	pthread_condattr_t ca;
	const char *call;
	int err;

	t->maxfd = -1;
	t->n = 0;
	t->stopping = false;
	t->nfd = srv_fd_limit();
	/* calloc maps zero pages: only the slots of fds in use cost memory */
	t->live = calloc(t->nfd, 1);
	if (!t->live) {
		ag_fatal("calloc", t->what, ENOMEM);
		return -1;
	}
	call = "pthread_condattr_init";
	err = pthread_condattr_init(&ca);
	if (err)
		goto out_live;
	/* the stop's bound is a span: a step of the wall clock must not move it */
	call = "pthread_condattr_setclock";
	err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!err) {
		call = "pthread_cond_init";
		err = pthread_cond_init(&t->cv, &ca);
	}
	pthread_condattr_destroy(&ca);
	if (err)
		goto out_live;
	call = "pthread_mutex_init";
	err = pthread_mutex_init(&t->mu, NULL);
	if (err)
		goto out_cv;
	call = "pthread_attr_init";
	err = pthread_attr_init(&t->attr);
	if (err)
		goto out_mu;
	call = "pthread_attr_setstacksize";
	err = pthread_attr_setstacksize(&t->attr, stack);
	if (!err) {
		call = "pthread_attr_setdetachstate";
		err = pthread_attr_setdetachstate(&t->attr, PTHREAD_CREATE_DETACHED);
	}
	if (!err)
		return 0;
	pthread_attr_destroy(&t->attr);
out_mu:
	pthread_mutex_destroy(&t->mu);
out_cv:
	pthread_cond_destroy(&t->cv);
out_live:
	free(t->live);
	t->live = NULL;
	ag_fatal(call, t->what, err);
	return -1;
}

void srvt_fini(struct srvt *t)
{
	pthread_attr_destroy(&t->attr);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t->live);
	t->live = NULL;
}

int srvt_spawn(struct srvt *t, int fd, void *(*fn)(void *), void *arg)
{
	struct timeval tv = { .tv_sec = t->timeout_s };
	pthread_t th;
	int one = 1, err;

	if (fd < 0 || (uint32_t)fd >= t->nfd)
		return EMFILE;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    (t->rcvtimeo && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))))
		return errno;
	pthread_mutex_lock(&t->mu);
	t->live[fd] = 1;
	if (fd > t->maxfd)
		t->maxfd = fd;
	t->n++;
	err = pthread_create(&th, &t->attr, fn, arg);
	if (err) {
		t->live[fd] = 0;
		t->n--;
	}
	pthread_mutex_unlock(&t->mu);
	return err;
}

bool srvt_end(struct srvt *t, int fd)
{
	bool quiet;

	/* cleared, then closed, under mu: the stop never shuts down a closed fd */
	pthread_mutex_lock(&t->mu);
	quiet = t->stopping;
	t->live[fd] = 0;
	if (close(fd))
		ag_warn("close connection fd %d: %s", fd, strerror(errno));
	pthread_mutex_unlock(&t->mu);
	return quiet;
}

void srvt_gone(struct srvt *t)
{
	pthread_mutex_lock(&t->mu);
	if (--t->n == 0)
		pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

bool srvt_stop(struct srvt *t)
{
	struct timespec until;
	unsigned left;
	int fd, err = 0;

	if (clock_gettime(CLOCK_MONOTONIC, &until))
		abort();
	until.tv_sec += t->wait_s;
	pthread_mutex_lock(&t->mu);
	t->stopping = true;
	for (fd = 0; fd <= t->maxfd; fd++)
		if (t->live[fd] && shutdown(fd, SHUT_RDWR))
			ag_warn("shutdown fd %d: %s", fd, strerror(errno));
	while (t->n && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&t->cv, &t->mu, &until);
	left = t->n;
	pthread_mutex_unlock(&t->mu);
	if (left)
		ag_warn("%u %s still running after %u s", left, t->what, t->wait_s);
	return !left;
}
