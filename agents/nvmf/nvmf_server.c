// SPDX-License-Identifier: MIT
/*
 * The nvmf server agent: the target made (nvmf_target.h), hello, then stdin
 * until "stop" or EOF, the target's controllers counted once a second, the
 * result, the target removed, bye. See nvmf.h.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/ctl.h"
#include "agents/nvmf/nvmf.h"
#include "agents/nvmf/nvmf_target.h"
#include "common/proto.h"

/* nvmet's per-controller entries (debugfs, kernels that have them) */
#define NVS_DEBUGFS "/sys/kernel/debug/nvmet"
#define NVS_TICK_MS 1000
/* a null_blk is at least this big, whatever the clients need */
#define NVS_MIN_MIB 16

/* The controllers the target holds now, or 0 when the kernel does not say. */
static uint64_t nvs_ctrls(const char *nqn)
{
	char path[300];
	struct dirent *d;
	uint64_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), NVS_DEBUGFS "/%s", nqn);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += !strncmp(d->d_name, "ctrl", 4);
	closedir(dir);
	return n;
}

/* stdin until stop or EOF; the most controllers seen at once into *peak */
static int nvs_wait(const struct ag_opts *o, uint64_t *peak)
{
	struct ctl c;
	enum ctl_cmd cmd;

	if (ctl_init(&c, STDIN_FILENO)) {
		ag_fatal("fcntl", "stdin", errno);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = c.fd, .events = POLLIN };
		uint64_t n = nvs_ctrls(o->nqn);

		*peak = n > *peak ? n : *peak;
		if (c.pollable && poll(&p, 1, NVS_TICK_MS) < 0 && errno != EINTR) {
			ag_fatal("poll", "stdin", errno);
			return -1;
		}
		while ((cmd = ctl_next(&c)) != CTL_NONE)
			if (cmd == CTL_STOP || cmd == CTL_EOF)
				return 0;
		if (!c.pollable)
			usleep(NVS_TICK_MS * 1000);
	}
}

int nvmf_server_run(const struct ag_opts *o)
{
	uint64_t bytes = (uint64_t)o->slots * nvmf_slot_bytes(o->size);
	uint64_t mib = (bytes + (1 << 20) - 1) >> 20, peak = 0;
	struct nvt t;
	int ret = 1;

	if (mib < NVS_MIN_MIB)
		mib = NVS_MIN_MIB;
	if (nvt_up(&t, o->nqn, &o->addr, mib)) {
		errno = t.err;
		ag_fatal(t.call, t.obj, t.err);
		goto out;
	}
	if (proto_hello_server(1, NVMFN_TRSVCID, -1) || nvs_wait(o, &peak))
		goto out;
	if (proto_result_server(&(struct proto_result_server){
		    .accepted = peak, .peak = peak, .echoed = 0, .bytes = 0, .dropped = 0,
		    .rejected = PROTO_NONE, .cq_events = PROTO_NONE, .ah = PROTO_NONE,
		    .ah_made = PROTO_NONE, .cq_arms = PROTO_NONE, .cq_spins = PROTO_NONE }))
		goto out;
	ret = 0;
out:
	if (nvt_down(&t))
		ret = 1;
	if (!ret)
		proto_bye();
	return ret;
}
