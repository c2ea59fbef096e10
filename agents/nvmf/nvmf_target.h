/* SPDX-License-Identifier: MIT */
/*
 * nvmf_target: the NVMe-oF target of one nvmf point, made through configfs
 * and removed in reverse order. Steps, each undone by nvt_down:
 *
 *   1  null_blk disk NVMFN_BLK_PREFIX<run>: memory_backed (what is written
 *      reads back), 4 KiB blocks, power on            (configfs nullb)
 *   2  subsystem NVMFN_NQN_PREFIX<run>, attr_allow_any_host=1
 *   3  its namespace 1 on that disk, enabled
 *   4  port nvmfn_port_id(run): rdma, the address family, --addr, 4420
 *   5  the subsystem linked into the port: nvmet-rdma listens from here on
 *
 * A step that fails leaves the steps before it for nvt_down. Names:
 * common/nvmfname.h. Uses libc, common/ and the engine's ag.h.
 */
#ifndef RDC_AGENTS_NVMF_TARGET_H
#define RDC_AGENTS_NVMF_TARGET_H

#include <stdint.h>

#include "common/ipaddr.h"
#include "common/nvmfname.h"

struct nvt {
	char run[8];
	char nqn[NVMFN_NQN_MAX + 1];
	char blk[16];
	unsigned port;
	int made;		/* the steps done, in the order above, sub-steps counted */
	/* the failed step's call word and object, for the fatal record */
	const char *call;
	char obj[160];
	int err;
};

/*
 * The target of nqn (one of ours: nvmfn_nqn_ours) on addr with a namespace of
 * mib MiB. 0, or -1 with t->call, t->obj and t->err naming the step.
 */
int nvt_up(struct nvt *t, const char *nqn, const struct ipa *addr, uint64_t mib);
/* Undoes every step nvt_up made, last first. 0, or -1 when one could not be undone. */
int nvt_down(struct nvt *t);

#endif
