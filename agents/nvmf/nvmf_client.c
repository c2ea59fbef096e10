// SPDX-License-Identifier: MIT
/*
 * The nvmf client agent: kclient.h's loop over one controller per client,
 * made through /dev/nvme-fabrics and deleted through sysfs (nvmf_host.h).
 * See nvmf.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/kclient.h"
#include "agents/nvmf/nvmf.h"
#include "agents/nvmf/nvmf_host.h"
#include "common/nvmfname.h"

struct nvc_conn {
	int instance;		/* -1: no controller */
	char hostnqn[NVMFN_NQN_MAX + 1];
};

struct nvc_ctx {
	const struct ag_opts *o;
	struct nvc_conn *c;
	uint32_t run;
};

static int nvc_make(void *arg, uint32_t i, const char **call)
{
	struct nvc_ctx *x = arg;
	const struct ag_opts *o = x->o;
	struct nvc_conn *c = &x->c[i];
	char hostid[40];
	struct nvh_conn nc = { .traddr = o->addr_str, .nqn = o->nqn, .hostnqn = c->hostnqn,
			       .hostid = hostid, .io_queues = o->nvme_io_queues,
			       .queue_size = o->nvme_queue_size };
	int cntlid;

	*call = "nvh_host";
	if (nvh_host(o->nqn, x->run, o->first_id + i, c->hostnqn, sizeof(c->hostnqn), hostid,
		     sizeof(hostid))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*call = "nvmf_connect";
	if (nvh_connect(&nc, &c->instance, &cntlid)) {
		c->instance = -1;
		return -1;
	}
	return 0;
}

static int nvc_find(void *arg, uint32_t i, char *dev, size_t len)
{
	struct nvc_ctx *x = arg;

	return nvh_find(x->c[i].instance, dev, len);
}

static void nvc_remove(void *arg, uint32_t i)
{
	struct nvc_ctx *x = arg;
	struct nvc_conn *c = &x->c[i];

	if (c->instance >= 0 && nvh_delete(c->instance, c->hostnqn))
		ag_warn("delete controller nvme%d (%s): %s", c->instance, c->hostnqn,
			strerror(errno));
	c->instance = -1;
}

static const struct kc_ops nvc_ops = {
	.make_call = "nvmf_connect", .find_call = "nvme_find", .write_call = "nvme_write",
	.read_call = "nvme_read", .make = nvc_make, .find = nvc_find, .remove = nvc_remove,
};

int nvmf_client_run(const struct ag_opts *o)
{
	struct nvc_ctx x = { .o = o };
	int ret;

	x.run = (uint32_t)strtoul(nvmfn_nqn_run(o->nqn), NULL, 16);
	x.c = calloc(o->clients, sizeof(*x.c));
	if (!x.c) {
		ag_fatal("calloc", "client state", ENOMEM);
		return 1;
	}
	for (uint32_t i = 0; i < o->clients; i++)
		x.c[i].instance = -1;
	ret = kc_run(o, &nvc_ops, &x);
	free(x.c);
	return ret;
}
