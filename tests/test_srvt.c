// SPDX-License-Identifier: MIT
/*
 * Unit tests of the thread-model servers' sessions (agents/srv/threads.c) on
 * loopback TCP, no device needed: a spawned thread gets TCP_NODELAY and the
 * timeouts, a peer's close is news, the stop unblocks a thread in read() and
 * its end is not news, a thread that ignores the stop is waited for no
 * longer than wait_s, and an fd beyond the table is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents/srv/srv.h"
#include "agents/srv/threads.h"
#include "common/clock.h"
#include "tap/tap.h"

static struct tap T;
static atomic_bool t_release;

/* one session: reads to its end, or (hang) waits for t_release */
struct t_sess {
	struct srvt *t;
	int fd;
	bool hang;
	atomic_int quiet;	/* srvt_end's answer, -1 before */
};

static void *t_sess(void *arg)
{
	struct t_sess *x = arg;
	char b[64];

	if (x->hang)
		while (!atomic_load(&t_release))
			usleep(1000);
	else
		while (read(x->fd, b, sizeof(b)) > 0)
			;
	atomic_store(&x->quiet, srvt_end(x->t, x->fd));
	srvt_gone(x->t);
	return NULL;
}

/* A connected loopback pair: *cli the client's end, the accepted end returned; -1 on failure. */
static int t_pair(int *cli)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int lis, fd = -1;

	*cli = -1;
	lis = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lis < 0)
		return -1;
	if (bind(lis, (struct sockaddr *)&sa, sizeof(sa)) || listen(lis, 1) ||
	    getsockname(lis, (struct sockaddr *)&sa, &len))
		goto out;
	*cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*cli < 0 || connect(*cli, (struct sockaddr *)&sa, sizeof(sa)))
		goto out;
	fd = accept4(lis, NULL, NULL, SOCK_CLOEXEC);
out:
	close(lis);
	return fd;
}

static int t_opt(int fd, int level, int name)
{
	struct timeval tv = { 0 };
	socklen_t len = sizeof(tv);
	int v = 0;

	if (name == TCP_NODELAY) {
		len = sizeof(v);
		return getsockopt(fd, level, name, &v, &len) ? -1 : v;
	}
	return getsockopt(fd, level, name, &tv, &len) ? -1 : (int)tv.tv_sec;
}

/* Until x has ended and t has no thread left, at most 2 s: 0 when it did. */
static int t_wait_gone(struct srvt *t, struct t_sess *x)
{
	unsigned n = 1;

	for (int i = 0; i < 2000 && (n || atomic_load(&x->quiet) < 0); i++) {
		usleep(1000);
		pthread_mutex_lock(&t->mu);
		n = t->n;
		pthread_mutex_unlock(&t->mu);
	}
	return n || atomic_load(&x->quiet) < 0 ? -1 : 0;
}

static void t_sessions(void)
{
	struct srvt t = { .what = "test threads", .timeout_s = 7, .rcvtimeo = true, .wait_s = 1 };
	struct t_sess a = { .t = &t, .quiet = -1 }, b = { .t = &t, .quiet = -1 };
	int cli_a, cli_b;
	uint64_t t0;
	bool ok;

	if (srvt_init(&t, 64 * 1024)) {
		tap_ok(&T, 0, "srvt_init");
		return;
	}
	tap_ok(&T, t.nfd == srv_fd_limit() && t.maxfd == -1 && !t.n,
	       "srvt_init: a table of the fd limit (%u), no thread", t.nfd);
	a.fd = t_pair(&cli_a);
	b.fd = t_pair(&cli_b);
	if (a.fd < 0 || b.fd < 0 || cli_a < 0 || cli_b < 0) {
		tap_ok(&T, 0, "loopback pairs");
		return;
	}
	ok = !srvt_spawn(&t, a.fd, t_sess, &a);
	tap_ok(&T, ok && t_opt(a.fd, IPPROTO_TCP, TCP_NODELAY) > 0 &&
		   t_opt(a.fd, SOL_SOCKET, SO_SNDTIMEO) == 7 &&
		   t_opt(a.fd, SOL_SOCKET, SO_RCVTIMEO) == 7,
	       "spawn: TCP_NODELAY, SO_SNDTIMEO and SO_RCVTIMEO of timeout_s");
	tap_ok(&T, !srvt_spawn(&t, b.fd, t_sess, &b), "a second session spawns");
	pthread_mutex_lock(&t.mu);
	ok = t.n == 2 && t.live[a.fd] && t.live[b.fd];
	pthread_mutex_unlock(&t.mu);
	tap_ok(&T, ok, "two threads running, both fds live");
	close(cli_a);
	for (int i = 0; i < 2000 && atomic_load(&a.quiet) < 0; i++)
		usleep(1000);
	tap_ok(&T, !atomic_load(&a.quiet),
	       "a peer's close before the stop is news");
	t0 = clock_ns();
	ok = srvt_stop(&t);
	tap_ok(&T, ok && !t.n && atomic_load(&b.quiet) == 1 && clock_ns() - t0 < 1000000000ull,
	       "the stop unblocks a thread in read(), whose end is not news");
	close(cli_b);
	srvt_fini(&t);
}

static void t_hang(void)
{
	struct srvt t = { .what = "test threads", .timeout_s = 7, .wait_s = 1 };
	struct t_sess h = { .t = &t, .hang = true, .quiet = -1 };
	int cli;
	uint64_t t0, ns;
	bool ok;

	if (srvt_init(&t, 64 * 1024)) {
		tap_ok(&T, 0, "srvt_init");
		return;
	}
	h.fd = t_pair(&cli);
	if (h.fd < 0 || cli < 0 || srvt_spawn(&t, h.fd, t_sess, &h)) {
		tap_ok(&T, 0, "a hanging session");
		return;
	}
	tap_ok(&T, t_opt(h.fd, SOL_SOCKET, SO_RCVTIMEO) == 0, "no rcvtimeo: no SO_RCVTIMEO");
	t0 = clock_ns();
	ok = srvt_stop(&t);
	ns = clock_ns() - t0;
	tap_ok(&T, !ok && ns >= 1000000000ull && ns < 2000000000ull,
	       "a thread that ignores the stop is waited for wait_s, then left (%llu ms)",
	       (unsigned long long)(ns / 1000000));
	atomic_store(&t_release, true);
	tap_ok(&T, !t_wait_gone(&t, &h) && atomic_load(&h.quiet) == 1, "its late end is not news");
	close(cli);
	srvt_fini(&t);
}

static void t_beyond(void)
{
	struct srvt t = { .what = "test threads", .timeout_s = 7, .wait_s = 1 };
	int fd;

	if (srvt_init(&t, 64 * 1024)) {
		tap_ok(&T, 0, "srvt_init");
		return;
	}
	fd = dup(STDERR_FILENO);
	t.nfd = (uint32_t)fd;
	tap_ok(&T, fd >= 0 && srvt_spawn(&t, fd, t_sess, NULL) == EMFILE && !t.n,
	       "an fd beyond the table: EMFILE, no thread");
	close(fd);
	srvt_fini(&t);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 10);
	t_sessions();
	t_hang();
	t_beyond();
	tap_totals(&T);
	return tap_exit_code(&T);
}
