// SPDX-License-Identifier: MIT
/*
 * The srp client agent: kclient.h's loop over one SCSI host per client,
 * logged in through ib_srp's add_target and removed through its remote
 * port (srp_host.h). See srp.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/ag.h"
#include "agents/kclient.h"
#include "agents/srp/srp.h"
#include "agents/srp/srp_host.h"
#include "common/srpname.h"

struct spc_ctx {
	const struct ag_opts *o;
	int *host;		/* each client's SCSI host, -1: none */
	unsigned run, port;
	char model[16];		/* of the run's LUN: srpname.h */
	char dest[IPA_STRLEN + 8];
};

static uint64_t spc_ext(const struct spc_ctx *x, uint32_t i)
{
	return srpn_ext(x->run, x->o->first_id + i);
}

static int spc_make(void *arg, uint32_t i, const char **call)
{
	struct spc_ctx *x = arg;
	struct srh_login l = { .dest = x->dest, .ext = spc_ext(x, i) };

	/* the target's module may come after this agent: read it per login */
	*call = "srpt_guid";
	if (srh_guid(&l.guid))
		return -1;
	*call = "srp_add_target";
	return srh_add(x->o->dev, x->port, &l, &x->host[i]);
}

static int spc_find(void *arg, uint32_t i, char *dev, size_t len)
{
	struct spc_ctx *x = arg;

	return srh_find(x->host[i], dev, len);
}

static void spc_remove(void *arg, uint32_t i)
{
	struct spc_ctx *x = arg;

	if (x->host[i] >= 0 && srh_delete(x->host[i], x->model))
		ag_warn("remove SCSI host%d (initiator_ext %016llx): %s", x->host[i],
			(unsigned long long)spc_ext(x, i), strerror(errno));
	x->host[i] = -1;
}

static const struct kc_ops spc_ops = {
	.make_call = "srp_add_target", .find_call = "srp_find", .write_call = "srp_write",
	.read_call = "srp_read", .make = spc_make, .find = spc_find, .remove = spc_remove,
};

int srp_client_run(const struct ag_opts *o)
{
	struct spc_ctx x = { .o = o };
	int ret;

	x.run = (unsigned)strtoul(o->run, NULL, 16);
	snprintf(x.model, sizeof(x.model), SRPN_PREFIX "%s", o->run);
	x.port = o->device.port ? o->device.port : 1;
	ipa_str_port(&o->addr, o->port, x.dest, sizeof(x.dest));
	x.host = calloc(o->clients, sizeof(*x.host));
	if (!x.host) {
		ag_fatal("calloc", "client state", ENOMEM);
		return 1;
	}
	for (uint32_t i = 0; i < o->clients; i++)
		x.host[i] = -1;
	ret = kc_run(o, &spc_ops, &x);
	free(x.host);
	return ret;
}
