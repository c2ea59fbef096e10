// SPDX-License-Identifier: MIT
/*
 * Record writers: one write(2) per record so lines from several threads never
 * interleave; once the record fd is gone every later record is dropped.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proto.h"

static int proto_fd = STDOUT_FILENO;
static atomic_bool proto_gone;

void proto_set_fd(int fd)
{
	proto_fd = fd;
}

bool proto_dead(void)
{
	return atomic_load(&proto_gone);
}

static void proto_warn(const char *what, int err)
{
	/* stderr loss is harmless: nothing to do if this fails */
	if (dprintf(STDERR_FILENO, "%s: %s: %s\n", program_invocation_short_name, what,
		    strerror(err)) < 0)
		return;
}

static int proto_write(const char *p, size_t len)
{
	struct pollfd pfd = { .fd = proto_fd, .events = POLLOUT };
	ssize_t w;

	while (len) {
		w = write(proto_fd, p, len);
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
		if (!atomic_exchange(&proto_gone, true))
			proto_warn("write stdout", errno);
		return -1;
	}
	return 0;
}

int proto_send(const struct proto_rec *r)
{
	char sbuf[512], *buf = sbuf;
	int n, ret;

	if (proto_dead())
		return -1;
	n = proto_format(r, sbuf, sizeof(sbuf));
	if (n < 0)
		return -1;
	if (n >= PROTO_LINE_MAX) {
		proto_warn(proto_type_name(r->type), EMSGSIZE);
		return -1;
	}
	if ((size_t)n >= sizeof(sbuf)) {
		buf = malloc((size_t)n + 1);
		if (!buf) {
			proto_warn("malloc record", errno);
			return -1;
		}
		proto_format(r, buf, (size_t)n + 1);
	}
	ret = proto_write(buf, (size_t)n);
	if (buf != sbuf)
		free(buf);
	return ret;
}

const char *proto_errname(int err)
{
	const char *s;

	if (!err)
		return "0";
	s = strerrorname_np(err);
	return s ? s : "EUNKNOWN";
}

int proto_hello_server(uint32_t ports, uint32_t port, long max_backlog)
{
	return proto_send(&(struct proto_rec){
		.type = PROTO_HELLO_SERVER,
		.hello_server = { getpid(), ports, port,
				  max_backlog < 0 ? PROTO_NONE_I : max_backlog } });
}

int proto_hello_client(uint32_t first, uint32_t clients)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_HELLO_CLIENT,
					       .hello_client = { getpid(), first, clients } });
}

int proto_drop(const char *peer, const char *reason)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_DROP, .drop = { peer, reason } });
}

int proto_result_server(const struct proto_result_server *s)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_RESULT_SERVER, .result_server = *s });
}

/*
 * Encodes h at buf + *off within len; the field points at it. Step histograms
 * share the room the latency one leaves, so a step that does not fit is left
 * out (a warning), never the record.
 */
static int proto_hist_put(const struct proto_hist *h, char *buf, size_t len, size_t *off,
			  const char **field)
{
	int n = proto_hist_encode(h, buf + *off, len - *off);

	if (n < 0)
		return -1;
	*field = buf + *off;
	*off += (size_t)n + 1;
	return 0;
}

int proto_result_client(const struct proto_result_client *c, const struct proto_hist *h,
			const struct proto_hist *steps)
{
	struct proto_rec r = { .type = PROTO_RESULT_CLIENT, .result_client = *c };
	/* the rest of the record (keys included) is well under 400 bytes */
	size_t len = PROTO_LINE_MAX - 400, off = 0;
	char *s = malloc(len);
	int ret, i;

	if (!s) {
		proto_warn("malloc histogram", errno);
		return -1;
	}
	if (proto_hist_put(h, s, len, &off, &r.result_client.hist)) {
		/* cannot happen for real latencies; keep the record parseable anyway */
		proto_warn("latency histogram omitted", EMSGSIZE);
		strcpy(s, "-");
		r.result_client.hist = s;
		off = 2;
	}
	for (i = 0; steps && i < PROTO_NSTEPS; i++) {
		r.result_client.steps[i] = NULL;
		if (steps[i].total &&
		    proto_hist_put(&steps[i], s, len, &off, &r.result_client.steps[i]))
			proto_warn(proto_step_name((enum proto_step)i), EMSGSIZE);
	}
	ret = proto_send(&r);
	free(s);
	return ret;
}

int proto_conn_ok(uint32_t id, uint64_t us)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_CONN_OK, .conn_ok = { id, us } });
}

static int proto_fail(enum proto_type t, uint32_t id, const char *call, int err,
		      const char *errname, bool at_server, int64_t status)
{
	return proto_send(&(struct proto_rec){
		.type = t,
		.fail = { id, call, err, errname ? errname : proto_errname(err), at_server,
			  status < 0 ? PROTO_NONE_I : status } });
}

int proto_conn_fail(uint32_t id, const char *call, int err, const char *errname,
		    bool at_server, int64_t status)
{
	return proto_fail(PROTO_CONN_FAIL, id, call, err, errname, at_server, status);
}

int proto_connected(uint32_t ok, uint32_t fail, uint64_t us)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_CONNECTED,
					       .connected = { ok, fail, us } });
}

int proto_msg_fail(uint32_t id, const char *call, int err, const char *errname)
{
	return proto_fail(PROTO_MSG_FAIL, id, call, err, errname, false, -1);
}

int proto_verify_fail(uint32_t id, uint32_t seq)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_VERIFY_FAIL,
					       .verify_fail = { id, seq } });
}

int proto_error(const char *call, int err)
{
	return proto_fail(PROTO_ERROR, 0, call, err, NULL, false, -1);
}

int proto_bye(void)
{
	return proto_send(&(struct proto_rec){ .type = PROTO_BYE });
}
