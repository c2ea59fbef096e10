/* SPDX-License-Identifier: MIT */
/*
 * nvmfname: the names of what an nvmf point makes in the kernel, the one place
 * both programs read them: the nvmf server agent makes them (agents/nvmf/),
 * `rdmacap down` finds a killed run's by them (harness/ulp/). Everything is
 * named after the run ("rdc" and its 4 hex digits, as netns/ names its
 * objects), so no other nvmet configuration of the host is ever touched.
 *
 *   target subsystem  NVMFN_NQN_PREFIX <run>      nqn.2014-08.org.rdmacap:rdc1a2b
 *   null_blk device   NVMFN_BLK_PREFIX <run>      /sys/kernel/config/nullb/rdc1a2b
 *                                                (its disk: /dev/rdc1a2b)
 *   nvmet port        nvmfn_port_id(run)          /sys/kernel/config/nvmet/ports/61440+
 *   host NQN          <subsystem NQN>:host:<id>  one per client (controller)
 *
 * nvmet port directories are numbers, not names: a port rdmacap made is one
 * whose id is in [NVMFN_PORT_BASE, NVMFN_PORT_BASE + 4096) and whose
 * subsystems are rdmacap's only. Uses libc only.
 */
#ifndef RDC_COMMON_NVMFNAME_H
#define RDC_COMMON_NVMFNAME_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NVMFN_NQN_PREFIX "nqn.2014-08.org.rdmacap:rdc"
#define NVMFN_BLK_PREFIX "rdc"
/* NVMe/RDMA's IANA port: the one an initiator tries when none is given */
#define NVMFN_TRSVCID 4420
#define NVMFN_PORT_BASE 0xf000u
#define NVMFN_CONFIGFS "/sys/kernel/config"
#define NVMFN_NVMET NVMFN_CONFIGFS "/nvmet"
#define NVMFN_NULLB NVMFN_CONFIGFS "/nullb"
/* nvme-fabrics' NVMF_NQN_SIZE less its NUL */
#define NVMFN_NQN_MAX 222

/* The nvmet port id of run (4 hex digits): 0, or the id. */
static inline unsigned nvmfn_port_id(const char *run)
{
	char *end;
	unsigned long v = strtoul(run, &end, 16);

	return *run && !*end && v <= 0xffff ? NVMFN_PORT_BASE + (unsigned)(v & 0xfff) : 0;
}

/* An NQN of rdmacap's: the prefix, then the run's [0-9a-f] and nothing else. */
static inline bool nvmfn_nqn_ours(const char *nqn)
{
	size_t n = strlen(NVMFN_NQN_PREFIX), l = strlen(nqn);

	return l > n && l - n <= 8 && !strncmp(nqn, NVMFN_NQN_PREFIX, n) &&
	       strspn(nqn + n, "0123456789abcdef") == l - n;
}

/* The run id of one of our NQNs (nvmfn_nqn_ours): the text after the prefix. */
static inline const char *nvmfn_nqn_run(const char *nqn)
{
	return nqn + strlen(NVMFN_NQN_PREFIX);
}

#endif
