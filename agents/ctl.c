// SPDX-License-Identifier: MIT
/*
 * Line reader for orchestrator commands on a nonblocking fd.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "common/proto.h"

int ctl_init(struct ctl *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->pollable = true;
	if (ag_nonblock(fd)) {
		ag_warn("fcntl stdin O_NONBLOCK: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int ctl_watch(struct ctl *c, int epfd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	if (!epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev))
		return 0;
	/* files and /dev/null never block: read them every loop turn instead */
	if (errno == EPERM) {
		c->pollable = false;
		return 0;
	}
	ag_warn("epoll_ctl stdin: %s", strerror(errno));
	return -1;
}

const char *ctl_name(enum ctl_cmd cmd)
{
	switch (cmd) {
	case CTL_GO: return proto_cmd_word(PROTO_CMD_GO);
	case CTL_RUN: return proto_cmd_word(PROTO_CMD_RUN);
	case CTL_STOP: return proto_cmd_word(PROTO_CMD_STOP);
	case CTL_EOF: return "eof";
	default: return "none";
	}
}

static enum ctl_cmd ctl_parse(const char *line, size_t len)
{
	static const enum ctl_cmd of[PROTO_NCMDS] = {
		[PROTO_CMD_GO] = CTL_GO, [PROTO_CMD_RUN] = CTL_RUN, [PROTO_CMD_STOP] = CTL_STOP
	};
	int c = proto_cmd_parse(line, len);

	/* --fault kill-server through a launcher: the kill by pid it stands for */
	if (c == PROTO_CMD_KILL)
		raise(SIGKILL);

	if (c >= 0)
		return of[c];
	if (len)
		ag_warn("stdin: unknown command '%.*s' ignored", (int)(len < 40 ? len : 40), line);
	return CTL_NONE;
}

/* Next complete line from the buffer, or CTL_NONE without consuming anything. */
static enum ctl_cmd ctl_take(struct ctl *c, bool *got)
{
	char *nl = memchr(c->buf, '\n', c->len);
	enum ctl_cmd cmd = CTL_NONE;
	size_t n;

	*got = false;
	if (!nl) {
		if (c->len == sizeof(c->buf)) {
			ag_warn("stdin: command line too long, dropped");
			c->skipping = true;
			c->len = 0;
		}
		return CTL_NONE;
	}
	*got = true;
	n = (size_t)(nl - c->buf);
	if (!c->skipping)
		cmd = ctl_parse(c->buf, n);
	c->skipping = false;
	memmove(c->buf, nl + 1, c->len - n - 1);
	c->len -= n + 1;
	return cmd;
}

enum ctl_cmd ctl_next(struct ctl *c)
{
	enum ctl_cmd cmd;
	ssize_t r;
	bool got;

	for (;;) {
		do {
			cmd = ctl_take(c, &got);
			if (cmd != CTL_NONE)
				return cmd;
		} while (got);
		if (c->eof)
			return CTL_EOF;
		r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (r > 0) {
			c->len += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return CTL_NONE;
		if (r < 0)
			ag_warn("read stdin: %s", strerror(errno));
		/* an unterminated last line is not a command: the writer died mid-line */
		c->eof = true;
		return CTL_EOF;
	}
}
