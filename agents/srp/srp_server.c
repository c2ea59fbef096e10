// SPDX-License-Identifier: MIT
/*
 * The srp server agent: kserve.h's loop over the target of srp_target.h.
 * LIO shows an ACL's sessions to no attribute a program reads, so they are
 * not counted here: RDMA netlink counts the channels. See srp.h.
 */
#include "agents/kserve.h"
#include "agents/srp/srp.h"
#include "agents/srp/srp_target.h"
#include "common/srpname.h"

static int srs_up(void *t, const struct ag_opts *o, struct kattr_fail *f)
{
	return srt_up(t, o->run, o->dev, o->device.port ? o->device.port : 1, &o->addr,
		      o->slots, o->size, f);
}

static uint64_t srs_count(void *t)
{
	(void)t;
	return 0;
}

static int srs_down(void *t)
{
	return srt_down(t);
}

static const struct ks_ops srs_ops = {
	.up = srs_up, .count = srs_count, .down = srs_down, .port = SRPN_CM_PORT,
};

int srp_server_run(const struct ag_opts *o)
{
	struct srt t = { 0 };

	return ks_run(o, &srs_ops, &t);
}
