// SPDX-License-Identifier: MIT
/*
 * The nvmf server agent: kserve.h's loop over the target of nvmf_target.h,
 * whose controllers are counted where the kernel shows them. See nvmf.h.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "agents/kserve.h"
#include "agents/nvmf/nvmf.h"
#include "agents/nvmf/nvmf_target.h"

/* nvmet's per-controller entries (debugfs, kernels that have them) */
#define NVS_DEBUGFS "/sys/kernel/debug/nvmet"

static int nvs_up(void *t, const struct ag_opts *o, struct kattr_fail *f)
{
	return nvt_up(t, o->nqn, &o->addr, o->slots, o->size, f);
}

/* The controllers the target holds now, or 0 when the kernel does not say. */
static uint64_t nvs_count(void *t)
{
	const struct nvt *v = t;
	char path[300];
	struct dirent *d;
	uint64_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), NVS_DEBUGFS "/%s", v->nqn);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += !strncmp(d->d_name, "ctrl", 4);
	closedir(dir);
	return n;
}

static int nvs_down(void *t)
{
	return nvt_down(t);
}

static const struct ks_ops nvs_ops = {
	.up = nvs_up, .count = nvs_count, .down = nvs_down, .port = NVMFN_TRSVCID,
};

int nvmf_server_run(const struct ag_opts *o)
{
	struct nvt t = { 0 };

	return ks_run(o, &nvs_ops, &t);
}
