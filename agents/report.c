// SPDX-License-Identifier: MIT
/*
 * Protocol record output and the latency histogram.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/report.h"

static int rep_fd = STDOUT_FILENO;
static atomic_bool rep_gone;

void rep_set_fd(int fd)
{
	rep_fd = fd;
}

bool rep_dead(void)
{
	return atomic_load(&rep_gone);
}

void ag_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write so concurrent threads keep whole lines; stderr loss is harmless */
	if (dprintf(STDERR_FILENO, AG_PROG ": %.*s", n, buf) < 0)
		return;
}

static int rep_write(const char *p, size_t len)
{
	struct pollfd pfd = { .fd = rep_fd, .events = POLLOUT };
	ssize_t w;

	while (len) {
		w = write(rep_fd, p, len);
		if (w >= 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		/*
		 * stdout shares its file description with a nonblocking stdin when
		 * both are one socket or tty; wait for room rather than lose a record.
		 */
		if (errno == EAGAIN) {
			if (poll(&pfd, 1, 10000) > 0)
				continue;
			errno = ETIMEDOUT;
		}
		if (!atomic_exchange(&rep_gone, true))
			ag_warn("write stdout: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int rep_line(const char *fmt, ...)
{
	char sbuf[1024], *buf = sbuf;
	va_list ap;
	int n, ret;

	if (rep_dead())
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(sbuf, sizeof(sbuf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (n >= PROTO_LINE_MAX) {
		ag_warn("record longer than %d bytes dropped", PROTO_LINE_MAX);
		return -1;
	}
	if ((size_t)n >= sizeof(sbuf) - 1) {
		buf = malloc((size_t)n + 2);
		if (!buf) {
			ag_warn("malloc record: %s", strerror(errno));
			return -1;
		}
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	buf[n] = '\n';
	ret = rep_write(buf, (size_t)n + 1);
	if (buf != sbuf)
		free(buf);
	return ret;
}

const char *rep_errname(int err)
{
	const char *s;

	if (!err)
		return "0";
	s = strerrorname_np(err);
	return s ? s : "EUNKNOWN";
}

void rep_fatal(const char *call, const char *obj, int err)
{
	ag_warn("%s %s: %s", call, obj, strerror(err));
	rep_line("error call=%s errno=%d err=%s", call, err, rep_errname(err));
}

void rep_hist_add(struct rep_hist *h, uint64_t ns)
{
	h->n[proto_hist_bucket(ns)]++;
	h->total++;
}

int rep_hist_encode(const struct rep_hist *h, char *buf, size_t len)
{
	size_t off = 0;
	unsigned b;
	int n;

	if (len < 2)
		return -1;
	buf[0] = '\0';
	for (b = 0; b < PROTO_HIST_BUCKETS; b++) {
		if (!h->n[b])
			continue;
		n = snprintf(buf + off, len - off, "%s%u:%llu", off ? "," : "", b,
			     (unsigned long long)h->n[b]);
		if (n < 0 || (size_t)n >= len - off)
			return -1;
		off += (size_t)n;
	}
	if (!off) {
		strcpy(buf, "-");
		off = 1;
	}
	return (int)off;
}

static int rep_num(const char **sp, uint64_t *v)
{
	const char *s = *sp;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return -1;
	/* no leading zeros: the encoding is canonical */
	if (*s == '0' && s[1] >= '0' && s[1] <= '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*sp = s;
	*v = x;
	return 0;
}

int rep_hist_decode(struct rep_hist *h, const char *s)
{
	uint64_t b, c;
	long last = -1;

	memset(h, 0, sizeof(*h));
	if (!strcmp(s, "-"))
		return 0;
	for (;;) {
		if (rep_num(&s, &b) || *s++ != ':' || rep_num(&s, &c))
			return -1;
		if (b >= PROTO_HIST_BUCKETS || (long)b <= last || !c ||
		    h->total + c < h->total)
			return -1;
		h->n[b] = c;
		h->total += c;
		last = (long)b;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}
