// SPDX-License-Identifier: MIT
/*
 * The server agent of a kernel service (kserve.h).
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/kserve.h"
#include "common/proto.h"

/* how often the target's sessions are counted */
#define KS_TICK_MS 1000

/* stdin until stop or EOF; the most sessions seen at once into *peak */
static int ks_wait(const struct ks_ops *ops, void *t, uint64_t *peak)
{
	struct ctl c;
	enum ctl_cmd cmd;

	if (ctl_init(&c, STDIN_FILENO)) {
		ag_fatal("fcntl", "stdin", errno);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = c.fd, .events = POLLIN };
		uint64_t n = ops->count(t);

		*peak = n > *peak ? n : *peak;
		if (c.pollable && poll(&p, 1, KS_TICK_MS) < 0 && errno != EINTR) {
			ag_fatal("poll", "stdin", errno);
			return -1;
		}
		while ((cmd = ctl_next(&c)) != CTL_NONE)
			if (cmd == CTL_STOP || cmd == CTL_EOF)
				return 0;
		if (!c.pollable)
			usleep(KS_TICK_MS * 1000);
	}
}

int ks_run(const struct ag_opts *o, const struct ks_ops *ops, void *t)
{
	struct kattr_fail f = { 0 };
	uint64_t peak = 0;
	int ret = 1;

	if (ops->up(t, o, &f)) {
		errno = f.err;
		ag_fatal(f.call, f.obj, f.err);
		goto out;
	}
	if (proto_hello_server(1, ops->port, -1) || ks_wait(ops, t, &peak))
		goto out;
	if (proto_result_server(&(struct proto_result_server){
		    .accepted = peak, .peak = peak, .echoed = 0, .bytes = 0, .dropped = 0,
		    .rejected = PROTO_NONE, .cq_events = PROTO_NONE, .ah = PROTO_NONE,
		    .ah_made = PROTO_NONE, .cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE }))
		goto out;
	ret = 0;
out:
	if (ops->down(t))
		ret = 1;
	if (!ret)
		proto_bye();
	return ret;
}
