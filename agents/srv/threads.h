/* SPDX-License-Identifier: MIT */
/*
 * srvt: the session bookkeeping of the thread-model servers (tcp and rc
 * --server-model thread): the accepting thread spawns one detached thread
 * per connection on a blocking socket, and the stop unblocks them all.
 *
 * Which sockets are live is a table by fd under one mutex; so is the count
 * of threads, signalled when it reaches zero. srvt_stop sets stopping,
 * shutdown()s every live fd (the threads' blocking calls return) and waits
 * up to wait_s for the count to reach zero. A thread reads stopping in
 * srvt_end: after our own shutdown() at stop, whatever the socket says is
 * not news, and the thread records no drop.
 *
 * A thread's life: srvt_spawn (the accepting thread) starts it with its fd
 * marked live; it ends with srvt_end, which closes the fd, then its drop
 * record if it is news, then srvt_gone, its last touch of the srvt (so a
 * drop is counted before srvt_stop returns).
 *
 * May use: the engine (ag), srv/srv.h, libc, pthreads.
 */
#ifndef RDC_AGENTS_SRV_THREADS_H
#define RDC_AGENTS_SRV_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srvt {
	const char *what;	/* the threads in messages ("client threads") */
	uint32_t timeout_s;	/* --timeout: SO_SNDTIMEO (and SO_RCVTIMEO) */
	bool rcvtimeo;		/* a peer silent for timeout_s is dropped too */
	unsigned wait_s;	/* how long srvt_stop waits for the threads */
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* on CLOCK_MONOTONIC: n reached zero */
	pthread_attr_t attr;	/* detached, a small stack */
	uint8_t *live;		/* by fd, under mu */
	uint32_t nfd;		/* the table's size: srv_fd_limit() */
	int maxfd;		/* the highest fd ever live, under mu */
	unsigned n;		/* threads running, under mu */
	bool stopping;		/* under mu */
};

/*
 * The table, the lock and the threads' attributes (stack bytes each); the
 * fields before mu are the caller's, set before. 0, or -1 after a fatal
 * "error" record naming what.
 */
int srvt_init(struct srvt *t, size_t stack);
/* After a srvt_stop that returned true, or when no thread was ever spawned. */
void srvt_fini(struct srvt *t);
/*
 * Accepted fd (blocking): TCP_NODELAY and the timeouts, then a thread runs
 * fn(arg) with fd live. 0, or an errno (EMFILE: fd beyond the table) with
 * fd still the caller's to close and arg to free.
 */
int srvt_spawn(struct srvt *t, int fd, void *(*fn)(void *), void *arg);
/* The thread is done with fd: no longer live, closed. true: the end is not news. */
bool srvt_end(struct srvt *t, int fd);
/* The thread's last touch: one fewer running, the stop told at zero. */
void srvt_gone(struct srvt *t);
/*
 * Stops every thread: stopping, shutdown() of each live fd, a wait of up
 * to wait_s. true when none is left; false after a warning naming how many.
 */
bool srvt_stop(struct srvt *t);

#endif
