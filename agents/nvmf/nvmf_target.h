/* SPDX-License-Identifier: MIT */
/*
 * nvmf_target: the NVMe-oF target of one nvmf point, made through configfs
 * and removed in reverse order. Steps, each undone by nvt_down:
 *
 *   1  the null_blk disk of the run (agents/nullb.h)
 *   2  subsystem NVMFN_NQN_PREFIX<run>, attr_allow_any_host=1
 *   3  its namespace 1 on that disk, enabled
 *   4  port nvmfn_port_id(run): rdma, the address family, --addr, 4420
 *   5  the subsystem linked into the port: nvmet-rdma listens from here on
 *
 * A step that fails leaves the steps before it for nvt_down. Names:
 * common/nvmfname.h. Uses libc, common/ and the engine's kattr.h, nullb.h.
 */
#ifndef RDC_AGENTS_NVMF_TARGET_H
#define RDC_AGENTS_NVMF_TARGET_H

#include <stdint.h>

#include "agents/kattr.h"
#include "agents/nullb.h"
#include "common/ipaddr.h"
#include "common/nvmfname.h"

struct nvt {
	char run[8];
	char nqn[NVMFN_NQN_MAX + 1];
	struct nullb disk;
	unsigned port;
	int made;		/* the steps after the disk, in the order above, sub-steps counted */
};

/*
 * The target of nqn (one of ours: nvmfn_nqn_ours) on addr with a namespace
 * of slots LBA ranges of size bytes. 0, or -1 with f naming the step.
 */
int nvt_up(struct nvt *t, const char *nqn, const struct ipa *addr, uint32_t slots,
	   uint32_t size, struct kattr_fail *f);
/* Undoes every step nvt_up made, last first. 0, or -1 when one could not be undone. */
int nvt_down(struct nvt *t);

#endif
